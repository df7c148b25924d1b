package report

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/rightsize/rightsize/analysis"
	"github.com/rightsize/rightsize/store"
	"github.com/rightsize/rightsize/tpcc"
)

// RunStats is a run's steps aggregated across repeats (analysis.Aggregate),
// looked up by number of users.
type RunStats struct {
	// Steps are the aggregates in users-sequence order.
	Steps []analysis.StepAggregate
	// Users are the distinct user counts, ascending.
	Users []int

	byUsers map[int]int // users -> index in Steps (first occurrence)
}

// NewRunStats aggregates a run's steps.
func NewRunStats(steps []store.Step) *RunStats {
	rs := &RunStats{Steps: analysis.Aggregate(steps), byUsers: map[int]int{}}
	for i, a := range rs.Steps {
		if _, ok := rs.byUsers[a.Users]; !ok {
			rs.byUsers[a.Users] = i
			rs.Users = append(rs.Users, a.Users)
		}
	}
	sort.Ints(rs.Users)
	return rs
}

// At returns the aggregate of the step with that many users (nil when the
// run has none).
func (rs *RunStats) At(users int) *analysis.StepAggregate {
	if i, ok := rs.byUsers[users]; ok {
		return &rs.Steps[i]
	}
	return nil
}

// Average returns the mean over all steps (each users count once, its
// repeats averaged) of TPM and NOPM: the "average over all steps" the
// published studies compare, as analysis.RunFigures defines it. Only the
// users counts in only (when not nil) are averaged.
func (rs *RunStats) Average(only map[int]bool) (tpm, nopm float64) {
	var sel []analysis.StepAggregate
	for _, a := range rs.Steps {
		if only == nil || only[a.Users] {
			sel = append(sel, a)
		}
	}
	f := analysis.RunFigures(sel)
	return f.AvgTPM, f.AvgNOPM
}

// Peak returns the step with the highest mean TPM and the one with the
// highest mean NOPM (nil when there is no step).
func (rs *RunStats) Peak() (tpm, nopm *analysis.StepAggregate) {
	for i := range rs.Steps {
		a := &rs.Steps[i]
		if tpm == nil || a.TPM.Mean > tpm.TPM.Mean {
			tpm = a
		}
		if nopm == nil || a.NOPM.Mean > nopm.NOPM.Mean {
			nopm = a
		}
	}
	return tpm, nopm
}

// hasHost tells whether host CPU telemetry was measured in the step.
func hasHost(a *analysis.StepAggregate) bool { return a.Host.CPUMeasured() }

// hasDisk tells whether disk telemetry was measured in the step.
func hasDisk(a *analysis.StepAggregate) bool { return a.Host.DiskMeasured() }

// driverMeasured tells whether the driver's CPU was measured in the step.
func driverMeasured(a *analysis.StepAggregate) bool { return a.DriverCPUPct > 0 }

// serverMeasured tells whether the server's CPU per transaction was
// measured in the step.
func serverMeasured(a *analysis.StepAggregate) bool { return a.ServerCPUUsPerTxn > 0 }

// logicalCPUs returns the host's logical CPU count from the run's
// environment (0 when unknown).
func logicalCPUs(r store.Run) int {
	n, _ := strconv.Atoi(r.Env["host.logical_cpus"])
	return n
}

// DriverBottleneck tells whether a driver CPU (% of one core) is more than
// a quarter of the host's CPUs, the level at which the load generator may
// limit the result; false when the CPU count is unknown, and for an engine
// inside the driver's process, whose CPU is the database's too (see
// coresBound).
func DriverBottleneck(r store.Run, driverCPUPct float64) bool {
	n := logicalCPUs(r)
	return n > 0 && !r.EngineInProcess() && driverCPUPct > 25*float64(n)
}

// coresBound tells whether the process of an engine that runs inside the
// driver used 90 % or more of the host's CPUs (% of one core): then the
// cores it gets limit the result.
func coresBound(r store.Run, cpuPct float64) bool {
	n := logicalCPUs(r)
	return n > 0 && r.EngineInProcess() && cpuPct >= 90*float64(n)
}

// unionUsers returns the user counts of all runs, ascending.
func unionUsers(all []*RunStats) []int {
	seen := map[int]bool{}
	var out []int
	for _, rs := range all {
		for _, u := range rs.Users {
			if !seen[u] {
				seen[u] = true
				out = append(out, u)
			}
		}
	}
	sort.Ints(out)
	return out
}

// txnOrder is the order transaction types are listed in.
var txnOrder = func() map[string]int {
	m := map[string]int{}
	for t := range tpcc.NumTxnTypes {
		m[t.String()] = int(t)
	}
	return m
}()

// txnLess orders transaction types: the TPC-C five first, others by name.
func txnLess(a, b string) bool {
	oa, aok := txnOrder[a]
	ob, bok := txnOrder[b]
	switch {
	case aok && bok:
		return oa < ob
	case aok != bok:
		return aok
	}
	return a < b
}

