package fit

import (
	"context"
	"strings"
	"testing"

	"github.com/rightsize/rightsize/capacity"
	"github.com/rightsize/rightsize/steady"
)

// quiet is a drift between runs measured nil: the tests that use it check
// the search and the verdicts on the runs' own intervals.
var quiet = steady.Drift{CV: 0, Runs: 100, DF: 99}

// quietSaid is what a judged reason says of quiet.
const quietSaid = ", widened by the drift between runs: 0.0 % CV measured over 100 runs"

// With the drift between runs not measured, a single run's NOPM 1,000 ±
// 20 is widened by the default 10 % CV to ± √(20² + (1.959964 × 100)²) =
// ± 197: a candidate 25 % above the target meets it, one 10 % above is
// not distinguishable from it; a prediction of 1,600 whose band reaches
// 1,700 against a target of 1,800 is ruled out with the drift measured
// nil, and not with the default: a run could land 1,600 + √(100² +
// 313.6²) = 1,929 high.
func TestVerdictWithDrift(t *testing.T) {
	for _, c := range []struct {
		target      float64
		wantVerdict string
		wantReason  string
	}{
		{800, Meets, "NOPM 1,000 ± 197 at 4 users (one repeat, 95 % interval, batch means, widened by the drift between runs: 10 % CV assumed (not measured)) ≥ target 800"},
		{910, Misses, "holds the target 910: not distinguishable at this precision from it"},
	} {
		res, _ := Search(context.Background(), Price(base(t), 1, Enumerate([]float64{1}, nil, nil, nil)),
			&fake{nopm: func(Candidate) []float64 { return []float64{1000} }, half: func(Candidate) []float64 { return []float64{20} }},
			Criteria{TargetNOPM: c.target})
		if tr := res.Trials[0]; tr.Verdict != c.wantVerdict || !strings.Contains(tr.Reason, c.wantReason) {
			t.Errorf("target %.0f: %s (%s); want %s (%s)", c.target, tr.Verdict, tr.Reason, c.wantVerdict, c.wantReason)
		}
	}
}

// driftOf is a Measurer whose runs carry a drift measured for their
// configuration (Measured.Drift), as the store's history gives it.
type driftOf struct {
	fake
	d steady.Drift
}

func (f *driftOf) Measure(ctx context.Context, c Candidate) (Measured, error) {
	ms, err := f.fake.Measure(ctx, c)
	ms.Drift = f.d
	return ms, err
}

// A candidate's measured drift replaces the criteria's: NOPM 1,000 ± 20
// against a target of 910 holds it under the default 10 % CV (± 197), and
// meets it with 2 % CV measured over 8 runs (± √(20² + (2.364624 ×
// 20)²) = ± 51, Student's t at 7 degrees of freedom).
func TestVerdictWithMeasuredDrift(t *testing.T) {
	m := &driftOf{fake: fake{nopm: func(Candidate) []float64 { return []float64{1000} }, half: func(Candidate) []float64 { return []float64{20} }},
		d: steady.Drift{CV: 0.02, Runs: 8, DF: 7}}
	res, _ := Search(context.Background(), Price(base(t), 1, Enumerate([]float64{1}, nil, nil, nil)), m, Criteria{TargetNOPM: 910})
	want := "NOPM 1,000 ± 51 at 4 users (one repeat, 95 % interval, batch means, widened by the drift between runs: 2.0 % CV measured over 8 runs) ≥ target 910"
	if tr := res.Trials[0]; tr.Verdict != Meets || !strings.Contains(tr.Reason, want) {
		t.Errorf("%s (%s); want meets (%s)", tr.Verdict, tr.Reason, want)
	}
}

func TestOutlookWithDrift(t *testing.T) {
	p := &capacity.Prediction{NOPM: 1600, NOPMLow: 1500, NOPMHigh: 1700}
	if got := outlookOf(p, 1800, quiet); got != willMiss {
		t.Errorf("drift measured nil: outlook %v, want willMiss", got)
	}
	if got := outlookOf(p, 1800, steady.Drift{}); got != withinReach {
		t.Errorf("default drift: outlook %v, want withinReach", got)
	}
	if got := outlookOf(p, 2000, steady.Drift{}); got != willMiss {
		t.Errorf("default drift, target 2,000 above 1,929: outlook %v, want willMiss", got)
	}
	// a band that holds the drift between runs already is not widened again
	p.Band.Drift = 0.10
	if got := outlookOf(p, 1800, steady.Drift{}); got != willMiss {
		t.Errorf("band with its drift: outlook %v, want willMiss (drift counted once)", got)
	}
}
