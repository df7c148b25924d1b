// Package validity judges a measured step by the rules TPC-C sets for a
// valid measurement interval: the mix minimums, the New-Order rollback
// share, the remote shares (more than one warehouse), skipped deliveries,
// the 90th-percentile response times, the isolation level, 10 terminals
// per warehouse, keying and think times, and the interval's length. It reads only what the store
// holds for the step and its run; a step that is not valid still counts,
// marked with its violations.
package validity

import (
	"fmt"
	"time"

	"github.com/rightsize/rightsize/store"
	"github.com/rightsize/rightsize/tpcc"
)

// Rules are the limits a verdict applies.
var (
	// MixMinimums are the smallest shares (%) of all completed
	// transactions (clause 5.2.3); New-Order takes the rest.
	MixMinimums = map[string]float64{"payment": 43, "order_status": 4, "delivery": 4, "stock_level": 4}
	// P90Limits are the 90th-percentile response-time limits (clause
	// 5.2.5.3); Delivery's is its interactive (queueing) limit, which a
	// synchronous Delivery meets or not as a whole.
	P90Limits = map[string]time.Duration{tpcc.NewOrderTxn.String(): 5 * time.Second, "payment": 5 * time.Second,
		"order_status": 5 * time.Second, "delivery": 5 * time.Second, "stock_level": 20 * time.Second}
	// RollbackShare, RemoteLineShare and RemotePaymentShare are the
	// allowed ranges (%) of rolled-back New-Orders, remote order lines and
	// remote Payments (clause 5.5.1.5; the remote shares only with more
	// than one warehouse).
	RollbackShare      = [2]float64{0.9, 1.1}
	RemoteLineShare    = [2]float64{0.95, 1.05}
	RemotePaymentShare = [2]float64{14, 16}
	// MaxSkippedShare is the largest share (%) of skipped district
	// deliveries per Delivery transaction (clause 2.7.4.2).
	MaxSkippedShare = 1.0
	// DeferredDeadline is the time from queueing within which 90 % of
	// deferred Deliveries must complete (clause 5.2.5.3).
	DeferredDeadline = 80 * time.Second
	// MinInterval is the shortest measurement interval of a reportable
	// result.
	MinInterval = 120 * time.Minute
	// TerminalsPerWarehouse is the population of terminals each warehouse
	// serves (clause 4.2.2), each with its own district (2.8.1.1).
	TerminalsPerWarehouse = 10
)

// Step returns the verdict on step s of run.
func Step(run *store.Run, s *store.Step) store.Validity {
	var v []string
	add := func(format string, a ...any) { v = append(v, fmt.Sprintf(format, a...)) }
	counts := map[string]int64{}
	txn := map[string]store.TxnSummary{}
	var total int64
	for _, t := range s.Txn {
		txn[t.Type] = t
		if t.Type == store.DeferredDeliveryType {
			continue // the terminals' Deliveries are counted at queueing
		}
		counts[t.Type] += t.Count
		total += t.Count
	}
	if s.Partial {
		add("the step was interrupted before the end of its measurement interval")
	}
	if total == 0 {
		add("no transaction completed")
	}
	shares, chance := shareViolations(run, s, counts, txn[tpcc.Merit.Txn].Rollbacks, total)
	v = append(v, shares...)
	if d := counts["delivery"]; d > 0 && share(s.SkippedDeliveries, d) > MaxSkippedShare {
		add("skipped deliveries: %d districts in %d Deliveries (%.2f %%), above %.0f %% (2.7.4.2)",
			s.SkippedDeliveries, d, share(s.SkippedDeliveries, d), MaxSkippedShare)
	}
	for t := range tpcc.NumTxnTypes {
		ty := t.String()
		limit := P90Limits[ty]
		if p90 := time.Duration(txn[ty].P90Ms * float64(time.Millisecond)); counts[ty] > 0 && p90 > limit {
			add("%s 90th percentile %s, above %s (5.2.5.3)", ty, p90.Round(time.Millisecond), limit)
		}
	}
	if d, ok := txn[store.DeferredDeliveryType]; ok {
		v = append(v, deferredViolations(d)...)
	}
	switch run.Isolation {
	case "spec":
	case "":
		add("isolation not recorded: level 3 (3.4) not shown")
	default:
		add("isolation %s is below level 3 (3.4): not spec-compliant", run.Isolation)
	}
	if want := TerminalsPerWarehouse * run.Warehouses; s.Users > 0 && s.Users != want {
		wh := fmt.Sprintf("%d warehouses", run.Warehouses)
		if run.Warehouses == 1 {
			wh = "1 warehouse"
		}
		add("%d users on %s: TPC-C drives %d terminals per warehouse (%d), each with its own district (4.2.2, 2.8.1.1)",
			s.Users, wh, TerminalsPerWarehouse, want)
	}
	if !run.KeyingThinking {
		add("no keying or think time: not a TPC-C result (5.2.5)")
	}
	if m := s.Measured(); m < MinInterval {
		add("measurement interval %s, shorter than %s (5.5)", m.Round(time.Second), MinInterval)
	}
	return store.Validity{Valid: len(v) == 0, Violations: append([]string{}, v...), Chance: chance}
}

