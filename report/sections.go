package report

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/rightsize/rightsize/analysis"
	"github.com/rightsize/rightsize/store"
	"github.com/rightsize/rightsize/tpcc"
)

// registry is the report's sections in page order. A new section is a
// type implementing Section and one line here.
var registry = []Section{
	summarySection{},
	throughputSection{},
	answerSection{},
	hostSection{},
	whySection{},
	latencySection{},
	timelineSection{},
	storageSection{},
	cpuSection{},
	backupSection{},
	costSection{},
	sweepSection{},
	fitSection{},
	historySection{},
	validitySection{},
	environmentSection{},
}

// ---------------------------------------------------------------- summary

type summarySection struct{}

func (summarySection) Title() string  { return "Summary" }
func (summarySection) Anchor() string { return "summary" }

func (summarySection) Render(p *Page) error {
	head := []string{"run", "engine", "host", "workload", "mode", "users × repeats", "peak TPM", "peak NOPM",
		"avg TPM, all steps", "avg NOPM, all steps", "peak driver CPU, % of one core", "status"}
	if len(p.Runs) > 1 {
		head = append(head, "avg TPM vs first")
	}
	var rows []Row
	base, _ := p.Stats(0).Average(nil)
	for i, rd := range p.Runs {
		r := rd.Run
		rs := p.Stats(i)
		avgTPM, avgNOPM := rs.Average(nil)
		fig := analysis.RunFigures(rs.Steps)
		cells := []Cell{Txt(p.Labels[i]), Txt(orDash(engineVersion(r))), Cell{Text: hostText(r), Title: r.Env["host.cpu_model"]},
			workloadCell(r), Txt(orDash(r.Mode)), Txt(usersText(r, rs))}
		if fig.Steps > 0 {
			cells = append(cells, Num(fmtInt(fig.PeakTPM)+" at "+strconv.Itoa(fig.PeakTPMUsers)+" users"),
				Num(fmtInt(fig.PeakNOPM)+" at "+strconv.Itoa(fig.PeakNOPMUsers)+" users"),
				Num(fmtInt(avgTPM)), Num(fmtInt(avgNOPM)))
		} else {
			cells = append(cells, Num("-"), Num("-"), Num("-"), Num("-"))
		}
		cells = append(cells, driverShareCell(r, rs))
		st := Txt(r.Status)
		if ca := r.CapsNotApplied(); ca != "" {
			st.Text += " · " + ca
		}
		if r.Status != store.StatusComplete || r.CapsNotApplied() != "" {
			st.Class = "warn"
		}
		cells = append(cells, st)
		if len(p.Runs) > 1 {
			cells = append(cells, Num(fmtRatio(base, avgTPM)))
		}
		rows = append(rows, Row{Cells: cells})
	}
	p.Table(Table{Head: head, Rows: rows})
	if len(p.Runs) > 1 && base > 0 {
		for i := 1; i < len(p.Runs); i++ {
			avg, _ := p.Stats(i).Average(nil)
			if avg > 0 {
				p.Textf("%s %s vs %s %s average TPM over all steps: %s.", p.Labels[i], fmtInt(avg), p.Labels[0], fmtInt(base), fmtRatio(base, avg))
			}
		}
	}
	nopm := "NOPM completed New-Orders per minute"
	if title, unit := p.nopmNames(); title != "NOPM" {
		nopm = "NOPM the figure of merit per minute of these runs' pgbench workload (not TPC-C), the " + title
	} else if strings.Contains(unit, "pgbench") {
		nopm += " (in a pgbench workload's run, its figure of merit per minute)"
	}
	p.Note("TPM counts completed transactions of all types per minute, " + nopm + ", over each step's measured interval (ramp-up excluded). " +
		"Figures of repeated steps are means across repeats. The average over all steps weighs every users count once. " +
		"Driver share of CPU is the load generator's own CPU as a share of the host's whole CPU (all logical CPUs), at its highest step: a high share means the driver, not the database, may limit throughput; " +
		"for an engine inside the driver's process (SQLite) it is the database's CPU too, and the cores the process gets are what may limit it.")
	for i, rd := range p.Runs {
		if len(rd.Workers) > 0 {
			workersTable(p, p.Labels[i], rd.Workers)
		}
	}
	return nil
}

