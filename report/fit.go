package report

import (
	"fmt"
	"math"
	"sort"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"

	"github.com/rightsize/rightsize/fit"
	"github.com/rightsize/rightsize/store"
)

// Fit is a right-size search to report (Options.Fit): every candidate in
// the order the search took them, its cost, verdict and measurement.
type Fit struct {
	ID, Label, Status, Currency string
	Answer                      string // the search's one-line conclusion
	// RunLabel is the label the fit's runs start with ("LABEL" or
	// "fit-ID"): the report leaves it out of them.
	RunLabel             string
	TargetNOPM, MaxP90Ms float64
	Trials               []fit.Trial
	Best                 int // index into Trials, -1 when none meets
	// Indistinct says, per pair of measured candidates whose judged NOPM
	// intervals overlap, that they are not distinguishable at this
	// precision (fit.Result.PairText).
	Indistinct []string
	// Predicted tells the search measured in the order the capacity
	// model's predictions settle soonest; MeasureAll that they decided
	// nothing.
	Predicted, MeasureAll bool
	// Merit, for a pgbench workload, is its figure of merit
	// (fit.Criteria.Merit), which the trials' NOPM and p90 then hold;
	// nil for TPC-C.
	Merit *store.Merit
}

// heads are the names the fit's views give the trials' judged figure and
// its p90: TPC-C's, or the workload's figure as every view names it.
func (f *Fit) heads() (merit, p90 string) {
	if f.Merit == nil {
		return "NOPM", "New-Order p90 ms"
	}
	return f.Merit.Name(), "p90 ms"
}

// fitSection shows a fit: the answer, every candidate with its verdict,
// and cost against NOPM with the target line and the frontier.
type fitSection struct{}

func (fitSection) Title() string        { return "Right-size search" }
func (fitSection) Anchor() string       { return "fit" }
func (fitSection) shown(o Options) bool { return o.Fit != nil }
func (fitSection) Render(p *Page) error { return renderFit(p, p.Fit) }

func renderFit(p *Page, f *Fit) error {
	p.Textf("%s", f.Answer)
	if f.Predicted && !f.MeasureAll {
		p.Textf("Fit %s (%s): the candidate with the most resources measured first, every other predicted from what was measured; then the cheapest predicted to meet and the cheaper ones within reach measured; a cheaper one predicted below the target by more than its band, or with no more resources than one that missed, is not measured.", f.ID, f.Status)
	} else {
		p.Textf("Fit %s (%s): candidates tried cheapest first; a candidate with no more resources than one that missed is skipped, and the search stops at the first that meets the target.", f.ID, f.Status)
	}
	merit, p90Head := f.heads()
	head := []string{"#", "candidate", "cost " + f.Currency, "verdict", "users", merit, p90Head, "why", "run"}
	var rows []Row
	for i, t := range f.Trials {
		v := Txt(t.Verdict)
		if i == f.Best {
			v.Class = "key"
		}
		users, nopm, p90 := Num("-"), Num("-"), Num("-")
		if t.Measured() {
			users, nopm, p90 = Num(fmt.Sprint(t.Users)), Num(withHalf(t.NOPM, t.Interval.Half)), Num(fmt.Sprintf("%.2f", t.P90Ms))
		}
		rows = append(rows, Row{Cells: []Cell{Num(fmt.Sprint(i + 1)), Txt(t.Candidate.String()), Num(t.Cost.Total.Cents()), v, users, nopm, p90, Txt(t.Reason), Txt(orDash(t.RunID))}})
	}
	p.Table(Table{Head: head, Rows: rows})
	predictionsTable(p, "candidate", fitPredictions(f))
	for _, s := range f.Indistinct {
		p.Textf("%s.", s)
	}
	p.Charts(fitChart(f))
	p.Note(merit + " is the figure judged, ± the half-width of its confidence interval: the repeat whose interval reaches lowest, unless the search judged the mean " +
		"(the interval across repeats). A candidate meets the target only when that interval lies wholly above it; overlapping intervals are not distinguishable at this precision. " +
		"The frontier joins the measured candidates whose interval lies wholly above every cheaper frontier candidate's.")
	return nil
}

// fitChart plots cost against the judged figure (NOPM for TPC-C): the
// measured candidates, the frontier and the target.
func fitChart(f *Fit) Chart {
	type pt struct {
		cost, nopm, half float64
		name             string
	}
	var pts []pt
	for _, t := range f.Trials {
		if t.Measured() {
			c, _ := t.Cost.Total.Float64()
			pts = append(pts, pt{c, t.NOPM, t.Interval.Half, t.Candidate.String()})
		}
	}
	sort.SliceStable(pts, func(i, j int) bool { return pts[i].cost < pts[j].cost })
	var measured, frontier []opts.LineData
	best := math.Inf(-1) // the high end of the last frontier candidate's interval
	lo, hi := 0.0, 0.0
	for i, x := range pts {
		d := opts.LineData{Name: x.name, Value: []any{x.cost, x.nopm}}
		measured = append(measured, d)
		if x.nopm-x.half > best {
			frontier, best = append(frontier, d), x.nopm+x.half
		}
		if i == 0 || x.cost < lo {
			lo = x.cost
		}
		hi = max(hi, x.cost)
	}
	l := charts.NewLine()
	merit, _ := f.heads()
	l.SetGlobalOptions(rectOpts(ChartText{Title: "Cost against " + merit, XName: "total cost " + f.Currency, YName: merit}, "item")...)
	l.SetGlobalOptions(charts.WithXAxisOpts(opts.XAxis{Name: "total cost " + f.Currency, NameLocation: "middle", NameGap: 26, Type: "value", Scale: opts.Bool(true)}))
	l.AddSeries("measured", measured, charts.WithLineStyleOpts(opts.LineStyle{Width: 0}),
		charts.WithLineChartOpts(opts.LineChart{ShowSymbol: opts.Bool(true), SymbolSize: 10}))
	l.AddSeries("frontier", frontier, charts.WithLineChartOpts(opts.LineChart{ShowSymbol: opts.Bool(false)}))
	if f.TargetNOPM > 0 && len(pts) > 0 {
		l.AddSeries("target", []opts.LineData{{Value: []any{lo, f.TargetNOPM}}, {Value: []any{hi, f.TargetNOPM}}},
			charts.WithLineStyleOpts(opts.LineStyle{Type: "dashed"}), charts.WithLineChartOpts(opts.LineChart{ShowSymbol: opts.Bool(false)}))
	}
	return l
}

// fitPredictions are the rows of a fit's predictions table.
func fitPredictions(f *Fit) []predictedRow {
	var rows []predictedRow
	for _, t := range f.Trials {
		m := "not measured"
		if t.Measured() {
			m = fmtInt(t.NOPM)
		}
		r := predictedRow{name: t.Candidate.String(), measured: m, p: t.Prediction, note: t.NotPredicted}
		r.errorPct, r.hasError = t.PredictionError()
		rows = append(rows, r)
	}
	return rows
}
