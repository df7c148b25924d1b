package main

import (
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/spf13/cobra"

	"github.com/rightsize/rightsize/internal/units"
	"github.com/rightsize/rightsize/scenario"
	"github.com/rightsize/rightsize/store"
)

// autoFlag is a flag value that also takes "auto".
type autoFlag[T any] struct {
	v     T
	auto  bool
	parse func(string) (T, error)
	typ   string // the flag's type in the help
	want  string // what a wrong value should have been
}

func (a *autoFlag[T]) String() string {
	if a.auto {
		return "auto"
	}
	return fmt.Sprint(a.v)
}

func (a *autoFlag[T]) Set(s string) error {
	if s == "auto" {
		a.auto = true
		return nil
	}
	v, err := a.parse(s)
	if err != nil {
		return fmt.Errorf("want %s, or auto", a.want)
	}
	a.v, a.auto = v, false
	return nil
}

func (a *autoFlag[T]) Type() string { return a.typ + "|auto" }

// percent is a flag in percent ("2%" or "2"), held as a fraction.
type percent float64

func (p *percent) String() string {
	return strconv.FormatFloat(float64(*p)*100, 'g', -1, 64) + "%"
}

func (p *percent) Set(s string) error {
	v, err := units.ParsePercent(s)
	if err != nil {
		return fmt.Errorf("want a percentage such as 2%%")
	}
	*p = percent(v / 100)
	return nil
}

func (p *percent) Type() string { return "percent" }

// answerFlags are run's time-to-answer flags (see scenario.RunOptions.Answer).
type answerFlags struct {
	rampup, duration         autoFlag[time.Duration]
	repeat                   autoFlag[int]
	rampupMin, rampupMax     time.Duration
	durationMin, durationMax time.Duration
	precision, confidence    percent
	maxCV                    percent
	repeatMax                int
}

func (f *answerFlags) register(cmd *cobra.Command) {
	const d = "a duration such as 30s or 2m"
	f.rampup = autoFlag[time.Duration]{v: scenario.DefaultRampup, parse: time.ParseDuration, typ: "duration", want: d}
	f.duration = autoFlag[time.Duration]{v: time.Minute, parse: time.ParseDuration, typ: "duration", want: d}
	f.repeat = autoFlag[int]{v: 1, parse: strconv.Atoi, typ: "int", want: "a whole number"}
	f.precision, f.confidence, f.maxCV = scenario.DefaultPrecision, scenario.DefaultConfidence, scenario.DefaultMaxCV
	fl := cmd.Flags()
	fl.Var(&f.rampup, "rampup", "ramp-up of each step (not measured), or auto: until the throughput is steady (MSER-5 and a drift check)")
	fl.Var(&f.duration, "duration", "measured duration of each step, or auto: until the mean TPM and NOPM are known within --precision")
	fl.Var(&f.repeat, "repeat", "repeat the whole users sequence this many times, or auto: until the repeats agree within --max-cv")
	fl.DurationVar(&f.rampupMin, "rampup-min", scenario.DefaultRampupMin, "with --rampup auto: the shortest ramp-up")
	fl.DurationVar(&f.rampupMax, "rampup-max", scenario.DefaultRampupMax, "with --rampup auto: the longest ramp-up")
	fl.DurationVar(&f.durationMin, "duration-min", scenario.DefaultDurationMin, "with --duration auto: the shortest measurement")
	fl.DurationVar(&f.durationMax, "duration-max", scenario.DefaultDurationMax, "with --duration auto: the longest measurement")
	fl.Var(&f.precision, "precision", "with --duration auto: the confidence interval's half-width, % of the mean (given alone it implies --duration auto)")
	if fl.Lookup("confidence") == nil { // fit's --confidence judges the repeats (range|mean)
		fl.Var(&f.confidence, "confidence", "the confidence level of the intervals")
	}
	fl.Var(&f.maxCV, "max-cv", "with --repeat auto: the largest coefficient of variation of a step's TPM and NOPM across repeats")
	fl.IntVar(&f.repeatMax, "repeat-max", scenario.DefaultRepeatMax, "with --repeat auto: the most repeats")
}

// autoByDefault makes --rampup, --duration and --repeat auto unless given
// (fit measures with the time-to-answer rules by default; their caps and
// --precision keep their defaults or the values given).
func (f *answerFlags) autoByDefault(cmd *cobra.Command) {
	for name, auto := range map[string]*bool{"rampup": &f.rampup.auto, "duration": &f.duration.auto, "repeat": &f.repeat.auto} {
		if !cmd.Flags().Changed(name) {
			*auto = true
		}
	}
}

// apply sets the time-to-answer options of o; the caps become o's Rampup,
// Duration and Repeats. Values are checked by o.Validate.
func (f *answerFlags) apply(cmd *cobra.Command, o *scenario.RunOptions) {
	if cmd.Flags().Changed("precision") && !cmd.Flags().Changed("duration") {
		f.duration.auto = true
	}
	o.Rampup, o.Duration, o.Repeats = f.rampup.v, f.duration.v, f.repeat.v
	scenario.AnswerRules{RampupAuto: f.rampup.auto, DurationAuto: f.duration.auto, RepeatsAuto: f.repeat.auto,
		RampupMin: f.rampupMin, RampupMax: f.rampupMax, DurationMin: f.durationMin, DurationMax: f.durationMax, RepeatsMax: f.repeatMax,
		Precision: float64(f.precision), Confidence: float64(f.confidence), MaxCV: float64(f.maxCV)}.Apply(o)
}

// writeTimeToAnswer prints the run's wall time against the fixed plan's.
func writeTimeToAnswer(w io.Writer, o scenario.RunOptions, run *store.Run) {
	if !o.Auto() || run.EndedAt.IsZero() {
		return
	}
	wall := run.EndedAt.Sub(run.StartedAt)
	fixed := o.FixedPlanTime()
	fmt.Fprintf(w, "\ntime to answer: %s, against %s for the fixed plan (the same steps at ramp-up %s, measured %s, %d repeats): %.0f %%\n",
		wall.Round(time.Second), fixed, o.Rampup, o.Duration, o.Repeats, float64(wall)/float64(fixed)*100)
}

// phaseText is a phase's length as the step line prints it: "30s", or
// "auto ≤ 2m0s" when a rule ends it.
func phaseText(auto bool, d time.Duration) string {
	if auto {
		return "auto ≤ " + d.String()
	}
	return d.String()
}
