package analysis

import (
	"sort"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/rightsize/rightsize/store"
)

// MergeWorkerSteps merges the same step measured by several workers into
// the step one process driving all their users would have stored: users,
// counts, TPM and NOPM added; latency histograms merged exactly (percentiles
// from the merged histogram); per-second counts summed on the earliest
// worker's time base, 10 s windows merged by offset; driver CPU added; the
// host and server figures are those of the first part (every worker sees
// the same database server). The result is partial when a part is.
func MergeWorkerSteps(runID string, parts []*store.Step) store.Step {
	first := parts[0]
	m := store.Step{RunID: runID, Repeat: first.Repeat, Index: first.Index, Start: first.Start, MeasureStart: first.MeasureStart,
		MeasureEnd: first.MeasureEnd, Host: first.Host, Procs: first.Procs, ServerCPUUsPerTxn: first.ServerCPUUsPerTxn,
		DB: first.DB, Samples: first.Samples}
	var cpuUs, lagMs, txn float64
	m.DriverCPUPct = 0
	for _, p := range parts {
		m.Users += p.Users
		m.Partial = m.Partial || p.Partial
		m.TPM += p.TPM
		m.NOPM += p.NOPM
		m.DriverCPUPct += p.DriverCPUPct
		m.SkippedDeliveries += p.SkippedDeliveries
		m.OrderLines += p.OrderLines
		m.RemoteOrderLines += p.RemoteOrderLines
		m.RemotePayments += p.RemotePayments
		m.Reconnects += p.Reconnects
		m.LateTxns += p.LateTxns
		m.SkippedTxns += p.SkippedTxns
		if p.Start.Before(m.Start) {
			m.Start = p.Start
		}
		if p.MeasureStart.Before(m.MeasureStart) {
			m.MeasureStart = p.MeasureStart
		}
		if p.MeasureEnd.After(m.MeasureEnd) {
			m.MeasureEnd = p.MeasureEnd
		}
		n := float64(completed(p))
		cpuUs += p.DriverCPUUsPerTxn * n
		lagMs += p.ScheduleLagMs * n
		m.ScheduleLagMaxMs = max(m.ScheduleLagMaxMs, p.ScheduleLagMaxMs)
		txn += n
	}
	if m.Users > 0 {
		m.TPMPerUser = m.TPM / float64(m.Users)
	}
	if txn > 0 {
		m.DriverCPUUsPerTxn, m.ScheduleLagMs = cpuUs/txn, lagMs/txn
	}
	m.Txn = mergeTxn(parts)
	m.Statements = MergeStatements(parts)
	m.Seconds = mergeSeconds(m.Start, parts)
	m.Windows = mergeWindows(parts)
	return m
}

// completed is the step's completed transactions (every type).
func completed(s *store.Step) int64 {
	var n int64
	for _, t := range s.Txn {
		n += t.Count
	}
	return n
}

// mergeSeconds sums per-second counts on the time base start (each part's
// offsets shifted by the whole seconds its start is after start).
func mergeSeconds(start time.Time, parts []*store.Step) []store.Second {
	var out []store.Second
	for _, p := range parts {
		shift := int(p.Start.Sub(start).Round(time.Second) / time.Second)
		for _, s := range p.Seconds {
			i := s.Offset + shift
			for len(out) <= i {
				out = append(out, store.Second{Offset: len(out)})
			}
			out[i].Txn += s.Txn
			out[i].NewOrders += s.NewOrders
		}
	}
	return out
}

// mergeWindows merges the windows of the same offset and type.
func mergeWindows(parts []*store.Step) []store.Window {
	type key struct {
		off time.Duration
		typ string
	}
	hists := map[key]*hdrhistogram.Histogram{}
	var keys []key
	for _, p := range parts {
		for _, w := range p.Windows {
			h, err := decodeHist(w.Hist)
			if err != nil || h == nil {
				continue
			}
			k := key{w.Offset, w.Type}
			if cur, ok := hists[k]; ok {
				cur.Merge(h)
			} else {
				hists[k] = h
				keys = append(keys, k)
			}
		}
	}
	sort.SliceStable(keys, func(i, j int) bool { return keys[i].off < keys[j].off })
	out := make([]store.Window, 0, len(keys))
	for _, k := range keys {
		if b, err := hists[k].Encode(hdrhistogram.V2CompressedEncodingCookieBase); err == nil {
			out = append(out, store.Window{Offset: k.off, Type: k.typ, Hist: b})
		}
	}
	return out
}
