package report

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"

	"github.com/rightsize/rightsize/probe/result"
	"github.com/rightsize/rightsize/store"
)

// backupSection shows backup and restore probes: per probe the table of
// its cycles (duration and MB/s of backup and restore, whether the restore
// was checked, the disk latency meanwhile), charts of duration and MB/s per
// cycle, and the disk latency and throughput second by second during each
// cycle.
type backupSection struct{}

func (backupSection) Title() string  { return "Backup and restore" }
func (backupSection) Anchor() string { return "backup" }

// Render shows the backup probes attached to the runs.
func (s backupSection) Render(p *Page) error { return s.renderProbes(p, reportProbes(p.Runs, nil)) }

// backupProbe is one decoded backup probe of the section.
type backupProbe struct {
	label, color string
	probe        store.Probe
	res          result.Backup
}

func (backupSection) renderProbes(p *Page, ps probeSet) error {
	var bps []backupProbe
	for _, i := range ps.ofKind(store.ProbeBackup) {
		var r result.Backup
		if err := decodeProbe(ps.probes[i], ps.labels[i], &r); err != nil {
			p.Notef("Left out: %v.", err)
			continue
		}
		bps = append(bps, backupProbe{label: ps.labels[i], color: palette[len(bps)%len(palette)], probe: ps.probes[i], res: r})
	}
	if len(bps) == 0 {
		p.Note("No backup probe in this report. Time a full backup and restore of the benchmark database with rightsize probe backup --target ... --cycles 3; " +
			"a report includes the latest backup probe of its runs' host, or name one with --probe ID.")
		return nil
	}
	if cs := backupCycleCharts(bps); len(cs) > 0 {
		p.Charts(cs...)
	}
	for _, bp := range bps {
		backupDetail(p, bp)
	}
	p.Note("MB/s is the backup's size in 10^6 bytes divided by the wall time. A restore is checked when the restored database answered and every table that had rows " +
		"in the source had rows. Disk latency and MB/s are the host's (all disks, I/O-weighted latency), one sample per telemetry interval (1 s by default); " +
		"on the per-second charts a dashed line marks where the backup ended and the restore began.")
	return nil
}

// backupCycleCharts are the duration and MB/s of backup and restore per
// cycle, side by side for every probe (restore bars paler).
func backupCycleCharts(bps []backupProbe) []Chart {
	n := 0
	for _, bp := range bps {
		n = max(n, len(bp.res.Cycles))
	}
	if n == 0 {
		return nil
	}
	cats := make([]string, n)
	for i := range cats {
		cats[i] = "cycle " + strconv.Itoa(i+1)
	}
	mk := func(title, y string, secs bool) Chart {
		var series []BarSeries
		var vals []float64
		for _, bp := range bps {
			bn, rn := "backup", "restore" // one probe: its name is in the tooltips
			if len(bps) > 1 {
				bn, rn = bp.label+": backup", bp.label+": restore"
			}
			b := BarSeries{Name: bn, Color: bp.color, Values: make([]*BarValue, n)}
			r := BarSeries{Name: rn, Color: lighten(bp.color, 0.5), Values: make([]*BarValue, n)}
			for i, c := range bp.res.Cycles {
				if i >= n {
					break
				}
				tip := func(what string, s, mbps float64) string {
					t := fmt.Sprintf("%s<br/>cycle %d %s: <b>%s s</b> at <b>%s MB/s</b><br/>size %s", tooltipHTML(bp.label), c.N, what,
						fmtSeconds(s), fmtRate(mbps), fmtBytes(float64(c.Bytes)))
					if what == "restore" && !c.RestoreChecked {
						t += "<br/><b>restore not checked</b>"
					}
					return t
				}
				bv, rv := c.BackupMBps, c.RestoreMBps
				if secs {
					bv, rv = c.BackupSeconds, c.RestoreSeconds
				}
				if bv > 0 {
					b.Values[i] = &BarValue{Mean: bv, Repeats: 1, Tooltip: tip("backup", c.BackupSeconds, c.BackupMBps)}
				}
				if rv > 0 {
					r.Values[i] = &BarValue{Mean: rv, Repeats: 1, Tooltip: tip("restore", c.RestoreSeconds, c.RestoreMBps)}
				}
				vals = append(vals, bv, rv)
			}
			series = append(series, b, r)
		}
		sub := "restore bars paler"
		if len(bps) == 1 {
			sub = bps[0].label + " · " + sub
		}
		log := isWide(vals)
		c := GroupedBars(ChartText{Title: title, Subtitle: withLogNote(sub, log), XName: "", YName: y}, cats, series)
		if log {
			logY(c, y, vals)
		}
		return c
	}
	return []Chart{
		mk("Backup and restore duration per cycle", "duration (s)", true),
		mk("Backup and restore throughput per cycle", "MB/s (10^6 bytes per second)", false),
	}
}

