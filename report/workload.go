package report

import (
	"fmt"
	"io"
	"slices"
	"strconv"

	"github.com/rightsize/rightsize/analysis"
	"github.com/rightsize/rightsize/store"
)

// WriteWorkload prints the workload of a run that is not TPC-C: its name
// and scripts, its peak TPS and each step's TPS overall and per script
// (its figures of merit; NOPM and the validity verdict are TPC-C's). It
// prints nothing and reports false for TPC-C.
func WriteWorkload(w io.Writer, run store.Run, steps []store.Step) bool {
	name, scripts := run.Workload()
	if name == "" {
		return false
	}
	fmt.Fprintf(w, "\n  workload %s: %s (not TPC-C: no NOPM, consistency checks or validity verdict)\n", name, scripts)
	ws := analysis.WorkloadTPS(steps)
	if len(ws) == 0 {
		return true
	}
	var names []string
	for n := range ws[0].Scripts {
		names = append(names, n)
	}
	slices.Sort(names)
	peak := slices.MaxFunc(ws, func(a, b analysis.WorkloadStep) int { return cmpFloat(a.TPS, b.TPS) })
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

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
