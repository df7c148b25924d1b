package report

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"

	"github.com/rightsize/rightsize/probe/result"
	"github.com/rightsize/rightsize/scenario"
	"github.com/rightsize/rightsize/store"
	"github.com/rightsize/rightsize/tpcc"
)

// neighbourKind is the sweep kind of a noisy-neighbour scenario
// (scenario.NeighbourKind); its values are "n<instance> <phase>".
const neighbourKind = "neighbour"

// Neighbour is what a noisy-neighbour scenario adds to its Sweep.
type Neighbour struct {
	// Cores says how --cpus was given out ("" without --cpus).
	Cores string
	// Backups are the backup loops of the backup phase.
	Backups []NeighbourBackup
}

// NeighbourBackup is one instance's backup loop (its stored backup probe).
type NeighbourBackup struct {
	Instance int // 1-based: n1, n2 ...
	ProbeID  string
	Cycles   []result.BackupCycle
}

// renderNeighbour shows a noisy-neighbour scenario: a table per instance
// and phase, TPM and NOPM per instance grouped by phase, New-Order p99
// and the host's disks over time with the backup cycles shaded, and the
// backup cycles' durations.
func renderNeighbour(p *Page, s *Sweep) error {
	p.Textf("Noisy neighbour %s (%s): every instance on its own copy of one build, driven at once; phase baseline without backups, phase backup with the backup probe looping on some of them.", s.ID, s.Status)
	nb := s.Neighbour
	if nb == nil {
		nb = &Neighbour{}
	}
	if nb.Cores != "" {
		p.Textf("Cores: %s.", nb.Cores)
	}
	var instances, phases []string
	cell := map[[2]string]scenario.SweepPoint{}
	var rows []Row
	for _, pt := range s.Points {
		inst, phase, _ := strings.Cut(pt.Value, " ")
		if !slices.Contains(instances, inst) {
			instances = append(instances, inst)
		}
		if !slices.Contains(phases, phase) {
			phases = append(phases, phase)
		}
		cell[[2]string{inst, phase}] = pt
		st := Txt(pt.Status)
		if pt.Status != "complete" {
			st.Class, st.Title = "warn", pt.Reason
		}
		if !pt.Measured() {
			rows = append(rows, Row{Cells: []Cell{Txt(inst), Txt(phase), st, Num("-"), Num("-"), Num("-"), Txt(orDash(pt.RunID))}})
			continue
		}
		rows = append(rows, Row{Cells: []Cell{Txt(inst), Txt(phase), st, Num(fmtInt(pt.TPM)), Num(fmtInt(pt.NOPM)),
			Num(fmt.Sprintf("%.2f", pt.NewOrderP99Ms)), Txt(pt.RunID)}})
	}
	merit, _, p99Head, _ := s.heads()
	p.Table(Table{Head: []string{"instance", "phase", "status", "TPM", merit, p99Head, "run"}, Rows: rows})
	bars := func(what string, v func(scenario.SweepPoint) float64) Chart {
		var series []BarSeries
		for i, ph := range phases {
			bs := BarSeries{Name: ph, Color: palette[i%len(palette)]}
			for _, inst := range instances {
				pt, ok := cell[[2]string{inst, ph}]
				if !ok || !pt.Measured() {
					bs.Values = append(bs.Values, nil)
					continue
				}
				bs.Values = append(bs.Values, &BarValue{Mean: v(pt), Min: v(pt), Max: v(pt), Repeats: 1})
			}
			series = append(series, bs)
		}
		return GroupedBars(ChartText{Title: what + " per instance and phase", XName: "instance", YName: "per minute"}, instances, series)
	}
	p.Charts(bars("TPM", func(pt scenario.SweepPoint) float64 { return pt.TPM }), bars(merit, func(pt scenario.SweepPoint) float64 { return pt.NOPM }))
	p.Note("Each instance's figures are its run's step with the highest " + merit + ".")
	renderNeighbourTimelines(p, s, nb, instances)
	renderBackupCycles(p, nb)
	return nil
}

// neighbourRun is one of the scenario's runs found in the report.
type neighbourRun struct {
	inst, phase string
	steps       []store.Step
}