// workersTable shows the workers of a multi-worker run: none should have
// been the bottleneck.
func workersTable(p *Page, label string, ws []analysis.WorkerSummary) {
	p.Heading("Workers of %s", label)
	var rows []Row
	for _, w := range ws {
		st := Txt(w.Status)
		if w.Status != store.WorkerDone {
			st.Class = "warn"
		}
		rows = append(rows, Row{Cells: []Cell{Txt(fmt.Sprintf("%d/%d", w.Worker.Worker, w.Workers)), st, Txt(orDash(w.Host)),
			Num(w.ClockOffset.Round(10 * time.Microsecond).String()), Num(strconv.Itoa(w.Steps)), Num(fmtInt(w.Figures.PeakTPM)),
			Num(fmtPct(w.Figures.PeakDriverCPUPct)), Num(fmtFloat(w.Figures.PeakDriverCPUUsPerTxn, 1)), Txt(orDash(w.Note))}})
	}
	p.Table(Table{Head: []string{"worker", "status", "host", "clock offset", "steps", "peak TPM", "peak driver CPU, % of one core",
		"driver µs per txn", "note"}, Rows: rows})
	p.Note("Each worker drove its share of the users from its own slice of home warehouses; the run's figures merge their steps (counts and TPM added, latency histograms merged exactly). " +
		"Clock offset is the worker's clock minus the results store server's at registration.")
}

func orDash(s string) string {
	if strings.TrimSpace(s) == "" {
		return "-"
	}
	return s
}

func intOrDash(n int) string {
	if n == 0 {
		return "-"
	}
	return strconv.Itoa(n)
}

// hostText describes the host of a run from its environment.
func hostText(r store.Run) string {
	e := r.Env
	var parts []string
	if v := e["host.name"]; v != "" {
		parts = append(parts, v)
	}
	if n := logicalCPUs(r); n > 0 {
		parts = append(parts, fmt.Sprintf("%d CPUs", n))
	}
	if v, err := strconv.ParseFloat(e["host.memory_bytes"], 64); err == nil && v > 0 {
		parts = append(parts, fmtBytes(v)+" RAM")
	}
	if len(parts) == 0 {
		return "-"
	}
	return strings.Join(parts, " · ")
}

func usersText(r store.Run, rs *RunStats) string {
	users := r.Users
	if len(users) == 0 {
		users = rs.Users
	}
	reps := r.Repeats
	if reps == 0 {
		reps = 1
	}
	s := fmtUsersList(users)
	if reps > 1 {
		s += fmt.Sprintf(" × %d", reps)
	}
	return s
}

func driverShareCell(r store.Run, rs *RunStats) Cell {
	f := analysis.RunFigures(rs.Steps)
	if f.PeakDriverCPUPct == 0 {
		return Num("-")
	}
	c := Num(fmt.Sprintf("%s at %d users (%.1f µs/txn)", fmtPct(f.PeakDriverCPUPct), f.PeakDriverCPUUsers, f.PeakDriverCPUUsPerTxn))
	switch {
	case DriverBottleneck(r, f.PeakDriverCPUPct):
		c.Class += " warn"
		c.Title = "the driver used more than a quarter of the host's CPU: it may be the bottleneck"
	case coresBound(r, f.PeakDriverCPUPct):
		c.Class += " warn"
		c.Title = r.Engine + " runs inside the driver's process and used nearly all the host's CPUs: the cores it gets limit the result"
	case r.EngineInProcess():
		c.Title = r.Engine + " runs inside the driver's process: this is the database's own CPU as well as the driver's"
	}
	return c
}

// ------------------------------------------------------------- throughput

type throughputSection struct{}

func (throughputSection) Title() string  { return "Throughput by virtual users" }
func (throughputSection) Anchor() string { return "throughput" }

