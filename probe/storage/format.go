package storage

import (
	"fmt"
	"io"
	"math"
	"strings"
)

// FormatTable writes the tables storage studies print, for each result: a
// header naming the job, engine (with its I/O interface and CPU per I/O)
// and I/O mode; per read, write and total (and
// fsync when the job syncs) the bytes, I/Os, MB/s (MiB/s), IOPS, average
// latency and its standard deviation; then the latency percentile table
// (min, 25, 50, 75, 90, 95, 99, 99.9, max) in milliseconds for read, write
// and total (and fsync); then the latency distribution as fio prints it
// (lines "lat (usec)" and "lat (msec)": the share of reads and writes per
// range, each labelled by its upper edge, ranges without I/O left out);
// then the result's notes. Values of a direction with no I/O print as N/A.
func FormatTable(w io.Writer, results []JobResult) {
	for i, r := range results {
		if i > 0 {
			fmt.Fprintln(w)
		}
		formatOne(w, r)
	}
}

func formatOne(w io.Writer, r JobResult) {
	j := r.Job
	pattern := "sequential"
	if j.Random {
		pattern = "random"
	}
	direct := "direct"
	if !r.DirectIO {
		direct = "buffered"
	}
	fmt.Fprintf(w, "%s: %s, %d%% read, %s, %d thread(s) x %d outstanding, %s", j.Name, blockLabel(j.BlockSize), j.ReadPct, pattern, j.Threads, j.QueueDepth, direct)
	if j.FsyncEvery > 0 {
		fmt.Fprintf(w, ", fsync every %d write(s)", j.FsyncEvery)
	}
	fmt.Fprintf(w, "\nengine: %s, elapsed: %.2f s", engineLabel(r), r.Elapsed.Seconds())
	if r.CPUPerIOMicros > 0 {
		fmt.Fprintf(w, ", CPU per I/O: %.2f µs", r.CPUPerIOMicros)
	}
	fmt.Fprint(w, "\n\n")

	fmt.Fprintf(w, "  %-6s|%16s |%12s |%10s |%11s |%11s |%14s\n", "", "bytes", "I/Os", "MB/s", "IOPS", "AvgLat(ms)", "LatStdDev(ms)")
	fmt.Fprintf(w, "  %s\n", strings.Repeat("-", 6)+"+"+strings.Repeat("-", 17)+"+"+strings.Repeat("-", 13)+"+"+
		strings.Repeat("-", 11)+"+"+strings.Repeat("-", 12)+"+"+strings.Repeat("-", 12)+"+"+strings.Repeat("-", 14))
	row := func(label string, s Side, showBytes bool) {
		bytes, mbps := fmt.Sprint(s.Bytes), fmt.Sprintf("%.2f", s.MBps)
		if !showBytes {
			bytes, mbps = "-", "-"
		}
		avg, sd := "N/A", "N/A"
		if s.IOs > 0 {
			avg, sd = fmt.Sprintf("%.3f", s.Latency.MeanMs), fmt.Sprintf("%.3f", s.Latency.StdDevMs)
		}
		fmt.Fprintf(w, "  %-6s|%16s |%12d |%10s |%11.2f |%11s |%14s\n", label, bytes, s.IOs, mbps, s.IOPS, avg, sd)
	}
	row("read", r.Read, true)
	row("write", r.Write, true)
	row("total", r.Total, true)
	if r.Sync.IOs > 0 {
		row("fsync", r.Sync, false)
	}

	writePercentiles(w, r)
	if len(r.Buckets) > 0 {
		fmt.Fprintln(w)
	}
	for _, l := range distributionLines(r.Buckets) {
		fmt.Fprintf(w, "  %s\n", l)
	}
	for _, n := range r.Notes {
		fmt.Fprintf(w, "  note: %s\n", n)
	}
}

