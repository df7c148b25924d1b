package scenario

import "time"

// The defaults run's flags (cmd/rightsize) and a plan's autopilot
// (package plan) share, each written once: the fixed ramp-up and the
// time-to-answer rules' floors, caps, precision, level and agreement.
const (
	DefaultRampup      = 10 * time.Second // a step's ramp-up when fixed
	DefaultRampupMin   = 10 * time.Second // auto ramp-up's floor
	DefaultRampupMax   = 2 * time.Minute  // auto ramp-up's cap
	DefaultDurationMin = 30 * time.Second // auto duration's floor
	DefaultDurationMax = 5 * time.Minute  // auto duration's cap
	DefaultRepeatMax   = 3                // auto repeats' cap
	DefaultPrecision   = 0.02             // the intervals' half-width, of the mean
	DefaultConfidence  = 0.95             // the intervals' level
	DefaultMaxCV       = 0.05             // the repeats' largest coefficient of variation
)

// AnswerRules are the time-to-answer choices as run's flags and a plan's
// autopilot say them: which lengths the rules decide, their floors and
// caps, the precision and level asked and the repeats' agreement.
type AnswerRules struct {
	RampupAuto, DurationAuto, RepeatsAuto bool
	RampupMin, DurationMin                time.Duration
	RampupMax, DurationMax                time.Duration
	RepeatsMax                            int
	Precision                             float64 // 0.02 for ±2 %
	Confidence                            float64 // 0.95 for 95 %
	MaxCV                                 float64 // 0.05 for 5 %
}

// Apply sets o's time-to-answer options; each length the rules decide
// gets its cap as o's Rampup, Duration or Repeats. Values are checked by
// o.Validate.
func (w AnswerRules) Apply(o *RunOptions) {
	a := &o.Answer
	a.Confidence, a.Precision = w.Confidence, w.Precision
	if w.RampupAuto {
		a.RampupAuto, a.RampupMin, a.RampupMax, o.Rampup = true, w.RampupMin, w.RampupMax, w.RampupMax
	}
	if w.DurationAuto {
		a.DurationAuto, a.DurationMin, a.DurationMax, o.Duration = true, w.DurationMin, w.DurationMax, w.DurationMax
	}
	if w.RepeatsAuto {
		o.RepeatAuto, o.MaxCV, o.Repeats = true, w.MaxCV, w.RepeatsMax
	}
}