// neighbourRuns are the scenario's runs the report holds, in point order,
// and the earliest step start (the timelines' zero).
func neighbourRuns(p *Page, s *Sweep) ([]neighbourRun, time.Time) {
	byID := map[string]int{}
	for i, rd := range p.Runs {
		byID[rd.Run.ID] = i
	}
	var out []neighbourRun
	var t0 time.Time
	for _, pt := range s.Points {
		i, ok := byID[pt.RunID]
		if pt.RunID == "" || !ok {
			continue
		}
		inst, phase, _ := strings.Cut(pt.Value, " ")
		steps := timedSteps(p.Runs[i].Steps)
		for _, st := range steps {
			if t0.IsZero() || st.Start.Before(t0) {
				t0 = st.Start
			}
		}
		out = append(out, neighbourRun{inst: inst, phase: phase, steps: steps})
	}
	return out, t0
}

// neighbourWindowType is the transaction type whose latency windows the
// timeline draws for step st: New-Order for TPC-C, the figure's script, or
// for every script the only type the step's windows have ("" when several).
func neighbourWindowType(s *Sweep, st store.Step) string {
	switch s.Figure {
	case "":
		return tpcc.Merit.Txn
	case "every script":
	default:
		return s.Figure
	}
	typ := ""
	for _, w := range st.Windows {
		if typ != "" && w.Type != typ {
			return ""
		}
		typ = w.Type
	}
	return typ
}

// renderNeighbourTimelines draws New-Order p99 per instance and the host's
// disks over the scenario's time, the backup cycles shaded.
func renderNeighbourTimelines(p *Page, s *Sweep, nb *Neighbour, instances []string) {
	runs, t0 := neighbourRuns(p, s)
	if t0.IsZero() {
		p.Note("New-Order p99 and the host's disks over time: the scenario's runs are not in this report (rightsize report --sweep SCENARIO with no RUN shows them).")
		return
	}
	minutes := func(t time.Time) float64 { return t.Sub(t0).Seconds() / 60 }
	// New-Order p99 of every 10 s window; one line per instance and
	// phase, the phases of one instance sharing a name and colour (no
	// line across the pause between the phases).
	var p99 []LineSeries
	_, _, p99Head, _ := s.heads()
	p99Name := strings.TrimSuffix(p99Head, " ms") // New-Order p99, or the workload's p99
	for _, r := range runs {
		ls := LineSeries{Name: r.inst, Color: palette[slices.Index(instances, r.inst)%len(palette)], Symbol: true}
		for _, st := range r.steps {
			typ := neighbourWindowType(s, st)
			no := st
			no.Windows = slices.DeleteFunc(slices.Clone(st.Windows), func(w store.Window) bool { return w.Type != typ })
			pts, _ := windowP99(no)
			for _, w := range pts {
				ls.Points = append(ls.Points, [2]float64{minutes(st.Start) + w[0]/60, w[1]})
			}
		}
		if len(ls.Points) > 0 {
			p99 = append(p99, ls)
		}
	}
	var charts []Chart
	xName := "minutes since the scenario started"
	if len(p99) > 0 {
		c := Lines(ChartText{Title: p99Name + " over time per instance", Subtitle: "each 10 s window · shaded: backup cycles",
			XName: xName, YName: p99Name + " (ms)"}, nil, p99)
		shadeBackups(c, nb, minutes)
		charts = append(charts, c)
	}
	if c := hostDiskChart(runs, minutes, xName); c != nil {
		shadeBackups(c, nb, minutes)
		charts = append(charts, c)
	}
	if len(charts) == 0 {
		p.Note("New-Order p99 and the host's disks over time: the scenario's runs stored no latency windows or host samples.")
		return
	}
	p.Charts(charts...)
	p.Note("Every instance runs on this host at once, so the host's disk figures are those of all instances (and of the backups). Shaded: each backup cycle, from the backup's start to the restore checked.")
}

// hostDiskChart draws the host's disk read and write IOPS and latency,
// one sample per second across the scenario's runs (they share the host),
// per phase; nil without samples.
func hostDiskChart(runs []neighbourRun, minutes func(time.Time) float64, xName string) *charts.Line {
	byPhase := map[string]map[int64]store.HostSample{}
	var phases []string
	for _, r := range runs {
		if byPhase[r.phase] == nil {
			byPhase[r.phase] = map[int64]store.HostSample{}
			phases = append(phases, r.phase)
		}
		for _, st := range r.steps {
			for _, smp := range st.Samples {
				byPhase[r.phase][smp.At.Unix()] = smp
			}
		}
	}
	var series []LineSeries
	for _, ph := range phases {
		secs := make([]int64, 0, len(byPhase[ph]))
		for k := range byPhase[ph] {
			secs = append(secs, k)
		}
		sort.Slice(secs, func(i, j int) bool { return secs[i] < secs[j] })
		rd := LineSeries{Name: "read IOPS", Color: palette[0]}
		wr := LineSeries{Name: "write IOPS", Color: palette[1]}
		lat := LineSeries{Name: "latency ms", Color: palette[3%len(palette)], Dash: "dashed", YAxis: 1}
		for _, k := range secs {
			smp := byPhase[ph][k]
			x := minutes(smp.At)
			rd.Points = append(rd.Points, [2]float64{x, smp.DiskReadIOPS})
			wr.Points = append(wr.Points, [2]float64{x, smp.DiskWriteIOPS})
			lat.Points = append(lat.Points, [2]float64{x, smp.DiskAvgLatencyMs})
		}
		if len(secs) > 0 {
			series = append(series, rd, wr, lat)
		}
	}
	if len(series) == 0 {
		return nil
	}
	c := Lines(ChartText{Title: "Host disks over time", Subtitle: "all disks · shaded: backup cycles", XName: xName, YName: "I/O per second"}, nil, series)
	c.ExtendYAxis(opts.YAxis{Name: "latency (ms)", Type: "value", Position: "right", SplitLine: &opts.SplitLine{Show: opts.Bool(false)}})
	return c
}

