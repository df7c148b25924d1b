package steady

import (
	"fmt"
	"math"
	"time"

	"gonum.org/v1/gonum/stat"
)

// How a phase of a step ended.
const (
	EndFixed       = "fixed"       // the fixed length was used (no auto rule)
	EndSteady      = "steady"      // ramp-up: steady state detected
	EndPrecision   = "precision"   // measurement: the interval reached the precision asked
	EndMax         = "max"         // the cap was reached first
	EndInterrupted = "interrupted" // Ctrl-C, a lost server or a script error
)

// Warm-up rule settings.
const (
	// MinSettledSeconds is how many seconds must remain after the MSER-5
	// truncation before the warm-up can be called over.
	MinSettledSeconds = 20
	// MaxDrift is the largest change of the least-squares line over the
	// kept seconds, relative to their mean, that still counts as steady:
	// any larger rise (the warm-up may not be over: a buffer cache still
	// filling), or a larger fall with a significant slope (|t| > 2).
	MaxDrift = 0.05
)

// Warmup decides whether the warm-up of the per-second series x (from the
// step's start) is over: MSER-5 must truncate in the first half of x,
// leave at least MinSettledSeconds, and the kept part must not drift: its
// least-squares line may rise by at most MaxDrift of its mean (noise that
// looks like a rise only prolongs the warm-up, which never biases the
// mean), and fall by more only when the slope is not significant. why says
// what was found either way.
func Warmup(x []float64) (done bool, trunc int, why string) {
	trunc, settled := MSER5(x)
	if !settled {
		return false, trunc, fmt.Sprintf("not settled: MSER-5 truncates at %d of %d s", trunc, len(x))
	}
	kept := x[trunc:]
	if len(kept) < MinSettledSeconds {
		return false, trunc, fmt.Sprintf("only %d s after the MSER-5 truncation at %d s", len(kept), trunc)
	}
	slope, rel := Trend(kept)
	if rel > MaxDrift || rel < -MaxDrift && -slope > 2*slopeSE(kept, slope) {
		return false, trunc, fmt.Sprintf("drifting %+.1f %% over the last %d s", rel*100, len(kept))
	}
	return true, trunc, fmt.Sprintf("steady: MSER-5 truncation at %d s, drift %+.1f %% over the last %d s", trunc, rel*100, len(kept))
}

// slopeSE is the standard error of the least-squares slope of x against
// 0..n−1 (independent residuals assumed: it errs towards significance, so
// towards a longer warm-up).
func slopeSE(x []float64, slope float64) float64 {
	n := float64(len(x))
	if n < 3 {
		return math.Inf(1)
	}
	mx, my := (n-1)/2, stat.Mean(x, nil)
	var sxx, sse float64
	for i, v := range x {
		d := float64(i) - mx
		sxx += d * d
		r := v - (my + slope*d)
		sse += r * r
	}
	return math.Sqrt(sse / (n - 2) / sxx)
}

// Plan is what a step's controller is asked to do. A zero Precision with
// Duration auto is invalid (Validate).
type Plan struct {
	RampupAuto            bool
	RampupMin, RampupMax  time.Duration
	DurationAuto          bool
	DurationMin           time.Duration
	DurationMax           time.Duration
	Precision, Confidence float64 // 0.02 for ±2 %, 0.95 for 95 %
}

// Validate checks the plan's values; each error is an OptionError naming
// the flag to fix.
func (p Plan) Validate() error {
	if p.RampupAuto {
		if p.RampupMin < 0 || p.RampupMax <= 0 || p.RampupMin > p.RampupMax {
			return OptionError{"rampup-min", fmt.Sprintf("(%s) must be between 0 and --rampup-max (%s), and --rampup-max positive", p.RampupMin, p.RampupMax)}
		}
	}
	if p.DurationAuto {
		if p.Precision <= 0 || p.Precision >= 1 {
			return OptionError{"precision", fmt.Sprintf("must be above 0 %% and below 100 %% (got %g %%)", p.Precision*100)}
		}
		if p.DurationMin < MinBatches*time.Second || p.DurationMin > p.DurationMax {
			return OptionError{"duration-min", fmt.Sprintf("(%s) must be at least %ds and at most --duration-max (%s)", p.DurationMin, MinBatches, p.DurationMax)}
		}
	}
	if p.Confidence <= 0 || p.Confidence >= 1 {
		return OptionError{"confidence", fmt.Sprintf("must be above 0 %% and below 100 %% (got %g %%)", p.Confidence*100)}
	}
	return nil
}