func (throughputSection) Render(p *Page) error {
	all := p.AllStats()
	users := unionUsers(all)
	if len(users) == 0 {
		p.Note("No step was measured.")
		return nil
	}
	mk := func(title, unit string, pick func(a *analysis.StepAggregate) analysis.Stat, flag bool) Chart {
		return throughputBars(p, all, users, ChartText{Title: title, XName: "virtual users", YName: unit}, pick, flag)
	}
	nopmTitle, nopmUnit := p.nopmNames()
	p.Charts(
		mk("TPM by virtual users", "TPM (transactions/min)", analysis.ColTPM.Stat, true),
		mk(nopmTitle+" by virtual users", nopmUnit, analysis.ColNOPM.Stat, true),
		mk("TPM per user by virtual users", "TPM per user", analysis.ColTPMPerUser.Stat, false),
		averageChart(p, all),
	)
	p.Note("Bars are means across repeats; whiskers span min–max when a step was repeated. A pale bar with a red border and a CV label is unstable: " +
		"its repeats' coefficient of variation of TPM or NOPM is above 10 %. Click a legend entry to hide a run.")

	keyed := false
	for i := range p.Runs {
		keyed = keyed || p.Runs[i].Run.KeyingThinking
	}
	tpm, nopm := analysis.ColTPM.Head, analysis.ColNOPM.Head
	head := []string{"users", "run", analysis.ColRepeats.Head, tpm, tpm + " min–max", tpm + " CV", nopm, nopm + " min–max", nopm + " CV", "TPM per user"}
	if keyed {
		head = append(head, "efficiency")
	}
	head = append(head, "")
	var rows []Row
	for _, u := range users {
		for i, rs := range all {
			rows = append(rows, throughputRow(p, i, u, rs.At(u), keyed, len(head)))
		}
	}
	anyFlag := false
	for _, r := range rows {
		anyFlag = anyFlag || r.Cells[len(r.Cells)-1].Text != ""
	}
	if !anyFlag {
		head = head[:len(head)-1]
		for i := range rows {
			rows[i].Cells = rows[i].Cells[:len(rows[i].Cells)-1]
		}
	}
	p.Table(Table{Caption: "Throughput per step (means across repeats)", Head: head, Rows: rows})
	if keyed {
		p.Notef("Efficiency: the NOPM of users with keying and think times as a share of the most they can complete, %.3f New-Orders per user-minute "+
			"with no response time (this deck's form of clause 12.86's 12.86 per warehouse); it falls as response times lengthen the users' cycles.", tpcc.KeyedNOPMPerUser())
	}
	return nil
}

// throughputBars charts figure pick of every run by users count, one bar
// series per run, with spread and stability in the bars and tooltips.
func throughputBars(p *Page, all []*RunStats, users []int, text ChartText, pick func(a *analysis.StepAggregate) analysis.Stat, flag bool) Chart {
	unit := text.YName
	var series []BarSeries
	for i, rs := range all {
		s := BarSeries{Name: p.Labels[i], Color: p.Colors[i], Values: make([]*BarValue, len(users))}
		for ci, u := range users {
			a := rs.At(u)
			if a == nil {
				continue
			}
			st := pick(a)
			tip := fmt.Sprintf("%s<br/>%d users: <b>%s</b> %s", tooltipHTML(p.Labels[i]), u, fmtInt(st.Mean), unit)
			if a.Repeats > 1 {
				tip += fmt.Sprintf("<br/>%d repeats: min %s, max %s, CV %.1f%%", a.Repeats, fmtInt(st.Min), fmtInt(st.Max), st.CV*100)
			}
			unstable := flag && a.Repeats > 1 && st.CV > analysis.UnstableCV
			if unstable {
				tip += "<br/><b>unstable</b>: repeats differ by more than 10 %"
			}
			if a.Partial {
				tip += "<br/>partial step (interrupted)"
			}
			s.Values[ci] = &BarValue{Mean: st.Mean, Min: st.Min, Max: st.Max, CV: st.CV, Repeats: a.Repeats, Unstable: unstable, Tooltip: tip}
		}
		series = append(series, s)
	}
	return GroupedBars(text, usersCategories(users), series)
}

