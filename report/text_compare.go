package report

import (
	"fmt"
	"io"
	"strconv"

	"github.com/rightsize/rightsize/analysis"
	"github.com/rightsize/rightsize/steady"
	"github.com/rightsize/rightsize/store"
)

// Comparison is run B against run A, users step by users step.
type Comparison struct {
	// LabelA and LabelB name the runs (see Labels).
	LabelA, LabelB string
	// IDA and IDB are the runs' ids.
	IDA, IDB string
	// Rows has one row per users count measured by either run, ascending.
	Rows []ComparisonRow
	// Common are the users counts both runs measured; the averages are
	// taken over them.
	Common []int
	// SameSteps tells both runs measured the same users counts, so the
	// averages are over all their steps.
	SameSteps bool
	// AvgTPMA, AvgTPMB, AvgNOPMA and AvgNOPMB are the runs' averages over
	// the common steps (each users count once, repeats averaged).
	AvgTPMA, AvgTPMB, AvgNOPMA, AvgNOPMB float64
	// DriftA and DriftB are the drift between runs of each run's
	// configuration that widens a single run's intervals in the verdicts;
	// zero: the stated default (see MeasureDrifts).
	DriftA, DriftB Drifts
	// Figure, when both runs ran one pgbench workload, names its figure of
	// merit (the steps' NOPM then hold it per minute); "" for TPC-C.
	Figure string
}

// ComparisonRow is one users count of a Comparison.
type ComparisonRow struct {
	// Users is the number of virtual users.
	Users int
	// A and B are the runs' aggregates at this users count (nil when the
	// run did not measure it).
	A, B *analysis.StepAggregate
	// P90A and P90B are a single repeat's New-Order p90 interval from its
	// measured windows (WindowPercentile), nil without one.
	P90A, P90B *steady.Interval
	// P99A and P99B are the New-Order p99 of each run at this users count
	// (newOrderP99: across repeats, or a single repeat's windows), nil
	// when the run has no New-Order latency there.
	P99A, P99B *Estimate
}

// Ratio returns f(B)/f(A); ok is false when a run lacks the step or f(A)
// is 0.
func (r ComparisonRow) Ratio(f func(*analysis.StepAggregate) float64) (ratio float64, ok bool) {
	if r.A == nil || r.B == nil || f(r.A) == 0 {
		return 0, false
	}
	return f(r.B) / f(r.A), true
}

// Compare compares run b against run a.
func Compare(a, b RunData) *Comparison {
	labels := Labels([]RunData{a, b})
	sa, sb := NewRunStats(a.Steps), NewRunStats(b.Steps)
	c := &Comparison{LabelA: labels[0], LabelB: labels[1], IDA: a.Run.ID, IDB: b.Run.ID}
	m := c.meritOf(a, b)
	ta, tb := windowType(a.Steps, m), windowType(b.Steps, m)
	common := map[int]bool{}
	for _, u := range unionUsers([]*RunStats{sa, sb}) {
		row := ComparisonRow{Users: u, A: sa.At(u), B: sb.At(u), P90A: windowP90(a.Steps, u, ta), P90B: windowP90(b.Steps, u, tb),
			P99A: newOrderP99(a.Steps, u, m, ta), P99B: newOrderP99(b.Steps, u, m, tb)}
		if row.A != nil && row.B != nil {
			common[u] = true
			c.Common = append(c.Common, u)
		}
		c.Rows = append(c.Rows, row)
	}
	c.SameSteps = len(c.Common) == len(c.Rows)
	c.AvgTPMA, c.AvgNOPMA = sa.Average(common)
	c.AvgTPMB, c.AvgNOPMB = sb.Average(common)
	return c
}

// AverageLine states the average TPM over all steps of B against A, as the
// published studies do ("SSD/4 cores 243,714 vs HDD/16 cores 197,532:
// 1.23x").
func (c *Comparison) AverageLine() string {
	return fmt.Sprintf("%s %s vs %s %s: %s", c.LabelB, fmtInt(c.AvgTPMB), c.LabelA, fmtInt(c.AvgTPMA), fmtRatio(c.AvgTPMA, c.AvgTPMB))
}

// Write writes the comparison as terminal tables: throughput per users
// step with the ratio B/A, host figures and New-Order p99 side by side,
// then the averages over all steps.
func (c *Comparison) Write(w io.Writer) {
	fmt.Fprintf(w, "\nA = %s\nB = %s\n\n", c.LabelA, c.LabelB)
	if len(c.Rows) == 0 {
		fmt.Fprintf(w, "  neither run has a measured step\n\n")
		return
	}
	num := func(a *analysis.StepAggregate, f func(*analysis.StepAggregate) float64, format func(float64) string) string {
		if a == nil {
			return "-"
		}
		return format(f(a))
	}
	cols := c.columns()
	head := []string{"users"}
	for _, col := range cols {
		head = append(head, col.Head+" A", col.Head+" B", "B/A")
	}
	var rows [][]string
	for _, r := range c.Rows {
		row := []string{strconv.Itoa(r.Users)}
		for _, col := range cols {
			row = append(row, num(r.A, col.Value, fmtInt), num(r.B, col.Value, fmtInt), compareRatio(r, col.Value, col.Head))
		}
		rows = append(rows, row)
	}
	right := make([]bool, len(head))
	for i := range right {
		right[i] = true
	}
	writeTable(w, head, rows, right)
	c.writeVerdicts(w)

	c.writeResources(w)
	c.writeAverages(w)
}

