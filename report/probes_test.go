package report

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/rightsize/rightsize/internal/storetest"
	"github.com/rightsize/rightsize/probe/backup"
	"github.com/rightsize/rightsize/probe/cpu"
	"github.com/rightsize/rightsize/probe/storage"
	"github.com/rightsize/rightsize/store"
)

// storageProbeJSON is the shape rightsize probe storage stores
// (cmd/rightsize's storageProbeResult), written out here on purpose: the
// test breaks if the report reads another shape.
type storageProbeJSON struct {
	Path   string              `json:"path"`
	Preset string              `json:"preset"`
	Engine string              `json:"engine"`
	Size   int64               `json:"size_bytes"`
	Jobs   []storage.JobResult `json:"jobs"`
}

// fakeLatency is a latency distribution around avg with the given p99.
func fakeLatency(avg, p99 float64) storage.Latency {
	return storage.Latency{MinMs: avg * 0.2, P25Ms: avg * 0.6, P50Ms: avg * 0.9, P75Ms: avg * 1.2, P90Ms: avg * 1.6, P95Ms: avg * 2,
		P99Ms: p99, P999Ms: p99 * 1.8, MaxMs: p99 * 4, MeanMs: avg, StdDevMs: avg * 0.7}
}

// fakeJob is the result of job j at iops total, split by its read share.
func fakeJob(j storage.Job, iops, avg, p99 float64) storage.JobResult {
	el := 10 * time.Second
	side := func(share float64) storage.Side {
		n := int64(math.Round(iops * share * el.Seconds()))
		if n == 0 {
			return storage.Side{}
		}
		return storage.Side{Bytes: n * int64(j.BlockSize), IOs: n, IOPS: iops * share, MBps: iops * share * float64(j.BlockSize) / (1 << 20),
			Latency: fakeLatency(avg, p99)}
	}
	rs := float64(j.ReadPct) / 100
	return storage.JobResult{Job: j, Engine: "builtin", IOEngine: "io_uring", HugePages: true, CPUPerIOMicros: 7.8,
		Read: side(rs), Write: side(1 - rs), Total: side(1), DirectIO: true, Elapsed: el}
}

