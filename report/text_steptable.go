package report

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/rightsize/rightsize/analysis"
	"github.com/rightsize/rightsize/figures"
	"github.com/rightsize/rightsize/store"
)

// A stepColumn is one column of a text steps table: its heading and a
// step's cell.
type stepColumn struct {
	head string
	cell func(a *analysis.StepAggregate) string
}

// writeStepTable is the one text renderer of a steps table (the summary's
// and results show's): a row per step, the figures right-aligned, then the
// step's flags.
func writeStepTable(w io.Writer, cols []stepColumn, steps []analysis.StepAggregate, flags func(a *analysis.StepAggregate) string) {
	head := make([]string, 0, len(cols)+1)
	for _, c := range cols {
		head = append(head, c.head)
	}
	head = append(head, "")
	rows := make([][]string, 0, len(steps))
	for i := range steps {
		a := &steps[i]
		row := make([]string, 0, len(head))
		for _, c := range cols {
			row = append(row, c.cell(a))
		}
		rows = append(rows, append(row, flags(a)))
	}
	right := make([]bool, len(head))
	for i := range right {
		right[i] = i < len(head)-1
	}
	writeTable(w, head, rows, right)
}

// A style formats the figures of a steps table by their unit: rich (the
// summary: the unit in each cell, thousands separated, "-" where a step
// lacks a figure) or plain (results show: the unit in the heading, plain
// numbers).
type style struct{ plain bool }

var (
	rich  = style{}
	plain = style{plain: true}
)

// num formats a figure of unit u.
func (s style) num(u figures.Unit, v float64) string {
	if s.plain {
		digits := 1
		switch u {
		case figures.Count:
			digits = 0
		case figures.Ms:
			digits = 2
		}
		return strconv.FormatFloat(v, 'f', digits, 64)
	}
	switch u {
	case figures.Count:
		return fmtInt(v)
	case figures.Percent, figures.PctAllCPUs, figures.PctOneCore:
		return fmtPct(v)
	case figures.Ms:
		return fmtMs(v)
	}
	return fmtDec(v)
}

// head is column c's heading: with its unit in plain style.
func (s style) head(c analysis.Column) string {
	if !s.plain {
		return c.Head
	}
	switch c.Unit {
	case figures.Percent, figures.PctAllCPUs:
		return c.Head + " %"
	case figures.PctOneCore:
		return c.Head + " % of one core"
	}
	return c.Head
}

// figure is column c; "-" where has says a step lacks it (nil: none does).
func (s style) figure(c analysis.Column, has func(a *analysis.StepAggregate) bool) stepColumn {
	return stepColumn{head: s.head(c), cell: func(a *analysis.StepAggregate) string {
		if has != nil && !has(a) {
			return "-"
		}
		return s.num(c.Unit, c.Value(a))
	}}
}

// spread is the min–max of column c across repeats (c.Stat); "-" where has
// says a step was not repeated (nil: never).
func (s style) spread(c analysis.Column, has func(a *analysis.StepAggregate) bool) stepColumn {
	head := "min–max"
	if s.plain {
		head = "[min–max]"
	}
	return stepColumn{head: head, cell: func(a *analysis.StepAggregate) string {
		if has != nil && !has(a) {
			return "-"
		}
		st := c.Stat(a)
		if s.plain {
			return "[" + s.num(c.Unit, st.Min) + "–" + s.num(c.Unit, st.Max) + "]"
		}
		return s.num(c.Unit, st.Min) + "–" + s.num(c.Unit, st.Max)
	}}
}

// cv is the coefficient of variation of column c across repeats; "-" for
// a step not repeated.
func (s style) cv(c analysis.Column) stepColumn {
	return stepColumn{head: "CV", cell: func(a *analysis.StepAggregate) string {
		if !repeated(a) {
			return "-"
		}
		if s.plain {
			return strconv.FormatFloat(c.Stat(a).CV*100, 'f', 1, 64) + "%"
		}
		return fmtPct(c.Stat(a).CV * 100)
	}}
}

// usersColumn is the steps' users count.
var usersColumn = stepColumn{head: "users", cell: func(a *analysis.StepAggregate) string { return strconv.Itoa(a.Users) }}

func repeated(a *analysis.StepAggregate) bool { return a.Repeats > 1 }

// WriteStepThroughput writes results show's throughput table: a row per
// users count with its repeats' spread and resources, units in the
// headings, and explains its marks.
func WriteStepThroughput(w io.Writer, run *store.Run, aggs []analysis.StepAggregate) {
	fmt.Fprintln(w, "\nthroughput per step (mean across repeats [min–max], CV = stddev/mean)")
	cols := []stepColumn{usersColumn, plain.figure(analysis.ColRepeats, nil),
		plain.figure(analysis.ColTPM, nil), plain.spread(analysis.ColTPM, nil), plain.cv(analysis.ColTPM),
		plain.figure(analysis.ColNOPM, nil), plain.spread(analysis.ColNOPM, nil), plain.cv(analysis.ColNOPM),
		plain.figure(analysis.ColTPMPerUser, nil)}
	if run.KeyingThinking {
		cols = append(cols, plain.figure(analysis.ColEfficiency, nil))
	}
	for _, c := range []analysis.Column{analysis.ColCPUBusy, analysis.ColCPUIowait, analysis.ColServerCPU, analysis.ColDriverCPU,
		analysis.ColDiskReadIOPS, analysis.ColDiskWriteIOPS, analysis.ColDiskLatency} {
		cols = append(cols, plain.figure(c, nil))
	}
	if anyServerIO(aggs) {
		cols = append(cols, plain.figure(analysis.ColServerReadIOPS, hasServerIO), plain.figure(analysis.ColServerWriteIOPS, hasServerIO))
	}
	unstable, partial := false, false
	writeStepTable(w, cols, aggs, func(a *analysis.StepAggregate) string {
		var marks []string
		if a.Unstable {
			marks, unstable = append(marks, "unstable"), true
		}
		if a.Partial {
			marks, partial = append(marks, "PARTIAL"), true
		}
		return strings.Join(marks, "  ")
	})
	if unstable {
		fmt.Fprintf(w, "  unstable: TPM or NOPM varies by more than %.0f %% (CV) across repeats\n", analysis.UnstableCV*100)
	}
	if partial {
		fmt.Fprintln(w, "  PARTIAL: only interrupted steps were measured at this user count")
	}
}

// hasServerIO tells whether the step measured the server's own I/O (its
// cgroup's counters); anyServerIO whether a step of aggs did.
func hasServerIO(a *analysis.StepAggregate) bool { return a.Host.ServerIOMeasured() }

func anyServerIO(aggs []analysis.StepAggregate) bool {
	for i := range aggs {
		if hasServerIO(&aggs[i]) {
			return true
		}
	}
	return false
}
