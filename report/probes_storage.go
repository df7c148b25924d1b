package report

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/rightsize/rightsize/probe/storage"
	"github.com/rightsize/rightsize/store"
)

// storageSection shows storage probes: per probe the table storage studies
// print (per job and direction: bytes, I/Os, MB/s, IOPS, average latency,
// standard deviation and the latency percentiles), and charts of the
// probes side by side: IOPS and average/p99 latency by block size for the
// random jobs (the hci sweep), MB/s of the sequential jobs.
type storageSection struct{}

func (storageSection) Title() string  { return "Storage" }
func (storageSection) Anchor() string { return "storage" }

// Render shows the storage probes attached to the runs.
func (s storageSection) Render(p *Page) error { return s.renderProbes(p, reportProbes(p.Runs, nil)) }

// storageProbe is one decoded storage probe of the section.
type storageProbe struct {
	label, color string
	probe        store.Probe
	res          storageResult
}

func (storageSection) renderProbes(p *Page, ps probeSet) error {
	var sps []storageProbe
	for _, i := range ps.ofKind(store.ProbeStorage) {
		var r storageResult
		if err := decodeProbe(ps.probes[i], ps.labels[i], &r); err != nil {
			p.Notef("Left out: %v.", err)
			continue
		}
		sps = append(sps, storageProbe{label: ps.labels[i], color: palette[len(sps)%len(palette)], probe: ps.probes[i], res: r})
	}
	if len(sps) == 0 {
		p.Note("No storage probe in this report. Measure the database's volume with rightsize probe storage --path DIR --preset hci " +
			"(or --preset sqlserver); a report includes the latest storage probe of its runs' host, or name one with --probe ID.")
		return nil
	}
	var cs []Chart
	cs = append(cs, randomCharts(sps)...)
	if c := sequentialChart(sps); c != nil {
		cs = append(cs, c)
	}
	if len(cs) > 0 {
		p.Charts(cs...)
		p.Note("Random jobs by block size: IOPS, and the average and 99th percentile latency of all I/Os (reads and writes together). " +
			"A log scale is used when the probes differ by more than 30x, so that both stay readable; the tooltips give the figures.")
	}
	if len(sps) > 1 {
		storageComparison(p, sps)
	}
	for _, sp := range sps {
		storageDetail(p, sp)
	}
	p.Note("MB/s is MiB/s (2^20 bytes per second), as diskspd and fio print it. Latencies are per I/O in milliseconds: " +
		"from submission to completion (built-in engine) or fio's total latency. (8×4) is threads × outstanding I/Os per thread.")
	return nil
}

// jobText describes a job: "8 KiB random, 70 % read (8×4)".
func jobText(j storage.Job) string {
	var b strings.Builder
	b.WriteString(blockSize(j.BlockSize))
	if j.Random {
		b.WriteString(" random")
	} else {
		b.WriteString(" sequential")
	}
	switch {
	case j.ReadPct >= 100:
		b.WriteString(" read")
	case j.ReadPct <= 0:
		b.WriteString(" write")
	default:
		fmt.Fprintf(&b, ", %d %% read", j.ReadPct)
	}
	switch {
	case j.FsyncEvery == 1:
		b.WriteString(", fsync each write")
	case j.FsyncEvery > 1:
		fmt.Fprintf(&b, ", fsync every %d writes", j.FsyncEvery)
	}
	fmt.Fprintf(&b, " (%d×%d)", j.Threads, j.QueueDepth)
	return b.String()
}

// jobTitle is the tooltip of a job's cell: name, load, I/O mode, time.
func jobTitle(r storage.JobResult) string {
	mode := "direct"
	if !r.DirectIO {
		mode = "buffered (the page cache was not bypassed)"
	}
	return fmt.Sprintf("%s: %d thread(s) × %d outstanding I/O(s), %s, %.1f s, %s", r.Job.Name, r.Job.Threads, r.Job.QueueDepth, mode,
		r.Elapsed.Seconds(), engineText(r))
}

// engineText is the engine, its I/O interface, whether its buffers were on
// huge pages and its CPU per I/O: "builtin via io_uring, huge pages, 7.8 µs
// CPU per I/O".
func engineText(r storage.JobResult) string {
	t := r.Engine
	if d := r.IODetail(); d != "" {
		t += " via " + d
	}
	if r.CPUPerIOMicros > 0 {
		t += ", " + fmtFloat(r.CPUPerIOMicros, 1) + " µs CPU per I/O"
	}
	return t
}

