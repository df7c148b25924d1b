// Package fit searches for the cheapest configuration that meets a
// throughput and latency target: candidates (cpus × memory × I/O limit ×
// version) are priced with a cost model, tried cheapest first, skipped
// when a configuration with at least their resources already missed, and
// the search stops at the first one that meets the target, which is then
// proven the cheapest. Measuring is behind Measurer, which the command
// implements with the run lifecycle on managed servers.
package fit

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/shopspring/decimal"
	"gonum.org/v1/gonum/stat"

	"github.com/rightsize/rightsize/analysis"
	"github.com/rightsize/rightsize/capacity"
	"github.com/rightsize/rightsize/caps"
	"github.com/rightsize/rightsize/cost"
	"github.com/rightsize/rightsize/internal/units"
	"github.com/rightsize/rightsize/steady"
	"github.com/rightsize/rightsize/store"
)

// Candidate is one configuration to try. Zero Memory, empty IO and empty
// Version mean "as the base configuration has it".
type Candidate struct {
	Cpus    float64 `json:"cpus"`
	Memory  int64   `json:"memory_bytes,omitempty"`
	IO      string  `json:"io,omitempty"`
	Version string  `json:"version,omitempty"`
}

// String is "cpus 1.5, memory 512M, io riops=2000, version 17".
func (c Candidate) String() string {
	parts := []string{"cpus " + strconv.FormatFloat(c.Cpus, 'f', -1, 64)}
	if c.Memory > 0 {
		parts = append(parts, "memory "+units.FormatSize(c.Memory))
	}
	if c.IO != "" {
		parts = append(parts, "io "+c.IO)
	}
	if c.Version != "" {
		parts = append(parts, "version "+c.Version)
	}
	return strings.Join(parts, ", ")
}

// Enumerate returns every combination of the lists (an empty list keeps
// the base configuration's value). cpus must not be empty.
func Enumerate(cpus []float64, memory []int64, io, versions []string) []Candidate {
	if len(memory) == 0 {
		memory = []int64{0}
	}
	if len(io) == 0 {
		io = []string{""}
	}
	if len(versions) == 0 {
		versions = []string{""}
	}
	var out []Candidate
	for _, c := range cpus {
		for _, m := range memory {
			for _, i := range io {
				for _, v := range versions {
					out = append(out, Candidate{Cpus: c, Memory: m, IO: i, Version: v})
				}
			}
		}
	}
	return out
}

// Priced is a candidate with its cost.
type Priced struct {
	Candidate
	Cost cost.Breakdown `json:"cost"`
}

// Price prices each candidate with the base cost config scaled to it
// (cost.Config.Scaled: vm_cores = cpus, memory_gb = memory) and sorts them
// cheapest first, ties by fewer cores, then less memory, then I/O limit
// and version as written.
func Price(base cost.Config, years int, cands []Candidate) []Priced {
	out := make([]Priced, len(cands))
	for i, c := range cands {
		var mem *decimal.Decimal
		if c.Memory > 0 {
			gb := decimal.NewFromInt(c.Memory).Div(decimal.NewFromInt(1 << 30))
			mem = &gb
		}
		cf := base.Scaled(decimal.NewFromFloat(c.Cpus), mem)
		out[i] = Priced{Candidate: c, Cost: cf.Price(years)}
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if c := a.Cost.Total.Cmp(b.Cost.Total.Decimal); c != 0 {
			return c < 0
		}
		if a.Cpus != b.Cpus {
			return a.Cpus < b.Cpus
		}
		return a.Memory < b.Memory
	})
	return out
}

// Dominates tells whether a has at least b's resources: as many cpus, as
// much memory, an I/O limit at least as generous, and the same version
// (versions are not comparable). A configuration that a missing one
// dominates cannot meet the target either.
func Dominates(a, b Candidate) bool {
	return a.Version == b.Version && a.Cpus >= b.Cpus && memAtLeast(a.Memory, b.Memory) && ioAtLeast(a.IO, b.IO)
}

func memAtLeast(a, b int64) bool {
	return a == b || (a != 0 && b != 0 && a >= b)
}

