package storage

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

const testSize = 64 << 20

func TestPresets(t *testing.T) {
	d := 7 * time.Second
	sql, err := Preset("sqlserver", d)
	if err != nil {
		t.Fatal(err)
	}
	want := Job{Name: "sqlserver-8k-rand-r75", BlockSize: 8192, ReadPct: 75, Random: true, Threads: 8, QueueDepth: 4, Direct: true, Duration: d}
	if len(sql) != 1 || sql[0] != want {
		t.Fatalf("sqlserver preset = %+v, want [%+v]", sql, want)
	}

	hci, err := Preset("hci", d)
	if err != nil {
		t.Fatal(err)
	}
	if len(hci) != 9 {
		t.Fatalf("hci preset has %d jobs, want 9", len(hci))
	}
	for i, kib := range []int{4, 8, 16, 32, 64, 128, 256} {
		j := hci[i]
		if j.BlockSize != kib<<10 || j.ReadPct != 70 || !j.Random || !j.Direct || j.Duration != d || j.FsyncEvery != 0 {
			t.Errorf("hci job %d = %+v, want %d KiB random 70%% read", i, j, kib)
		}
	}
	if j := hci[7]; j.BlockSize != 128<<10 || j.ReadPct != 100 || j.Random {
		t.Errorf("hci job 7 = %+v, want sequential 128 KiB read", j)
	}
	if j := hci[8]; j.BlockSize != 128<<10 || j.ReadPct != 0 || j.Random {
		t.Errorf("hci job 8 = %+v, want sequential 128 KiB write", j)
	}

	logJobs, err := Preset("log", d)
	if err != nil {
		t.Fatal(err)
	}
	if len(logJobs) != 4 {
		t.Fatalf("log preset has %d jobs, want 4", len(logJobs))
	}
	for i, kib := range []int{8, 16, 32, 64} {
		j := logJobs[i]
		if j.BlockSize != kib<<10 || j.ReadPct != 0 || j.Random || j.FsyncEvery != 1 || j.QueueDepth != 1 || j.Threads != 1 || j.Duration != d {
			t.Errorf("log job %d = %+v, want sequential %d KiB write, fsync each, 1x1", i, j, kib)
		}
	}

	for _, name := range PresetNames() {
		jobs, err := Preset(name, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, j := range jobs {
			if err := j.validate(); err != nil {
				t.Errorf("preset %s: %v", name, err)
			}
			if j.Duration != DefaultDuration {
				t.Errorf("preset %s: duration %v, want default %v", name, j.Duration, DefaultDuration)
			}
		}
	}

	_, err = Preset("oracle", d)
	if err == nil {
		t.Fatal("unknown preset: no error")
	}
	for _, n := range []string{"sqlserver", "hci", "log"} {
		if !strings.Contains(err.Error(), n) {
			t.Errorf("error %q does not list %s", err, n)
		}
	}
}

// checkLatency verifies a side's latency table is populated and ordered.
func checkLatency(t *testing.T, what string, s Side) {
	t.Helper()
	if s.IOs == 0 {
		t.Errorf("%s: no I/O", what)
		return
	}
	l := s.Latency
	v := []float64{l.MinMs, l.P25Ms, l.P50Ms, l.P75Ms, l.P90Ms, l.P95Ms, l.P99Ms, l.P999Ms, l.MaxMs}
	for i := 1; i < len(v); i++ {
		if v[i] < v[i-1] {
			t.Errorf("%s: percentiles out of order: %v", what, v)
			break
		}
	}
	if l.MaxMs <= 0 || l.MeanMs < l.MinMs || l.MeanMs > l.MaxMs || l.StdDevMs < 0 || math.IsNaN(l.StdDevMs) {
		t.Errorf("%s: implausible latency %+v", what, l)
	}
}

// assertNoTestFile fails if the probe's test file is left in dir.
func assertNoTestFile(t *testing.T, dir string) {
	t.Helper()
	if _, err := os.Stat(filepath.Join(dir, TestFileName)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("test file %s left behind (stat: %v)", TestFileName, err)
	}
}

func TestBuiltinRandomMix(t *testing.T) {
	dir := t.TempDir()
	jobs := []Job{{Name: "mix", BlockSize: 4096, ReadPct: 70, Random: true, Threads: 2, QueueDepth: 2, Direct: true, Duration: 1500 * time.Millisecond}}
	var seen []string
	res, err := Run(context.Background(), Options{Path: dir, Size: testSize, Engine: "builtin"}, jobs, func(j string) { seen = append(seen, j) })
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(seen, ",") != "layout,mix" {
		t.Errorf("progress calls %v, want layout, mix", seen)
	}
	assertNoTestFile(t, dir)
	if len(res) != 1 {
		t.Fatalf("%d results, want 1", len(res))
	}
	r := res[0]
	if r.Engine != EngineBuiltin || !r.DirectIO || r.Job != jobs[0] {
		t.Errorf("result header %s direct=%v job=%+v", r.Engine, r.DirectIO, r.Job)
	}
	if r.Total.IOPS <= 0 || r.Total.MBps <= 0 {
		t.Fatalf("IOPS %v MB/s %v", r.Total.IOPS, r.Total.MBps)
	}
	if r.Total.IOs != r.Read.IOs+r.Write.IOs || r.Total.Bytes != r.Read.Bytes+r.Write.Bytes || r.Read.Bytes != r.Read.IOs*4096 {
		t.Errorf("totals do not add up: %+v", r)
	}
	if math.Abs(r.Total.IOPS-(r.Read.IOPS+r.Write.IOPS)) > 1e-6*r.Total.IOPS {
		t.Errorf("total IOPS %v != read %v + write %v", r.Total.IOPS, r.Read.IOPS, r.Write.IOPS)
	}
	if r.Elapsed < jobs[0].Duration || r.Elapsed > jobs[0].Duration+time.Second {
		t.Errorf("elapsed %v for a %v job", r.Elapsed, jobs[0].Duration)
	}
	checkLatency(t, "read", r.Read)
	checkLatency(t, "write", r.Write)
	checkLatency(t, "total", r.Total)
	checkBuckets(t, r)
	if r.CPUPerIOMicros <= 0 || r.IOEngine == "" {
		t.Errorf("CPU per I/O %v, I/O interface %q", r.CPUPerIOMicros, r.IOEngine)
	}
	if r.Total.IOs < 500 {
		t.Fatalf("only %d I/Os: too few to check the mix", r.Total.IOs)
	}
	readShare := float64(r.Read.IOs) / float64(r.Total.IOs)
	// Binomial: 5 standard deviations at n >= 500 is under 0.11.
	tol := 5 * math.Sqrt(0.7*0.3/float64(r.Total.IOs))
	if math.Abs(readShare-0.70) > tol {
		t.Errorf("read share %.3f, want 0.70 +- %.3f", readShare, tol)
	}
	if r.Sync.IOs != 0 {
		t.Errorf("%d fsyncs in a job without fsync", r.Sync.IOs)
	}
	var buf bytes.Buffer
	FormatTable(&buf, res)
	t.Logf("\n%s", buf.String())
}

// checkBuckets checks a result's latency distribution against its
// percentiles: it covers every I/O, at least half are at or over any edge
// below the median, at most 1 % at or over any edge above the p99.
func checkBuckets(t *testing.T, r JobResult) {
	t.Helper()
	if len(r.Buckets) != len(LatencyEdgesMs) {
		t.Fatalf("%d latency buckets, want %d", len(r.Buckets), len(LatencyEdgesMs))
	}
	all, _ := r.Buckets.PctAtLeast(0)
	if math.Abs(all-100) > 1e-9 {
		t.Errorf("latency buckets add up to %v %%", all)
	}
	l := r.Total.Latency
	for _, e := range LatencyEdgesMs {
		pct, ok := r.Buckets.PctAtLeast(e)
		switch {
		case !ok:
			t.Errorf("no bucket from %v ms", e)
		case e <= 0.99*l.P50Ms && pct < 50:
			t.Errorf("%.2f %% at or over %v ms, under the median %v ms", pct, e, l.P50Ms)
		case e >= 1.01*l.P99Ms && pct > 1:
			t.Errorf("%.2f %% at or over %v ms, over the p99 %v ms", pct, e, l.P99Ms)
		case e > l.MaxMs && pct != 0:
			t.Errorf("%.2f %% at or over %v ms, over the maximum %v ms", pct, e, l.MaxMs)
		}
	}
}

// TestRecorderBuckets: each latency lands in the range of LatencyEdgesMs
// that holds it (lower edge included), and merging adds the counts.
func TestRecorderBuckets(t *testing.T) {
	for _, c := range []struct {
		ns   int64
		from float64
	}{
		{0, 0}, {1999, 0}, {2000, 0.002}, {749_999, 0.5}, {750_000, 0.75}, {999_999, 0.75},
		{1_000_000, 1}, {1_999_999, 1}, {2_500_000, 2}, {1_999_999_999, 1000}, {5_000_000_000, 2000},
	} {
		r := newRecorder()
		r.record(c.ns, 4096)
		o := newRecorder()
		o.record(c.ns, 4096)
		r.merge(o)
		res := tallyResult([]*tally{{read: r, write: newRecorder(), sync: newRecorder()}}, time.Second)
		for _, b := range res.Buckets {
			want := 0.0
			if b.FromMs == c.from {
				want = 100
			}
			if b.Pct != want {
				t.Errorf("%d ns: %v %% from %v ms, want %v", c.ns, b.Pct, b.FromMs, want)
			}
		}
	}
	if res := tallyResult([]*tally{newTally()}, time.Second); res.Buckets != nil {
		t.Errorf("no I/O, buckets %v", res.Buckets)
	}
}

func TestBuiltinSequentialAndFsync(t *testing.T) {
	dir := t.TempDir()
	d := 700 * time.Millisecond
	jobs := []Job{
		{Name: "seq-read", BlockSize: 128 << 10, ReadPct: 100, Threads: 2, QueueDepth: 2, Direct: true, Duration: d},
		{Name: "seq-write", BlockSize: 64 << 10, ReadPct: 0, Threads: 2, QueueDepth: 1, Direct: true, Duration: d},
		{Name: "log", BlockSize: 8 << 10, ReadPct: 0, Threads: 1, QueueDepth: 1, FsyncEvery: 1, Direct: true, Duration: d},
	}
	res, err := Run(context.Background(), Options{Path: dir, Size: testSize, Engine: "builtin"}, jobs, nil)
	if err != nil {
		t.Fatal(err)
	}
	assertNoTestFile(t, dir)
	if len(res) != 3 {
		t.Fatalf("%d results, want 3", len(res))
	}
	if r := res[0]; r.Write.IOs != 0 || r.Read.IOs == 0 {
		t.Errorf("seq-read: %d reads, %d writes", r.Read.IOs, r.Write.IOs)
	} else {
		checkLatency(t, "seq-read", r.Read)
	}
	if r := res[1]; r.Read.IOs != 0 || r.Write.IOs == 0 {
		t.Errorf("seq-write: %d reads, %d writes", r.Read.IOs, r.Write.IOs)
	}
	r := res[2]
	checkLatency(t, "log write", r.Write)
	checkLatency(t, "log fsync", r.Sync)
	if r.Sync.IOs != r.Write.IOs {
		t.Errorf("log: %d writes but %d fsyncs, want one each", r.Write.IOs, r.Sync.IOs)
	}
	var buf bytes.Buffer
	FormatTable(&buf, res[2:])
	if !strings.Contains(buf.String(), "fsync") {
		t.Errorf("table without fsync row:\n%s", buf.String())
	}
}

func TestBadInputs(t *testing.T) {
	job := []Job{{Name: "j", BlockSize: 8192, ReadPct: 50, Random: true, Threads: 1, QueueDepth: 1, Duration: time.Second}}
	dir := t.TempDir()
	notDir := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(notDir, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		opt  Options
		jobs []Job
		want string
	}{
		{"missing dir", Options{Path: filepath.Join(dir, "nope"), Size: testSize, Engine: "builtin"}, job, "does not exist"},
		{"not a dir", Options{Path: notDir, Size: testSize, Engine: "builtin"}, job, "not a directory"},
		{"no path", Options{Size: testSize, Engine: "builtin"}, job, "no directory"},
		{"beyond free space", Options{Path: dir, Size: 1 << 60, Engine: "builtin"}, job, "free space"},
		{"below block size", Options{Path: dir, Size: 4096, Engine: "builtin"}, job, "smaller than"},
		{"negative size", Options{Path: dir, Size: -1, Engine: "builtin"}, job, "negative"},
		{"unknown engine", Options{Path: dir, Size: testSize, Engine: "diskspd"}, job, "unknown storage engine"},
		{"no jobs", Options{Path: dir, Size: testSize, Engine: "builtin"}, nil, "no jobs"},
		{"bad block size", Options{Path: dir, Size: testSize, Engine: "builtin"}, []Job{{Name: "b", BlockSize: 1000, Threads: 1, QueueDepth: 1, Duration: time.Second}}, "multiple of 512"},
		{"bad read pct", Options{Path: dir, Size: testSize, Engine: "builtin"}, []Job{{Name: "b", BlockSize: 4096, ReadPct: 101, Threads: 1, QueueDepth: 1, Duration: time.Second}}, "read percentage"},
		{"no threads", Options{Path: dir, Size: testSize, Engine: "builtin"}, []Job{{Name: "b", BlockSize: 4096, QueueDepth: 1, Duration: time.Second}}, "threads"},
		{"no duration", Options{Path: dir, Size: testSize, Engine: "builtin"}, []Job{{Name: "b", BlockSize: 4096, Threads: 1, QueueDepth: 1}}, "duration"},
		{"regions too small", Options{Path: dir, Size: 16384, Engine: "builtin"}, []Job{{Name: "b", BlockSize: 8192, Threads: 4, QueueDepth: 1, Duration: time.Second}}, "too small"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, err := Run(context.Background(), c.opt, c.jobs, nil)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want one containing %q", err, c.want)
			}
			if len(res) != 0 {
				t.Errorf("results despite the error: %+v", res)
			}
			assertNoTestFile(t, dir)
			if entries, _ := os.ReadDir(dir); len(entries) != 0 {
				t.Errorf("directory not empty: %v", entries)
			}
		})
	}
}

