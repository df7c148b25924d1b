package storage

import (
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func readFixture(t *testing.T, name string) JobResult {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	r, err := ParseFioJSON(data)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func near(t *testing.T, what string, got, want float64) {
	t.Helper()
	if math.Abs(got-want) > 1e-9*math.Max(1, math.Abs(want)) {
		t.Errorf("%s = %v, want %v", what, got, want)
	}
}

// The fixtures are real fio 3.33 outputs (libaio, direct, lat_percentiles=1,
// percentile_list=25:50:75:90:95:99:99.9); the expected numbers are copied
// from them.
func TestParseFioSQLServerFixture(t *testing.T) {
	r := readFixture(t, "fio-3.33-sqlserver.json")
	if len(r.Notes) != 0 {
		t.Errorf("notes %v", r.Notes)
	}
	if r.Elapsed != 2001*time.Millisecond {
		t.Errorf("elapsed %v", r.Elapsed)
	}
	if r.Read.Bytes != 520028160 || r.Read.IOs != 63480 || r.Write.Bytes != 173678592 || r.Write.IOs != 21201 {
		t.Errorf("counts read %d/%d write %d/%d", r.Read.Bytes, r.Read.IOs, r.Write.Bytes, r.Write.IOs)
	}
	if r.Total.Bytes != 693706752 || r.Total.IOs != 84681 {
		t.Errorf("total %d/%d", r.Total.Bytes, r.Total.IOs)
	}
	near(t, "read IOPS", r.Read.IOPS, 31724.137931)
	near(t, "write IOPS", r.Write.IOPS, 10595.202399)
	near(t, "total IOPS", r.Total.IOPS, 42319.34033)
	near(t, "read MB/s", r.Read.MBps, 259884137.0/(1<<20))
	near(t, "total MB/s", r.Total.MBps, 346680035.0/(1<<20))
	// Total latency (lat_ns), not completion latency (clat_ns).
	wantRead := Latency{MinMs: 0.042303, P25Ms: 0.505856, P50Ms: 0.577536, P75Ms: 0.667648, P90Ms: 0.765952, P95Ms: 0.872448,
		P99Ms: 1.400832, P999Ms: 2.768896, MaxMs: 18.203765, MeanMs: 0.607380329742, StdDevMs: 0.318797272722}
	wantWrite := Latency{MinMs: 0.069503, P25Ms: 0.552960, P50Ms: 0.626688, P75Ms: 0.724992, P90Ms: 0.864256, P95Ms: 1.073152,
		P99Ms: 1.843200, P999Ms: 3.457024, MaxMs: 21.489112, MeanMs: 0.69110326645, StdDevMs: 0.477748889833}
	wantTotal := Latency{MinMs: 0.042303, P25Ms: 0.518144, P50Ms: 0.593920, P75Ms: 0.675840, P90Ms: 0.790528, P95Ms: 0.921600,
		P99Ms: 1.581056, P999Ms: 3.063808, MaxMs: 21.489112, MeanMs: 0.62834146602, StdDevMs: 0.366938694907}
	for _, c := range []struct {
		name      string
		got, want Latency
	}{{"read", r.Read.Latency, wantRead}, {"write", r.Write.Latency, wantWrite}, {"total", r.Total.Latency, wantTotal}} {
		g, w := c.got.points(), c.want.points()
		for i := range g {
			near(t, c.name+" latency point", g[i], w[i])
		}
		near(t, c.name+" mean", c.got.MeanMs, c.want.MeanMs)
		near(t, c.name+" stddev", c.got.StdDevMs, c.want.StdDevMs)
	}
	if r.Sync.IOs != 0 {
		t.Errorf("sync %d", r.Sync.IOs)
	}
	// fio's latency_us and latency_ms maps, keyed by each range's upper edge.
	want := map[float64]float64{0.010: 0.01, 0.020: 0.011809, 0.050: 0.037789, 0.100: 0.166507, 0.250: 1.015576, 0.500: 20.460316,
		0.750: 65.345237, 1: 9.260637, 2: 3.214416, 4: 0.452286, 10: 0.01, 20: 0.021256, 50: 0.01}
	// want is keyed by upper edge; Buckets by lower edge.
	for i, b := range r.Buckets {
		upper := math.Inf(1)
		if i+1 < len(LatencyEdgesMs) {
			upper = LatencyEdgesMs[i+1]
		}
		if b.FromMs != LatencyEdgesMs[i] || math.Abs(b.Pct-want[upper]) > 1e-9 {
			t.Errorf("bucket %d from %v ms: %v %%, want %v", i, b.FromMs, b.Pct, want[upper])
		}
	}
	slow, ok := r.Buckets.PctAtLeast(1)
	near(t, "share at or over 1 ms", slow, 3.214416+0.452286+0.01+0.021256+0.01)
	if _, ok2 := r.Buckets.PctAtLeast(0.3); !ok || ok2 {
		t.Errorf("PctAtLeast ok for 1 ms %v, for 0.3 ms (not an edge) %v", ok, ok2)
	}
}

func TestParseFioFsyncFixture(t *testing.T) {
	r := readFixture(t, "fio-3.33-log-fsync.json")
	if r.Read.IOs != 0 || r.Read.Latency != (Latency{}) {
		t.Errorf("read side of a write-only job: %+v", r.Read)
	}
	if r.Write.IOs != 6210 || r.Write.Bytes != 50872320 || r.Total.IOs != 6210 {
		t.Errorf("write %d/%d total %d", r.Write.IOs, r.Write.Bytes, r.Total.IOs)
	}
	near(t, "write IOPS", r.Write.IOPS, 6203.796204)
	near(t, "write p99", r.Write.Latency.P99Ms, 0.242688)
	if r.Sync.IOs != 6209 {
		t.Errorf("fsyncs %d, want 6209", r.Sync.IOs)
	}
	near(t, "fsync IOPS", r.Sync.IOPS, 6209/1.001)
	near(t, "fsync mean", r.Sync.Latency.MeanMs, 0.139519454824)
	near(t, "fsync p50", r.Sync.Latency.P50Ms, 0.104960)
	near(t, "fsync p99.9", r.Sync.Latency.P999Ms, 3.325952)
	near(t, "fsync max", r.Sync.Latency.MaxMs, 7.836907)
}

func TestParseFioWithoutMixed(t *testing.T) {
	r := readFixture(t, "fio-3.33-randrw-nomixed.json")
	if !strings.Contains(strings.Join(r.Notes, ";"), "approximated") {
		t.Errorf("notes %v: want the approximation noted", r.Notes)
	}
	if r.Total.IOs != 23135+9992 || r.Total.Bytes != 189521920+81854464 {
		t.Errorf("total %d/%d", r.Total.IOs, r.Total.Bytes)
	}
	near(t, "total IOPS", r.Total.IOPS, 23111.888112+9982.017982)
	n := 23135.0 + 9992
	mean := (23135*0.228840019494 + 9992*0.268768086369) / n
	near(t, "total mean", r.Total.Latency.MeanMs, mean)
	sq := 23135*(0.23018978295*0.23018978295+0.228840019494*0.228840019494) + 9992*(0.233484393823*0.233484393823+0.268768086369*0.268768086369)
	near(t, "total stddev", r.Total.Latency.StdDevMs, math.Sqrt(sq/n-mean*mean))
	near(t, "total min", r.Total.Latency.MinMs, 0.027491)
	near(t, "total max", r.Total.Latency.MaxMs, 12.20026)
	l := r.Total.Latency
	// Each approximate percentile lies between the read and write ones.
	for i, p := range []float64{l.P25Ms, l.P50Ms, l.P75Ms, l.P90Ms, l.P95Ms, l.P99Ms} {
		lo := math.Min(r.Read.Latency.points()[i+1], r.Write.Latency.points()[i+1])
		hi := math.Max(r.Read.Latency.points()[i+1], r.Write.Latency.points()[i+1])
		if p < lo-1e-12 || p > hi+1e-12 {
			t.Errorf("approximate percentile %d = %v outside [%v, %v]", i, p, lo, hi)
		}
	}
	if !slices.IsSorted(l.points()) {
		t.Errorf("approximate percentiles not ordered: %v", l.points())
	}
}

func TestParseFioErrors(t *testing.T) {
	for _, in := range []string{"", "fio: no such file", `{"jobs": []}`, `{"jobs": [`} {
		if _, err := ParseFioJSON([]byte(in)); err == nil {
			t.Errorf("ParseFioJSON(%q): no error", in)
		}
	}
	// Text before the JSON document is skipped; fio's job error is reported.
	r, err := ParseFioJSON([]byte("note: something\n{\"jobs\":[{\"jobname\":\"x\",\"error\":5,\"read\":{\"total_ios\":3,\"iops\":1.5,\"runtime\":2000}}]}"))
	if err == nil || !strings.Contains(err.Error(), "error 5") {
		t.Errorf("error %v, want fio's job error", err)
	}
	if r.Read.IOs != 3 || r.Elapsed != 2*time.Second {
		t.Errorf("partial parse %+v", r)
	}
}

func TestFioArgs(t *testing.T) {
	// Eight jobs of 4 x 128 KiB buffers take a 2 MiB page each.
	s := &fioSetup{major: 3, minor: 33, ioengine: "libaio", huge: hugetlbPool{free: 8, pageSize: 2 << 20}}
	jobs, _ := Preset("hci", time.Second)
	args, notes := fioArgs(s, "/data/x:y/"+TestFileName, 1<<30, jobs[7], true)
	if len(notes) != 0 {
		t.Errorf("notes %v", notes)
	}
	for _, want := range []string{"--rw=read", "--bs=131072", "--numjobs=8", "--iodepth=4", "--direct=1", "--runtime=1000ms",
		"--size=134217728", "--offset_increment=134217728", "--unified_rw_reporting=both", "--lat_percentiles=1",
		"--percentile_list=25:50:75:90:95:99:99.9", `--filename=/data/x\:y/` + TestFileName, "--ioengine=libaio",
		"--iomem=mmaphuge", "--hugepage-size=2097152"} {
		if !slices.Contains(args, want) {
			t.Errorf("args %v lack %s", args, want)
		}
	}
	sql, _ := Preset("sqlserver", time.Second)
	old := &fioSetup{major: 3, minor: 16, ioengine: "psync"}
	args, notes = fioArgs(old, "/f", 1<<30, sql[0], false)
	for _, want := range []string{"--rw=randrw", "--rwmixread=75", "--numjobs=32", "--iodepth=1", "--direct=0", "--size=1073741824", "--ioengine=psync"} {
		if !slices.Contains(args, want) {
			t.Errorf("args %v lack %s", args, want)
		}
	}
	if slices.Contains(args, "--unified_rw_reporting=both") || slices.Contains(args, "--iomem=mmaphuge") || len(notes) != 2 {
		t.Errorf("old fio args %v notes %v", args, notes)
	}
	s.huge.free = 7 // one page short
	if args, notes = fioArgs(s, "/f", 1<<30, jobs[7], true); slices.Contains(args, "--iomem=mmaphuge") || len(notes) != 1 {
		t.Errorf("7 free huge pages for 8 jobs: args %v notes %v", args, notes)
	}
	lg, _ := Preset("log", time.Second)
	args, _ = fioArgs(s, "/f", 1<<30, lg[0], true)
	if !slices.Contains(args, "--fsync=1") || !slices.Contains(args, "--rw=write") {
		t.Errorf("log args %v", args)
	}
}

func TestNewHugetlbPool(t *testing.T) {
	for _, c := range []struct {
		free, rsvd, pageSize uint64
		want                 hugetlbPool
	}{
		{12, 2, 2 << 20, hugetlbPool{free: 10, pageSize: 2 << 20}},
		{0, 0, 2 << 20, hugetlbPool{}},
		{4, 4, 2 << 20, hugetlbPool{}},
		{0, 0, 0, hugetlbPool{}},
	} {
		if got := newHugetlbPool(c.free, c.rsvd, c.pageSize); got != c.want {
			t.Errorf("newHugetlbPool(%d, %d, %d) = %+v, want %+v", c.free, c.rsvd, c.pageSize, got, c.want)
		}
	}
	if p := (hugetlbPool{free: 100, pageSize: 2 << 20}); p.pagesFor(8, 4, 1<<20) != 24 || p.pagesFor(32, 1, 8192) != 32 {
		t.Errorf("pagesFor: 8 jobs of 4 x 1 MiB take %d pages (want 24), 32 of 8 KiB %d (want 32)", p.pagesFor(8, 4, 1<<20), p.pagesFor(32, 1, 8192))
	}
}
