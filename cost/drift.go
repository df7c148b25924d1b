package cost

import (
	"context"

	"github.com/rightsize/rightsize/analysis"
	"github.com/rightsize/rightsize/drift"
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
// of its configuration (d: measured, or zero for the stated default) when
// a step was measured once, once over the average since drift moves all
// of a run's steps together; the Drift returned is nil when nothing was
// widened.
func widenAverages(steps []store.Step, tpm, nopm steady.Interval, d drift.Figures) (steady.Interval, steady.Interval, *steady.Drift) {
	if !singleRun(steps) || tpm.Mean <= 0 {
		return tpm, nopm, nil
	}
	dt, dn := d.TPM, d.NOPM
	if !dt.Measured() || !dn.Measured() {
		dt, dn = steady.DefaultDrift(), steady.DefaultDrift()
	}
	return dt.Widen(tpm), dn.Widen(nopm), &dt
}

// measuredDrift is the drift between runs of run's configuration from the
// runs' A/A history when runs can list it (the results store), else zero:
// the default.
func measuredDrift(ctx context.Context, runs Runs, run store.Run) (drift.Figures, error) {
	h, ok := runs.(drift.History)
	if !ok {
		return drift.Figures{}, nil
	}
	return drift.Measure(ctx, h, run)
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