// noWriteEnv names the directory the re-executed test binary (running as an
// unprivileged user) must fail to probe.
const noWriteEnv = "RIGHTSIZE_STORAGE_TEST_NOWRITE_DIR"

func TestNoWritePermission(t *testing.T) {
	if dir := os.Getenv(noWriteEnv); dir != "" {
		// Child: run as an unprivileged user against a directory it cannot
		// write.
		_, err := Run(context.Background(), Options{Path: dir, Size: testSize, Engine: "builtin"},
			[]Job{{Name: "j", BlockSize: 4096, Threads: 1, QueueDepth: 1, Duration: time.Second}}, nil)
		if err == nil || !strings.Contains(err.Error(), "not writable") {
			t.Fatalf("error %v, want 'not writable'", err)
		}
		return
	}
	dir := t.TempDir()
	if os.Geteuid() != 0 {
		if err := os.Chmod(dir, 0o500); err != nil {
			t.Fatal(err)
		}
		defer os.Chmod(dir, 0o700)
		_, err := Run(context.Background(), Options{Path: dir, Size: testSize, Engine: "builtin"},
			[]Job{{Name: "j", BlockSize: 4096, Threads: 1, QueueDepth: 1, Duration: time.Second}}, nil)
		if err == nil || !strings.Contains(err.Error(), "not writable") {
			t.Fatalf("error %v, want 'not writable'", err)
		}
		assertNoTestFile(t, dir)
		return
	}
	// Root may write anywhere: re-run this test as nobody (uid 65534) on a
	// root-owned 0755 directory, from a copy of the test binary it can run.
	share, err := os.MkdirTemp("", "rightsize-storage-nowrite-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(share)
	target := filepath.Join(share, "target")
	if err := os.Mkdir(target, 0o755); err != nil {
		t.Fatal(err)
	}
	self, err := os.ReadFile(os.Args[0])
	if err != nil {
		t.Skipf("cannot copy the test binary: %v", err)
	}
	bin := filepath.Join(share, "storage.test")
	if err := os.WriteFile(bin, self, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(share, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-test.run=^TestNoWritePermission$", "-test.count=1")
	cmd.Env = append(os.Environ(), noWriteEnv+"="+target)
	cmd.Dir = share
	setCredential(cmd, 65534, 65534)
	out, err := cmd.CombinedOutput()
	if err != nil {
		if strings.Contains(string(out), "permission denied") && !strings.Contains(string(out), "not writable") {
			t.Skipf("cannot run the test binary as nobody: %v: %s", err, out)
		}
		t.Fatalf("child as nobody: %v\n%s", err, out)
	}
	t.Logf("child as nobody:\n%s", out)
	if !strings.Contains(string(out), "PASS") {
		t.Fatalf("child as nobody did not pass:\n%s", out)
	}
	assertNoTestFile(t, target)
}

func TestCancelRemovesFile(t *testing.T) {
	cases := []Options{{Engine: EngineFio}, {Engine: EngineBuiltin}}
	for _, io := range BuiltinIONames() {
		cases = append(cases, Options{Engine: EngineBuiltin, BuiltinIO: io})
	}
	for _, opt := range cases {
		engine := opt.Engine
		t.Run(strings.TrimSuffix(engine+"-"+opt.BuiltinIO, "-"), func(t *testing.T) {
			if runtime.GOOS != "linux" && (opt.BuiltinIO == IOURing || opt.BuiltinIO == IOLibaio) {
				t.Skip("no io_uring or Linux AIO outside Linux")
			}
			if engine == EngineFio {
				if _, err := exec.LookPath("fio"); err != nil {
					t.Skip("fio is not installed (apt-get install fio): skipping the fio engine")
				}
			}
			dir := t.TempDir()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var started atomic.Bool
			jobs := []Job{
				{Name: "long", BlockSize: 4096, ReadPct: 50, Random: true, Threads: 2, QueueDepth: 2, Direct: true, Duration: 30 * time.Second},
				{Name: "never", BlockSize: 4096, ReadPct: 50, Random: true, Threads: 1, QueueDepth: 1, Direct: true, Duration: 30 * time.Second},
			}
			go func() {
				for !started.Load() {
					time.Sleep(10 * time.Millisecond)
				}
				time.Sleep(700 * time.Millisecond)
				if _, err := os.Stat(filepath.Join(dir, TestFileName)); err != nil {
					t.Errorf("test file missing during the run: %v", err)
				}
				cancel()
			}()
			t0 := time.Now()
			opt.Path, opt.Size = dir, testSize
			res, err := Run(ctx, opt, jobs, func(j string) {
				if j == "long" {
					started.Store(true)
				}
				if j == "never" {
					t.Error("second job started after cancel")
				}
			})
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("error %v, want context.Canceled", err)
			}
			if el := time.Since(t0); el > 15*time.Second {
				t.Errorf("Run took %v to stop after cancel", el)
			}
			assertNoTestFile(t, dir)
			for _, r := range res {
				t.Logf("partial %s (%s) result: %d I/Os in %v, notes %v", r.Engine, r.IOEngine, r.IOsDone(), r.Elapsed, r.Notes)
				if opt.BuiltinIO != "" && r.IOEngine != opt.BuiltinIO {
					t.Errorf("ran through %s, want %s", r.IOEngine, opt.BuiltinIO)
				}
			}
			if len(res) > 1 {
				t.Errorf("%d results after cancelling the first job", len(res))
			}
			if len(res) == 1 && !strings.Contains(strings.Join(res[0].Notes, ";"), "interrupted") {
				t.Errorf("partial result not marked: %v", res[0].Notes)
			}
		})
	}
}

func TestFioEngine(t *testing.T) {
	if _, err := exec.LookPath("fio"); err != nil {
		t.Skip("fio is not installed (apt-get install fio): skipping the fio engine")
	}
	dir := t.TempDir()
	jobs := []Job{
		{Name: "mix", BlockSize: 8192, ReadPct: 75, Random: true, Threads: 2, QueueDepth: 4, Direct: true, Duration: 1500 * time.Millisecond},
		{Name: "seq-read", BlockSize: 128 << 10, ReadPct: 100, Threads: 2, QueueDepth: 2, Direct: true, Duration: time.Second},
		{Name: "log", BlockSize: 8192, ReadPct: 0, Threads: 1, QueueDepth: 1, FsyncEvery: 1, Direct: true, Duration: time.Second},
	}
	res, err := Run(context.Background(), Options{Path: dir, Size: testSize, Engine: "fio"}, jobs, nil)
	if err != nil {
		t.Fatal(err)
	}
	assertNoTestFile(t, dir)
	if len(res) != 3 {
		t.Fatalf("%d results, want 3", len(res))
	}
	r := res[0]
	if r.Engine != EngineFio || !r.DirectIO || r.Total.IOPS <= 0 {
		t.Fatalf("engine %s direct %v IOPS %v", r.Engine, r.DirectIO, r.Total.IOPS)
	}
	if r.IOEngine == "" || r.CPUPerIOMicros <= 0 {
		t.Errorf("fio ioengine %q, CPU per I/O %v", r.IOEngine, r.CPUPerIOMicros)
	}
	checkLatency(t, "fio read", r.Read)
	checkLatency(t, "fio write", r.Write)
	checkLatency(t, "fio total", r.Total)
	if r.Total.IOs != r.Read.IOs+r.Write.IOs {
		t.Errorf("total %d != %d + %d", r.Total.IOs, r.Read.IOs, r.Write.IOs)
	}
	share := float64(r.Read.IOs) / float64(r.Total.IOs)
	if tol := 5 * math.Sqrt(0.75*0.25/float64(r.Total.IOs)); math.Abs(share-0.75) > tol {
		t.Errorf("fio read share %.3f, want 0.75 +- %.3f", share, tol)
	}
	if r.Elapsed < time.Second || r.Elapsed > 3*time.Second {
		t.Errorf("fio elapsed %v", r.Elapsed)
	}
	if r := res[1]; r.Read.IOs == 0 || r.Write.IOs != 0 {
		t.Errorf("fio seq-read: %d reads, %d writes", r.Read.IOs, r.Write.IOs)
	}
	if r := res[2]; r.Sync.IOs == 0 || r.Write.IOs == 0 {
		t.Errorf("fio log: %d writes, %d fsyncs", r.Write.IOs, r.Sync.IOs)
	} else {
		checkLatency(t, "fio fsync", r.Sync)
	}
	var buf bytes.Buffer
	FormatTable(&buf, res)
	t.Logf("\n%s", buf.String())
}

func TestResolveEngine(t *testing.T) {
	_, fioErr := exec.LookPath("fio")
	auto, err := ResolveEngine("auto")
	if err != nil {
		t.Fatal(err)
	}
	if want := map[bool]string{true: EngineFio, false: EngineBuiltin}[fioErr == nil]; auto != want {
		t.Errorf("auto resolved to %s, want %s", auto, want)
	}
	if e, _ := ResolveEngine("builtin"); e != EngineBuiltin {
		t.Errorf("builtin resolved to %s", e)
	}
	if _, err := ResolveEngine("fio"); (err == nil) != (fioErr == nil) {
		t.Errorf("fio resolve error %v with fio on PATH: %v", err, fioErr == nil)
	}
}

func TestAlignedBuffer(t *testing.T) {
	for _, n := range []int{512, 4096, 8192, 128 << 10} {
		b := alignedBuffer(n)
		if len(b) != n || cap(b) != n || uintptrOf(b)%4096 != 0 {
			t.Errorf("alignedBuffer(%d): len %d cap %d addr %% 4096 = %d", n, len(b), cap(b), uintptrOf(b)%4096)
		}
	}
}

func TestLayoutReusesFile(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, TestFileName)
	if _, _, err := layout(context.Background(), file, 1<<20); err != nil {
		t.Fatal(err)
	}
	first, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if len(first) != 1<<20 || bytes.Equal(first[:4096], first[4096:8192]) || bytes.Count(first, []byte{0}) > len(first)/100 {
		t.Fatalf("layout wrote %d bytes, not random-looking", len(first))
	}
	if _, _, err := layout(context.Background(), file, 1<<20); err != nil {
		t.Fatal(err)
	}
	again, _ := os.ReadFile(file)
	if !bytes.Equal(first, again) {
		t.Error("a test file of the right size was rewritten instead of reused")
	}
	if _, _, err := layout(context.Background(), file, 2<<20); err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(file); st.Size() != 2<<20 {
		t.Errorf("resized layout is %d bytes", st.Size())
	}
}

func TestTestFileNotRegular(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, TestFileName), 0o700); err != nil {
		t.Fatal(err)
	}
	_, err := Run(context.Background(), Options{Path: dir, Size: testSize, Engine: "builtin"},
		[]Job{{Name: "j", BlockSize: 4096, Threads: 1, QueueDepth: 1, Duration: time.Second}}, nil)
	if err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Fatalf("error %v, want 'not a regular file'", err)
	}
	if st, err := os.Stat(filepath.Join(dir, TestFileName)); err != nil || !st.IsDir() {
		t.Errorf("the directory in the way was touched: %v", err)
	}
}

