package main

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/rightsize/rightsize/capacity"
	"github.com/rightsize/rightsize/store"
)

// shapeResult is one shape's figures over its rounds.
type shapeResult struct {
	errs   []float64 // the points' |error| of the medians, %
	single []float64 // every round's points' |error|, %
	widths []float64 // every round's points' band half-width over the prediction, %
	held   int       // predictions whose band held the measurement
	total  int
}

// shapes predicts every point of each shape's sweep (round r > 1 labelled
// shape.r) from that round's first point alone, as a new user's sweep
// --predict does from its first value with one memory size measured, and
// prints per point the median measured and predicted NOPM, the error of
// the medians, the worst single round's and how many rounds' bands held
// the measurement; then per shape and over all shapes. Each base takes
// the host's growth with cores learned from the sweeps stored before it
// (scenario.BaseGrowth), as sweep --predict does; the same predictions
// with the contention term alone are summarised beside them.
func shapes(ctx context.Context, st *store.Store, labels []string, rounds int) error {
	var all, alone shapeResult
	for _, label := range labels {
		var rs [][]point
		for r := 1; r <= rounds; r++ {
			l := label
			if r > 1 {
				l = fmt.Sprintf("%s.%d", label, r)
			}
			pts, err := sweepPoints(ctx, st, l)
			if err != nil {
				return err
			}
			if len(pts) < 2 {
				return fmt.Errorf("shape %s round %d: %d points measured", label, r, len(pts))
			}
			rs = append(rs, pts)
		}
		rs, dropped := commonPoints(rs)
		if len(rs[0]) < 2 {
			return fmt.Errorf("shape %s: %d configurations measured in every round", label, len(rs[0]))
		}
		if len(dropped) > 0 {
			fmt.Printf("shape %s: left out, not measured in every round (failed, e.g. killed by a memory limit): %s\n", label, strings.Join(dropped, ", "))
		}
		res, al, err := shape(label, rs)
		if err != nil {
			return err
		}
		all.add(res)
		alone.add(al)
	}
	fmt.Printf("shapes %s, %d round(s): %s\n", strings.Join(labels, ", "), rounds, all.summary())
	fmt.Printf("  the same with the contention term alone (no learned growth): %s\n", alone.summary())
	return nil
}

// add takes o's figures in.
func (r *shapeResult) add(o shapeResult) {
	r.errs, r.single = append(r.errs, o.errs...), append(r.single, o.single...)
	r.widths = append(r.widths, o.widths...)
	r.held, r.total = r.held+o.held, r.total+o.total
}

// summary is the result in one line.
func (r shapeResult) summary() string {
	return fmt.Sprintf("error of the medians median %.1f %%, worst %.1f %%; worst single round %.1f %%; bands held %d of %d (%.0f %%), their half-widths median ±%.0f %%",
		median(r.errs), worst(r.errs), worst(r.single), r.held, r.total, 100*float64(r.held)/float64(max(1, r.total)), median(r.widths))
}

// learned tells some round's base took growth ratios from the store.
func learned(rs [][]point) bool {
	for _, pts := range rs {
		if len(pts[0].d.CoreGrowth) > 0 {
			return true
		}
	}
	return false
}

// withoutGrowth are rs with their bases' learned growth left out.
func withoutGrowth(rs [][]point) [][]point {
	out := make([][]point, len(rs))
	for i, pts := range rs {
		out[i] = append([]point(nil), pts...)
		out[i][0].d.CoreGrowth = nil
	}
	return out
}

// shape predicts one shape's rounds and prints them; where a base took
// learned growth, also the contention term alone's error of the medians,
// worst single round and bands held beside (alone: its result; res where
// nothing was learned).
func shape(label string, rs [][]point) (res, alone shapeResult, err error) {
	preds, err := predictEach(label, rs)
	if err != nil {
		return res, alone, err
	}
	alt, learnt := preds, learned(rs)
	if learnt {
		if alt, err = predictEach(label, withoutGrowth(rs)); err != nil {
			return res, alone, err
		}
	}
	fmt.Printf("shape %s (%d W, %d users, %s), predicted from %s alone:\n", label, rs[0][0].d.Config.Warehouses, rs[0][0].d.Users, rs[0][0].d.Config.Mode, rs[0][0].config)
	fmt.Printf("  %-36s %9s %9s %19s %8s %8s %5s  %-6s %s\n", "configuration", "measured", "predicted", "band (round 1)", "error", "worst 1", "held", "limit", "term alone: error, worst 1, held")
	for i := 1; i < len(rs[0]); i++ {
		e, w, held := res.point(rs, preds, i)
		ea, wa, helda := alone.point(rs, alt, i)
		p0 := preds[0][i]
		fmt.Printf("  %-36s %9.0f %9.0f %8.0f to %8.0f %+7.1f%% %7.1f%% %2d/%-2d  %-6s", rs[0][i].config, medianNOPM(rs, i), medianPredicted(preds, i), p0.NOPMLow, p0.NOPMHigh, e, w, held, len(rs), p0.Limit)
		if learnt {
			fmt.Printf(" %+7.1f%% %7.1f%% %2d/%-2d", ea, wa, helda, len(rs))
		}
		fmt.Println()
	}
	for r := range rs {
		for i := 1; i < len(rs[r]); i++ {
			for _, n := range preds[r][i].Notes {
				if strings.HasPrefix(n, "CPU per transaction from") {
					fmt.Printf("  round %d, %s: %s\n", r+1, rs[r][i].config, n)
				}
			}
		}
	}
	fmt.Printf("  %s: %s\n", label, res.summary())
	if learnt {
		fmt.Printf("  %s with the contention term alone (no learned growth): %s\n", label, alone.summary())
	}
	fmt.Println()
	return res, alone, nil
}