// throughputRow is run i's row of the throughput table at u users (a nil
// when it did not measure them), width cells long with the flags last.
func throughputRow(p *Page, i, u int, a *analysis.StepAggregate, keyed bool, width int) Row {
	if a == nil {
		cells := []Cell{Num(strconv.Itoa(u)), Txt(p.Labels[i]), {Text: notMeasuredText, Class: "muted"}}
		for len(cells) < width-1 {
			cells = append(cells, Cell{Text: "-", Class: "num muted"})
		}
		return Row{Cells: append(cells, Cell{Class: "warn"})}
	}
	fig := func(c analysis.Column) Cell { return Num(rich.figure(c, nil).cell(a)) }
	rng := func(c analysis.Column) Cell {
		if a.Repeats < 2 {
			return Cell{Text: "-", Class: "num muted"}
		}
		s := c.Stat(a)
		return Num(rich.num(c.Unit, s.Min) + " – " + rich.num(c.Unit, s.Max))
	}
	cv := func(c analysis.Column) Cell {
		if a.Repeats < 2 {
			return Cell{Text: "-", Class: "num muted"}
		}
		cell := Num(rich.cv(c).cell(a))
		if c.Stat(a).CV > analysis.UnstableCV {
			cell.Class += " warn"
		}
		return cell
	}
	var flags []string
	if a.Unstable {
		flags = append(flags, "unstable")
	}
	if a.Partial {
		flags = append(flags, "partial")
	}
	flag := Cell{Text: strings.Join(flags, ", "), Class: "warn"}
	cells := []Cell{Num(strconv.Itoa(u)), Txt(p.Labels[i]), Num(strconv.Itoa(a.Repeats)),
		fig(analysis.ColTPM), rng(analysis.ColTPM), cv(analysis.ColTPM), fig(analysis.ColNOPM), rng(analysis.ColNOPM), cv(analysis.ColNOPM),
		fig(analysis.ColTPMPerUser)}
	switch {
	case keyed && p.Runs[i].Run.KeyingThinking:
		cells = append(cells, fig(analysis.ColEfficiency))
	case keyed:
		cells = append(cells, Cell{Text: "-", Class: "num muted"})
	}
	return Row{Cells: append(cells, flag)}
}

// maxSubtitle is the most characters a chart's subtitle holds: echarts
// draws it on one line, and a longer one runs off the chart.
const maxSubtitle = 90

// averageChart is the bar chart of each run's average TPM and NOPM over all
// its steps, with the ratios to the first run under the title when they
// fit there.
func averageChart(p *Page, all []*RunStats) Chart {
	cats := []string{"TPM", "NOPM"}
	var series []BarSeries
	for i, rs := range all {
		tpm, nopm := rs.Average(nil)
		series = append(series, BarSeries{Name: p.Labels[i], Color: p.Colors[i], Values: []*BarValue{
			{Mean: tpm, Repeats: 1, Tooltip: fmt.Sprintf("%s<br/>average over all steps: <b>%s</b> TPM", tooltipHTML(p.Labels[i]), fmtInt(tpm))},
			{Mean: nopm, Repeats: 1, Tooltip: fmt.Sprintf("%s<br/>average over all steps: <b>%s</b> NOPM", tooltipHTML(p.Labels[i]), fmtInt(nopm))},
		}})
	}
	sub := ""
	if len(all) > 1 {
		a0, _ := all[0].Average(nil)
		var parts []string
		for i := 1; i < len(all); i++ {
			a, _ := all[i].Average(nil)
			parts = append(parts, fmt.Sprintf("%s: %s TPM of %s", p.Labels[i], fmtRatio(a0, a), p.Labels[0]))
		}
		sub = strings.Join(parts, " · ")
	}
	if utf8.RuneCountInString(sub) > maxSubtitle { // one line that does not wrap: the summary has the ratios
		sub = ""
	}
	return GroupedBars(ChartText{Title: "Average over all steps", Subtitle: sub, XName: "", YName: "per minute"}, cats, series)
}

// ------------------------------------------------------------------- host

type hostSection struct{}

func (hostSection) Title() string  { return "CPU and disk by virtual users" }
func (hostSection) Anchor() string { return "host" }