// ioAtLeast compares I/O limits: none beats every limit; unset ("as the
// base has it") only itself; a limit beats another when it limits no key
// more tightly (caps.ParseIOLimit reads them; 0 is no limit on a key).
func ioAtLeast(a, b string) bool {
	switch {
	case a == "none":
		return true
	case a == "":
		return b == ""
	case b == "" || b == "none":
		return false
	}
	la, errA := caps.ParseIOLimit(a)
	lb, errB := caps.ParseIOLimit(b)
	if errA != nil || errB != nil {
		return a == b
	}
	return limitAtLeast(la.ReadIOPS, lb.ReadIOPS) && limitAtLeast(la.WriteIOPS, lb.WriteIOPS) &&
		limitAtLeast(la.ReadBPS, lb.ReadBPS) && limitAtLeast(la.WriteBPS, lb.WriteBPS)
}

// limitAtLeast tells whether limit a is at least as generous as b (0: none).
func limitAtLeast(a, b uint64) bool { return a == 0 || (b != 0 && a >= b) }

// Measured is a candidate's measurement: the stored run, its steps
// aggregated across repeats (analysis.Aggregate) and, per step index, each
// repeat's NOPM interval (MeasuredOf; nil: the figures alone are judged).
type Measured struct {
	RunID   string
	Steps   []analysis.StepAggregate
	Repeats map[int][]steady.Interval
	// Raw are the stored steps (the capacity model's demands come from
	// them).
	Raw []store.Step
	// Drift is the drift between runs of the candidate's configuration
	// measured from the store's A/A history (the candidate in earlier
	// fits, runs and rightsize calibrate at its caps); zero when too few
	// runs: Criteria.Drift applies.
	Drift steady.Drift
	// CoreGrowth are the changes of CPU per transaction with whole cores
	// the candidate's host measured before the fit (scenario.GrowthBefore):
	// the capacity model predicts the other candidates' cores with them.
	CoreGrowth []capacity.CoreRatio
}

// Measurer measures a candidate: it runs the autopilot on a managed server
// with the candidate's caps and returns the stored run's aggregates.
type Measurer interface {
	Measure(ctx context.Context, c Candidate) (Measured, error)
}

// Criteria is what "meets the target" means.
type Criteria struct {
	// TargetNOPM is the NOPM to reach (headroom included).
	TargetNOPM float64
	// MaxP90Ms is the p90 limit in ms (0: none): New-Order's, or a
	// workload's figure's (Merit).
	MaxP90Ms float64
	// AtUsers picks the users step judged; 0 judges the peak (the step
	// with the highest mean NOPM).
	AtUsers int
	// Mean judges the mean NOPM over the repeats (its t interval across
	// them); by default every repeat must reach the target: the repeat
	// whose interval reaches lowest is judged. A candidate meets the
	// target only when the judged interval lies wholly above it.
	Mean bool
	// Drift is the drift between runs of one configuration: a single
	// run's judged interval (and a prediction's band) is widened by it
	// (steady.Drift.Widen); the zero value is the stated default, 10 % CV.
	// The t interval across repeats (Mean) holds it already.
	Drift steady.Drift `json:"drift,omitempty"`
	// Runs is how many runs at most the search measures of a candidate
	// whose judged interval holds the target (not distinguishable from
	// it) while it could still be the answer: each further run is judged
	// with the ones before (the mean of the runs' figures, the drift
	// between runs shrinking by √runs; see judgeRuns). 0 or 1: one run
	// (fits stored before re-measuring replay as they were).
	Runs int `json:"runs,omitempty"`
	// Merit, for a pgbench workload, is its figure of merit: TargetNOPM
	// and the steps' NOPM are then that figure per minute (TPS × 60) and
	// MaxP90Ms its p90; nil is TPC-C's (tpcc.Merit).
	Merit *store.Merit `json:"merit,omitempty"`
}

