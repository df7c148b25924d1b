package report

import (
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"

	"github.com/rightsize/rightsize/analysis"
	"github.com/rightsize/rightsize/diagnosis"
	"github.com/rightsize/rightsize/store"
	"github.com/rightsize/rightsize/waits"
)

// classColors colour the wait classes, in waits.Classes order.
var classColors = map[waits.Class]string{
	waits.CPU: "#3ba272", waits.IO: "#5470c6", waits.Lock: "#ee6666", waits.Latch: "#fc8452",
	waits.Log: "#9a60b4", waits.Client: "#c0c4cc", waits.Other: "#fac858",
}

// whySection explains where throughput stops: the verdicts first, then
// per run the active time by wait class by users, the top wait events of
// each step and the disk latency over time.
type whySection struct{}

func (whySection) Title() string  { return "Why" }
func (whySection) Anchor() string { return "why" }

func (whySection) Render(p *Page) error {
	shown := 0
	for i := range p.Runs {
		rs := p.Stats(i)
		v, ok := analysis.RunVerdict(rs.Steps)
		if !ok {
			p.Notef("%s: no wait profile or saturation was measured (run with --no-waits, imported, or measured by an older rightsize).", p.Labels[i])
			continue
		}
		shown++
		p.Heading("%s", p.Labels[i])
		p.Textf("%s", v.Text)
		writeVerdictTable(p, rs.Steps)
	}
	if shown == 0 {
		return nil
	}
	for i := range p.Runs {
		rs := p.Stats(i)
		if c := waitClassChart(p.Labels[i], rs.Steps); c != nil {
			p.Charts(c)
		}
		writeTopEvents(p, "Top 10 wait events per step: "+p.Labels[i], rs.Steps, func(w *waits.Profile) []waits.Event { return w.Events })
		writeTopEvents(p, "Top 10 waits timed by the server per step (server-wide, beside the samples): "+p.Labels[i], rs.Steps,
			func(w *waits.Profile) []waits.Event { return w.Timed })
		if c := diskTimeline(p.Labels[i], p.Runs[i].Steps); c != nil {
			p.Charts(c)
		}
	}
	p.Note(fmt.Sprintf("Verdict rules (first that holds): driver-bound when the driver used more than a quarter of the host's CPUs; "+
		"lock-, log-, I/O-, latch-bound when one wait class other than CPU holds %.0f %% of the sessions' active time; "+
		"CPU-bound when the server used %.0f %% of the cores it may use; memory-bound at %.0f major faults/s; "+
		"disk-bound at a disk p99 of %.0f ms or %.0f I/Os in flight; client-bound when sessions wait for the client half their time. "+
		"Throughput stops rising at the first step after which TPM rises by less than %.0f %%. "+
		"Active time is sampled: each sample of a session counts one sampling interval; \"CPU\" is a session active with no wait event. "+
		"Figures of repeated steps are means across repeats.",
		diagnosis.WaitShare*100, diagnosis.CPUShare*100, diagnosis.MajorFaults, diagnosis.DiskP99Ms, diagnosis.QueueDepth, diagnosis.Rise*100))
	return nil
}

// writeVerdictTable lists each step's verdict with its saturation figures.
func writeVerdictTable(p *Page, steps []analysis.StepAggregate) {
	head := []string{"users", "TPM", "verdict", "active sessions", "server cores", "driver cores", "disk p50 ms", "disk p99 ms",
		"queue depth", "major faults/s", "source"}
	var rows []Row
	for i := range steps {
		a := &steps[i]
		cells := []Cell{Num(strconv.Itoa(a.Users)), Num(fmtInt(a.TPM.Mean))}
		if a.Verdict != nil {
			cells = append(cells, Cell{Text: a.Verdict.Text, Class: "wrap"})
		} else {
			cells = append(cells, Txt("-"))
		}
		if w := a.Waits; w != nil && w.Seconds > 0 {
			cells = append(cells, Num(fmtFloat(w.AverageActive(), 2)))
		} else {
			cells = append(cells, Num("-"))
		}
		if s := a.Saturation; s != nil {
			cells = append(cells, Num(fmtFloat(s.ServerCores, 2)+" / "+fmtFloat(s.Cores, 0)), Num(fmtFloat(s.DriverCores, 2)),
				Num(fmtFloat(s.DiskP50Ms, 2)), Num(fmtFloat(s.DiskP99Ms, 2)), Num(fmtFloat(s.QueueDepth, 2)), Num(fmtFloat(s.MajorFaultsPerSec, 0)))
		} else {
			cells = append(cells, Num("-"), Num("-"), Num("-"), Num("-"), Num("-"), Num("-"))
		}
		src := Txt("-")
		if w := a.Waits; w != nil {
			src = Txt(w.Source)
			if len(w.Missing) > 0 {
				src = Cell{Text: w.Source + " (incomplete)", Class: "warn", Title: joinMissing(w)}
			}
			if w.Skipped > 0 {
				src.Text += fmt.Sprintf(", %d of %d ticks skipped", w.Skipped, w.Ticks+w.Skipped)
			}
		}
		rows = append(rows, Row{Cells: append(cells, src)})
	}
	p.Table(Table{Head: head, Rows: rows})
	for i := range steps {
		if w := steps[i].Waits; w != nil && len(w.Missing) > 0 {
			p.Notef("%d users: %s", steps[i].Users, joinMissing(w))
		}
	}
}

