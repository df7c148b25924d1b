package report

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/rightsize/rightsize/analysis"
	"github.com/rightsize/rightsize/store"
)

// WriteWorkload prints the workload of a run that is not TPC-C: its name
// and scripts, its peak TPS and each step's TPS overall and per script
// (its figures of merit; the steps' NOPM holds the merit per minute, the
// validity verdict is TPC-C's). It
// prints nothing and reports false for TPC-C.
func WriteWorkload(w io.Writer, run store.Run, steps []store.Step) bool {
	name, scripts := run.Workload()
	if name == "" {
		return false
	}
	of := "every script's"
	if m, _ := run.WorkloadMerit(); !m.All() {
		of = m.Txn + "'s"
	}
	fmt.Fprintf(w, "\n  workload %s: %s (not TPC-C: its NOPM column is the figure of merit, %s transactions per minute; no consistency checks or validity verdict)\n",
		name, scripts, of)
	if note := clientNote(run); note != "" {
		fmt.Fprintf(w, "  %s\n", note)
	}
	ws := analysis.WorkloadTPS(steps)
	if len(ws) == 0 {
		return true
	}
	names := sortedKeys(ws[0].Scripts)
	peak := slices.MaxFunc(ws, func(a, b analysis.WorkloadStep) int { return cmp.Compare(a.TPS, b.TPS) })
	writeKV(w, [][2]string{{"peak TPS", fmt.Sprintf("%s at %d users", fmtFloat(peak.TPS, 1), peak.Users)}})
	head := append([]string{"users", "TPS"}, names...)
	var rows [][]string
	for _, s := range ws {
		row := []string{strconv.Itoa(s.Users), fmtFloat(s.TPS, 1)}
		for _, n := range names {
			row = append(row, fmtFloat(s.Scripts[n], 1))
		}
		rows = append(rows, row)
	}
	right := make([]bool, len(head))
	for i := range right {
		right[i] = true
	}
	fmt.Fprintf(w, "\n  transactions per second, overall and per script:\n")
	writeTable(w, head, rows, right)
	writePaced(w, run, ws)
	writeLatencyLimit(w, run, ws)
	writeStatements(w, analysis.WorkloadStatements(steps))
	return true
}

// clientNote says how a workload's clients ran where it changes the
// figures and is not the default: a new connection per transaction
// (--connect) and the bound on tries (--max-tries); "" for neither.
func clientNote(run store.Run) string {
	var parts []string
	if run.Env[store.EnvConnect] == "true" {
		parts = append(parts, "each transaction on a new connection (--connect, as pgbench -C; connecting not in the latencies)")
	}
	switch n := run.Env[store.EnvMaxTries]; n {
	case "":
	case "1":
		parts = append(parts, "no retry (--max-tries 1, as pgbench's default): a serialization failure or deadlock is an error")
	default:
		parts = append(parts, "at most "+n+" tries per transaction (--max-tries; a failure after them is an error)")
	}
	return strings.Join(parts, "; ")
}

// pacedNote says what a paced run's latencies and lag are.
const pacedNote = "latencies count from each transaction's scheduled start (one Poisson schedule the users share, as pgbench -R); " +
	"schedule lag: how long after it a transaction started"

// writePaced prints a paced run's rate asked and kept and its schedule
// lag at each number of users, and the steps that fell behind.
func writePaced(w io.Writer, run store.Run, ws []analysis.WorkloadStep) {
	rate := run.Rate()
	if rate <= 0 {
		return
	}
	fmt.Fprintf(w, "\n  paced at %s TPS (--rate): %s:\n", fmtFloat(rate, 1), pacedNote)
	var rows [][]string
	var behind []string
	for _, s := range ws {
		rows = append(rows, []string{strconv.Itoa(s.Users), fmtFloat(rate, 1), fmtFloat(s.TPS, 1), fmtMs(s.ScheduleLagMs), fmtMs(s.ScheduleLagMaxMs)})
		if s.Behind(rate) {
			behind = append(behind, fmt.Sprintf("%d users (%s TPS)", s.Users, fmtFloat(s.TPS, 1)))
		}
	}
	writeTable(w, []string{"users", "asked TPS", "TPS", "lag ms", "max lag ms"}, rows, []bool{true, true, true, true, true})
	if len(behind) > 0 {
		so := "so the lag grew"
		if run.LatencyLimit() > 0 {
			so = "so the transactions already later than the latency limit were skipped"
		}
		fmt.Fprintf(w, "  ! behind the schedule at %s: the users could not keep %s TPS (fewer transactions than a Poisson schedule explains), %s\n",
			strings.Join(behind, ", "), fmtFloat(rate, 1), so)
	}
}

// statementHead is the head of a table of statements' latencies.
var statementHead = []string{"users", "script", "line", "statement", "count", "mean ms", "p50", "p90", "p95", "p99", "max"}

// statementCells are a statement's cells after its users.
func statementCells(x *store.StatementSummary) []string {
	return []string{x.Type, strconv.Itoa(x.Line), x.Text, strconv.FormatInt(x.Count, 10), fmtMs(x.MeanMs), fmtMs(x.P50Ms),
		fmtMs(x.P90Ms), fmtMs(x.P95Ms), fmtMs(x.P99Ms), fmtMs(x.MaxMs)}
}

