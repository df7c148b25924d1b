package history

import (
	"math"
	"testing"
	"time"

	"github.com/rightsize/rightsize/analysis"
	"github.com/rightsize/rightsize/changepoint"
	"github.com/rightsize/rightsize/store"
)

// summaries are runs newest first (as analysis.ListRunSummaries lists
// them): ten nightly runs at 70,000 TPM then ten at 56,000 (each ±500),
// a nightly run still running, one without steps, and a run of another
// label.
func summaries() []analysis.RunSummary {
	t0 := time.Date(2026, 11, 1, 2, 0, 0, 0, time.UTC)
	var out []analysis.RunSummary
	add := func(label, status string, day int, tpm float64) {
		steps := 1
		if tpm == 0 {
			steps = 0
		}
		r := analysis.RunSummary{Run: store.Run{ID: label + time.Duration(day).String(), Label: label, Status: status,
			StartedAt: t0.AddDate(0, 0, day)}, Steps: steps, Figures: analysis.Headline{PeakTPM: tpm, PeakNOPM: tpm * 0.45, Steps: steps}}
		out = append([]analysis.RunSummary{r}, out...)
	}
	for day := range 20 {
		tpm := 70000.0
		if day >= 10 {
			tpm = 56000
		}
		add("nightly", store.StatusComplete, day, tpm+500*float64(day%3-1))
		if day == 4 {
			add("manual", store.StatusComplete, day, 99000)
		}
	}
	add("nightly", store.StatusRunning, 20, 1000)
	add("nightly-broken", store.StatusFailed, 21, 0)
	return out
}

func TestBuild(t *testing.T) {
	f, err := FigureNamed("tpm")
	if err != nil {
		t.Fatal(err)
	}
	h := Build(summaries(), "nightly", f, changepoint.Options{})
	if len(h.Points) != 20 || h.Skipped != 2 {
		t.Fatalf("%d runs, %d skipped: want 20 and 2 (the running and the empty one)", len(h.Points), h.Skipped)
	}
	for i := 1; i < len(h.Points); i++ {
		if !h.Points[i-1].Started.Before(h.Points[i].Started) {
			t.Fatalf("runs not oldest first: %v then %v", h.Points[i-1].Started, h.Points[i].Started)
		}
	}
	if len(h.Changes) != 1 || h.Changes[0].Index != 10 || h.Changes[0].RunID != h.Points[10].RunID {
		t.Fatalf("change points %+v, want one at run 10", h.Changes)
	}
	c := h.Changes[0]
	// the means of days 0-9 and 10-19 with offsets -500, 0, +500 by day%3
	before, after := 70000+500*(3-4)/10.0, 56000+500*(3-3)/10.0
	if math.Abs(c.Before-before) > 1e-9 || math.Abs(c.After-after) > 1e-9 || math.Abs(c.ChangePct-100*(after-before)/before) > 1e-9 {
		t.Errorf("change %+v: want %v → %v", c, before, after)
	}
	if seg, m := h.Segment(15); seg != 1 || m != after {
		t.Errorf("segment of run 15: %d, mean %v", seg, m)
	}
	if _, err := FigureNamed("latency"); err == nil {
		t.Error("an unknown figure is accepted")
	}
}