func (hostSection) Render(p *Page) error {
	all := p.AllStats()
	users := unionUsers(all)
	cats := usersCategories(users)
	var noHost []string
	mk := func(title, y string, has func(*analysis.StepAggregate) bool, pick func(*analysis.StepAggregate) float64) Chart {
		var series []LineSeries
		for i, rs := range all {
			s := LineSeries{Name: p.Labels[i], Color: p.Colors[i], Symbol: true, Values: make([]*float64, len(users))}
			any := false
			for ci, u := range users {
				if a := rs.At(u); a != nil && has(a) {
					v := pick(a)
					s.Values[ci] = &v
					any = true
				}
			}
			if any {
				series = append(series, s)
			}
		}
		return Lines(ChartText{Title: title, XName: "virtual users", YName: y}, cats, series)
	}
	for i, rs := range all {
		measured := false
		for j := range rs.Steps {
			measured = measured || hasHost(&rs.Steps[j])
		}
		if !measured {
			noHost = append(noHost, p.Labels[i])
		}
	}
	if len(noHost) == len(all) {
		p.Note("No host telemetry in these runs (an imported HammerDB log has none): measure with rightsize run to get CPU and disk figures next to the throughput.")
		return nil
	}
	serverCPU := func(a *analysis.StepAggregate) bool { return analysis.ColServerCPU.Value(a) != 0 }
	p.Charts(
		mk("CPU busy", "CPU busy (% of all CPUs)", hasHost, analysis.ColCPUBusy.Value),
		mk("CPU idle", "CPU idle (% of all CPUs)", hasHost, analysis.ColCPUIdle.Value),
		mk("CPU I/O wait", "I/O wait (% of all CPUs)", hasHost, analysis.ColCPUIowait.Value),
		mk("Database server CPU", "server CPU (% of one core)", serverCPU, analysis.ColServerCPU.Value),
		mk("Disk average latency", "latency (ms, I/O-weighted)", hasDisk, analysis.ColDiskLatency.Value),
		mk("Disk IOPS (read + write)", "IOPS (I/O per second)", hasDisk, analysis.ColDiskIOPS.Value),
	)
	if len(noHost) > 0 {
		p.Notef("No host telemetry for: %s.", strings.Join(noHost, ", "))
	}
	p.Note("Means over each step's measured interval, averaged across repeats. Idle excludes I/O wait, which is shown on its own (perfmon's idle mixes the two). " +
		"Server CPU is the database server's processes, in % of one core (400 % = four cores busy).")
	return nil
}

// ---------------------------------------------------------------- latency

type latencySection struct{}

func (latencySection) Title() string  { return "Transaction latency" }
func (latencySection) Anchor() string { return "latency" }

func (latencySection) Render(p *Page) error {
	all := p.AllStats()
	users := unionUsers(all)
	types := txnTypes(all)
	if len(types) == 0 {
		p.Note("No per-transaction figures in these runs (a HammerDB log without the xtprof time profile has none).")
		return nil
	}
	cats := usersCategories(users)
	pcts := []struct {
		name  string
		dash  string
		width float32
		pick  func(*store.TxnSummary) float64
	}{
		{"p50", "dotted", 1.5, func(t *store.TxnSummary) float64 { return t.P50Ms }},
		{"p95", "dashed", 1.5, func(t *store.TxnSummary) float64 { return t.P95Ms }},
		{"p99", "solid", 2.5, func(t *store.TxnSummary) float64 { return t.P99Ms }},
	}
	var cs []Chart
	for _, typ := range types {
		var series []LineSeries
		for i, rs := range all {
			for _, pc := range pcts {
				s := LineSeries{Name: p.Labels[i] + " " + pc.name, Color: p.Colors[i], Dash: pc.dash, Width: pc.width, Symbol: true,
					Values: make([]*float64, len(users))}
				any := false
				for ci, u := range users {
					if t := txnOf(rs.At(u), typ); t != nil && t.Count > 0 {
						v := pc.pick(t)
						s.Values[ci] = &v
						any = true
					}
				}
				if any {
					series = append(series, s)
				}
			}
		}
		cs = append(cs, Lines(ChartText{Title: typ + " latency", Subtitle: "p50 dotted · p95 dashed · p99 solid",
			XName: "virtual users", YName: "latency (ms)"}, cats, series))
	}
	p.Charts(cs...)
	p.Note("Percentiles come from the steps' HdrHistograms merged across repeats (exact), or from HammerDB's xtprof summary for imported runs.")

	for i, rs := range all {
		rows := latencyRows(rs, types)
		if len(rows) == 0 {
			continue
		}
		p.Table(Table{Caption: "Latency percentiles (ms): " + p.Labels[i],
			Head: append([]string{"users", "transaction"}, txnHeads(false)...), Rows: rows})
	}

	var errRows []Row
	for i, rs := range all {
		for _, t := range mergeAllTxn(p.Runs[i].Steps) {
			if t.Errors > 0 || t.FirstError != "" {
				errRows = append(errRows, Row{Cells: []Cell{Txt(p.Labels[i]), Txt(t.Type), Cell{Text: fmtInt(float64(t.Errors)), Class: "num bad"},
					Cell{Text: orDash(t.FirstError), Class: "wrap"}}})
			}
		}
		_ = rs
	}
	if len(errRows) > 0 {
		p.Table(Table{Caption: "Errors", Head: []string{"run", "transaction", "errors", "first error"}, Rows: errRows})
	} else {
		p.Note("No transaction failed.")
	}
	return nil
}

