package cost

import (
	"github.com/rightsize/rightsize/analysis"
	"github.com/rightsize/rightsize/steady"
	"github.com/rightsize/rightsize/store"
)

// singleRun reports whether some step of the run was measured once: its
// interval is from inside that one run and misses the drift between runs.
func singleRun(steps []store.Step) bool {
	for _, a := range analysis.Aggregate(steps) {
		if a.Repeats < 2 {
			return true
		}
	}
	return false
}

// widenAverages widens a run's average intervals by the drift between runs
// (the stated default: the cost file names runs, not how they drift) when
// a step was measured once, once over the average since drift moves all
// of a run's steps together; d is nil when nothing was widened.
func widenAverages(steps []store.Step, tpm, nopm steady.Interval) (steady.Interval, steady.Interval, *steady.Drift) {
	if !singleRun(steps) || tpm.Mean <= 0 {
		return tpm, nopm, nil
	}
	d := steady.DefaultDrift()
	return d.Widen(tpm), d.Widen(nopm), &d
}

// driftSaid is the headline's note of the drift that widened the
// intervals, "" when none did.
func driftSaid(runs ...*Perf) string {
	for _, p := range runs {
		if p != nil && p.Drift != nil {
			s := " (a single run's interval widened by the drift between runs: " + p.Drift.String()
			if !p.Drift.Measured() {
				s += "; rightsize calibrate, --repeat or rightsize ab measure it"
			}
			return s + ")"
		}
	}
	return ""
}
