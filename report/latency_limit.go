package report

import (
	"fmt"
	"io"
	"strconv"

	"github.com/rightsize/rightsize/analysis"
	"github.com/rightsize/rightsize/store"
)

// latencyLimitNote says what a run's late and skipped transactions are.
func latencyLimitNote(run store.Run) string {
	note := fmt.Sprintf("latency limit %s (--latency-limit, as pgbench -L): late, completed over it", run.LatencyLimit())
	if run.Rate() > 0 {
		note += "; skipped, not sent: already further behind the schedule than the limit"
	}
	return note
}

// latencyLimitCells are a step's transactions, late, skipped and the
// share of both.
func latencyLimitCells(s analysis.WorkloadStep) []string {
	return []string{fmtInt(float64(s.Transactions)), fmtInt(float64(s.Late)), fmtInt(float64(s.Skipped)), fmtFloat(s.LatePct(), 2)}
}

// latencyLimitHead is the head of the table latencyLimitCells fill.
var latencyLimitHead = []string{"transactions", "late", "skipped", "late or skipped %"}

// writeLatencyLimit prints, for a run with a latency limit, its late and
// skipped transactions at each number of users.
func writeLatencyLimit(w io.Writer, run store.Run, ws []analysis.WorkloadStep) {
	if run.LatencyLimit() <= 0 {
		return
	}
	fmt.Fprintf(w, "\n  %s:\n", latencyLimitNote(run))
	var rows [][]string
	for _, s := range ws {
		rows = append(rows, append([]string{strconv.Itoa(s.Users)}, latencyLimitCells(s)...))
	}
	writeTable(w, append([]string{"users"}, latencyLimitHead...), rows, []bool{true, true, true, true, true})
}

// renderLatencyLimit shows each run with a latency limit: its late and
// skipped transactions at each number of users.
func renderLatencyLimit(p *Page) {
	var rows []Row
	caption, runs := "", 0
	for i, rd := range p.Runs {
		lim := rd.Run.LatencyLimit()
		if lim <= 0 {
			continue
		}
		caption, runs = latencyLimitNote(rd.Run), runs+1
		for _, s := range analysis.WorkloadTPS(rd.Steps) {
			cells := []Cell{Txt(p.Labels[i]), Txt(lim.String()), Num(strconv.Itoa(s.Users))}
			for _, c := range latencyLimitCells(s) {
				cells = append(cells, Num(c))
			}
			rows = append(rows, Row{Cells: cells})
		}
	}
	if len(rows) == 0 {
		return
	}
	if runs > 1 {
		caption = "runs with a latency limit (--latency-limit, as pgbench -L): late, completed over it; skipped, not sent (paced runs): already further behind the schedule than the limit"
	}
	p.Table(Table{Caption: caption, Head: append([]string{"run", "limit", "users"}, latencyLimitHead...), Rows: rows})
}