// predictEach predicts every round's points from that round's first.
func predictEach(label string, rs [][]point) ([][]capacity.Prediction, error) {
	preds := make([][]capacity.Prediction, len(rs))
	for r, pts := range rs {
		m, err := capacity.New(pts[0].d, capacity.NewReadCurve(capacity.PointOf(pts[0].d)))
		if err != nil {
			return nil, fmt.Errorf("shape %s round %d: %w", label, r+1, err)
		}
		for _, p := range pts {
			preds[r] = append(preds[r], m.Predict(p.d.Config))
		}
	}
	return preds, nil
}

// point takes point i's rounds into r and returns its error of the
// medians, worst single round (%) and the bands that held.
func (r *shapeResult) point(rs [][]point, preds [][]capacity.Prediction, i int) (e, worstOne float64, held int) {
	meas, pred := make([]float64, len(rs)), make([]capacity.Prediction, len(rs))
	for k := range rs {
		meas[k], pred[k] = rs[k][i].nopm, preds[k][i]
	}
	e, worstOne, held, _ = r.rounds(meas, pred)
	return e, worstOne, held
}

// rounds takes one point's rounds (measured NOPM and prediction each)
// into r and returns the error of their medians, the worst single
// round's |error| (%), the bands that held and the rounds compared. A
// round that measured nothing (no New-Order in its window) has no error
// and its band is not counted; the medians are over all rounds.
func (r *shapeResult) rounds(meas []float64, preds []capacity.Prediction) (e, worstOne float64, held, compared int) {
	var single, pred []float64
	for k, mp := range meas {
		pr := preds[k]
		pred = append(pred, pr.NOPM)
		if mp <= 0 {
			continue
		}
		single = append(single, math.Abs(pr.NOPM-mp)/mp*100)
		if pr.NOPMLow <= mp && mp <= pr.NOPMHigh {
			held++
		}
		if pr.NOPM > 0 {
			r.widths = append(r.widths, (pr.NOPMHigh-pr.NOPMLow)/2/pr.NOPM*100)
		}
	}
	mm := median(meas)
	e = (median(pred) - mm) / mm * 100
	r.errs, r.single = append(r.errs, math.Abs(e)), append(r.single, single...)
	r.held, r.total = r.held+held, r.total+len(single)
	return e, worst(single), held, len(single)
}

// medianNOPM is point i's median measured figure over the rounds.
func medianNOPM(rs [][]point, i int) float64 {
	return medianOver(len(rs), func(r int) float64 { return rs[r][i].nopm })
}

// medianPredicted is point i's median prediction over the rounds.
func medianPredicted(preds [][]capacity.Prediction, i int) float64 {
	return medianOver(len(preds), func(r int) float64 { return preds[r][i].NOPM })
}

// medianOver is the median of at(r) over n rounds.
func medianOver(n int, at func(r int) float64) float64 {
	x := make([]float64, n)
	for r := range x {
		x[r] = at(r)
	}
	return median(x)
}

// commonPoints keeps, in every round, the configurations that every round
// measured (in the first round's order), and names the others.
func commonPoints(rs [][]point) ([][]point, []string) {
	count := map[string]int{}
	for _, pts := range rs {
		for _, p := range pts {
			count[p.config]++
		}
	}
	var dropped []string
	for c, n := range count {
		if n < len(rs) {
			dropped = append(dropped, c)
		}
	}
	sort.Strings(dropped)
	out := make([][]point, len(rs))
	for i, pts := range rs {
		for _, p := range pts {
			if count[p.config] == len(rs) {
				out[i] = append(out[i], p)
			}
		}
	}
	return out, dropped
}