// shareViolations judges the mix minimums, the rollback share and the
// remote shares, each violation with its sampling spread (chance.go).
func shareViolations(run *store.Run, s *store.Step, counts map[string]int64, rollbacks, total int64) ([]string, []store.Chance) {
	var v []string
	var chance []store.Chance
	add := func(c store.Chance, at, format string, a ...any) {
		chance = append(chance, c)
		v = append(v, fmt.Sprintf(format, a...)+": "+chanceNote(c, at))
	}
	for _, ty := range []tpcc.TxnType{tpcc.PaymentTxn, tpcc.OrderStatusTxn, tpcc.DeliveryTxn, tpcc.StockLevelTxn} {
		name := ty.String()
		if total > 0 && share(counts[name], total) < MixMinimums[name] {
			at := counted(total, "transactions") + " on " + counted(int64(s.Users), "users")
			add(deckChance(ty, counts[name], total, s.Users), at, "mix: %s %.2f %% of transactions, below the %.0f %% minimum (5.2.3)",
				name, share(counts[name], total), MixMinimums[name])
		}
	}
	if no := counts[tpcc.Merit.Txn]; no > 0 {
		if r := share(rollbacks, no); outside(r, RollbackShare) {
			add(binomialChance("rollbacks", rollbacks, no, rollbackP), counted(no, "New-Orders"),
				"New-Order rollbacks %.2f %%, outside %.1f-%.1f %% (2.4.1.4, 5.5.1.5)", r, RollbackShare[0], RollbackShare[1])
		}
	}
	if run.Warehouses <= 1 {
		return v, chance
	}
	if s.OrderLines > 0 {
		if r := share(s.RemoteOrderLines, s.OrderLines); outside(r, RemoteLineShare) {
			add(binomialChance("remote_order_lines", s.RemoteOrderLines, s.OrderLines, remoteLineP), counted(s.OrderLines, "order lines"),
				"remote order lines %.2f %%, outside %.2f-%.2f %% (5.5.1.5)", r, RemoteLineShare[0], RemoteLineShare[1])
		}
	}
	if p := counts["payment"]; p > 0 {
		if r := share(s.RemotePayments, p); outside(r, RemotePaymentShare) {
			add(binomialChance("remote_payments", s.RemotePayments, p, remotePaymentP), counted(p, "Payments"),
				"remote payments %.2f %%, outside %.0f-%.0f %% (5.5.1.5)", r, RemotePaymentShare[0], RemotePaymentShare[1])
		}
	}
	return v, chance
}

func share(n, of int64) float64 { return 100 * float64(n) / float64(of) }

func outside(x float64, r [2]float64) bool { return x < r[0] || x > r[1] }

// deferredViolations judges the deferred executions of the Deliveries
// queued in the interval: at least 90 % complete within DeferredDeadline
// of being queued (5.2.5.3). Those not run by the end of the step count
// against it.
func deferredViolations(d store.TxnSummary) []string {
	var v []string
	if queued := d.Count + d.Errors; queued > 0 && share(d.Errors, queued) > 10 {
		v = append(v, fmt.Sprintf("deferred Delivery: %d of %d queued did not complete (%.1f %%; 90 %% must within %s, 2.7.2, 5.2.5.3)",
			d.Errors, queued, share(d.Errors, queued), DeferredDeadline))
	}
	if p90 := time.Duration(d.P90Ms * float64(time.Millisecond)); d.Count > 0 && p90 > DeferredDeadline {
		v = append(v, fmt.Sprintf("deferred Delivery 90th percentile %s from queueing, above %s (5.2.5.3)", p90.Round(time.Millisecond), DeferredDeadline))
	}
	return v
}
