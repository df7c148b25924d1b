package analysis

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/rightsize/rightsize/diagnosis"
	"github.com/rightsize/rightsize/figures"
	"github.com/rightsize/rightsize/internal/pgtest"
	"github.com/rightsize/rightsize/internal/storetest"
	"github.com/rightsize/rightsize/store"
	"github.com/rightsize/rightsize/waits"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// eachBackend runs f on a fresh results store of every backend.
func eachBackend(t *testing.T, f func(t *testing.T, s *store.Store)) {
	backends := []struct {
		name     string
		location func(t *testing.T) string
	}{
		{"sqlite", func(t *testing.T) string { return filepath.Join(t.TempDir(), "rightsize.db") }},
		{"postgres", func(t *testing.T) string { return pgtest.NewDatabase(t) }},
	}
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			s, err := store.Open(context.Background(), b.location(t))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { s.Close() })
			f(t, s)
		})
	}
}

// storedRun stores a run of label with 2 repeats of users 1 and 2 (the
// second repeat's second step partial) and returns it with its steps.
func storedRun(t *testing.T, s *store.Store, label string, started time.Time) (*store.Run, []store.Step) {
	t.Helper()
	ctx := context.Background()
	r := &store.Run{Label: label, Engine: "postgres", Users: []int{1, 2}, Repeats: 2, StartedAt: started}
	if err := s.CreateRun(ctx, r); err != nil {
		t.Fatal(err)
	}
	var steps []store.Step
	for rep := 1; rep <= 2; rep++ {
		for idx, users := range r.Users {
			k := float64(rep*10 + idx)
			start := started.Add(time.Duration(rep*1000+idx*100) * time.Second)
			st := store.Step{RunID: r.ID, Repeat: rep, Index: idx, Users: users, Start: start,
				MeasureStart: start.Add(10 * time.Second), MeasureEnd: start.Add(70 * time.Second), Partial: rep == 2 && idx == 1,
				TPM: 1000 + k, NOPM: 450 + k, TPMPerUser: (1000 + k) / float64(users), Procs: figures.Procs{DriverCPUPct: 12 + k}, DriverCPUUsPerTxn: 12.5 + k,
				Txn:     []store.TxnSummary{{Type: "new_order", Txn: figures.Txn{Count: 1000, P90Ms: 2.2}, Hist: hist(t, 200, 1000+int64(k))}},
				Seconds: []store.Second{{Offset: 0, Txn: 100, NewOrders: 45}}}
			if err := s.AddStep(ctx, &st); err != nil {
				t.Fatal(err)
			}
			steps = append(steps, st)
		}
	}
	return r, steps
}

// hist returns an encoded histogram of n latencies (µs) around base.
func hist(tb testing.TB, n int, base int64) store.HdrHist {
	us := make([]int64, n)
	for i := range n {
		us[i] = base + int64(i*37%1000)
	}
	return histOf(tb, us...)
}

