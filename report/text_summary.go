package report

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/rightsize/rightsize/analysis"
	"github.com/rightsize/rightsize/store"
)

// WriteRunSummary writes the end-of-run summary of a run, k6 style: the
// key numbers first (peak and average throughput), then one line per users
// step (TPM, NOPM and TPM per user with their spread across repeats, CPU
// busy/idle/iowait, disk latency and IOPS, driver CPU), the
// per-transaction latency table, errors with the first error message, and
// whether the driver's own CPU could have limited the result.
func WriteRunSummary(w io.Writer, run store.Run, steps []store.Step) {
	rs := NewRunStats(steps)
	writeRunHeader(w, run)
	if len(rs.Steps) == 0 {
		fmt.Fprintf(w, "\n  no step was measured\n\n")
		return
	}
	if !WriteWorkload(w, run, steps) {
		writeKeyNumbers(w, rs)
	}
	writeStepsTable(w, run, rs)
	txn := mergeAllTxn(steps)
	writeLatency(w, rs, txn)
	fmt.Fprintln(w)
	writeFailures(w, steps, txn)
	writeDriverVerdict(w, run, analysis.RunFigures(rs.Steps))
	writeWhy(w, rs.Steps)
	writeValidity(w, run, steps)
	WriteStepEndings(w, run, steps)
	fmt.Fprintln(w)
}

// writeRunHeader prints the run's title, status and configuration.
func writeRunHeader(w io.Writer, run store.Run) {
	label := run.Label
	title := "rightsize run " + run.ID
	if label != "" {
		title += " · " + label
	}
	status := run.Status
	if status == "" {
		status = store.StatusComplete
	}
	switch status {
	case store.StatusPartial:
		title += "  PARTIAL: interrupted, the figures cover what was measured"
	case store.StatusFailed:
		title += "  FAILED"
	case store.StatusRunning:
		title += "  (still running)"
	}
	fmt.Fprintf(w, "\n%s\n", title)
	var cfg []string
	if run.Target != "" {
		cfg = append(cfg, run.Target)
	}
	if ev := engineVersion(run); ev != "" {
		cfg = append(cfg, ev)
	}
	if run.Mode != "" {
		cfg = append(cfg, run.Mode+" mode")
	}
	if run.Warehouses > 0 {
		cfg = append(cfg, Plural(run.Warehouses, "warehouse"))
	}
	cfg = append(cfg, "keying/think "+onOff(run.KeyingThinking))
	if run.Env[store.EnvDelivery] == store.DeliveryDeferred {
		cfg = append(cfg, "Delivery deferred")
	}
	if s := run.Prewarmed(); s != "" {
		cfg = append(cfg, s)
	}
	fmt.Fprintf(w, "  %s\n", strings.Join(cfg, " · "))
	if s := run.CapsNotApplied(); s != "" {
		fmt.Fprintf(w, "  %s (--caps best-effort: the server ran without them)\n", s)
	}
	var seq []string
	if len(run.Users) > 0 {
		s := "users " + fmtUsersList(run.Users)
		if c := run.Env[store.EnvConnections]; c != "" {
			s += " sharing " + c + " connections"
		}
		if run.Repeats > 1 {
			s += fmt.Sprintf(" × %d repeats", run.Repeats)
		}
		seq = append(seq, s)
	}
	if run.Rampup > 0 || run.Duration > 0 {
		seq = append(seq, "ramp-up "+fmtDuration(run.Rampup), "measured "+fmtDuration(run.Duration)+" per step")
	}
	if len(seq) > 0 {
		fmt.Fprintf(w, "  %s\n", strings.Join(seq, " · "))
	}
}

// writeKeyNumbers prints the peak and average figures.
func writeKeyNumbers(w io.Writer, rs *RunStats) {
	fig := analysis.RunFigures(rs.Steps)
	fmt.Fprintln(w)
	kv := [][2]string{
		{"peak TPM", fmt.Sprintf("%s at %d users", fmtInt(fig.PeakTPM), fig.PeakTPMUsers)},
		{"peak NOPM", fmt.Sprintf("%s at %d users", fmtInt(fig.PeakNOPM), fig.PeakNOPMUsers)},
	}
	if fig.Steps > 1 {
		kv = append(kv, [2]string{"average over all steps", fmt.Sprintf("TPM %s · NOPM %s", fmtInt(fig.AvgTPM), fmtInt(fig.AvgNOPM))})
	}
	writeKV(w, kv)

}

// writeStepsTable prints a row per users step, with its notes.
func writeStepsTable(w io.Writer, run store.Run, rs *RunStats) {
	c := stepsColumns(run, rs)
	fmt.Fprintln(w)
	writeStepTable(w, c.columns(), rs.Steps, func(a *analysis.StepAggregate) string {
		var flags []string
		if a.Unstable {
			flags = append(flags, "! unstable")
		}
		if a.Partial {
			flags = append(flags, "partial")
		}
		return strings.Join(flags, ", ")
	})
	for _, n := range c.notes(run, rs) {
		fmt.Fprintf(w, "  %s\n", n)
	}
}