// shadeBackups shades each backup cycle on a timeline (on its first
// series), named "nN backup K".
func shadeBackups(c *charts.Line, nb *Neighbour, minutes func(time.Time) float64) {
	if len(c.MultiSeries) == 0 {
		return
	}
	areas := &opts.MarkAreas{MarkAreaStyle: opts.MarkAreaStyle{ItemStyle: &opts.ItemStyle{Color: "rgba(207,34,46,0.10)"},
		Label: &opts.Label{Show: opts.Bool(true), Position: "insideTop", Color: "#6e7781", FontSize: 10}}}
	for _, b := range nb.Backups {
		for _, cy := range b.Cycles {
			if cy.Start.IsZero() || cy.End.Before(cy.Start) {
				continue
			}
			areas.Data = append(areas.Data, []opts.MarkAreaData{{Name: fmt.Sprintf("n%d backup %d", b.Instance, cy.N), XAxis: round3(minutes(cy.Start))},
				{XAxis: round3(minutes(cy.End))}})
		}
	}
	if len(areas.Data) > 0 {
		c.MultiSeries[0].MarkAreas = areas
	}
}

// renderBackupCycles shows each backup cycle's durations: a table and the
// backup and restore seconds per cycle and instance.
func renderBackupCycles(p *Page, nb *Neighbour) {
	if len(nb.Backups) == 0 {
		p.Note("No backup cycle is stored for this scenario (the backup phase did not run, or ran on no instance).")
		return
	}
	var rows []Row
	var cats []string
	var series []BarSeries
	for bi, b := range nb.Backups {
		bk := BarSeries{Name: fmt.Sprintf("n%d backup", b.Instance), Color: palette[(2*bi)%len(palette)]}
		rs := BarSeries{Name: fmt.Sprintf("n%d restore", b.Instance), Color: palette[(2*bi+1)%len(palette)]}
		for i, cy := range b.Cycles {
			if i >= len(cats) {
				cats = append(cats, "cycle "+strconv.Itoa(i+1))
			}
			bk.Values = append(bk.Values, &BarValue{Mean: cy.BackupSeconds, Min: cy.BackupSeconds, Max: cy.BackupSeconds, Repeats: 1})
			rs.Values = append(rs.Values, &BarValue{Mean: cy.RestoreSeconds, Min: cy.RestoreSeconds, Max: cy.RestoreSeconds, Repeats: 1})
			checked := "yes"
			if !cy.RestoreChecked {
				checked = "no"
			}
			rows = append(rows, Row{Cells: []Cell{Txt(fmt.Sprintf("n%d", b.Instance)), Num(strconv.Itoa(cy.N)), Txt(fmtTime(cy.Start)),
				Num(fmt.Sprintf("%.1f", cy.BackupSeconds)), Num(fmt.Sprintf("%.0f", cy.BackupMBps)), Num(fmt.Sprintf("%.1f", cy.RestoreSeconds)),
				Num(fmt.Sprintf("%.2f", cy.DiskAvgLatencyMs)), Txt(checked), Txt(orDash(b.ProbeID))}})
		}
		series = append(series, bk, rs)
	}
	p.Table(Table{Caption: "Backup cycles", Head: []string{"instance", "cycle", "started", "backup s", "backup MB/s", "restore s",
		"disk latency ms", "restore checked", "probe"}, Rows: rows})
	p.Charts(GroupedBars(ChartText{Title: "Backup and restore per cycle", XName: "cycle", YName: "seconds"}, cats, series))
}
