package report

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/rightsize/rightsize/probe/result"
	"github.com/rightsize/rightsize/store"
)

// cpuSection shows single-thread CPU probes: per probe the engine and
// host, best and median time of the server-side loop and the same loop in
// Go on the client; and a bar chart of best and median time per probe.
type cpuSection struct{}

func (cpuSection) Title() string  { return "Single-thread CPU" }
func (cpuSection) Anchor() string { return "cpu" }

// Render shows the CPU probes attached to the runs.
func (s cpuSection) Render(p *Page) error { return s.renderProbes(p, reportProbes(p.Runs, nil)) }

func (cpuSection) renderProbes(p *Page, ps probeSet) error {
	var cps []loopProbe
	for _, i := range ps.ofKind(store.ProbeCPU) {
		var r result.CPU
		if err := decodeProbe(ps.probes[i], ps.labels[i], &r); err != nil {
			p.Notef("Left out: %v.", err)
			continue
		}
		cps = append(cps, loopProbe{label: ps.labels[i], color: palette[len(cps)%len(palette)], probe: ps.probes[i], res: r})
	}
	if len(cps) == 0 {
		p.Note("No single-thread CPU probe in this report. Measure one with rightsize probe cpu --target ...; " +
			"a report includes the latest CPU probe of its runs' host, or name one with --probe ID.")
		return nil
	}
	var series []BarSeries
	var rows []Row
	var vals []float64
	for _, c := range cps {
		series = append(series, c.bars())
		vals = append(vals, c.res.BestMs, c.res.MedianMs)
		rows = append(rows, c.row())
	}
	sub := "lower is faster · whisker: all runs"
	log := isWide(vals)
	ch := GroupedBars(ChartText{Title: "Single-thread CPU loop", Subtitle: withLogNote(sub, log), YName: "time (ms)"},
		[]string{"best", "median"}, series)
	if log {
		logY(ch, "time (ms)", vals)
	}
	p.Charts(ch)
	p.Table(Table{Head: []string{"probe", "engine", "loop in", "host", "iterations", "runs", "best ms", "median ms", "all runs ms",
		"M iterations/s (best)", "client Go loop ms", "server loop vs Go", "measured"}, Rows: rows})
	if len(cps) > 1 && cps[0].res.BestMs > 0 {
		for _, c := range cps[1:] {
			if c.res.BestMs > 0 {
				p.Textf("%s: best %s ms against %s ms for %s: %s the speed.", c.label, fmtMs(c.res.BestMs), fmtMs(cps[0].res.BestMs), cps[0].label,
					fmtRatio(c.res.BestMs, cps[0].res.BestMs))
			}
		}
	}
	p.Note("The same arithmetic loop (x = x + SQRT(i) * 1.0001) runs inside the database on one session, timed by the server; " +
		"the client Go loop is that arithmetic compiled, on the machine the probe ran from (its host), to tell the engine's interpreter from the CPU.")
	return nil
}

// loopProbe is one CPU probe of a report with its label and colour.
type loopProbe struct {
	label, color string
	probe        store.Probe
	res          result.CPU
}

// spread is the fastest and slowest of the probe's server runs.
func (c loopProbe) spread() (lo, hi float64) {
	r := c.res
	lo, hi = r.BestMs, r.BestMs
	if len(r.ServerMs) > 0 {
		lo, hi = slices.Min(r.ServerMs), slices.Max(r.ServerMs)
	}
	return lo, hi
}

// bars is the probe's best and median bars, with the runs' spread as whisker.
func (c loopProbe) bars() BarSeries {
	r := c.res
	ev := engineVersion(store.Run{Engine: r.Engine, EngineVersion: r.Version})
	lo, hi := c.spread()
	tip := func(what string, ms float64) string {
		t := fmt.Sprintf("%s<br/>%s: <b>%s ms</b><br/>%s, %s iterations", tooltipHTML(c.label), what, fmtMs(ms), tooltipHTML(orDash(ev)),
			fmtInt(float64(r.Iterations)))
		if len(r.ServerMs) > 1 {
			t += fmt.Sprintf("<br/>%d runs: %s – %s ms", len(r.ServerMs), fmtMs(lo), fmtMs(hi))
		}
		if r.ClientGoMs > 0 {
			t += fmt.Sprintf("<br/>client Go loop: %s ms", fmtMs(r.ClientGoMs))
		}
		return t
	}
	s := BarSeries{Name: c.label, Color: c.color, Values: []*BarValue{
		{Mean: r.BestMs, Repeats: 1, Tooltip: tip("best", r.BestMs)},
		{Mean: r.MedianMs, Min: lo, Max: hi, Repeats: max(1, len(r.ServerMs)), Tooltip: tip("median", r.MedianMs)},
	}}
	if r.BestMs <= 0 {
		s.Values = []*BarValue{nil, nil}
	}
	return s
}

// row is the probe's row of the CPU probes table.
func (c loopProbe) row() Row {
	r := c.res
	ev := engineVersion(store.Run{Engine: r.Engine, EngineVersion: r.Version})
	lo, hi := c.spread()
	rate, goRatio := "-", "-"
	if r.BestMs > 0 {
		rate = fmtFloat(float64(r.Iterations)/r.BestMs/1000, 2)
	}
	goMs := Cell{Text: "-", Class: "num muted"}
	if r.ClientGoMs > 0 {
		goMs = Num(fmtMs(r.ClientGoMs))
		goRatio = fmtRatio(r.ClientGoMs, r.BestMs)
	}
	spread := Cell{Text: "-", Class: "num muted"}
	if len(r.ServerMs) > 1 {
		spread = Num(fmtMs(lo) + " – " + fmtMs(hi))
	}
	host := r.Host
	if host == "" {
		host = c.probe.Host
	}
	return Row{Cells: []Cell{Txt(c.label), Cell{Text: orDash(ev), Title: r.Version}, Txt(orDash(r.Language)), Txt(orDash(host)),
		Num(fmtInt(float64(r.Iterations))), Num(strconv.Itoa(len(r.ServerMs))), Num(fmtMs(r.BestMs)), Num(fmtMs(r.MedianMs)), spread,
		Num(rate), goMs, Num(goRatio), Txt(fmtTime(c.probe.CreatedAt))}}
}
