package fit

import (
	"context"
	"fmt"
	"math"

	"github.com/rightsize/rightsize/capacity"
	"github.com/rightsize/rightsize/steady"
)

// Options change how Search proceeds.
type Options struct {
	// Predictor, when set, predicts every candidate not yet measured after
	// each measurement. The search then measures first the cheapest
	// candidate predicted to meet the target, then the cheaper ones whose
	// prediction is within reach of it (cheapest first); a cheaper one
	// whose whole predicted band lies below the target is not measured
	// (PredictedMiss).
	Predictor Predictor
	// MeasureAll keeps the proof by measurement: candidates are measured
	// cheapest first as without a model; predictions are shown and decide
	// nothing.
	MeasureAll bool
	// OnPredict, when set, is told each round of predictions, before the
	// next measurement.
	OnPredict func(r Round)
}

// Round is the search between two measurements.
type Round struct {
	// Trials are every candidate with its verdict so far and its latest
	// prediction.
	Trials []Trial
	// Next is the candidate measured next.
	Next       int
	Criteria   Criteria
	MeasureAll bool
}

// Search tries the candidates (already sorted cheapest first, see Price)
// cheapest first: each one that a missed candidate dominates is skipped;
// the first that meets the target ends the search, as every cheaper one
// has missed or is dominated by one that missed. The result is returned
// with ErrNoFit when no candidate meets the target, and with ctx's error
// when interrupted.
func Search(ctx context.Context, cands []Priced, m Measurer, cr Criteria) (*Result, error) {
	return SearchWith(ctx, cands, m, cr, Options{})
}

// SearchWith is Search with a model's predictions (see Options).
func SearchWith(ctx context.Context, cands []Priced, m Measurer, cr Criteria, o Options) (*Result, error) {
	s := &search{m: m, cr: cr, o: o, res: &Result{Criteria: cr, Best: -1, Closest: -1, Trials: make([]Trial, len(cands)),
		Predicted: o.Predictor != nil, MeasureAll: o.MeasureAll && o.Predictor != nil}, runs: map[int][]Measured{}, again: -1}
	for i, p := range cands {
		s.res.Trials[i] = Trial{Priced: p}
	}
	var err error
	for {
		s.predict()
		next := s.next()
		if o.OnPredict != nil && o.Predictor != nil && next >= 0 {
			o.OnPredict(Round{Trials: s.res.Trials, Next: next, Criteria: s.cr, MeasureAll: o.MeasureAll})
		}
		if next < 0 {
			break
		}
		if err = ctx.Err(); err != nil {
			break
		}
		if err = s.measure(ctx, next); err != nil {
			break
		}
	}
	s.finish()
	if err != nil {
		return s.res, err
	}
	if s.res.Best < 0 {
		return s.res, ErrNoFit
	}
	return s.res, nil
}

// search is one Search in progress.
type search struct {
	m      Measurer
	cr     Criteria
	o      Options
	res    *Result
	missed []int
	order  int
	runs   map[int][]Measured
	again  int // the candidate to measure again next (-1: none)
}

// pending reports whether trial i is neither measured nor decided.
func (s *search) pending(i int) bool { return s.res.Trials[i].Verdict == "" }

// measure measures candidate i (again, when its runs so far held the
// target), judges it on all its runs and teaches the model. A candidate
// whose interval holds the target is measured again next while it has
// fewer than Criteria.Runs runs and could still be the answer (nothing
// cheaper meets); only then does it count as missed (and rule out the
// candidates it dominates).
func (s *search) measure(ctx context.Context, i int) error {
	t := &s.res.Trials[i]
	ms, err := s.m.Measure(ctx, t.Candidate)
	if err != nil {
		return fmt.Errorf("measure %s: %w", t.Candidate, err)
	}
	if t.Order == 0 {
		s.order++
		t.Order = s.order
	}
	s.runs[i] = append(s.runs[i], ms)
	judgeRuns(t, s.runs[i], s.cr)
	switch {
	case t.Verdict == Meets:
		if s.res.Best < 0 || i < s.res.Best {
			s.res.Best = i
		}
	case t.HoldsTarget && len(s.runs[i]) < s.cr.Runs && (s.res.Best < 0 || i < s.res.Best):
		s.again = i
	default:
		s.missed = append(s.missed, i)
	}
	if s.o.Predictor != nil && ms.RunID != "" {
		if err := s.o.Predictor.Learn(t.Candidate, ms); err != nil {
			s.res.Notes = append(s.res.Notes, "the model learnt nothing from "+err.Error())
		}
	}
	return nil
}

// predict predicts every pending candidate.
func (s *search) predict() {
	if s.o.Predictor == nil {
		return
	}
	for i := range s.res.Trials {
		if t := &s.res.Trials[i]; s.pending(i) {
			t.Prediction, t.NotPredicted = s.o.Predictor.Predict(t.Candidate)
		}
	}
}

// outlook is what a prediction says of a candidate against the target.
type outlook int

const (
	unknown outlook = iota // no prediction
	willMiss
	withinReach
	willMeet
)