// DefaultRuns is Criteria.Runs for a new fit (rightsize fit, a study's
// fit): a candidate that holds the target is measured up to three times.
// With the default 10 % CV between runs, a candidate whose NOPM is 25 %
// above the target meets on a single run only when that run lands near
// its mean or above (the 95 % interval is ± 19.6 % by drift alone); the
// mean of three runs is ± 11.3 %.
const DefaultRuns = 3

// CheckRuns is the rule on Criteria.Runs as given (fit --runs, a plan's
// runs:): at least 1, one meaning a candidate is never measured again.
func CheckRuns(n int) error {
	if n < 1 {
		return fmt.Errorf("must be at least 1 (1 never measures a candidate again; %d, the default, re-measures one that holds the target)", DefaultRuns)
	}
	return nil
}

// Verdicts of a trial.
const (
	Meets     = "meets"      // measured and meets the target
	Misses    = "misses"     // measured and misses it
	Dominated = "dominated"  // not measured: a configuration with at least its resources missed
	NotNeeded = "not needed" // not measured: a cheaper configuration meets the target
	// PredictedMiss: not measured, its predicted NOPM band lies below the
	// target (see Options.Predictor).
	PredictedMiss = "predicted to miss"
	// NotReached: not measured, the search was interrupted first.
	NotReached = "not reached"
)

// Trial is one candidate's place in the search.
type Trial struct {
	Priced
	Verdict string `json:"verdict"`
	Reason  string `json:"reason"`
	// RunID, NOPM (the judged figure), Users (the step judged) and P90Ms
	// are set for measured candidates.
	RunID string  `json:"run_id,omitempty"`
	NOPM  float64 `json:"nopm,omitempty"`
	Users int     `json:"users,omitempty"`
	P90Ms float64 `json:"p90_ms,omitempty"`
	// Interval is the judged NOPM's confidence interval (half-width 0
	// when the run stored none).
	Interval steady.Interval `json:"nopm_ci"`
	// HoldsTarget tells a measured candidate's interval holds the target:
	// it neither meets nor is shown to miss (verdict Misses), not
	// distinguishable from the target at this precision.
	HoldsTarget bool `json:"holds_target,omitempty"`
	// Runs is how many runs of the candidate were measured (the search
	// re-measures one that holds the target, Criteria.Runs), RunIDs their
	// ids when more than one (RunID is the last).
	Runs   int      `json:"runs,omitempty"`
	RunIDs []string `json:"run_ids,omitempty"`
	// Order is the candidate's place in the order measured (1 first; 0
	// when not measured).
	Order int `json:"order,omitempty"`
	// Prediction is what the model expected of the candidate (before it
	// was measured, for a measured one); nil without a model.
	Prediction *capacity.Prediction `json:"prediction,omitempty"`
	// NotPredicted says why a candidate has no prediction.
	NotPredicted string `json:"not_predicted,omitempty"`
}

// measured reports whether the trial was measured.
func (t Trial) measured() bool { return t.Verdict == Meets || t.Verdict == Misses }

// Result is a search: every candidate in cheapest-first order with its
// verdict, and the answer.
type Result struct {
	Criteria Criteria `json:"criteria"`
	Trials   []Trial  `json:"trials"`
	// Best is the cheapest candidate that meets the target (index into
	// Trials, -1 when none does); Closest the measured candidate with the
	// highest judged NOPM (-1 when nothing was measured).
	Best    int `json:"best"`
	Closest int `json:"closest"`
	// Indistinct are the measured candidates that cannot be told apart
	// from the answer (Best, else Closest) at this precision: their
	// judged intervals overlap.
	Indistinct []Pair `json:"indistinct,omitempty"`
	// Unsettled are the measured candidates cheaper than the answer (all
	// measured ones when none meets) whose interval holds the target after
	// their runs: not distinguishable from it, so the answer says they may
	// meet it too (indexes into Trials, cheapest first).
	Unsettled []int `json:"unsettled,omitempty"`
	// Predicted tells a model predicted the candidates (Options.Predictor)
	// and MeasureAll that predictions decided nothing.
	Predicted  bool `json:"predicted,omitempty"`
	MeasureAll bool `json:"measure_all,omitempty"`
	// Notes are what the model could not learn from a measurement.
	Notes []string `json:"notes,omitempty"`
}