// writeStatements prints each statement's latency at each number of
// users (its repeats merged).
func writeStatements(w io.Writer, steps []analysis.StatementStep) {
	if len(steps) == 0 {
		return
	}
	var rows [][]string
	for _, s := range steps {
		for i := range s.Statements {
			users := ""
			if i == 0 {
				users = strconv.Itoa(s.Users)
			}
			rows = append(rows, append([]string{users}, statementCells(&s.Statements[i])...))
		}
	}
	right := make([]bool, len(statementHead))
	for i := range right {
		right[i] = i != 1 && i != 3
	}
	fmt.Fprintf(w, "\n  latency per statement (ms, the commands of completed transactions, as pgbench -r; repeats merged):\n")
	writeTable(w, statementHead, rows, right)
}

// renderWorkloads shows, in the report's validity section, each run of a
// workload that is not TPC-C: its scripts, that it has no validity
// verdict, and its TPS overall and per script at each number of users.
func renderWorkloads(p *Page) {
	var rows []Row
	for i, rd := range p.Runs {
		name, scripts := rd.Run.Workload()
		if name == "" {
			continue
		}
		for _, s := range analysis.WorkloadTPS(rd.Steps) {
			var per []string
			for _, n := range sortedKeys(s.Scripts) {
				per = append(per, n+" "+fmtFloat(s.Scripts[n], 1))
			}
			rows = append(rows, Row{Cells: []Cell{Txt(p.Labels[i]), Txt(name + ": " + scripts), Num(strconv.Itoa(s.Users)),
				Num(fmtFloat(s.TPS, 1)), Txt(strings.Join(per, " · "))}})
		}
	}
	if len(rows) == 0 {
		return
	}
	p.Table(Table{Caption: "workloads that are not TPC-C: no validity verdict; their figure of merit is transactions per second",
		Head: []string{"run", "workload", "users", "TPS", "TPS per script"}, Rows: rows})
	renderPaced(p)
	renderLatencyLimit(p)
	renderStatements(p)
}

// renderPaced shows each paced run's rate asked and kept and its
// schedule lag at each number of users.
func renderPaced(p *Page) {
	var rows []Row
	for i, rd := range p.Runs {
		rate := rd.Run.Rate()
		if rate <= 0 {
			continue
		}
		for _, s := range analysis.WorkloadTPS(rd.Steps) {
			kept := Num(fmtFloat(s.TPS, 1))
			if s.Behind(rate) {
				kept.Class += " warn"
				kept.Title = "behind the schedule: fewer transactions than a Poisson schedule explains"
			}
			rows = append(rows, Row{Cells: []Cell{Txt(p.Labels[i]), Num(strconv.Itoa(s.Users)), Num(fmtFloat(rate, 1)), kept,
				Num(fmtMs(s.ScheduleLagMs)), Num(fmtMs(s.ScheduleLagMaxMs))}})
		}
	}
	if len(rows) == 0 {
		return
	}
	p.Table(Table{Caption: "paced runs (--rate): " + pacedNote, Head: []string{"run", "users", "asked TPS", "TPS", "lag ms", "max lag ms"}, Rows: rows})
}

// renderStatements shows each workload run's statements' latencies at
// each number of users.
func renderStatements(p *Page) {
	var rows []Row
	for i, rd := range p.Runs {
		for _, s := range analysis.WorkloadStatements(rd.Steps) {
			for j := range s.Statements {
				cells := []Cell{Txt(p.Labels[i]), Num(strconv.Itoa(s.Users))}
				for k, c := range statementCells(&s.Statements[j]) {
					if k == 0 || k == 2 {
						cells = append(cells, Txt(c))
					} else {
						cells = append(cells, Num(c))
					}
				}
				rows = append(rows, Row{Cells: cells})
			}
		}
	}
	if len(rows) == 0 {
		return
	}
	p.Table(Table{Caption: "latency per statement (ms): each command of a script over its completed transactions, as pgbench -r reports them",
		Head: append([]string{"run"}, statementHead...), Rows: rows})
}

// nopmNames are the title and unit the charts give the runs' NOPM column:
// TPC-C's New-Orders per minute, or, when every run is a pgbench
// workload's with the same figure of merit, that figure as every view
// names it (store.Merit.Name); runs of both kinds say both.
func (p *Page) nopmNames() (title, unit string) {
	name, workloads := "", 0
	for i := range p.Runs {
		if m, ok := p.Runs[i].Run.WorkloadMerit(); ok {
			if workloads > 0 && m.Name() != name {
				name = ""
			} else if workloads == 0 {
				name = m.Name()
			}
			workloads++
		}
	}
	switch {
	case workloads == 0:
		return "NOPM", "NOPM (New-Orders/min)"
	case workloads == len(p.Runs) && name != "":
		return name, name + " (transactions/min)"
	}
	return "NOPM", "NOPM (New-Orders/min; a pgbench workload's figure of merit per minute)"
}
