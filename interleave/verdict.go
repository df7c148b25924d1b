package interleave

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/rightsize/rightsize/analysis"
	"github.com/rightsize/rightsize/report"
	"github.com/rightsize/rightsize/steady"
	"github.com/rightsize/rightsize/store"
	"github.com/rightsize/rightsize/tpcc"
)

// Alpha is the gate's false-alarm rate: the chance that identical A and B
// fail it, one decision per gate (Holm over the gated figures).
const Alpha = 0.05

// Power is the chance of detecting a regression of the size Verdict's
// DetectablePct names.
const Power = 0.8

// The figures judged, as compare names them.
const (
	FigureTPM  = report.FigureTPM
	FigureNOPM = report.FigureNOPM
	FigureP90  = report.FigureP90
)

// Figure is one figure of B against A over the paired rounds.
type Figure struct {
	Figure         string `json:"figure"`
	HigherIsBetter bool   `json:"higher_is_better"`
	// A and B are the figure in each complete round, in round order.
	A []float64 `json:"a"`
	B []float64 `json:"b"`
	// Ratio is the geometric mean of the rounds' B/A, Low and High its
	// interval at the verdict's confidence (paired t of the log ratios).
	Ratio float64 `json:"ratio"`
	Low   float64 `json:"ratio_low"`
	High  float64 `json:"ratio_high"`
	// SlowerPct is how much worse B is, % of A (1 − Ratio for throughput,
	// Ratio − 1 for latency); negative when B is better.
	SlowerPct float64 `json:"slower_pct"`
	// ScatterPct is the standard deviation of the rounds' log ratios, %:
	// how much the paired rounds disagree.
	ScatterPct float64 `json:"scatter_pct"`
	// P is the paired t test's two-sided p, PWorse its one-sided p of "B
	// is not worse", PAdjusted the p the verdict used (Holm over its
	// family: the gated figures, or one figure's steps).
	P         float64 `json:"p"`
	PWorse    float64 `json:"p_worse"`
	PAdjusted float64 `json:"p_adjusted"`
	// PBeyond is a gated figure's one-sided p of "B is not worse by more
	// than the threshold" (the paired t test of the log ratios against
	// the threshold's), PBeyondAdjusted that p Holm-adjusted over the
	// gated figures: the gate's decision.
	PBeyond         *float64 `json:"p_beyond,omitempty"`
	PBeyondAdjusted *float64 `json:"p_beyond_adjusted,omitempty"`
	// SignedRankP is Wilcoxon's signed-rank exact two-sided p of the log
	// ratios, a check that needs no normality (at least 6 rounds to reach
	// 5 %).
	SignedRankP float64 `json:"signed_rank_p"`
	// Verdict is report.Better, report.Worse or report.NotDistinguishable.
	Verdict string `json:"verdict"`
	// MaxRegressionPct is the gate's threshold when the figure is gated.
	MaxRegressionPct *float64 `json:"max_regression_pct,omitempty"`
	// Regression: gated, and worse by more than the threshold at the
	// gate's level (PBeyondAdjusted below Alpha).
	Regression bool `json:"regression"`
	// log is the paired t test of the rounds' log ratios B/A.
	log steady.PairedT
}

// Step is the figures of one users count (Users 0: over all steps).
type Step struct {
	Users   int      `json:"users"`
	Figures []Figure `json:"figures"`
}

// Verdict is an interleaved comparison judged.
type Verdict struct {
	Label string `json:"label"`
	// Rounds are the complete rounds judged (both legs stored).
	Rounds int   `json:"rounds"`
	Legs   []Leg `json:"legs"`
	// Confidence is the level of the ratio intervals: 1 − 2·Alpha, whose
	// upper end is the one-sided bound the gate decides on.
	Confidence float64 `json:"confidence"`
	Alpha      float64 `json:"alpha"`
	// Users are the users counts every leg measured.
	Users   []int  `json:"users"`
	Steps   []Step `json:"steps"`
	Overall Step   `json:"overall"`
	// DetectablePct is the smallest NOPM regression over all steps, %,
	// that this many rounds at the scatter they showed detect with Power;
	// 0 when it cannot be told (no scatter).
	DetectablePct float64 `json:"detectable_pct"`
	// Gated tells thresholds were given; Passed is false on a regression.
	Gated    bool     `json:"gated"`
	Passed   bool     `json:"passed"`
	Failures []string `json:"failures"`
	// Line is the closing line.
	Line string `json:"verdict"`
	// Figure names a pgbench workload's figure of merit ("TPM of every
	// script", "TPM of SCRIPT"); "" for TPC-C (NOPM, New-Order p90).
	Figure string `json:"figure,omitempty"`
	// names are the figures judged: TPM (""  when it is the merit itself),
	// the merit and its transactions' p90.
	names [3]string
	// family is the number of figures the gate decides on (at least 1).
	family int
}

// roundFigures are one leg's figures per users count.
type roundFigures map[int][3]float64 // TPM, NOPM, New-Order p90 (0: none)