// columns are the throughput columns compare's table prints: TPM, NOPM
// (a workload's figure under its own name; none when every script counts,
// as it is the TPM itself) and TPM per user.
func (c *Comparison) columns() []analysis.Column {
	merit := analysis.ColNOPM
	switch c.Figure {
	case "":
	case store.FigureEveryScript:
		return []analysis.Column{analysis.ColTPM, analysis.ColTPMPerUser}
	default:
		merit.Head = c.Figure
	}
	return []analysis.Column{analysis.ColTPM, merit, analysis.ColTPMPerUser}
}

// compareRatio is B/A of figure f on row r with its unit, "-" without both.
func compareRatio(r ComparisonRow, f func(*analysis.StepAggregate) float64, unit string) string {
	x, ok := r.Ratio(f)
	if !ok {
		return "-"
	}
	return strconv.FormatFloat(x, 'f', 2, 64) + "x " + unit
}

// writeResources writes the host figures and New-Order p99 latency of both
// runs side by side, when either run has them.
func (c *Comparison) writeResources(w io.Writer) {
	host, disk, lat := false, false, false
	for _, r := range c.Rows {
		for _, a := range []*analysis.StepAggregate{r.A, r.B} {
			if a != nil {
				host = host || hasHost(a)
				disk = disk || hasDisk(a)
				lat = lat || meritOf(a) != nil
			}
		}
	}
	if host || disk || lat {
		head := []string{"users"}
		if host {
			head = append(head, "CPU busy A", "CPU busy B", "idle A", "idle B", "iowait A", "iowait B")
		}
		if disk {
			head = append(head, "disk ms A", "disk ms B")
		}
		if lat {
			head = append(head, "NO p99 ms A", "NO p99 ms B", "B/A")
		}
		p99 := func(a *analysis.StepAggregate) float64 {
			if t := meritOf(a); t != nil {
				return t.P99Ms
			}
			return 0
		}
		cell := func(a *analysis.StepAggregate, sc stepColumn) string {
			if a == nil {
				return "-"
			}
			return sc.cell(a)
		}
		var rows [][]string
		for _, r := range c.Rows {
			row := []string{strconv.Itoa(r.Users)}
			if host {
				for _, col := range []analysis.Column{analysis.ColCPUBusy, analysis.ColCPUIdle, analysis.ColCPUIowait} {
					sc := rich.figure(col, hasHost)
					row = append(row, cell(r.A, sc), cell(r.B, sc))
				}
			}
			if disk {
				sc := rich.figure(analysis.ColDiskLatency, hasDisk)
				row = append(row, cell(r.A, sc), cell(r.B, sc))
			}
			if lat {
				ms := func(a *analysis.StepAggregate) string {
					if a == nil || meritOf(a) == nil {
						return "-"
					}
					return fmtMs(p99(a))
				}
				row = append(row, ms(r.A), ms(r.B), compareRatio(r, p99, ""))
			}
			rows = append(rows, row)
		}
		fmt.Fprintln(w)
		right := make([]bool, len(head))
		for i := range right {
			right[i] = true
		}
		writeTable(w, head, rows, right)
	}
}

// writeAverages writes the average TPM and NOPM over the steps both runs measured.
func (c *Comparison) writeAverages(w io.Writer) {
	fmt.Fprintln(w)
	scope := "over all steps"
	if !c.SameSteps {
		scope = "over the steps both runs measured (users " + fmtUsersList(c.Common) + ")"
	}
	if len(c.Common) == 0 {
		fmt.Fprintf(w, "  the runs measured no users count in common: no average to compare\n\n")
		return
	}
	fmt.Fprintf(w, "  average TPM %s: %s\n", scope, c.AverageLine())
	if c.Figure == store.FigureEveryScript { // the TPM itself
		fmt.Fprintln(w)
		return
	}
	merit := "NOPM"
	if c.Figure != "" {
		merit = c.Figure
	}
	fmt.Fprintf(w, "  average %s %s: %s %s vs %s %s: %s\n\n", merit, scope, c.LabelB, fmtInt(c.AvgNOPMB), c.LabelA, fmtInt(c.AvgNOPMA),
		fmtRatio(c.AvgNOPMA, c.AvgNOPMB))
}
