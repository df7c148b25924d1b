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
	return true
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
}