// ErrNoFit is returned (wrapped, with the Result) when no candidate meets
// the target.
var ErrNoFit = errors.New("no configuration meets the target")

// judge sets a measured trial's figures and verdict from one run.
func judge(t *Trial, ms Measured, cr Criteria) { judgeRuns(t, []Measured{ms}, cr) }

// judgeRuns sets a measured trial's figures and verdict from its runs.
// One run is judged on its own interval (judged), widened by the drift
// between runs unless it is the t interval across repeats (Mean): the
// drift measured for the candidate's configuration (the last run's
// Measured.Drift) when there is one, else the criteria's. Several
// runs of one candidate are judged on the mean of their judged figures:
// the runs' own half-widths combined (√Σh² / n), widened by the drift
// between runs over √n, the drift's CV being the larger of the criteria's
// (measured or the default) and the runs' own spread (a candidate whose
// runs scatter more than the drift assumed is judged on its scatter).
func judgeRuns(t *Trial, runs []Measured, cr Criteria) {
	ms := runs[len(runs)-1]
	t.RunID, t.Runs, t.RunIDs = ms.RunID, len(runs), nil
	if len(runs) > 1 {
		for _, r := range runs {
			t.RunIDs = append(t.RunIDs, r.RunID)
		}
	}
	var ivs []steady.Interval
	var p90s []float64
	var how string
	var a *analysis.StepAggregate
	for _, r := range runs { // a run that measured nothing (it failed) adds nothing
		ra := pick(r.Steps, cr.AtUsers)
		if ra == nil {
			continue
		}
		iv, h := judged(r, ra, cr)
		ivs, p90s, how, a = append(ivs, iv), append(p90s, meritP90(ra, cr.merit())), h, ra
	}
	if a == nil {
		t.Verdict, t.Reason, t.HoldsTarget = Misses, "no measured step", false
		if cr.AtUsers > 0 {
			t.Reason = fmt.Sprintf("no step with %d users", cr.AtUsers)
		}
		return
	}
	t.Users = a.Users
	iv := ivs[0]
	widen := !cr.Mean || a.Repeats < 2
	d := cr.Drift
	if ms.Drift.Measured() {
		d = ms.Drift
	}
	if len(ivs) == 1 {
		if widen {
			iv = d.Widen(iv)
			how += ", widened by the drift between runs: " + d.String()
		}
	} else {
		iv, how = meanOfRuns(ivs, d, widen)
	}
	t.Interval, t.NOPM, t.P90Ms = iv, iv.Mean, stat.Mean(p90s, nil)
	nopm := fmt.Sprintf("%s %s at %d users (%s)", cr.figure(), withHalf(iv), a.Users, how)
	p90 := ""
	if cr.MaxP90Ms > 0 {
		p90 = fmt.Sprintf(", %s %.1f ms", cr.P90Name(), t.P90Ms)
		if len(p90s) > 1 {
			p90 = fmt.Sprintf(", %s %.1f ms (mean of %d runs)", cr.P90Name(), t.P90Ms, len(p90s))
		}
	}
	t.HoldsTarget = false
	switch against := againstTarget(iv, cr.TargetNOPM); {
	case against == below:
		t.Verdict = Misses
		t.Reason = fmt.Sprintf("%s < target %s%s", nopm, fmtInt(cr.TargetNOPM), p90)
	case against == straddles:
		t.Verdict, t.HoldsTarget = Misses, true
		t.Reason = fmt.Sprintf("%s holds the target %s: %s from it%s", nopm, fmtInt(cr.TargetNOPM), steady.Indistinguishable, p90)
	case cr.MaxP90Ms > 0 && t.P90Ms > cr.MaxP90Ms:
		t.Verdict = Misses
		t.Reason = fmt.Sprintf("%s; %s %.1f ms > %.1f ms", nopm, cr.P90Name(), t.P90Ms, cr.MaxP90Ms)
	default:
		t.Verdict = Meets
		t.Reason = fmt.Sprintf("%s ≥ target %s%s", nopm, fmtInt(cr.TargetNOPM), p90)
		if cr.MaxP90Ms > 0 {
			t.Reason += fmt.Sprintf(" ≤ %.1f ms", cr.MaxP90Ms)
		}
	}
}