// hciProbe is a storage probe of five jobs of the hci sweep (4, 8 and 64
// KiB random, sequential 128 KiB read and write) on a machine whose 8 KiB
// random figures are iops8k, avg and p99 (the others scale from them).
func hciProbe(t *testing.T, label, host string, at time.Time, iops8k, avg, p99 float64) *store.Probe {
	t.Helper()
	all, err := storage.Preset("hci", 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	var jobs []storage.JobResult
	for _, i := range []int{0, 1, 4, 7, 8} {
		j := all[i]
		f := math.Sqrt(float64(j.BlockSize) / 8192) // larger blocks: fewer IOPS, more latency
		jobs = append(jobs, fakeJob(j, iops8k/f, avg*f, p99*f))
	}
	raw, err := json.Marshal(storageProbeJSON{Path: "/data", Preset: "hci", Engine: "builtin", Size: 1 << 30, Jobs: jobs})
	if err != nil {
		t.Fatal(err)
	}
	return &store.Probe{Kind: store.ProbeStorage, Label: label, Host: host, CreatedAt: at, Result: raw}
}

// cpuProbe is a single-thread CPU probe of PostgreSQL.
func cpuProbe(t *testing.T, host string, at time.Time) *store.Probe {
	t.Helper()
	r := cpu.Result{Engine: "postgres", Version: "PostgreSQL 16.4 on x86_64-pc-linux-gnu, compiled by gcc", Language: "PL/pgSQL",
		Iterations: 1_000_000, Runs: 3, ServerMs: []float64{612.5, 640.2, 655.9}, BestMs: 612.5, MedianMs: 640.2, ClientGoMs: 4.21,
		Host: host, StartedAt: at}
	raw, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	return &store.Probe{Kind: store.ProbeCPU, Host: host, CreatedAt: at, Result: raw}
}

// backupProbeFixture is three backup/restore cycles shaped like Study B's NVMe
// figures (backup 265 s at 593 MB/s), with per-second disk latency; the
// third restore is not checked.
func backupProbeFixture(t *testing.T, host string, at time.Time) *store.Probe {
	t.Helper()
	r := backup.Result{Engine: "postgres", Version: "PostgreSQL 16.4", Method: "pg_basebackup", Dir: "/backup", Host: host, StartedAt: at,
		Notes: []string{"pg_basebackup copies the whole cluster"}}
	start := at
	for n := 1; n <= 3; n++ {
		bs, rs := 265.0+float64(n-1)*4, 129.0+float64(n-1)*2
		c := backup.Cycle{N: n, Start: start, End: start.Add(time.Duration((bs + rs) * float64(time.Second))), Bytes: 157_145_000_000,
			BackupSeconds: bs, BackupMBps: 157_145 / bs, RestoreSeconds: rs, RestoreMBps: 157_145 / rs, RestoreStartSeconds: 4.5,
			RestoreChecked: n != 3}
		if n == 3 {
			c.Note = "table stock is empty in the restored database"
		}
		for s := 0; s < int(bs+rs); s++ {
			lat := 0.8 + 0.3*math.Sin(float64(s)/9)
			if float64(s) > bs {
				lat = 1.9 + 0.4*math.Sin(float64(s)/7) // restores write harder
			}
			c.DiskLatencyMs = append(c.DiskLatencyMs, lat+float64(n)*0.05)
			c.DiskMBps = append(c.DiskMBps, 600+float64(s%13)*9)
		}
		var sum float64
		for _, l := range c.DiskLatencyMs {
			sum += l
		}
		c.DiskAvgLatencyMs = sum / float64(len(c.DiskLatencyMs))
		r.Cycles = append(r.Cycles, c)
		start = c.End.Add(10 * time.Second)
	}
	raw, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	return &store.Probe{Kind: store.ProbeBackup, Label: "nvme backup", Host: host, CreatedAt: at, Result: raw}
}

// addStudyProbes stores the probes of the tests: Study A's two machines'
// storage (db1 "HDD" at 1,870 IOPS, db2 "SSD" at 98,000), a CPU and a
// backup probe of db1. It returns their ids: hdd, ssd, cpu, backup.
func addStudyProbes(t *testing.T, st *store.Store) []string {
	t.Helper()
	ctx := context.Background()
	at := time.Date(2025, 3, 4, 8, 0, 0, 0, time.UTC)
	ps := []*store.Probe{
		hciProbe(t, "HDD volume", "db1", at, 1870, 17, 93),
		hciProbe(t, "", "db2", at.Add(time.Hour), 98000, 0.33, 1.3),
		cpuProbe(t, "db1", at.Add(2*time.Hour)),
		backupProbeFixture(t, "db1", at.Add(3*time.Hour)),
	}
	var ids []string
	for _, p := range ps {
		if err := st.AddProbe(ctx, p); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, p.ID)
	}
	return ids
}

// probeStore is a store with the probes of addStudyProbes and no run.
func probeStore(t *testing.T) (*store.Store, []string) {
	t.Helper()
	st := storetest.Open(t)
	return st, addStudyProbes(t, st)
}

