package analysis

import (
	"testing"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/rightsize/rightsize/store"
)

func statement(t *testing.T, typ string, index int, values ...int64) store.StatementSummary {
	t.Helper()
	h := hdrhistogram.New(1, 60_000_000, 3)
	for _, v := range values {
		_ = h.RecordValue(v)
	}
	return StatementFigures(store.StatementSummary{Type: typ, Index: index, Line: index + 1, Text: typ}, h)
}

// TestMergeStatements: the statements of several steps are merged per
// script and command, in the order they first appear, their figures those
// of the merged histograms; TPC-C's steps (none) merge to nil.
func TestMergeStatements(t *testing.T) {
	a := store.Step{Users: 2, Statements: []store.StatementSummary{statement(t, "a", 0, 100, 200), statement(t, "a", 1, 1000)}}
	b := store.Step{Users: 2, Statements: []store.StatementSummary{statement(t, "b", 0, 50), statement(t, "a", 1, 3000, 5000, 7000)}}
	got := MergeStatements([]*store.Step{&a, &b})
	if len(got) != 3 || got[0].Type != "a" || got[0].Index != 0 || got[1].Index != 1 || got[2].Type != "b" {
		t.Fatalf("merged %+v: want a/0, a/1, b/0", got)
	}
	want := statement(t, "a", 1, 1000, 3000, 5000, 7000) // as recorded by one step
	if x := got[1]; x.Count != 4 || x.P50Ms != want.P50Ms || x.P99Ms != want.P99Ms || x.MaxMs != want.MaxMs || x.MeanMs != want.MeanMs ||
		x.P50Ms < 2.99 || x.P50Ms > 3.01 {
		x.Hist = nil
		t.Errorf("a/1 merged %+v: want 4 times, median 3 ms, the figures of one histogram of the four", x)
	}
	if x := got[0]; x.Count != 2 || x.Line != 1 || x.Text != "a" {
		t.Errorf("a/0 merged %+v", x)
	}
	if m := MergeStatements([]*store.Step{{Users: 1}}); m != nil {
		t.Errorf("steps without statements merged to %+v, want nil", m)
	}
	ws := WorkloadStatements([]store.Step{b, {Users: 1}, a})
	if len(ws) != 1 || ws[0].Users != 2 || len(ws[0].Statements) != 3 {
		t.Errorf("WorkloadStatements %+v: want the 2 users' three statements, repeats merged", ws)
	}
}