// meanOfRuns is the interval of the mean of n runs' judged figures (see
// judgeRuns) and how it was obtained.
func meanOfRuns(ivs []steady.Interval, d steady.Drift, widen bool) (steady.Interval, string) {
	n := float64(len(ivs))
	vals := make([]float64, len(ivs))
	var ss float64
	conf := 0.0
	for i, iv := range ivs {
		vals[i], ss = iv.Mean, ss+iv.Half*iv.Half
		conf = max(conf, iv.Confidence)
	}
	if conf <= 0 || conf >= 1 {
		conf = 0.95
	}
	m, sd := stat.MeanStdDev(vals, nil)
	out := steady.Interval{Mean: m, Half: math.Sqrt(ss) / n, Confidence: conf, N: len(ivs)}
	figs := make([]string, len(vals))
	for i, v := range vals {
		figs[i] = fmtInt(v)
	}
	how := fmt.Sprintf("mean of %d runs: %s", len(ivs), strings.Join(figs, ", "))
	if !widen {
		return out, how + "; each run's interval across its repeats"
	}
	q := d.Quantile(conf)
	cv := d.Between(1, conf) / q // the criteria's CV (the default when not measured)
	why := d.String()
	if m > 0 && sd/m > cv {
		cv, why = sd/m, fmt.Sprintf("%.1f %% CV, the runs' own spread (more than %s)", sd/m*100, d.String())
	}
	out.Half = math.Hypot(out.Half, q*cv*math.Abs(m)/math.Sqrt(n))
	return out, how + fmt.Sprintf("; widened by the drift between runs over √%d: %s", len(ivs), why)
}

// pick is the step judged: the one with atUsers users, or the peak.
func pick(steps []analysis.StepAggregate, atUsers int) *analysis.StepAggregate {
	var best *analysis.StepAggregate
	for i := range steps {
		a := &steps[i]
		if atUsers > 0 {
			if a.Users == atUsers {
				return a
			}
			continue
		}
		if best == nil || a.NOPM.Mean > best.NOPM.Mean {
			best = a
		}
	}
	return best
}

func meritP90(a *analysis.StepAggregate, m store.Merit) float64 {
	if t := m.Of(a.Txn); t != nil {
		return t.P90Ms
	}
	return math.Inf(1)
}

// Target turns a base NOPM and a headroom percentage into the target.
func Target(base, headroomPct float64) float64 { return base * (1 + headroomPct/100) }

// TargetFrom is the NOPM of a stored run's aggregates as a target base:
// the step with atUsers users, or the peak when atUsers is 0 (its mean
// across repeats).
func TargetFrom(steps []analysis.StepAggregate, atUsers int) (float64, error) {
	a := pick(steps, atUsers)
	if a == nil {
		return 0, fmt.Errorf("the run has no step with %d users", atUsers)
	}
	return a.NOPM.Mean, nil
}

// Shortfall is how far the closest measured candidate falls short of the
// target, in percent (0 when one meets it, none was measured, or the
// closest reached it but missed on its interval or its p90).
func (r *Result) Shortfall() float64 {
	if r.Best >= 0 || r.Closest < 0 || r.Criteria.TargetNOPM <= 0 || r.Trials[r.Closest].NOPM >= r.Criteria.TargetNOPM {
		return 0
	}
	return (1 - r.Trials[r.Closest].NOPM/r.Criteria.TargetNOPM) * 100
}

// Measured counts the candidates measured.
func (r *Result) Measured() int {
	n := 0
	for _, t := range r.Trials {
		if t.measured() {
			n++
		}
	}
	return n
}

func fmtInt(x float64) string {
	s := strconv.FormatFloat(math.Round(x), 'f', 0, 64)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i := range len(s) {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteByte(s[i])
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}