// renderStudyWithProbes renders Study A's runs (both on host db1) with the
// probes: db1's by the default rule, db2's storage probe named explicitly.
func renderStudyWithProbes(t *testing.T) []byte {
	t.Helper()
	ctx := context.Background()
	st, ids := studyStore(t)
	pids := addStudyProbes(t, st)
	runs, err := Load(ctx, st, ids...)
	if err != nil {
		t.Fatal(err)
	}
	if err := AttachHostProbes(ctx, st, runs); err != nil {
		t.Fatal(err)
	}
	extra, err := LoadProbes(ctx, st, pids[1])
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := HTML(&buf, runs, Options{Version: "test", Generated: time.Date(2025, 3, 5, 9, 0, 0, 0, time.UTC), Probes: extra}); err != nil {
		t.Fatal(err)
	}
	if out := os.Getenv("RIGHTSIZE_REPORT_OUT"); out != "" { // for looking at it by hand
		if err := os.WriteFile(out, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return buf.Bytes()
}

// section returns the HTML of one section of a page.
func section(t *testing.T, page, anchor string) string {
	t.Helper()
	start := strings.Index(page, `<section id="`+anchor+`">`)
	if start < 0 {
		t.Fatalf("no section #%s", anchor)
	}
	end := strings.Index(page[start:], "</section>")
	return page[start : start+end]
}

// wantAll reports the strings s lacks.
func wantAll(t *testing.T, what, s string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(s, w) {
			t.Errorf("%s lacks %q", what, w)
		}
	}
}

// A report of probes only: the probe sections, their numbers, no run
// section.
func TestProbesOnlyReport(t *testing.T) {
	ctx := context.Background()
	st, ids := probeStore(t)
	// by label, by id, by id prefix
	probes, err := LoadProbes(ctx, st, "HDD volume", ids[1], ids[2][:len(ids[2])-2], "nvme backup", ids[0])
	if err != nil {
		t.Fatal(err)
	}
	if len(probes) != 4 {
		t.Fatalf("%d probes loaded, want 4 (HDD volume named twice)", len(probes))
	}
	var buf bytes.Buffer
	if err := HTML(&buf, nil, Options{Version: "test", Generated: time.Unix(0, 0), Probes: probes}); err != nil {
		t.Fatal(err)
	}
	if out := os.Getenv("RIGHTSIZE_PROBES_REPORT_OUT"); out != "" { // for looking at it by hand
		if err := os.WriteFile(out, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	page := buf.String()
	for _, a := range []string{"summary", "throughput", "host", "latency", "timeline", "environment"} {
		if strings.Contains(page, `id="`+a+`"`) || strings.Contains(page, `href="#`+a+`"`) {
			t.Errorf("a report without runs has the run section #%s", a)
		}
	}
	wantAll(t, "header", page, "no run · 4 probes", "storage probe "+ids[0], "backup probe "+ids[3])

	stor := section(t, page, "storage")
	wantAll(t, "storage section", stor,
		"HDD volume", "db2 · storage hci · 2025-03-04 09:00", // a label, and a probe named by host, preset and date
		"IOPS by block size", "Average latency by block size", "99th percentile latency by block size", "Sequential throughput", "Probes side by side",
		"Storage probe: HDD volume", "Storage probe: db2 · storage hci",
		"8 KiB random, 70 % read (8×4)", "128 KiB sequential read (8×4)", "128 KiB sequential write (8×4)",
		// 8 KiB: total IOPS, MB/s, average, stddev, percentiles of both machines
		"1,870", "14.61", "17.0", "11.9", "93.0", "167.4", "372.0",
		"98,000", "765.62", "0.330", "0.231", "1.30", "2.34", "5.20",
		// SSD vs HDD IOPS at 8 KiB; a log axis for 1,870 and 98,000 IOPS on one chart
		"52.41x", `"type":"log"`, "log scale",
		"path /data", "preset hci", "1.0 GiB test file",
		"4 KiB random, 70 % read (8×4): engine builtin via io_uring, huge pages, 7.8 µs CPU per I/O")
	if n := strings.Count(stor, "echarts.init("); n != 4 {
		t.Errorf("storage section: %d charts, want 4", n)
	}
	for _, w := range []string{"4 KiB", "8 KiB", "64 KiB"} { // the block size axis, in order
		if !strings.Contains(stor, `"`+w+`"`) {
			t.Errorf("storage charts lack the block size %s", w)
		}
	}
	if i4, i64 := strings.Index(stor, `"4 KiB"`), strings.Index(stor, `"64 KiB"`); i4 > i64 {
		t.Error("block sizes out of order")
	}

	c := section(t, page, "cpu")
	wantAll(t, "cpu section", c, "Single-thread CPU loop", "PostgreSQL 16.4", "PL/pgSQL", "db1", "1,000,000", "612.5", "640.2",
		"612.5 – 655.9", "4.21", "145.49x", "1.63") // server loop vs Go, M iterations/s
	if strings.Count(c, "echarts.init(") != 1 {
		t.Error("cpu section: want one chart")
	}

	b := section(t, page, "backup")
	wantAll(t, "backup section", b, "nvme backup", "pg_basebackup", "3 cycle(s) back to back", "to /backup", "pg_basebackup copies the whole cluster",
		"Backup and restore duration per cycle", "Backup and restore throughput per cycle",
		"Disk latency during each cycle: nvme backup", "Disk throughput during each cycle: nvme backup",
		"146.4 GiB", "265", "593", "129", "1,218", "4.50", ">yes<", `class="bad"`, ">NO<", "table stock is empty", "average",
		"backup ended")
	if n := strings.Count(b, "echarts.init("); n != 4 {
		t.Errorf("backup section: %d charts, want 4", n)
	}
}

// The default rule: the latest probe of each kind whose host is the run's.
func TestAttachHostProbes(t *testing.T) {
	ctx := context.Background()
	st, ids := probeStore(t)
	newer := hciProbe(t, "db1 newer", "db1.example.com", time.Date(2025, 3, 6, 0, 0, 0, 0, time.UTC), 2000, 15, 80)
	if err := st.AddProbe(ctx, newer); err != nil {
		t.Fatal(err)
	}
	runs := []RunData{
		{Run: store.Run{ID: "r1", Env: map[string]string{"host.name": "DB1"}}},
		{Run: store.Run{ID: "r2", Env: map[string]string{"host.name": "db2"}}},
		{Run: store.Run{ID: "r3"}}, // imported: no host
	}
	if err := AttachHostProbes(ctx, st, runs); err != nil {
		t.Fatal(err)
	}
	got := func(i int) []string {
		var out []string
		for _, p := range runs[i].Probes {
			out = append(out, p.ID)
		}
		return out
	}
	if g, w := strings.Join(got(0), " "), strings.Join([]string{newer.ID, ids[3], ids[2]}, " "); g != w {
		t.Errorf("run on db1: probes %s, want %s (the newer storage probe, backup, cpu)", g, w)
	}
	if g := got(1); len(g) != 1 || g[0] != ids[1] {
		t.Errorf("run on db2: probes %v, want %s", g, ids[1])
	}
	if g := got(2); len(g) != 0 {
		t.Errorf("run without a host: probes %v", g)
	}
	for _, c := range []struct {
		a, b string
		want bool
	}{{"db1", "DB1", true}, {"db1", "db1.example.com", true}, {"db1.a.com", "db1.b.com", true}, {"db1", "db10", false},
		{"10.0.0.1", "10.0.0.2", false}, {"10.0.0.1", "10.0.0.1", true}, {"", "", false}} {
		if SameHost(c.a, c.b) != c.want {
			t.Errorf("SameHost(%q, %q) = %v", c.a, c.b, !c.want)
		}
	}
}

// Runs and probes together: the run sections are unchanged, probes come
// from the runs' host and from Options.Probes, without repeats.
func TestReportWithProbes(t *testing.T) {
	page := renderStudyWithProbes(t)
	s := string(page)
	for _, sec := range DefaultSections() {
		if _, ok := sec.(optionalSection); ok {
			continue // shown only with what it needs (cost_test.go)
		}
		if !strings.Contains(s, `<section id="`+sec.Anchor()+`">`) {
			t.Errorf("section #%s missing", sec.Anchor())
		}
	}
	wantAll(t, "header", s, "2 runs compared side by side · 4 probes")
	stor := section(t, s, "storage")
	wantAll(t, "storage section", stor, "HDD volume", "db2 · storage hci", "98,000", "1,870")
	if strings.Count(stor, "<h3>") != 2 {
		t.Error("a probe attached to two runs is shown twice")
	}
	wantAll(t, "cpu section", section(t, s, "cpu"), "612.5")
	wantAll(t, "backup section", section(t, s, "backup"), "nvme backup", "265")
}

// Without probes the probe sections say how to get one; without runs and
// probes there is no report; a probe whose result cannot be read is left
// out with a note.
func TestProbeSectionsEdgeCases(t *testing.T) {
	st := storetest.Open(t)
	rd := simpleRun(t, st, "plain", map[int][]float64{1: {100}}, []int{1})
	var buf bytes.Buffer
	if err := HTML(&buf, []RunData{rd}, Options{}); err != nil {
		t.Fatal(err)
	}
	s := buf.String()
	wantAll(t, "report without probes", s, "No storage probe in this report", "No single-thread CPU probe in this report", "No backup probe in this report")
	if meta := regexp.MustCompile(`<div class="meta">generated[^<]*</div>`).FindString(s); !strings.HasSuffix(meta, "· 1 run</div>") {
		t.Errorf("header of a report without probes: %q", meta)
	}
	if err := HTML(&buf, nil, Options{}); err == nil {
		t.Error("no runs and no probes: no error")
	}
	bad := store.Probe{ID: "20250101-000000-bad000", Kind: store.ProbeStorage, Host: "x", Result: json.RawMessage(`{"jobs": 7}`)}
	good := *cpuProbe(t, "x", time.Unix(0, 0))
	good.ID = "20250101-000000-good00"
	buf.Reset()
	if err := HTML(&buf, nil, Options{Probes: []store.Probe{bad, good}}); err != nil {
		t.Fatal(err)
	}
	s = buf.String()
	wantAll(t, "report with a bad probe", s, "Left out: storage probe 20250101-000000-bad000", "612.5")
}

func TestProbeLabels(t *testing.T) {
	at := time.Date(2025, 3, 4, 8, 0, 0, 0, time.UTC)
	c := *cpuProbe(t, "db1", at)
	c.ID = "20250304-080000-aaaaaa"
	c2 := c
	c2.ID = "20250304-080000-bbbbbb"
	b := *backupProbeFixture(t, "db1", at)
	b.Label = ""
	got := ProbeLabels([]store.Probe{c, c2, b, {ID: "x", Kind: "gpu"}})
	want := []string{"db1 · cpu PostgreSQL 16.4 · 2025-03-04 08:00 #aaaaaa", "db1 · cpu PostgreSQL 16.4 · 2025-03-04 08:00 #bbbbbb",
		"db1 · backup pg_basebackup · 2025-03-04 08:00", "gpu"}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("label %d = %q, want %q", i, got[i], want[i])
		}
	}
}

// User text in probes (labels, notes, paths) must not break the page.
func TestProbesEscapeUserText(t *testing.T) {
	evil := `</script><img src=x onerror=alert(1)> {a} <!--`
	p := hciProbe(t, evil, evil, time.Unix(0, 0), 5000, 1, 4)
	p.ID = "20250101-000000-evil00"
	var buf bytes.Buffer
	if err := HTML(&buf, nil, Options{Probes: []store.Probe{*p}}); err != nil {
		t.Fatal(err)
	}
	checkScriptsIntact(t, buf.String(), "a probe label")
}

// Study A's storage table: one 8 KiB random job per machine (the
// sqlserver preset). Latency is drawn as bars (one block size), there is
// no sequential chart.
func TestStorageOneBlockSize(t *testing.T) {
	jobs, err := storage.Preset("sqlserver", 30*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	var probes []store.Probe
	for i, m := range []struct {
		label          string
		iops, avg, p99 float64
	}{{"HDD RAID 10", 1870, 17, 93}, {"SSD RAID 10", 98000, 0.33, 1.3}} {
		raw, err := json.Marshal(storageProbeJSON{Path: "D:\\data", Preset: "sqlserver", Engine: "fio", Size: 20 << 30,
			Jobs: []storage.JobResult{fakeJob(jobs[0], m.iops, m.avg, m.p99)}})
		if err != nil {
			t.Fatal(err)
		}
		probes = append(probes, store.Probe{ID: "20250101-00000" + string(rune('0'+i)) + "-abcdef", Kind: store.ProbeStorage, Label: m.label,
			Host: "srv", Result: raw})
	}
	var buf bytes.Buffer
	if err := HTML(&buf, nil, Options{Probes: probes}); err != nil {
		t.Fatal(err)
	}
	if out := os.Getenv("RIGHTSIZE_PROBES_REPORT_OUT"); out != "" {
		if err := os.WriteFile(strings.TrimSuffix(out, ".html")+"-sqlserver.html", buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	stor := section(t, buf.String(), "storage")
	wantAll(t, "storage section", stor, "8 KiB random, 75 % read (8×4)", "1,870", "98,000", "0.330", "93.0", "52.41x", "Average latency by block size")
	if strings.Contains(stor, "Sequential throughput") {
		t.Error("a sequential chart without sequential jobs")
	}
	if n, bars := strings.Count(stor, "echarts.init("), strings.Count(stor, `"type":"bar"`); n != 3 || bars != 6 {
		t.Errorf("%d charts with %d bar series, want 3 charts of bars (2 series each)", n, bars)
	}
}