// stepsCols are the optional column groups of the steps table, each shown
// when at least one step has its figures.
type stepsCols struct {
	repeated, keying, host, disk, driver, server bool
}

// stepsColumns decides which optional column groups the steps table shows.
func stepsColumns(run store.Run, rs *RunStats) stepsCols {
	c := stepsCols{keying: run.KeyingThinking}
	for i := range rs.Steps {
		a := &rs.Steps[i]
		c.repeated = c.repeated || repeated(a)
		c.host = c.host || hasHost(a)
		c.disk = c.disk || hasDisk(a)
		c.driver = c.driver || driverMeasured(a)
		c.server = c.server || serverMeasured(a)
	}
	return c
}

// columns are the steps table's columns, in rich style.
func (c stepsCols) columns() []stepColumn {
	cols := []stepColumn{usersColumn, rich.figure(analysis.ColTPM, nil)}
	if c.repeated {
		cols = append(cols, rich.spread(analysis.ColTPM, repeated), rich.cv(analysis.ColTPM))
	}
	cols = append(cols, rich.figure(analysis.ColNOPM, nil))
	if c.repeated {
		cols = append(cols, rich.cv(analysis.ColNOPM))
	}
	cols = append(cols, rich.figure(analysis.ColTPMPerUser, nil))
	if c.keying {
		cols = append(cols, rich.figure(analysis.ColEfficiency, nil))
	}
	if c.host {
		cols = append(cols, rich.figure(analysis.ColCPUBusy, hasHost), rich.figure(analysis.ColCPUIdle, hasHost),
			rich.figure(analysis.ColCPUIowait, hasHost))
	}
	if c.disk {
		cols = append(cols, rich.figure(analysis.ColDiskLatency, hasDisk), rich.figure(analysis.ColDiskIOPS, hasDisk))
	}
	if c.driver {
		cols = append(cols, rich.figure(analysis.ColDriverCPU, driverMeasured), rich.figure(analysis.ColDriverCPUPerTx, nil))
	}
	if c.server {
		cols = append(cols, rich.figure(analysis.ColServerCPU, serverMeasured), rich.figure(analysis.ColServerCPUPerTx, serverMeasured))
	}
	return cols
}

// notes are the lines under the steps table explaining its columns and flags.
func (c stepsCols) notes(run store.Run, rs *RunStats) []string {
	var notes []string
	for i := range rs.Steps {
		if rs.Steps[i].Unstable {
			notes = append(notes, "! unstable: the repeats' TPM or NOPM differ by more than 10 % (coefficient of variation); measure longer or more repeats")
			break
		}
	}
	if c.repeated {
		notes = append(notes, "figures are means across repeats; min–max and CV (coefficient of variation) show their spread")
	}
	if c.host {
		notes = append(notes, "CPU in % of all CPUs; idle excludes I/O wait")
	}
	if c.driver && run.EngineInProcess() {
		notes = append(notes, "driver CPU: rightsize's CPU, with "+run.Engine+"'s running inside it, in % of one core (100 % = one core busy); µs/txn: its CPU per completed transaction")
	} else if c.driver {
		notes = append(notes, "driver CPU: rightsize's own CPU in % of one core (100 % = one core busy); µs/txn: its CPU per completed transaction")
	}
	if c.server {
		notes = append(notes, "server CPU: the database server's process tree (managed servers on this host), in % of one core")
	}
	return notes
}

// writeLatency prints the latency of each transaction type over all steps,
// and p99 by users when there are several steps.
func writeLatency(w io.Writer, rs *RunStats, txn []store.TxnSummary) {
	if len(txn) > 0 {
		fmt.Fprintf(w, "\n  latency, all steps merged:\n")
		var rows [][]string
		for i := range txn {
			rows = append(rows, append([]string{txn[i].Type}, rich.txnCells(&txn[i])...))
		}
		writeTxnTable(w, []string{"transaction"}, rows, true)
		if len(rs.Users) > 1 {
			fmt.Fprintf(w, "\n  p99 latency by users:\n")
			head := []string{"p99 ms"}
			for _, u := range rs.Users {
				head = append(head, strconv.Itoa(u))
			}
			var rows [][]string
			types := make([]string, len(txn))
			for i, t := range txn {
				types[i] = t.Type
			}
			for _, typ := range types {
				row := []string{typ}
				for _, u := range rs.Users {
					if t := txnOf(rs.At(u), typ); t != nil && t.Count > 0 {
						row = append(row, fmtMs(t.P99Ms))
					} else {
						row = append(row, "-")
					}
				}
				rows = append(rows, row)
			}
			right := make([]bool, len(head))
			for i := 1; i < len(right); i++ {
				right[i] = true
			}
			writeTable(w, head, rows, right)
		}
	}

}