// latencyRows are the latency table's rows of one run: per step, one row
// per transaction type it has figures for.
func latencyRows(rs *RunStats, types []string) []Row {
	var rows []Row
	for _, a := range rs.Steps {
		for _, typ := range types {
			t := txnOf(&a, typ)
			if t == nil {
				continue
			}
			cells := []Cell{Num(strconv.Itoa(a.Users)), Txt(typ)}
			for j, v := range rich.txnCells(t) {
				c := Num(v)
				if analysis.TxnColumns[j].Name == "errors" && t.Errors > 0 {
					c.Class += " bad"
					c.Title = t.FirstError
				}
				cells = append(cells, c)
			}
			rows = append(rows, Row{Cells: cells})
		}
	}
	return rows
}

// --------------------------------------------------------------- timeline

type timelineSection struct{}

func (timelineSection) Title() string  { return "Throughput and latency over time" }
func (timelineSection) Anchor() string { return "timeline" }

func (timelineSection) Render(p *Page) error {
	drawn := 0
	for i, rd := range p.Runs {
		steps := timedSteps(rd.Steps)
		if len(steps) == 0 {
			p.Notef("%s: no per-second data (an imported run has none).", p.Labels[i])
			continue
		}
		t0 := steps[0].Start
		var tps, p99 LineSeries
		tps = LineSeries{Name: "transactions/s", Color: p.Colors[i], Width: 1}
		p99 = LineSeries{Name: "p99 latency per 10 s (ms)", Color: "#24292f", Width: 1.5, YAxis: 1, Symbol: true}
		var marks []stepMark
		bad := 0
		for _, st := range steps {
			base := st.Start.Sub(t0).Seconds()
			for _, s := range st.Seconds {
				tps.Points = append(tps.Points, [2]float64{(base + float64(s.Offset) + 0.5) / 60, float64(s.Txn)})
			}
			pts, nbad := windowP99(st)
			bad += nbad
			for _, w := range pts {
				p99.Points = append(p99.Points, [2]float64{(base + w[0]) / 60, w[1]})
			}
			m := stepMark{start: base / 60, measure: st.MeasureStart.Sub(t0).Seconds() / 60, end: st.MeasureEnd.Sub(t0).Seconds() / 60,
				label: usersWord(st.Users)}
			if len(p.Runs[i].Run.Users) > 0 && p.Runs[i].Run.Repeats > 1 {
				m.label += fmt.Sprintf(" (r%d)", st.Repeat)
			}
			if st.Partial {
				m.label += " partial"
			}
			marks = append(marks, m)
		}
		c := Lines(ChartText{Title: "Timeline: " + p.Labels[i], Subtitle: "shaded: ramp-up (not measured) · each step starts at its label",
			XName: "minutes since the first step started", YName: "transactions per second"}, nil, []LineSeries{tps, p99})
		addTimelineDecor(c, marks)
		p.Charts(c)
		if bad > 0 {
			p.Notef("%s: %d latency windows could not be decoded and are left out.", p.Labels[i], bad)
		}
		drawn++
	}
	if drawn > 0 {
		p.Note("Throughput per second and the 99th-percentile latency of every 10-second window (all transaction types), ramp-up included, so ramp-ups, stalls and checkpoints are visible. Drag the slider under a chart to zoom.")
	}
	return nil
}

// usersWord is "1 user", "8 users".
func usersWord(n int) string {
	if n == 1 {
		return "1 user"
	}
	return fmt.Sprintf("%d users", n)
}

// timedSteps returns the steps with a start time and per-second data, in
// time order.
func timedSteps(steps []store.Step) []store.Step {
	var out []store.Step
	for _, s := range steps {
		if !s.Start.IsZero() && (len(s.Seconds) > 0 || len(s.Windows) > 0) {
			out = append(out, s)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Start.Before(out[j].Start) })
	return out
}

