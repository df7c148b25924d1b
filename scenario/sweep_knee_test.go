package scenario

import (
	"strings"
	"testing"

	"github.com/rightsize/rightsize/store"
)

// A single run's NOPM widened by the default 10 % CV: 1,000 ± 196 best,
// 850 ± 167 is 15 % below it but 850 + 167 = 1,017 reaches above
// (1,000 − 196) × 0.9 = 724: not distinguishable, no knee called; 400 ±
// 78 (478 < 724) is clearly beyond: the knee is the value before it.
func TestKneeWithinPrecision(t *testing.T) {
	pt := func(v string, nopm, half float64) SweepPoint {
		return SweepPoint{Value: v, RunID: "r" + v, Status: store.StatusComplete, NOPM: nopm, NOPMHalf: half}
	}
	for _, c := range []struct {
		name      string
		points    []SweepPoint
		wantKnee  int
		wantFound bool
		wantNote  string
	}{
		{"15 % below, within the precision", []SweepPoint{pt("4", 1000, 196), pt("2", 850, 167)}, 0, false,
			"no knee called: 2, NOPM 850 ± 167, is more than 10 % below the best, 4 (1000 ± 196), but not distinguishable from it at this precision (a single run's interval widened by the drift between runs, 10 % CV assumed (not measured))"},
		{"60 % below: the knee", []SweepPoint{pt("4", 1000, 196), pt("2", 950, 186), pt("1", 400, 78)}, 1, true, ""},
		{"no intervals: the threshold alone", []SweepPoint{pt("4", 1000, 0), pt("2", 850, 0)}, 0, true, ""},
	} {
		knee, found, note := kneeJudged(c.points, 0.10, "NOPM")
		if knee != c.wantKnee || found != c.wantFound || !strings.HasPrefix(note, c.wantNote) || (c.wantNote == "") != (note == "") {
			t.Errorf("%s: knee %d found %v note %q; want %d %v %q", c.name, knee, found, note, c.wantKnee, c.wantFound, c.wantNote)
		}
	}
}

// TestKneeNamesWorkloadFigure: a workload sweep's rule and knee note name
// its figure and p90 as every view does, not TPC-C's NOPM and New-Order
// p90; TPC-C's are unchanged.
func TestKneeNamesWorkloadFigure(t *testing.T) {
	if KneeRuleOf("") != KneeRule {
		t.Errorf("TPC-C's rule changed: %q", KneeRuleOf(""))
	}
	rule := KneeRuleOf("every script")
	if strings.Contains(rule, "NOPM") || strings.Contains(rule, "New-Order") ||
		!strings.Contains(rule, "the best value has the highest TPM of every script") || !strings.Contains(rule, "its p90 at most") {
		t.Errorf("workload rule %q", rule)
	}
	pts := []SweepPoint{{Value: "4", RunID: "a", Status: store.StatusComplete, NOPM: 1000, NOPMHalf: 196},
		{Value: "2", RunID: "b", Status: store.StatusComplete, NOPM: 850, NOPMHalf: 167}}
	if _, _, note := kneeJudged(pts, 0.10, meritName("upd")); !strings.HasPrefix(note, "no knee called: 2, TPM of upd 850 ± 167") {
		t.Errorf("knee note %q", note)
	}
}
