package scenario

import (
	"math"
	"testing"

	"github.com/rightsize/rightsize/store"
)

// TestBuildReportEfficiency: a keyed run's steps carry efficiency_pct
// (tpcc.KeyedEfficiency), a run without keying's do not.
func TestBuildReportEfficiency(t *testing.T) {
	for _, keyed := range []bool{true, false} {
		run := &store.Run{ID: "r", Status: store.StatusComplete, Warehouses: 10, KeyingThinking: keyed, Users: []int{100}, Repeats: 1}
		rep := BuildReport(run, []store.Step{{Repeat: 1, Index: 0, Users: 100, TPM: 260, NOPM: 113.4, TPMPerUser: 2.6}})
		e := rep.Steps[0].EfficiencyPct
		switch {
		case keyed && (e == nil || math.Abs(*e-90) > 0.05):
			t.Errorf("keyed: efficiency_pct %v, want 90 (113.4 NOPM of 100 users × 600/476)", e)
		case !keyed && e != nil:
			t.Errorf("not keyed: efficiency_pct %v, want none", *e)
		}
	}
}

// run --json says which caps the server ran without, as every view does.
func TestBuildReportCapsNotApplied(t *testing.T) {
	run := &store.Run{ID: "r", Status: store.StatusComplete, Env: map[string]string{store.EnvCapsNotApplied: "memory, I/O"}}
	if got := BuildReport(run, nil).CapsNotApplied; got != "memory, I/O" {
		t.Errorf("caps_not_applied %q", got)
	}
	run.Env = nil
	if got := BuildReport(run, nil).CapsNotApplied; got != "" {
		t.Errorf("caps_not_applied %q with every cap applied", got)
	}
}