// A step's stored wait profile, saturation and verdict read back equal
// (WhyOf), are averaged across repeats by Aggregate, diagnosed, and
// exported in JSON and in waits.csv.
func TestStoredWaits(t *testing.T) {
	eachBackend(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		r := &store.Run{Label: "waits", StartedAt: time.Now()}
		if err := s.CreateRun(ctx, r); err != nil {
			t.Fatal(err)
		}
		prof := func(lock float64) *waits.Profile {
			return &waits.Profile{Source: "pg_stat_activity", Sampled: true, IntervalMs: 100, Ticks: 50, Seconds: 5,
				Events:   []waits.Event{{Class: waits.Lock, Name: "Lock:tuple", Seconds: lock, Count: lock * 10}},
				Locks:    []waits.LockWait{{Type: "tuple", Relation: "district", Mode: "ExclusiveLock", Samples: 3}},
				Counters: map[string]float64{"wal.wal_sync": 7}, Missing: []string{"pg_read_all_stats"}}
		}
		// TPM as store's testStep gives them (1000 + 10×repeat + index): flat, so the
		// run's verdict is the first step's
		a := store.Step{RunID: r.ID, Repeat: 1, Index: 0, Users: 4, TPM: 1010, NOPM: 460}
		Why{Waits: prof(2), Saturation: &waits.Saturation{Disk: "vda", DiskP99Ms: 3, Cores: 2},
			Verdict: &diagnosis.Verdict{Kind: "lock-bound", Text: "lock-bound: …"}}.Put(&a)
		b := store.Step{RunID: r.ID, Repeat: 2, Index: 0, Users: 4, TPM: 1020, NOPM: 470}
		Why{Waits: prof(4), Saturation: &waits.Saturation{Disk: "vda", DiskP99Ms: 5, Cores: 2}}.Put(&b)
		none := store.Step{RunID: r.ID, Repeat: 1, Index: 1, Users: 8, TPM: 1011, NOPM: 461}
		for _, st := range []*store.Step{&a, &b, &none} {
			if err := s.AddStep(ctx, st); err != nil {
				t.Fatal(err)
			}
		}
		rr, steps, err := s.LoadRun(ctx, r.ID)
		if err != nil {
			t.Fatal(err)
		}
		agg := Aggregate(steps)
		if w := agg[0].Waits; w == nil || w.Events[0].Seconds != 3 || agg[0].Saturation.DiskP99Ms != 4 || agg[0].Verdict == nil {
			t.Errorf("aggregate %+v %+v", agg[0].Waits, agg[0].Saturation)
		}
		if v, ok := RunVerdict(agg); !ok || !strings.Contains(v.Text, "lock-bound") {
			t.Errorf("RunVerdict = %+v, %v", v, ok)
		}
		var buf bytes.Buffer
		if err := WriteJSON(&buf, rr, steps); err != nil || !strings.Contains(buf.String(), `"source": "pg_stat_activity"`) {
			t.Errorf("JSON export lacks the profile (%v)", err)
		}
		if got := WhyOf(&steps[0]); !reflect.DeepEqual(got, Why{Waits: prof(2), Saturation: &waits.Saturation{Disk: "vda", DiskP99Ms: 3, Cores: 2},
			Verdict: &diagnosis.Verdict{Kind: "lock-bound", Text: "lock-bound: …"}}) {
			t.Errorf("read back %+v %+v %+v", got.Waits, got.Saturation, got.Verdict)
		}
		if n := WhyOf(&steps[1]); n.Waits != nil || n.Saturation != nil || n.Verdict != nil {
			t.Errorf("a step without waits read back %+v", n.Waits)
		}
		files, err := Export(ctx, s, r.ID, FormatCSV, t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		if recs := readCSV(t, files[len(files)-1]); len(recs) != 3 || recs[1][7] != "Lock" || recs[1][8] != "Lock:tuple" {
			t.Errorf("waits.csv %v", recs)
		}
	})
}

// The listing's figures are RunFigures of Aggregate, as the summary's.
func TestListRunSummaries(t *testing.T) {
	eachBackend(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		t0 := time.Date(2025, 3, 14, 9, 26, 53, 0, time.UTC)
		_, steps := storedRun(t, s, "baseline", t0)
		if err := s.CreateRun(ctx, &store.Run{Label: "other", StartedAt: t0.Add(-time.Hour)}); err != nil {
			t.Fatal(err)
		}
		sums, err := ListRunSummaries(ctx, s)
		if err != nil {
			t.Fatal(err)
		}
		if fig := RunFigures(Aggregate(steps)); len(sums) != 2 || sums[0].Steps != 4 || sums[0].Figures != fig || sums[1].Steps != 0 {
			t.Errorf("summaries: %+v, want figures %+v", sums, fig)
		}
	})
}

func TestExportJSON(t *testing.T) {
	s := storetest.Open(t)
	ctx := context.Background()
	r, steps := storedRun(t, s, "json", time.Date(2025, 3, 14, 9, 26, 53, 0, time.UTC))
	dir := t.TempDir()
	files, err := Export(ctx, s, r.ID, FormatJSON, dir)
	if err != nil || len(files) != 1 || filepath.Base(files[0]) != r.ID+".json" {
		t.Fatalf("Export json: %v, %v", files, err)
	}
	b, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	var doc Document
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Format != DocumentFormat || doc.SchemaVersion != store.SchemaVersion || doc.Run.ID != r.ID || len(doc.Aggregates) != 2 {
		t.Errorf("document header %+v", doc)
	}
	if len(doc.Steps) != len(steps) || doc.Figures != RunFigures(Aggregate(steps)) {
		t.Errorf("document steps %d (want %d), figures %+v", len(doc.Steps), len(steps), doc.Figures)
	}
	// Histograms are the standard base64 text, not base64 of it.
	if !strings.Contains(string(b), `"hist": "HISTF`) {
		t.Error("histograms not written as HdrHistogram base64 text")
	}
	if _, err := Export(ctx, s, r.ID, "xlsx", t.TempDir()); err == nil || !strings.Contains(err.Error(), "xlsx") {
		t.Errorf("unknown format: %v", err)
	}
	if files, err := Export(ctx, s, r.ID, FormatCSV, t.TempDir()); err != nil || len(files) != 5 {
		t.Errorf("Export csv: %v, %v", files, err)
	}
}

func readCSV(t *testing.T, path string) [][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return recs
}