// Judge loads the legs' runs and judges B against A on the complete
// rounds' paired ratios; th gates as compare's thresholds do.
func Judge(ctx context.Context, st *store.Store, label string, legs []Leg, th report.Thresholds) (*Verdict, error) {
	byRound := map[int]map[string]roundFigures{}
	merit, workload := tpcc.Merit, false
	for _, l := range legs {
		if l.Status != store.StatusComplete {
			continue
		}
		run, steps, err := st.LoadRun(ctx, l.RunID)
		if err != nil {
			return nil, fmt.Errorf("load the run of round %d, %s: %w", l.Round, l.Side, err)
		}
		if m, ok := run.WorkloadMerit(); ok {
			merit, workload = m, true
		}
		if byRound[l.Round] == nil {
			byRound[l.Round] = map[string]roundFigures{}
		}
		byRound[l.Round][l.Side] = figuresOf(analysis.Aggregate(steps), merit)
	}
	var rounds []map[string]roundFigures
	for r := 1; r <= len(legs); r++ {
		if m := byRound[r]; m["A"] != nil && m["B"] != nil {
			rounds = append(rounds, m)
		}
	}
	names, figure := figureNames, ""
	if workload {
		figure = merit.Name()
		names = report.WorkloadFigureNames(figure)
	}
	v, err := judge(label, legs, rounds, th, names)
	if v != nil {
		v.Figure = figure
	}
	return v, err
}

// judge judges the complete rounds' figures, named names (figureNames
// for TPC-C).
func judge(label string, legs []Leg, rounds []map[string]roundFigures, th report.Thresholds, names [3]string) (*Verdict, error) {
	if len(rounds) < 2 {
		return nil, fmt.Errorf("%d complete rounds: at least 2 are needed to judge B against A", len(rounds))
	}
	v := &Verdict{Label: label, Rounds: len(rounds), Legs: legs, Confidence: 1 - 2*Alpha, Alpha: Alpha, Users: commonUsers(rounds), names: names}
	if len(v.Users) == 0 {
		return nil, fmt.Errorf("the legs measured no users count in common")
	}
	v.judgeSteps(rounds)
	v.judgeOverall(rounds, th)
	v.close(th)
	return v, nil
}

// figuresOf are a run's figures per users count: TPM, the merit m's rate
// (NOPM's column) and its transactions' p90.
func figuresOf(aggs []analysis.StepAggregate, m store.Merit) roundFigures {
	out := roundFigures{}
	for _, a := range aggs {
		if a.Partial {
			continue
		}
		var p90 float64
		if t := m.Counted(a.Txn); t != nil {
			p90 = t.P90Ms
		}
		out[a.Users] = [3]float64{a.TPM.Mean, a.NOPM.Mean, p90}
	}
	return out
}

// commonUsers are the users counts every leg of the rounds measured.
func commonUsers(rounds []map[string]roundFigures) []int {
	var users []int
	for u := range rounds[0]["A"] {
		all := true
		for _, r := range rounds {
			_, a := r["A"][u]
			_, b := r["B"][u]
			all = all && a && b
		}
		if all {
			users = append(users, u)
		}
	}
	slices.Sort(users)
	return users
}

var figureNames = [3]string{FigureTPM, FigureNOPM, FigureP90}

// series are figure i of side in each round at users u (0: the mean over
// the common users counts); ok is false when a value is missing.
func (v *Verdict) series(rounds []map[string]roundFigures, side string, i, u int) (out []float64, ok bool) {
	for _, r := range rounds {
		var x float64
		if u != 0 {
			x = r[side][u][i]
		} else {
			for _, uu := range v.Users {
				x += r[side][uu][i] / float64(len(v.Users))
			}
		}
		if !(x > 0) {
			return nil, false
		}
		out = append(out, x)
	}
	return out, true
}

// figure tests figure i at users u; ok is false when it has no values.
func (v *Verdict) figure(rounds []map[string]roundFigures, i, u int) (Figure, bool) {
	a, okA := v.series(rounds, "A", i, u)
	b, okB := v.series(rounds, "B", i, u)
	if !okA || !okB {
		return Figure{}, false
	}
	if v.names[i] == "" {
		return Figure{}, false
	}
	f := Figure{Figure: v.names[i], HigherIsBetter: i != 2, A: a, B: b, Verdict: report.NotDistinguishable}
	r, err := steady.PairedRatioTest(a, b, v.Confidence)
	if err != nil {
		return Figure{}, false
	}
	f.Ratio, f.Low, f.High, f.P, f.log = r.Ratio, r.Low, r.High, r.Log.P, r.Log
	f.ScatterPct = r.Log.SD * 100
	f.SlowerPct = (f.Ratio - 1) * 100
	f.PWorse = 1 - r.Log.PLess
	if f.HigherIsBetter {
		f.SlowerPct, f.PWorse = -f.SlowerPct, r.Log.PLess
	}
	logs := make([]float64, len(a))
	for k := range a {
		logs[k] = math.Log(b[k] / a[k])
	}
	if sr, err := steady.SignedRankTest(logs); err == nil {
		f.SignedRankP = sr.P
	}
	return f, true
}

// direction is the verdict of a significant difference.
func (f *Figure) direction() string {
	if f.SlowerPct > 0 {
		return report.Worse
	}
	return report.Better
}

// judgeSteps tests each figure at each users count, Holm over the steps.
func (v *Verdict) judgeSteps(rounds []map[string]roundFigures) {
	for _, u := range v.Users {
		s := Step{Users: u}
		for i := range v.names {
			if f, ok := v.figure(rounds, i, u); ok {
				s.Figures = append(s.Figures, f)
			}
		}
		v.Steps = append(v.Steps, s)
	}
	for _, name := range v.names {
		var fs []*Figure
		var ps []float64
		for k := range v.Steps {
			for j := range v.Steps[k].Figures {
				if f := &v.Steps[k].Figures[j]; f.Figure == name {
					fs, ps = append(fs, f), append(ps, f.P)
				}
			}
		}
		for k, p := range steady.Holm(ps) {
			fs[k].PAdjusted = p
			if p < Alpha {
				fs[k].Verdict = fs[k].direction()
			}
		}
	}
}