// sortTxn orders transaction types (see txnLess).
func sortTxn(types []string) {
	sort.Slice(types, func(i, j int) bool { return txnLess(types[i], types[j]) })
}

// txnTypes returns the transaction types present in the runs, ordered.
func txnTypes(all []*RunStats) []string {
	seen := map[string]bool{}
	var out []string
	for _, rs := range all {
		for _, a := range rs.Steps {
			for _, t := range a.Txn {
				if !seen[t.Type] {
					seen[t.Type] = true
					out = append(out, t.Type)
				}
			}
		}
	}
	sortTxn(out)
	return out
}

// txnOf returns the summary of one type in an aggregate (nil when absent).
func txnOf(a *analysis.StepAggregate, typ string) *store.TxnSummary {
	if a == nil {
		return nil
	}
	return store.Merit{Txn: typ}.Of(a.Txn)
}

// meritOf is the summary of the figure of merit's transaction in a, nil
// when a is nil or has none.
func meritOf(a *analysis.StepAggregate) *store.TxnSummary {
	if a == nil {
		return nil
	}
	return tpcc.Merit.Of(a.Txn)
}

// decodeHist decodes a stored histogram (nil, nil for none).
func decodeHist(h store.HdrHist) (*hdrhistogram.Histogram, error) {
	if len(h) == 0 {
		return nil, nil
	}
	return hdrhistogram.Decode(h)
}

// mergeAllTxn merges every transaction type over all steps of a run into
// one summary per type (exact percentiles from the merged histograms when
// every step has them).
func mergeAllTxn(steps []store.Step) []store.TxnSummary {
	all := make([]store.Step, len(steps))
	for i, s := range steps {
		all[i] = store.Step{Users: s.Users, Txn: s.Txn} // one group; partial steps count too
	}
	aggs := analysis.Aggregate(all)
	if len(aggs) == 0 {
		return nil
	}
	out := aggs[0].Txn
	sort.SliceStable(out, func(i, j int) bool { return txnLess(out[i].Type, out[j].Type) })
	return out
}

// Number formats.

// fmtInt formats a figure rounded to an integer with thousands separators.
func fmtInt(x float64) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return "-"
	}
	return groupDigits(strconv.FormatFloat(math.Round(x), 'f', 0, 64))
}

// fmtFloat formats a figure with prec decimals and thousands separators.
func fmtFloat(x float64, prec int) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return "-"
	}
	return groupDigits(strconv.FormatFloat(x, 'f', prec, 64))
}

func groupDigits(s string) string {
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	intPart, frac, hasFrac := strings.Cut(s, ".")
	var b strings.Builder
	for i, c := range intPart {
		if i > 0 && (len(intPart)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	out := b.String()
	if hasFrac {
		out += "." + frac
	}
	if neg && out != "0" {
		out = "-" + out
	}
	return out
}

// fmtMs formats a latency in milliseconds with a precision that suits its
// size.
func fmtMs(ms float64) string {
	switch {
	case ms == 0:
		return "0"
	case ms < 1:
		return strconv.FormatFloat(ms, 'f', 3, 64)
	case ms < 10:
		return strconv.FormatFloat(ms, 'f', 2, 64)
	case ms < 1000:
		return strconv.FormatFloat(ms, 'f', 1, 64)
	}
	return fmtInt(ms)
}

// fmtPct formats a percentage.
func fmtPct(x float64) string { return strconv.FormatFloat(x, 'f', 1, 64) + " %" }

// fmtRatio formats b/a as "1.23x" ("-" when a is 0).
func fmtRatio(a, b float64) string {
	if a == 0 || math.IsNaN(a) || math.IsNaN(b) {
		return "-"
	}
	return strconv.FormatFloat(b/a, 'f', 2, 64) + "x"
}

// fmtDuration formats a step duration ("2m", "90s", "1h30m").
func fmtDuration(d time.Duration) string {
	if d == 0 {
		return "0"
	}
	s := d.String()
	s = strings.TrimSuffix(s, "0s")
	s = strings.TrimSuffix(s, "0m")
	if strings.HasSuffix(s, "h") || strings.HasSuffix(s, "m") || strings.HasSuffix(s, "s") {
		return s
	}
	return d.String()
}

// fmtUsersList formats a users sequence ("1,2,3,5,8").
func fmtUsersList(u []int) string {
	parts := make([]string, len(u))
	for i, x := range u {
		parts[i] = strconv.Itoa(x)
	}
	return strings.Join(parts, ",")
}

// fmtBytes formats a byte count in binary units.
func fmtBytes(b float64) string {
	units := []string{"B", "KiB", "MiB", "GiB", "TiB"}
	i := 0
	for b >= 1024 && i < len(units)-1 {
		b /= 1024
		i++
	}
	if i == 0 {
		return fmt.Sprintf("%.0f B", b)
	}
	return fmt.Sprintf("%.1f %s", b, units[i])
}