// writeFailures prints the failed transactions, reconnections and skipped
// deliveries.
func writeFailures(w io.Writer, steps []store.Step, txn []store.TxnSummary) {
	var errs []string
	for _, t := range txn {
		if t.Errors > 0 {
			e := fmt.Sprintf("✗ %s: %s errors", t.Type, fmtInt(float64(t.Errors)))
			if t.FirstError != "" {
				e += ", first: " + oneLine(t.FirstError, 160)
			}
			errs = append(errs, e)
		}
	}
	if len(errs) == 0 {
		fmt.Fprintf(w, "  ✓ no transaction failed\n")
	}
	for _, e := range errs {
		fmt.Fprintf(w, "  %s\n", e)
	}
	var recon, skipped int64
	for _, s := range steps {
		recon += s.Reconnects
		skipped += s.SkippedDeliveries
	}
	if recon > 0 {
		fmt.Fprintf(w, "  ✗ %d reconnections after lost connections\n", recon)
	}
	if skipped > 0 {
		fmt.Fprintf(w, "  · %d deferred deliveries skipped (no undelivered order in the district)\n", skipped)
	}
}

// writeDriverVerdict says whether the driver may have limited the run: its
// peak driver CPU (analysis.RunFigures, % of one core) against a quarter of
// the host's CPUs, with that same step's µs/txn.
func writeDriverVerdict(w io.Writer, run store.Run, f analysis.Headline) {
	if f.PeakDriverCPUPct == 0 {
		return
	}
	fig := fmt.Sprintf("peak driver CPU %s of one core at %d users (%.1f µs/txn)", fmtPct(f.PeakDriverCPUPct), f.PeakDriverCPUUsers, f.PeakDriverCPUUsPerTxn)
	if run.EngineInProcess() {
		writeInProcessVerdict(w, run, f.PeakDriverCPUPct, fig)
		return
	}
	switch n := logicalCPUs(run); {
	case n == 0:
		fmt.Fprintf(w, "  · %s; host CPU count unknown\n", fig)
	case DriverBottleneck(run, f.PeakDriverCPUPct):
		fmt.Fprintf(w, "  ✗ %s, more than a quarter of the host's %d CPUs: the load generator may limit the result; run it on another machine\n", fig, n)
	default:
		fmt.Fprintf(w, "  ✓ %s, less than a quarter of the host's %d CPUs: not the bottleneck\n", fig, n)
	}
}

// writeInProcessVerdict words the driver CPU of an engine that runs inside
// the driver's process: it is the database's own work as well, so the
// driver cannot be moved to another machine; what can limit the result is
// the cores the process gets.
func writeInProcessVerdict(w io.Writer, run store.Run, pct float64, fig string) {
	what := fmt.Sprintf("%s runs inside the driver's process, so this is the database's own CPU as well as the driver's", orDash(run.Engine))
	switch n := logicalCPUs(run); {
	case n == 0:
		fmt.Fprintf(w, "  · %s: %s; host CPU count unknown\n", fig, what)
	case coresBound(run, pct):
		fmt.Fprintf(w, "  ✗ %s, nearly all of the host's %d CPUs: %s; the cores the process gets limit the result: give it more (a machine or container with more cores), another machine for the driver is not possible\n", fig, n, what)
	default:
		fmt.Fprintf(w, "  · %s, %s of the host's %d CPUs: %s; what can limit the result is the cores the process gets (more cores, not another machine for the driver)\n", fig, fmtPct(pct/float64(n)), n, what)
	}
}

// writeKV writes "key ..... value" lines, k6 style.
func writeKV(w io.Writer, kv [][2]string) {
	width := 0
	for _, p := range kv {
		width = max(width, utf8.RuneCountInString(p[0]))
	}
	for _, p := range kv {
		dots := strings.Repeat(".", width-utf8.RuneCountInString(p[0])+3)
		fmt.Fprintf(w, "  %s %s %s\n", p[0], dots, p[1])
	}
}

// writeTable writes an aligned table with two spaces of indent; right
// tells which columns are right-aligned.
func writeTable(w io.Writer, head []string, rows [][]string, right []bool) {
	width := make([]int, len(head))
	for i, h := range head {
		width[i] = utf8.RuneCountInString(h)
	}
	for _, r := range rows {
		for i, c := range r {
			if i < len(width) {
				width[i] = max(width[i], utf8.RuneCountInString(c))
			}
		}
	}
	line := func(cells []string) {
		var b strings.Builder
		b.WriteString(" ")
		for i, c := range cells {
			pad := strings.Repeat(" ", width[i]-utf8.RuneCountInString(c))
			b.WriteString(" ")
			if right[i] {
				b.WriteString(pad + c)
			} else {
				b.WriteString(c + pad)
			}
			if i < len(cells)-1 {
				b.WriteString(" ")
			}
		}
		fmt.Fprintln(w, strings.TrimRight(b.String(), " "))
	}
	line(head)
	for _, r := range rows {
		line(r)
	}
}

// oneLine flattens a message to one line of at most n runes.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) > n {
		r := []rune(s)
		s = string(r[:n-1]) + "…"
	}
	return s
}

// fmtDec formats a figure with one decimal, "-" for zero.
func fmtDec(v float64) string {
	if v == 0 {
		return "-"
	}
	return strconv.FormatFloat(v, 'f', 1, 64)
}

// Plural is "1 warehouse", "4 warehouses".
func Plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
