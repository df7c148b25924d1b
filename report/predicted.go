package report

import (
	"fmt"

	"github.com/rightsize/rightsize/capacity"
)

// predictedRow is one line of a predictions table: what the capacity
// model expected of a fit candidate or a sweep value, beside what was
// measured.
type predictedRow struct {
	name     string
	measured string // the measured NOPM, or why it was not measured
	p        *capacity.Prediction
	// errorPct is (predicted − measured) / measured NOPM, %, when hasError
	// (the value was measured too).
	errorPct float64
	hasError bool
	note     string // when p is nil: why there is no prediction
}

// predictionsTable shows predicted beside measured: the NOPM (or a
// pgbench workload's figure, as the predictions name it) predicted with
// its band, the limiting resource and the prediction's error.
func predictionsTable(p *Page, what string, rows []predictedRow) {
	some, fig := false, "NOPM"
	for _, r := range rows {
		some = some || r.p != nil
		if r.p != nil {
			fig = r.p.FigureLabel() // a pgbench workload's figure: "TPM of every script"
		}
	}
	if !some {
		return
	}
	head := []string{what, fig + " measured", fig + " predicted", "band", "limit", "error"}
	var out []Row
	for _, r := range rows {
		if r.p == nil {
			out = append(out, Row{Cells: []Cell{Txt(r.name), Num(r.measured), Txt(orDash(r.note)), Num("-"), Txt("-"), Num("-")}})
			continue
		}
		e := Num("-")
		if r.hasError {
			e = Num(fmt.Sprintf("%+.1f %%", r.errorPct))
		}
		out = append(out, Row{Cells: []Cell{Txt(r.name), Num(r.measured), Num(fmtInt(r.p.NOPM)),
			Num(fmtInt(r.p.NOPMLow) + " to " + fmtInt(r.p.NOPMHigh)), Txt(r.p.Limit), e}})
	}
	p.Table(Table{Head: head, Rows: out})
	p.Note("Predicted by the capacity model from the demands per transaction of what was measured before (see the README's fit section): " +
		"mean value analysis of the closed system of users, the band from the demands' spread and the model's error so far; " +
		"the limit is the resource the model finds saturated, or concurrency when none is.")
}
