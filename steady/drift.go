package steady

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// DefaultBetweenCV is the coefficient of variation between runs of one
// configuration on one host assumed when none was measured: 10 %, a
// conservative figure (HammerDB's users report 3-4 % between identical runs
// on quiet hardware; a loaded VM or a CI runner drifts more).
const DefaultBetweenCV = 0.10

// MinDriftRuns is the fewest values (runs, or repeats) of one
// configuration a group needs to count in a measured drift: the standard
// deviation of two values is too uncertain to replace the default.
const MinDriftRuns = 3

// Drift is the spread between runs of one figure for one configuration on
// one host: what an interval from inside one run (batch means) does not
// see (the machine's speed changing, checkpoints, a neighbour).
type Drift struct {
	// CV is the coefficient of variation between runs (0.1 for 10 %).
	CV float64 `json:"cv"`
	// Runs is how many runs (or repeats) it was measured from, the most of
	// any group (one users count); 0 for the default.
	Runs int `json:"runs"`
	// DF is the estimate's degrees of freedom; 0 for the default.
	DF int `json:"df"`
}

// DefaultDrift is the stated default: DefaultBetweenCV, not measured.
func DefaultDrift() Drift { return Drift{CV: DefaultBetweenCV} }

// Measured tells the drift was estimated from runs, not assumed.
func (d Drift) Measured() bool { return d.DF > 0 }

// orDefault is d, or the default when d is the zero value.
func (d Drift) orDefault() Drift {
	if d.CV <= 0 && !d.Measured() {
		return DefaultDrift()
	}
	return d
}

// Quantile is the multiplier of the between-run standard deviation in a
// two-sided interval at conf: Student's t with the estimate's degrees of
// freedom when measured (a CV from 3 runs is itself uncertain, and t
// widens for it), the normal z for the stated default (a value assumed,
// not estimated).
func (d Drift) Quantile(conf float64) float64 {
	if d = d.orDefault(); d.Measured() {
		return tQuantile(conf, d.DF)
	}
	return distuv.UnitNormal.Quantile(1 - (1-conf)/2)
}

// Between is the between-run half-width of a single run's value at conf:
// Quantile(conf) × CV × |value|.
func (d Drift) Between(value, conf float64) float64 {
	return d.Quantile(conf) * d.orDefault().CV * math.Abs(value)
}

// Widen is a single run's interval widened by the drift between runs:
// half-width² = within² + between², the two independent. conf is the
// interval's own level, or 0.95 when it has none.
func (d Drift) Widen(iv Interval) Interval {
	conf := iv.Confidence
	if conf <= 0 || conf >= 1 {
		conf = 0.95
	}
	iv.Half = math.Hypot(iv.Half, d.Between(iv.Mean, conf))
	iv.Confidence = conf
	return iv
}

// String says where the figure came from: "4.2 % CV measured over 6 runs"
// or "10 % CV assumed (not measured)".
func (d Drift) String() string {
	if d = d.orDefault(); d.Measured() {
		return fmt.Sprintf("%.1f %% CV measured over %d runs", d.CV*100, d.Runs)
	}
	return fmt.Sprintf("%g %% CV assumed (not measured)", d.CV*100)
}

// PooledDrift estimates the drift from groups of values, each group one
// configuration's runs (or one run's repeats) of the same figure: the
// pooled relative variance Σ(nᵢ−1)·CVᵢ² / Σ(nᵢ−1), with Σ(nᵢ−1) degrees of
// freedom. Groups of fewer than MinDriftRuns values, or of mean 0, add
// nothing. ok is false when no group counts: the caller then keeps the
// default.
func PooledDrift(groups [][]float64) (d Drift, ok bool) {
	var ss float64
	for _, g := range groups {
		if len(g) < MinDriftRuns {
			continue
		}
		m, s := stat.MeanStdDev(g, nil)
		if m == 0 {
			continue
		}
		df := len(g) - 1
		ss += float64(df) * (s / m) * (s / m)
		d.DF += df
		d.Runs = max(d.Runs, len(g))
	}
	if d.DF == 0 {
		return DefaultDrift(), false
	}
	d.CV = math.Sqrt(ss / float64(d.DF))
	return d, true
}
