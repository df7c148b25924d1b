package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rightsize/rightsize/history"
	"github.com/rightsize/rightsize/store"
)

// nightlyTPM is a 6 % step inside 4 % noise (changepoint's "small step in
// noise" series ×700): run 25 starts the lower segment. No single pair of
// neighbouring runs shows it beyond their noise.
var nightlyTPM = []float64{102.2, 97.0, 101.2, 93.3, 101.7, 93.4, 95.3, 95.5, 100.5, 101.2, 104.2, 107.4, 104.0, 103.4, 101.1, 104.8, 94.3,
	100.2, 106.2, 96.6, 95.8, 105.9, 105.2, 101.7, 99.0, 87.9, 95.9, 97.1, 92.6, 92.8, 94.1, 94.5, 96.2, 91.1, 91.8, 95.4, 93.4, 96.9, 91.8,
	99.4, 93.6, 100.6, 100.2, 97.9, 89.0, 96.4, 101.5, 91.3, 88.5, 90.6}

// historyStore writes runs through the store API, where the figure values
// are the point: one run a night labelled nightly-N with two steps (the
// peak is tpm[i]×700 at 4 users), runs of another label, and a nightly run
// still running.
func historyStore(t *testing.T, path string, tpm []float64) []string {
	t.Helper()
	ctx := context.Background()
	st, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	t0 := time.Date(2026, 10, 1, 2, 0, 0, 0, time.UTC)
	addRun := func(label string, at time.Time, peak float64, status string) string {
		r := &store.Run{Label: label, Engine: "postgres", Target: "embedded", Warehouses: 2, Users: []int{2, 4}, Duration: time.Minute, StartedAt: at}
		if err := st.CreateRun(ctx, r); err != nil {
			t.Fatal(err)
		}
		for idx, u := range r.Users {
			start := at.Add(time.Duration(idx) * time.Minute)
			s := store.Step{RunID: r.ID, Repeat: 1, Index: idx, Users: u, Start: start, MeasureStart: start, MeasureEnd: start.Add(time.Minute),
				TPM: peak * float64(u) / 4, NOPM: peak * 0.45 * float64(u) / 4}
			if err := st.AddStep(ctx, &s); err != nil {
				t.Fatal(err)
			}
		}
		if status != store.StatusRunning {
			if err := st.FinishRun(ctx, r.ID, status, at.Add(time.Hour)); err != nil {
				t.Fatal(err)
			}
		}
		return r.ID
	}
	var ids []string
	for i, v := range tpm {
		ids = append(ids, addRun(fmt.Sprintf("nightly-%02d", i+1), t0.AddDate(0, 0, i), 700*v, store.StatusComplete))
	}
	addRun("manual", t0.AddDate(0, 0, 3), 200000, store.StatusComplete)
	addRun("nightly-now", t0.AddDate(0, 0, len(tpm)), 10, store.StatusRunning)
	return ids
}

func TestHistoryCommand(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "h.db")
	ids := historyStore(t, path, nightlyTPM)

	out, errOut, code := cli(t, ctx, "history", "--label", "nightly", "--store", path)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"peak TPM of 50 runs labelled \"nightly\"*, oldest first", "change point at run " + ids[25],
		"peak TPM 70,311 before, 66,094 after (-6.0 %), p < 0.010"} {
		if !strings.Contains(out, want) {
			t.Errorf("history output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "manual") || strings.Contains(out, "200,000") {
		t.Errorf("a run of another label is shown:\n%s", out)
	}

	out, errOut, code = cli(t, ctx, "history", "--label", "nightly", "--figure", "nopm", "--json", "--store", path)
	if code != 0 {
		t.Fatalf("--json: exit %d: %s", code, errOut)
	}
	var h history.History
	if err := json.Unmarshal([]byte(out), &h); err != nil {
		t.Fatalf("--json: %v\n%s", err, out)
	}
	if len(h.Points) != 50 || h.Skipped != 1 || h.Points[0].RunID != ids[0] || h.Points[7].Value != 700*0.45*nightlyTPM[7] ||
		len(h.Changes) != 1 || h.Changes[0].Index != 25 || h.Changes[0].PValue > 0.05 {
		t.Errorf("--json: %d runs (first %s), %d skipped, run 7 NOPM %v, changes %+v", len(h.Points), h.Points[0].RunID, h.Skipped,
			h.Points[7].Value, h.Changes)
	}

	out, _, code = cli(t, ctx, "history", "--label", "weekly", "--store", path)
	if code != 0 || !strings.Contains(out, `no run labelled "weekly"* has a peak TPM`) {
		t.Errorf("a prefix no run has: exit %d, %q", code, out)
	}

	page := filepath.Join(dir, "history.html")
	if _, errOut, code = cli(t, ctx, "history", "--label", "nightly", "--html", page, "--store", path); code != 0 {
		t.Fatalf("--html: exit %d: %s", code, errOut)
	}
	b, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`<section id="history">`, "chart_history_1", "markLine", "-6.0 %", ids[25], "E-divisive"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("the history page lacks %q", want)
		}
	}
}

// TestHistoryFlat: the same runs with the step taken out (the later runs
// lifted by the step's 6 %) have no change point.
func TestHistoryFlat(t *testing.T) {
	flat := append([]float64{}, nightlyTPM...)
	for i := 25; i < len(flat); i++ {
		flat[i] += 6
	}
	path := filepath.Join(t.TempDir(), "h.db")
	historyStore(t, path, flat)
	out, errOut, code := cli(t, context.Background(), "history", "--label", "nightly", "--store", path)
	if code != 0 || !strings.Contains(out, "no change point at p ≤ 0.05: no shift in the 50 runs' peak TPM is significant") {
		t.Fatalf("exit %d: %s\n%s", code, errOut, out)
	}
}

func TestHistoryBadInput(t *testing.T) {
	path := filepath.Join(t.TempDir(), "h.db")
	historyStore(t, path, nightlyTPM[:3])
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"history", "--store", path}, "history needs --label PREFIX"},
		{[]string{"history", "--label", "nightly", "--figure", "latency", "--store", path}, `unknown figure "latency": use one of tpm, nopm`},
		{[]string{"history", "--label", "nightly", "--p-value", "2", "--store", path}, "--p-value must lie between 0 and 1"},
	} {
		_, errOut, code := cli(t, context.Background(), c.args...)
		if code != 2 || !strings.Contains(errOut, c.want) || strings.Count(strings.TrimSpace(errOut), "\n") != 0 {
			t.Errorf("%v: exit %d, %q; want 2 and one line with %q", c.args, code, errOut, c.want)
		}
	}
}
