package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rightsize/rightsize/probe/cpu"
	"github.com/rightsize/rightsize/probe/storage"
	"github.com/rightsize/rightsize/store"
)

// probeReportStore is a store with one run on host db1 and probes:
// storage of db1 (an old and a new one) and of db2, CPU of db1.
func probeReportStore(t *testing.T) (path string, ids map[string]string) {
	t.Helper()
	ctx := context.Background()
	path = tempStore(t)
	st, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	at := time.Date(2025, 3, 4, 10, 0, 0, 0, time.UTC)
	r := &store.Run{Label: "baseline", Source: store.SourceRightsize, Target: "embedded", Engine: "postgres", Users: []int{1},
		Repeats: 1, Env: map[string]string{"host.name": "db1.example.com"}, StartedAt: at}
	if err := st.CreateRun(ctx, r); err != nil {
		t.Fatal(err)
	}
	s := store.Step{RunID: r.ID, Repeat: 1, Users: 1, Start: at, MeasureStart: at, MeasureEnd: at.Add(time.Minute), TPM: 6000, NOPM: 2700, TPMPerUser: 6000}
	if err := st.AddStep(ctx, &s); err != nil {
		t.Fatal(err)
	}
	if err := st.FinishRun(ctx, r.ID, store.StatusComplete, at.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	ids = map[string]string{"run": r.ID}
	jobs, err := storage.Preset("sqlserver", time.Second)
	if err != nil {
		t.Fatal(err)
	}
	add := func(key, kind, label, host string, at time.Time, result any) {
		raw, err := json.Marshal(result)
		if err != nil {
			t.Fatal(err)
		}
		p := &store.Probe{Kind: kind, Label: label, Host: host, CreatedAt: at, Result: raw}
		if err := st.AddProbe(ctx, p); err != nil {
			t.Fatal(err)
		}
		ids[key] = p.ID
	}
	stor := func(iops float64) storageProbeResult {
		side := storage.Side{IOs: int64(iops), IOPS: iops, Latency: storage.Latency{MeanMs: 1, P99Ms: 4}}
		return storageProbeResult{Path: "/data", Preset: "sqlserver", Engine: "builtin", Size: 1 << 30,
			Jobs: []storage.JobResult{{Job: jobs[0], Engine: "builtin", Read: side, Total: side, DirectIO: true, Elapsed: time.Second}}}
	}
	add("old", store.ProbeStorage, "db1 old", "db1", at.Add(-48*time.Hour), stor(1111))
	add("new", store.ProbeStorage, "db1 new", "db1", at.Add(-24*time.Hour), stor(2222))
	add("db2", store.ProbeStorage, "db2 ssd", "db2", at.Add(-12*time.Hour), stor(3333))
	add("cpu", store.ProbeCPU, "db1 cpu", "db1", at.Add(-6*time.Hour), cpu.Result{Engine: "postgres", Version: "PostgreSQL 16.4",
		Iterations: 1000, Runs: 1, ServerMs: []float64{777.7}, BestMs: 777.7, MedianMs: 777.7, Host: "db1"})
	return path, ids
}

// TestReportProbes checks which probes rightsize report includes: by
// default the latest of each kind on the run's host; --probe instead of
// them, or besides them with --probes-latest; probes alone without RUN.
func TestReportProbes(t *testing.T) {
	ctx := context.Background()
	path, ids := probeReportStore(t)
	dir := t.TempDir()
	for _, c := range []struct {
		name     string
		args     []string
		want     []string
		dontWant []string
	}{
		{"default", []string{"baseline"}, []string{"db1 new", "2,222", "db1 cpu", "777.7", "1 run · 2 probes"}, []string{"db1 old", "db2 ssd"}},
		{"no RUN: the latest run", nil, []string{"<b>baseline</b>", "db1 new", "db1 cpu"}, []string{"db2 ssd"}},
		{"--probe replaces", []string{"baseline", "--probe", "db2 ssd"}, []string{"db2 ssd", "3,333", "1 run · 1 probe<"}, []string{"db1 new", "db1 cpu"}},
		{"--probe and --probes-latest", []string{"baseline", "--probe", ids["db2"], "--probes-latest"},
			[]string{"db2 ssd", "db1 new", "db1 cpu", "1 run · 3 probes"}, []string{"db1 old"}},
		{"--probes-latest=false", []string{"baseline", "--probes-latest=false"}, []string{"No storage probe in this report"}, []string{"db1 new", "db1 cpu"}},
		{"probes alone", []string{"--probe", "db1 old", "--probe", ids["db2"]}, []string{"no run · 2 probes", "db1 old", "db2 ssd", "1,111", "3,333"},
			[]string{`id="summary"`, "<b>baseline</b>"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "_")+".html")
			args := append([]string{"report", "--store", path, "-o", out}, c.args...)
			stdout, stderr, code := cli(t, ctx, args...)
			if code != 0 {
				t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
			}
			b, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			page := string(b)
			for _, w := range c.want {
				if !strings.Contains(page, w) {
					t.Errorf("report lacks %q", w)
				}
			}
			for _, w := range c.dontWant {
				if strings.Contains(page, w) {
					t.Errorf("report has %q", w)
				}
			}
		})
	}
	_, stderr, code := cli(t, ctx, "report", "--store", path, "-o", filepath.Join(dir, "x.html"), "--probe", "nope")
	if code != 2 || !strings.Contains(stderr, `"nope"`) || !strings.Contains(stderr, ids["db2"]) {
		t.Errorf("unknown probe: exit %d, want 2 and a list of the probes:\n%s", code, stderr)
	}
}