// outlook is the trial's outlook in this search (unknown when
// predictions decide nothing).
func (s *search) outlook(t Trial) outlook {
	if s.o.MeasureAll {
		return unknown
	}
	return outlookOf(t.Prediction, s.cr.TargetNOPM, s.cr.Drift)
}

// outlookOf is what prediction p says against target, its band widened by
// the drift between runs (in quadrature, as a measured interval is): a
// run of the candidate could land that much above or below the model. A
// band that holds the drift already (capacity.Band.Drift, the base's and
// the candidate's runs) is taken as it is: drift is counted once.
func outlookOf(p *capacity.Prediction, target float64, d steady.Drift) outlook {
	if p == nil {
		return unknown
	}
	between := d.Between(p.NOPM, 0.95)
	if p.Band.Drift > 0 {
		between = 0
	}
	switch {
	case p.NOPM+math.Hypot(p.NOPMHigh-p.NOPM, between) < target:
		return willMiss
	case p.NOPM-math.Hypot(p.NOPM-p.NOPMLow, between) >= target:
		return willMeet
	default:
		return withinReach
	}
}

// next is the candidate to measure next, -1 when the answer is settled:
// with a model that has nothing to predict from yet, the candidate with
// the most resources (see first); else, among the pending candidates
// cheaper than the best one met so far and not dominated by a missed one,
// the cheapest predicted to meet while nothing meets yet, else the
// cheapest not predicted to miss.
func (s *search) next() int {
	if i := s.again; i >= 0 {
		s.again = -1
		return i
	}
	if s.o.Predictor != nil && !s.o.MeasureAll && s.order == 0 && !s.anyPredicted() {
		return s.first()
	}
	limit := len(s.res.Trials)
	if s.res.Best >= 0 {
		limit = s.res.Best
	}
	first, meet := -1, -1
	for i := range limit {
		if !s.pending(i) || s.dominator(i) >= 0 {
			continue
		}
		switch s.outlook(s.res.Trials[i]) {
		case willMiss:
			continue
		case willMeet:
			if meet < 0 {
				meet = i
			}
		}
		if first < 0 {
			first = i
		}
	}
	if s.res.Best < 0 && meet >= 0 {
		return meet
	}
	return first
}

// dominator is the index of a missed candidate that dominates trial i, or -1.
func (s *search) dominator(i int) int {
	for _, j := range s.missed {
		if Dominates(s.res.Trials[j].Candidate, s.res.Trials[i].Candidate) {
			return j
		}
	}
	return -1
}

// finish gives every candidate not measured its verdict, and finds the
// closest and the indistinct candidates.
func (s *search) finish() {
	r := s.res
	for i := range r.Trials {
		t := &r.Trials[i]
		if t.measured() {
			if r.Closest < 0 || t.NOPM > r.Trials[r.Closest].NOPM {
				r.Closest = i
			}
		}
		if !s.pending(i) {
			continue
		}
		switch d := s.dominator(i); {
		case r.Best >= 0 && i > r.Best:
			b := r.Trials[r.Best]
			t.Verdict, t.Reason = NotNeeded, fmt.Sprintf("%s (%s) meets the target for less", b.Candidate, b.Cost.Total.Cents())
		case d >= 0:
			t.Verdict, t.Reason = Dominated, fmt.Sprintf("%s has at least its resources and missed", r.Trials[d].Candidate)
			if r.Trials[d].HoldsTarget {
				t.Reason = fmt.Sprintf("%s has at least its resources and is not distinguishable from the target", r.Trials[d].Candidate)
			}
		case s.outlook(*t) == willMiss:
			t.Verdict, t.Reason = PredictedMiss, predictedMissReason(*t.Prediction, s.cr.TargetNOPM)
		default:
			t.Verdict, t.Reason = NotReached, "the search was interrupted before it"
		}
	}
	r.Indistinct = r.indistinct()
	r.Unsettled = r.unsettled()
}

// unsettled are the measured candidates cheaper than the answer (every
// measured one when none meets) whose interval holds the target.
func (r *Result) unsettled() []int {
	var out []int
	for i, t := range r.Trials {
		if r.Best >= 0 && i >= r.Best {
			break
		}
		if t.measured() && t.HoldsTarget {
			out = append(out, i)
		}
	}
	return out
}

// anyPredicted reports whether some candidate has a prediction.
func (s *search) anyPredicted() bool {
	for _, t := range s.res.Trials {
		if t.Prediction != nil {
			return true
		}
	}
	return false
}

// first is the candidate a model learns best from: the one that dominates
// the most others (the most resources), the most expensive of equals.
// Predicting fewer resources from more is the direction a queueing model
// gets right: a measurement already short of one resource hides what
// limits the others (lock waits show as CPU queueing under a small quota).
func (s *search) first() int {
	best, most := -1, -1
	for i, a := range s.res.Trials {
		n := 0
		for _, b := range s.res.Trials {
			if Dominates(a.Candidate, b.Candidate) {
				n++
			}
		}
		if n >= most {
			best, most = i, n
		}
	}
	return best
}
