package report

import (
	"fmt"
	"strconv"

	"github.com/go-echarts/go-echarts/v2/opts"

	"github.com/rightsize/rightsize/history"
)

// historySection is a figure's history over runs with its change points
// (Options.History, rightsize history --html): a chart of the runs'
// values and their segments' means with a line at each change point, and
// the table of runs.
type historySection struct{}

func (historySection) Title() string        { return "History" }
func (historySection) Anchor() string       { return "history" }
func (historySection) shown(o Options) bool { return o.History != nil }
func (historySection) Render(p *Page) error {
	h := p.History
	if len(h.Points) == 0 {
		p.Notef("No run labelled %q* has a %s.", h.Prefix, h.FigureTitle)
		return nil
	}
	cats := historyCategories(h)
	values := make([]*float64, len(h.Points))
	means := make([]*float64, len(h.Points))
	for i, pt := range h.Points {
		v := pt.Value
		_, m := h.Segment(i)
		values[i], means[i] = &v, &m
	}
	chart := Lines(ChartText{Title: h.FigureTitle + " of the runs labelled " + h.Prefix + "*",
		Subtitle: fmt.Sprintf("change points by E-divisive means, p ≤ %g, %d permutations", h.PValue, h.Permutations),
		XName:    "run started", YName: h.FigureTitle}, cats, []LineSeries{
		{Name: h.FigureTitle, Color: palette[0], Values: values, Symbol: true},
		{Name: "segment mean", Color: palette[1], Dash: "dashed", Values: means},
	})
	lines := &opts.MarkLines{MarkLineStyle: opts.MarkLineStyle{Symbol: []string{"none", "none"},
		LineStyle: &opts.LineStyle{Color: "#cf222e", Type: "solid", Width: 1},
		Label:     &opts.Label{Show: opts.Bool(true), Position: "insideEndTop", Formatter: "{b}", Color: "#cf222e", FontSize: 11}}}
	for _, c := range h.Changes {
		lines.Data = append(lines.Data, opts.MarkLineNameXAxisItem{Name: fmt.Sprintf("%+.1f %%", c.ChangePct), XAxis: cats[c.Index]})
	}
	if len(chart.MultiSeries) > 0 && len(lines.Data) > 0 {
		chart.MultiSeries[0].MarkLines = lines
	}
	p.Charts(chart)
	historyTable(p, h)
	return nil
}

// historyCategories are the runs' start times, made unique.
func historyCategories(h *history.History) []string {
	cats := make([]string, len(h.Points))
	seen := map[string]int{}
	for i, pt := range h.Points {
		c := pt.Started.Local().Format("2006-01-02 15:04")
		if seen[c]++; seen[c] > 1 {
			c += " (" + strconv.Itoa(seen[c]) + ")"
		}
		cats[i] = c
	}
	return cats
}

// historyTable lists the runs, each change point on the run that starts
// its segment.
func historyTable(p *Page, h *history.History) {
	changeAt := map[int]history.Change{}
	for _, c := range h.Changes {
		changeAt[c.Index] = c
	}
	var rows []Row
	for i, pt := range h.Points {
		_, m := h.Segment(i)
		change := Txt("")
		if c, ok := changeAt[i]; ok {
			change = Cell{Text: fmt.Sprintf("change point: %s → %s (%+.1f %%), %s", fmtInt(c.Before), fmtInt(c.After), c.ChangePct, h.PText(c.PValue)), Class: "warn"}
		}
		rows = append(rows, Row{Cells: []Cell{Txt(fmtTime(pt.Started)), Txt(pt.RunID), Txt(pt.Label), Txt(pt.Status), Num(fmtInt(pt.Value)), Num(fmtInt(m)), change}})
	}
	p.Table(Table{Head: []string{"started", "run", "label", "status", h.FigureTitle, "segment mean", "change"}, Rows: rows})
	if len(h.Changes) == 0 {
		p.Notef("No change point at p ≤ %g: no shift in the %d runs' %s is significant (a change needs about four runs on each side).", h.PValue, len(h.Points), h.FigureTitle)
	}
	p.Notef("E-divisive means (Matteson & James 2014, as MongoDB's and Apache Otava's performance CI run it) splits the series where the "+
		"energy distance between the runs before and after is largest, and keeps the split when the share of %d random permutations of "+
		"the runs that reach it is at most %g; it then searches each part again. It sees a slow drift or a step that a gate between two runs misses in their noise. "+
		"%d runs with the prefix had no %s (still running or nothing measured).", h.Permutations, h.PValue, h.Skipped, h.FigureTitle)
}