// OptionError is a time-to-answer option with a bad value: Option is its
// flag's name, Problem what is wrong and the fix.
type OptionError struct{ Option, Problem string }

// Error says it as the flag.
func (e OptionError) Error() string { return "--" + e.Option + " " + e.Problem }

// Controller decides, once per whole second of a step, whether its ramp-up
// or its measurement may end before its cap (it implements the driver's
// step control). One Controller serves one step.
type Controller struct {
	plan Plan
	// RampupWhy is the warm-up rule's last finding.
	RampupWhy string
	// RampupDone and MeasureDone tell the rule ended the phase early.
	RampupDone, MeasureDone bool
}

// NewController returns the controller of one step.
func NewController(p Plan) *Controller { return &Controller{plan: p} }

// EndRampup is given the completed transactions of each whole second since
// the step started; true ends the ramp-up now.
func (c *Controller) EndRampup(txn []int64) bool {
	if !c.plan.RampupAuto || time.Duration(len(txn))*time.Second < c.plan.RampupMin {
		return false
	}
	done, _, why := Warmup(floats(txn))
	c.RampupWhy = why
	c.RampupDone = done
	return done
}

// EndMeasure is given the completed transactions and New-Orders of each
// whole second since the measurement started; true ends it now.
func (c *Controller) EndMeasure(txn, newOrders []int64) bool {
	if !c.plan.DurationAuto || time.Duration(len(txn))*time.Second < c.plan.DurationMin {
		return false
	}
	_, _, prec, ok, err := Precision(floats(txn), floats(newOrders), c.plan.Confidence)
	c.MeasureDone = err == nil && ok && prec <= c.plan.Precision
	return c.MeasureDone
}

// Precision returns the batch-means intervals of the per-minute means of
// two per-second series (transactions and New-Orders) and the larger of
// their relative half-widths. ok is false when a series' batch means
// stayed autocorrelated (the intervals are then too narrow to trust).
func Precision(txn, newOrders []float64, conf float64) (tpm, nopm Interval, rel float64, ok bool, err error) {
	tpm, okT, err := BatchMeans(perMinute(txn), conf)
	if err != nil {
		return tpm, nopm, math.Inf(1), false, err
	}
	nopm, okN, err := BatchMeans(perMinute(newOrders), conf)
	if err != nil {
		return tpm, nopm, math.Inf(1), false, err
	}
	return tpm, nopm, max(tpm.Rel(), nopm.Rel()), okT && okN, nil
}

// CV is the coefficient of variation of x: sample standard deviation over
// the mean's magnitude (0 for fewer than two values or a zero mean).
func CV(x []float64) float64 {
	if len(x) < 2 {
		return 0
	}
	m, s := stat.MeanStdDev(x, nil)
	if m == 0 {
		return 0
	}
	return s / math.Abs(m)
}

func perMinute(x []float64) []float64 {
	out := make([]float64, len(x))
	for i, v := range x {
		out[i] = v * 60
	}
	return out
}

func floats(x []int64) []float64 {
	out := make([]float64, len(x))
	for i, v := range x {
		out[i] = float64(v)
	}
	return out
}

// Verdict is the comparison of two configurations' step means.
type Verdict int

// The outcomes of Compare.
const (
	Indistinguishable Verdict = iota // the intervals overlap
	FirstBetter                      // a's interval lies wholly above b's
	SecondBetter                     // b's interval lies wholly above a's
)

// String is the verdict as the reports print it.
func (v Verdict) String() string {
	switch v {
	case FirstBetter:
		return "first is better"
	case SecondBetter:
		return "second is better"
	default:
		return "not distinguishable at this precision"
	}
}

// Compare says which of two intervals of a higher-is-better figure (TPM,
// NOPM) is better: only when the intervals separate; overlapping intervals
// are not distinguishable at this precision.
func Compare(a, b Interval) Verdict {
	switch {
	case a.Low() > b.High():
		return FirstBetter
	case b.Low() > a.High():
		return SecondBetter
	default:
		return Indistinguishable
	}
}