func TestCancelledBeforeStart(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Run(ctx, Options{Path: dir, Size: testSize, Engine: "builtin"},
		[]Job{{Name: "j", BlockSize: 4096, Threads: 1, QueueDepth: 1, Duration: time.Second}}, nil)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want context.Canceled", err)
	}
	assertNoTestFile(t, dir)
}

// TestStampWrite checks that stampWrite gives every 512-byte sector of a
// buffer distinct data, and the same buffer distinct data for another
// offset or another write.
func TestStampWrite(t *testing.T) {
	buf := make([]byte, 8<<10) // all sectors identical before stamping
	stamp := func(off int64, seq uint64) []string {
		stampWrite(buf, off, seq)
		var s []string
		for i := 0; i < len(buf); i += stampSector {
			s = append(s, string(buf[i:i+stampSector]))
		}
		return s
	}
	seen := map[string]string{}
	for _, c := range []struct {
		name string
		off  int64
		seq  uint64
	}{
		{"first write", 0, 1},
		{"same offset, next write", 0, 2},
		{"next block, same write number", 8 << 10, 1},
		{"another writer's first write", 0, 1<<40 | 1},
	} {
		for i, sec := range stamp(c.off, c.seq) {
			if prev, ok := seen[sec]; ok {
				t.Fatalf("%s: sector %d repeats the data of %s", c.name, i, prev)
			}
			seen[sec] = fmt.Sprintf("%s, sector %d", c.name, i)
		}
	}
}