// blockSize prints a block size: "8 KiB", "512 B".
func blockSize(n int) string {
	if n >= 1024 && n%1024 == 0 {
		return strconv.Itoa(n/1024) + " KiB"
	}
	return strconv.Itoa(n) + " B"
}

// storageTip is a tooltip line with a job's total figures.
func storageTip(label, what string, r storage.JobResult, lead string) string {
	t := r.Total
	return fmt.Sprintf("%s<br/>%s: <b>%s</b><br/>%s IOPS · %s MB/s<br/>latency avg %s ms · p99 %s ms", tooltipHTML(label), tooltipHTML(what), lead,
		fmtInt(t.IOPS), fmtRate(t.MBps), fmtMs(t.Latency.MeanMs), fmtMs(t.Latency.P99Ms))
}

// randomCharts are the charts by block size of the random jobs: IOPS
// (grouped bars) and average/p99 latency (lines), one series per probe and
// read share.
func randomCharts(sps []storageProbe) []Chart {
	ss, sizes := randomSeries(sps)
	if len(ss) == 0 {
		return nil
	}
	var bs []int
	for b := range sizes {
		bs = append(bs, b)
	}
	sort.Ints(bs)
	cats := make([]string, len(bs))
	for i, b := range bs {
		cats[i] = blockSize(b)
	}
	var bars []BarSeries
	var avgs, p99s []LineSeries
	var iops, avgVals, p99Vals []float64
	for _, s := range ss {
		bar := BarSeries{Name: s.name, Color: s.color, Values: make([]*BarValue, len(bs))}
		avg := LineSeries{Name: s.name, Color: s.color, Symbol: true, Values: make([]*float64, len(bs))}
		p99 := LineSeries{Name: s.name, Color: s.color, Symbol: true, Values: make([]*float64, len(bs))}
		for ci, b := range bs {
			r, ok := s.jobs[b]
			if !ok {
				continue
			}
			t := r.Total
			bar.Values[ci] = &BarValue{Mean: t.IOPS, Repeats: 1, Tooltip: storageTip(s.name, jobText(r.Job), r, fmtInt(t.IOPS)+" IOPS")}
			iops = append(iops, t.IOPS)
			if t.Latency.MeanMs > 0 {
				v := t.Latency.MeanMs
				avg.Values[ci] = &v
				avgVals = append(avgVals, v)
			}
			if t.Latency.P99Ms > 0 {
				v := t.Latency.P99Ms
				p99.Values[ci] = &v
				p99Vals = append(p99Vals, v)
			}
		}
		bars = append(bars, bar)
		avgs = append(avgs, avg)
		p99s = append(p99s, p99)
	}
	sub := "random I/O, reads and writes together"
	logI := isWide(iops)
	ic := GroupedBars(ChartText{Title: "IOPS by block size", Subtitle: withLogNote(sub, logI), XName: "block size", YName: "IOPS (I/O per second)"}, cats, bars)
	if logI {
		logY(ic, "IOPS (I/O per second)", iops)
	}
	lat := func(title string, series []LineSeries, vals []float64) Chart {
		return blockLatencyChart(ChartText{Title: title, XName: "block size", YName: "latency (ms)"}, sub, cats, series, vals)
	}
	return []Chart{ic, lat("Average latency by block size", avgs, avgVals), lat("99th percentile latency by block size", p99s, p99Vals)}
}

// randomSeries are the probes' random-I/O jobs as one series per probe and
// read mix, by block size, with the set of block sizes they cover.
func randomSeries(sps []storageProbe) ([]mixSeries, map[int]bool) {
	var ss []mixSeries
	sizes := map[int]bool{}
	for _, sp := range sps {
		var mixes []int
		byMix := map[int]map[int]storage.JobResult{}
		for _, r := range sp.res.Jobs {
			if !r.Job.Random || r.Total.IOs == 0 {
				continue
			}
			m := byMix[r.Job.ReadPct]
			if m == nil {
				m = map[int]storage.JobResult{}
				byMix[r.Job.ReadPct] = m
				mixes = append(mixes, r.Job.ReadPct)
			}
			if _, dup := m[r.Job.BlockSize]; !dup {
				m[r.Job.BlockSize] = r
				sizes[r.Job.BlockSize] = true
			}
		}
		for _, mix := range mixes {
			name := sp.label
			if len(mixes) > 1 {
				name += fmt.Sprintf(" · %d %% read", mix)
			}
			color := sp.color
			if len(ss) > 0 && ss[len(ss)-1].label == sp.label { // another mix of the same probe
				color = lighten(sp.color, 0.45)
			}
			ss = append(ss, mixSeries{name: name, color: color, label: sp.label, jobs: byMix[mix]})
		}
	}
	return ss, sizes
}