// backupDetail is one probe's description, cycles table and per-second
// charts.
func backupDetail(p *Page, bp backupProbe) {
	r := bp.res
	p.Heading("%s", bp.label)
	every := "back to back"
	if r.EverySeconds > 0 {
		every = "one every " + fmtDuration(time.Duration(r.EverySeconds*float64(time.Second)))
	}
	var parts []string
	if ev := engineVersion(store.Run{Engine: r.Engine, EngineVersion: r.Version}); ev != "" {
		parts = append(parts, ev)
	}
	if r.Method != "" {
		parts = append(parts, r.Method)
	}
	parts = append(parts, fmt.Sprintf("%d cycle(s) %s", len(r.Cycles), every))
	if r.Dir != "" {
		parts = append(parts, "to "+r.Dir)
	}
	parts = append(parts, probeMeta(bp.probe))
	p.Note(strings.Join(parts, " · "))
	for _, n := range r.Notes {
		p.Notef("Note: %s", n)
	}
	if r.Partial {
		p.HTML(`<p><span class="warn">Interrupted: partial result (the completed cycles are shown).</span></p>` + "\n")
	}
	if len(r.Cycles) == 0 {
		p.Note("This probe has no completed cycle.")
		return
	}
	var rows []Row
	var sb, sbm, sr, srm, lat, latMax float64
	for _, c := range r.Cycles {
		mx := 0.0
		for _, l := range c.DiskLatencyMs {
			mx = max(mx, l)
		}
		checked := Txt("yes")
		if !c.RestoreChecked {
			checked = Cell{Text: "NO", Class: "bad", Title: c.Note}
		}
		startCheck := Cell{Text: "-", Class: "num muted"}
		if c.RestoreStartSeconds > 0 {
			startCheck = Num(fmtSeconds(c.RestoreStartSeconds))
		}
		rows = append(rows, Row{Cells: []Cell{Num(strconv.Itoa(c.N)), Num(fmtBytes(float64(c.Bytes))), Num(fmtSeconds(c.BackupSeconds)),
			Num(fmtRate(c.BackupMBps)), Num(fmtSeconds(c.RestoreSeconds)), Num(fmtRate(c.RestoreMBps)), startCheck, checked,
			Num(fmtMs(c.DiskAvgLatencyMs)), Num(fmtMs(mx)), Cell{Text: c.Note, Class: "wrap"}}})
		sb += c.BackupSeconds
		sbm += c.BackupMBps
		sr += c.RestoreSeconds
		srm += c.RestoreMBps
		lat += c.DiskAvgLatencyMs
		latMax = max(latMax, mx)
	}
	if k := float64(len(r.Cycles)); k > 1 {
		rows = append(rows, Row{Class: "", Cells: []Cell{Txt("average"), Txt(""), Num(fmtSeconds(sb / k)), Num(fmtRate(sbm / k)),
			Num(fmtSeconds(sr / k)), Num(fmtRate(srm / k)), Txt(""), Txt(""), Num(fmtMs(lat / k)), Cell{Text: fmtMs(latMax), Class: "num", Title: "highest of the cycles"},
			Txt("")}})
	}
	p.Table(Table{Caption: "Backup and restore cycles: " + bp.label, Head: []string{"cycle", "size", "backup s", "backup MB/s", "restore s",
		"restore MB/s", "of which start + check s", "restore checked", "disk latency avg ms", "disk latency max ms", "note"}, Rows: rows})
	p.Charts(backupSecondsChart(bp, "Disk latency during each cycle: ", "disk latency (ms)", func(c result.BackupCycle) []float64 { return c.DiskLatencyMs }),
		backupSecondsChart(bp, "Disk throughput during each cycle: ", "disk MB/s (read + write)", func(c result.BackupCycle) []float64 { return c.DiskMBps }))
}

// backupSecondsChart draws one per-sample series of each cycle against the
// seconds since the cycle started, with a dashed line where its backup
// ended.
func backupSecondsChart(bp backupProbe, title, y string, pick func(result.BackupCycle) []float64) Chart {
	var series []LineSeries
	var ends []float64
	for i, c := range bp.res.Cycles {
		vals := pick(c)
		if len(vals) == 0 {
			continue
		}
		// The samples cover the cycle: spread them evenly over its time
		// (about one a second), each at the middle of its interval.
		step := 1.0
		if d := c.End.Sub(c.Start).Seconds(); d > 0 {
			step = d / float64(len(vals))
		}
		s := LineSeries{Name: "cycle " + strconv.Itoa(c.N), Color: palette[i%len(palette)], Width: 1.5}
		for k, v := range vals {
			s.Points = append(s.Points, [2]float64{(float64(k) + 0.5) * step, v})
		}
		series = append(series, s)
		ends = append(ends, c.BackupSeconds)
	}
	sub := "seconds since the cycle's backup started"
	if len(series) == 0 {
		sub = "no per-second samples in this probe"
	}
	ch := Lines(ChartText{Title: title + bp.label, Subtitle: sub, XName: "seconds since the cycle started", YName: y}, nil, series)
	ch.SetGlobalOptions(charts.WithXAxisOpts(opts.XAxis{Name: "seconds since the cycle started", NameLocation: "middle", NameGap: 26,
		Type: "value", Min: 0, Max: "dataMax"}))
	for i := range ch.MultiSeries {
		if i >= len(ends) || ends[i] <= 0 {
			continue
		}
		ch.MultiSeries[i].MarkLines = &opts.MarkLines{
			MarkLineStyle: opts.MarkLineStyle{Symbol: []string{"none", "none"},
				LineStyle: &opts.LineStyle{Color: series[i].Color, Type: "dashed", Width: 1},
				Label:     &opts.Label{Show: opts.Bool(i == 0), Position: "insideEndTop", Formatter: "restore", Color: "#424a53", FontSize: 11}},
			Data: []any{opts.MarkLineNameXAxisItem{Name: "backup ended", XAxis: round3(ends[i])}},
		}
	}
	return ch
}