func joinMissing(w *waits.Profile) string {
	s := ""
	for i, m := range w.Missing {
		if i > 0 {
			s += "; "
		}
		s += m
	}
	return s
}

// waitClassChart stacks each step's average active sessions by wait class.
func waitClassChart(label string, steps []analysis.StepAggregate) *charts.Bar {
	var users []string
	var have []*analysis.StepAggregate
	for i := range steps {
		if w := steps[i].Waits; w != nil && w.Seconds > 0 {
			users = append(users, strconv.Itoa(steps[i].Users))
			have = append(have, &steps[i])
		}
	}
	if len(have) == 0 {
		return nil
	}
	bar := charts.NewBar()
	bar.SetGlobalOptions(rectOpts(ChartText{Title: "Active time by wait class: " + label, Subtitle: "average sessions in each class",
		XName: "users", YName: "active sessions"}, "axis")...)
	bar.SetXAxis(users)
	for _, c := range waits.Classes {
		data := make([]opts.BarData, len(have))
		for i, a := range have {
			data[i] = opts.BarData{Value: round3(a.Waits.ByClass()[c] / a.Waits.Seconds)}
		}
		bar.AddSeries(string(c), data, charts.WithBarChartOpts(opts.BarChart{Stack: "active"}),
			charts.WithItemStyleOpts(opts.ItemStyle{Color: classColors[c]}))
	}
	return bar
}

// writeTopEvents writes the ten largest wait events of every step, as
// events picks them from its profile.
func writeTopEvents(p *Page, caption string, steps []analysis.StepAggregate, events func(*waits.Profile) []waits.Event) {
	var rows []Row
	for i := range steps {
		w := steps[i].Waits
		if w == nil {
			continue
		}
		var active float64
		for _, e := range events(w) {
			if e.Class != waits.Client {
				active += e.Seconds
			}
		}
		for k, e := range events(w) {
			if k == 10 {
				break
			}
			share := "-"
			if active > 0 && e.Class != waits.Client {
				share = fmtPct(e.Seconds / active * 100)
			}
			u := ""
			if k == 0 {
				u = strconv.Itoa(steps[i].Users)
			}
			rows = append(rows, Row{Cells: []Cell{Num(u), Num(strconv.Itoa(k + 1)), Txt(e.Name), Txt(string(e.Class)), Num(share),
				Num(fmtFloat(e.Seconds, 1))}})
		}
	}
	if len(rows) == 0 {
		return
	}
	p.Table(Table{Caption: caption, Head: []string{"users", "#", "event", "class", "% of the table's time", "session seconds"}, Rows: rows})
}

// diskTimeline draws the per-second latency of each step's database disk
// and the step's p99, over the run.
func diskTimeline(label string, steps []store.Step) *charts.Line {
	steps = timedSteps(steps)
	if len(steps) == 0 {
		return nil
	}
	t0 := steps[0].Start
	lat := LineSeries{Name: "disk latency, per-second average (ms)", Color: "#5470c6", Width: 1}
	p99 := LineSeries{Name: "step p99 of the per-second latency (ms)", Color: "#ee6666", Width: 2, Dash: "dashed"}
	for _, st := range steps {
		sat := analysis.WhyOf(&st).Saturation
		if sat == nil || sat.Disk == "" {
			continue
		}
		for _, x := range st.Samples {
			var disks []struct {
				Name         string
				AvgLatencyMs float64
			}
			if json.Unmarshal([]byte(x.Disks), &disks) != nil {
				continue
			}
			for _, d := range disks {
				if d.Name == sat.Disk {
					lat.Points = append(lat.Points, [2]float64{x.At.Sub(t0).Minutes(), d.AvgLatencyMs})
				}
			}
		}
		p99.Points = append(p99.Points, [2]float64{st.MeasureStart.Sub(t0).Minutes(), sat.DiskP99Ms},
			[2]float64{st.MeasureEnd.Sub(t0).Minutes(), sat.DiskP99Ms})
	}
	if len(lat.Points) == 0 {
		return nil
	}
	return Lines(ChartText{Title: "Disk latency of the database's disk: " + label, XName: "minutes since the first step started", YName: "ms"},
		nil, []LineSeries{lat, p99})
}