// mixSeries is one probe's random-I/O jobs at one read mix, by block size.
type mixSeries struct {
	name, color, label string
	jobs               map[int]storage.JobResult // by block size
}

// blockLatencyChart charts latency series by block size: bars when there is
// one block size (the sqlserver preset), not lone dots; log scale when wide.
func blockLatencyChart(text ChartText, sub string, cats []string, series []LineSeries, vals []float64) Chart {
	log := isWide(vals)
	text.Subtitle = withLogNote(sub, log)
	var c rectChart
	if len(cats) == 1 { // one block size (the sqlserver preset): bars, not lone dots
		var bars []BarSeries
		for _, s := range series {
			b := BarSeries{Name: s.Name, Color: s.Color, Values: []*BarValue{nil}}
			if v := s.Values[0]; v != nil {
				b.Values[0] = &BarValue{Mean: *v, Repeats: 1, Tooltip: fmt.Sprintf("%s<br/>%s: <b>%s ms</b>", tooltipHTML(s.Name), cats[0], fmtMs(*v))}
			}
			bars = append(bars, b)
		}
		c = GroupedBars(text, cats, bars)
	} else {
		c = Lines(text, cats, series)
	}
	if log {
		logY(c, "latency (ms)", vals)
	}
	return c.(Chart)
}

// sequentialChart is the MB/s of the sequential jobs, one bar per probe;
// nil when no probe has one.
func sequentialChart(sps []storageProbe) Chart {
	var cats []string
	at := map[string]int{}
	for _, sp := range sps {
		for _, r := range sp.res.Jobs {
			if r.Job.Random || r.Total.IOs == 0 {
				continue
			}
			k := jobText(r.Job)
			if _, ok := at[k]; !ok {
				at[k] = len(cats)
				cats = append(cats, k)
			}
		}
	}
	if len(cats) == 0 {
		return nil
	}
	var series []BarSeries
	var vals []float64
	for _, sp := range sps {
		s := BarSeries{Name: sp.label, Color: sp.color, Values: make([]*BarValue, len(cats))}
		for _, r := range sp.res.Jobs {
			if r.Job.Random || r.Total.IOs == 0 {
				continue
			}
			ci := at[jobText(r.Job)]
			if s.Values[ci] != nil {
				continue
			}
			s.Values[ci] = &BarValue{Mean: r.Total.MBps, Repeats: 1, Tooltip: storageTip(sp.label, jobText(r.Job), r, fmtRate(r.Total.MBps)+" MB/s")}
			vals = append(vals, r.Total.MBps)
		}
		series = append(series, s)
	}
	log := isWide(vals)
	c := GroupedBars(ChartText{Title: "Sequential throughput", Subtitle: withLogNote("(threads × outstanding I/Os)", log), YName: "MB/s (MiB per second)"},
		cats, series)
	if log {
		logY(c, "MB/s (MiB per second)", vals)
	}
	return c
}

// storageComparison is the probes' total figures side by side, job by job.
func storageComparison(p *Page, sps []storageProbe) {
	var keys []string
	seen := map[string]bool{}
	for _, sp := range sps {
		for _, r := range sp.res.Jobs {
			if k := jobText(r.Job); !seen[k] {
				seen[k] = true
				keys = append(keys, k)
			}
		}
	}
	find := func(sp storageProbe, k string) *storage.JobResult {
		for i := range sp.res.Jobs {
			if jobText(sp.res.Jobs[i].Job) == k {
				return &sp.res.Jobs[i]
			}
		}
		return nil
	}
	var rows []Row
	for _, k := range keys {
		var base float64
		first := true
		for _, sp := range sps {
			r := find(sp, k)
			if r == nil {
				continue
			}
			t := r.Total
			ratio := Cell{Text: "-", Class: "num muted"}
			if first {
				base, first = t.IOPS, false
			} else {
				ratio = Num(fmtRatio(base, t.IOPS))
			}
			job := Txt("")
			if len(rows) == 0 || rows[len(rows)-1].Cells[0].Title != k {
				job = Cell{Text: k, Title: k}
			} else {
				job.Title = k
			}
			rows = append(rows, Row{Cells: []Cell{job, Txt(sp.label), Num(fmtInt(t.IOPS)), Num(fmtRate(t.MBps)),
				Num(fmtMs(t.Latency.MeanMs)), Num(fmtMs(t.Latency.P99Ms)), ratio}})
		}
	}
	p.Table(Table{Caption: "Probes side by side (reads and writes together)",
		Head: []string{"job", "probe", "IOPS", "MB/s", "avg latency ms", "p99 latency ms", "IOPS vs the first probe of the job"}, Rows: rows})
}