// windowP99 merges each window's histograms across transaction types and
// returns [seconds from the step start (window middle), p99 ms] pairs, and
// how many histograms could not be decoded.
func windowP99(st store.Step) ([][2]float64, int) {
	merged := map[time.Duration]*hdrhistogram.Histogram{}
	var offs []time.Duration
	bad := 0
	for _, w := range st.Windows {
		h, err := decodeHist(w.Hist)
		if err != nil {
			bad++
			continue
		}
		if h == nil {
			continue
		}
		if m, ok := merged[w.Offset]; ok {
			m.Merge(h)
		} else {
			merged[w.Offset] = h
			offs = append(offs, w.Offset)
		}
	}
	sort.Slice(offs, func(i, j int) bool { return offs[i] < offs[j] })
	// The window length is the distance between windows (10 s by default).
	length := 10 * time.Second
	if len(offs) > 1 {
		length = offs[1] - offs[0]
	}
	var out [][2]float64
	for _, o := range offs {
		h := merged[o]
		if h.TotalCount() == 0 {
			continue
		}
		out = append(out, [2]float64{(o + length/2).Seconds(), float64(h.ValueAtQuantile(99)) / 1000})
	}
	return out, bad
}

// ------------------------------------------------------------ environment

type environmentSection struct{}

func (environmentSection) Title() string  { return "Environment and settings" }
func (environmentSection) Anchor() string { return "environment" }

func (environmentSection) Render(p *Page) error {
	type kv = map[string]string
	vals := make([]kv, len(p.Runs))
	keys := map[string]bool{}
	fixed := []string{"id", "label", "source", "status", "target", "engine", "engine version", "mode", "warehouses", "seed",
		"keying/think times", "users", "repeats", "ramp-up", "duration", "started", "ended", "note"}
	for i, rd := range p.Runs {
		r := rd.Run
		m := kv{"id": r.ID, "label": r.Label, "source": r.Source, "status": r.Status, "target": r.Target, "engine": r.Engine,
			"engine version": r.EngineVersion, "mode": r.Mode, "warehouses": intOrDash(r.Warehouses), "seed": seedText(r.Seed),
			"keying/think times": onOff(r.KeyingThinking), "users": fmtUsersList(r.Users), "repeats": strconv.Itoa(max(r.Repeats, 1)),
			"ramp-up": fmtDuration(r.Rampup), "duration": fmtDuration(r.Duration), "started": fmtTime(r.StartedAt), "ended": fmtTime(r.EndedAt),
			"note": r.Note}
		for k, v := range r.Env {
			m["env "+k] = v
			keys["env "+k] = true
		}
		for k, v := range r.Flags {
			m["flag --"+k] = v
			keys["flag --"+k] = true
		}
		vals[i] = m
	}
	order := append([]string(nil), fixed...)
	order = append(order, sortedKeys(keys)...)
	head := []string{"setting"}
	head = append(head, p.Labels...)
	var rows []Row
	ndiff := 0
	for _, k := range order {
		cells := []Cell{{Text: k, Class: "key"}}
		// A setting a run lacks (an imported run records few) is unknown
		// there, not different: only known values are compared.
		known := map[string]bool{}
		for i := range p.Runs {
			v := strings.TrimSpace(vals[i][k])
			if v == "" {
				cells = append(cells, Cell{Text: "unknown", Class: "wrap muted", Title: "not recorded in this run"})
				continue
			}
			known[v] = true
			cells = append(cells, Cell{Text: v, Class: "wrap"})
		}
		diff := len(known) > 1 && k != "id" && k != "started" && k != "ended"
		allEmpty := true
		for i := range p.Runs {
			if strings.TrimSpace(vals[i][k]) != "" {
				allEmpty = false
			}
		}
		if allEmpty {
			continue
		}
		r := Row{Cells: cells}
		if diff {
			r.Class = "diff"
			ndiff++
		}
		rows = append(rows, r)
	}
	if len(p.Runs) > 1 {
		p.Notef("%d settings differ between the runs; they are highlighted. \"unknown\": the run did not record the setting (an imported run records few); it is not counted as a difference.", ndiff)
	}
	p.Table(Table{Head: head, Rows: rows, DiffToggle: len(p.Runs) > 1})
	return nil
}

// seedText is a run's seed, "" (unknown) when it has none (imported runs).
func seedText(seed uint64) string {
	if seed == 0 {
		return ""
	}
	return strconv.FormatUint(seed, 10)
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

// workloadCell names a run's workload: TPC-C with its warehouses, or a
// pgbench workload with its scripts and weights.
func workloadCell(r store.Run) Cell {
	if name, scripts := r.Workload(); name != "" {
		return Txt(name + ": " + scripts)
	}
	if r.Warehouses > 0 {
		return Txt("TPC-C, " + Plural(r.Warehouses, "warehouse"))
	}
	return Txt("TPC-C")
}