// writePercentiles writes the job's latency percentile table: read, write,
// total and, when the job synced, fsync.
func writePercentiles(w io.Writer, r JobResult) {
	syncs := r.Sync.IOs > 0
	fmt.Fprintf(w, "\n  %7s |%11s |%11s |%11s", "%-ile", "read(ms)", "write(ms)", "total(ms)")
	rule := strings.Repeat("-", 8) + "+" + strings.Repeat("-", 12) + "+" + strings.Repeat("-", 12) + "+" + strings.Repeat("-", 12)
	if syncs {
		fmt.Fprintf(w, " |%11s", "fsync(ms)")
		rule += "+" + strings.Repeat("-", 12)
	}
	fmt.Fprintf(w, "\n  %s\n", rule)
	type pick func(Latency) float64
	lines := []struct {
		label string
		get   pick
	}{
		{"min", func(l Latency) float64 { return l.MinMs }},
		{"25th", func(l Latency) float64 { return l.P25Ms }},
		{"50th", func(l Latency) float64 { return l.P50Ms }},
		{"75th", func(l Latency) float64 { return l.P75Ms }},
		{"90th", func(l Latency) float64 { return l.P90Ms }},
		{"95th", func(l Latency) float64 { return l.P95Ms }},
		{"99th", func(l Latency) float64 { return l.P99Ms }},
		{"99.9th", func(l Latency) float64 { return l.P999Ms }},
		{"max", func(l Latency) float64 { return l.MaxMs }},
	}
	cell := func(s Side, get pick) string {
		if s.IOs == 0 {
			return "N/A"
		}
		return fmt.Sprintf("%.3f", get(s.Latency))
	}
	for _, l := range lines {
		fmt.Fprintf(w, "  %7s |%11s |%11s |%11s", l.label, cell(r.Read, l.get), cell(r.Write, l.get), cell(r.Total, l.get))
		if syncs {
			fmt.Fprintf(w, " |%11s", cell(r.Sync, l.get))
		}
		fmt.Fprintln(w)
	}
}

// distributionLines renders a latency distribution as fio's "lat (usec)"
// and "lat (msec)" lines: each range with I/Os in it as its upper edge and
// share ("500=20.46%"; "<0.01%" for a share that rounds to zero), the last
// range as ">=2000".
func distributionLines(b LatencyBuckets) []string {
	var us, ms []string
	for i, x := range b {
		if x.Pct <= 0 {
			continue
		}
		pct := fmt.Sprintf("%.2f%%", x.Pct)
		if x.Pct < 0.005 {
			pct = "<0.01%"
		}
		switch {
		case i+1 == len(b):
			ms = append(ms, fmt.Sprintf(">=%g=%s", x.FromMs, pct))
		case b[i+1].FromMs <= 1:
			us = append(us, fmt.Sprintf("%g=%s", math.Round(b[i+1].FromMs*1000), pct))
		default:
			ms = append(ms, fmt.Sprintf("%g=%s", b[i+1].FromMs, pct))
		}
	}
	var lines []string
	if len(us) > 0 {
		lines = append(lines, "lat (usec): "+strings.Join(us, ", "))
	}
	if len(ms) > 0 {
		lines = append(lines, "lat (msec): "+strings.Join(ms, ", "))
	}
	return lines
}

// IODetail is how the engine issued the I/O: its interface and whether
// its buffers were on huge pages ("io_uring, huge pages"); empty when
// unknown.
func (r JobResult) IODetail() string {
	var how []string
	if r.IOEngine != "" {
		how = append(how, r.IOEngine)
	}
	if r.HugePages {
		how = append(how, "huge pages")
	}
	return strings.Join(how, ", ")
}

// engineLabel is the engine with its IODetail: "builtin (io_uring, huge
// pages)".
func engineLabel(r JobResult) string {
	if d := r.IODetail(); d != "" {
		return r.Engine + " (" + d + ")"
	}
	return r.Engine
}

// blockLabel prints a block size as diskspd does: 8 KiB, 128 KiB, 512 B.
func blockLabel(n int) string {
	if n%1024 == 0 {
		return fmt.Sprintf("%d KiB", n/1024)
	}
	return fmt.Sprintf("%d B", n)
}