// storageDetail is one probe's table: per job and direction the study
// table's figures and percentiles.
func storageDetail(p *Page, sp storageProbe) {
	p.Heading("%s", sp.label)
	r := sp.res
	var parts []string
	if r.Path != "" {
		parts = append(parts, "path "+r.Path)
	}
	if r.Preset != "" {
		parts = append(parts, "preset "+r.Preset)
	}
	if r.Engine != "" {
		parts = append(parts, "engine "+r.Engine)
	}
	if r.Size > 0 {
		parts = append(parts, fmtBytes(float64(r.Size))+" test file")
	}
	parts = append(parts, probeMeta(sp.probe))
	p.Note(strings.Join(parts, " · "))
	if len(r.Jobs) == 0 {
		p.Note("This probe has no completed job.")
		return
	}
	var rows []Row
	var notes []string
	engines := map[string]bool{}
	for _, jr := range r.Jobs {
		if e := engineText(jr); !engines[e] && (jr.IOEngine != "" || jr.CPUPerIOMicros > 0) {
			engines[e] = true
			notes = append(notes, jobText(jr.Job)+": engine "+e)
		}
		rows = append(rows, storageJobRows(jr)...)
		for _, n := range jr.Notes {
			notes = append(notes, jobText(jr.Job)+": "+n)
		}
	}
	p.Table(Table{Caption: "Storage probe: " + sp.label, Head: []string{"job", "", "bytes", "I/Os", "MB/s", "IOPS", "avg ms", "stddev ms",
		"min", "25th", "50th", "75th", "90th", "95th", "99th", "99.9th", "max"}, Rows: rows})
	for _, n := range notes {
		p.Notef("Note: %s", n)
	}
}

// storageJobRows are one job's rows of the storage detail table: read, write,
// total and fsync, skipping sides without I/O but never the total.
func storageJobRows(jr storage.JobResult) []Row {
	pcts := []func(storage.Latency) float64{
		func(l storage.Latency) float64 { return l.MinMs }, func(l storage.Latency) float64 { return l.P25Ms },
		func(l storage.Latency) float64 { return l.P50Ms }, func(l storage.Latency) float64 { return l.P75Ms },
		func(l storage.Latency) float64 { return l.P90Ms }, func(l storage.Latency) float64 { return l.P95Ms },
		func(l storage.Latency) float64 { return l.P99Ms }, func(l storage.Latency) float64 { return l.P999Ms },
		func(l storage.Latency) float64 { return l.MaxMs },
	}
	var rows []Row
	sides := []struct {
		name string
		s    storage.Side
	}{{"read", jr.Read}, {"write", jr.Write}, {"total", jr.Total}, {"fsync", jr.Sync}}
	firstRow := true
	for _, sd := range sides {
		if sd.s.IOs == 0 && sd.name != "total" {
			continue
		}
		job := Cell{Title: jobTitle(jr)}
		if firstRow {
			job.Text = jobText(jr.Job)
			if !jr.DirectIO {
				job.Text += " buffered"
				job.Class = "warn"
			}
		}
		firstRow = false
		cells := []Cell{job, Txt(sd.name)}
		if sd.name == "fsync" {
			cells = append(cells, Cell{Text: "-", Class: "num muted"})
		} else {
			cells = append(cells, Num(fmtBytes(float64(sd.s.Bytes))))
		}
		cells = append(cells, Num(fmtInt(float64(sd.s.IOs))))
		if sd.name == "fsync" {
			cells = append(cells, Cell{Text: "-", Class: "num muted"})
		} else {
			cells = append(cells, Num(fmtFloat(sd.s.MBps, 2)))
		}
		cells = append(cells, Num(fmtFloat(sd.s.IOPS, 0)))
		if sd.s.IOs == 0 {
			for range 2 + len(pcts) {
				cells = append(cells, Cell{Text: "N/A", Class: "num muted"})
			}
		} else {
			cells = append(cells, Num(fmtMs(sd.s.Latency.MeanMs)), Num(fmtMs(sd.s.Latency.StdDevMs)))
			for _, f := range pcts {
				cells = append(cells, Num(fmtMs(f(sd.s.Latency))))
			}
		}
		row := Row{Cells: cells}
		rows = append(rows, row)
	}
	return rows
}
