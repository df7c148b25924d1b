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
// the measurement; then per shape and over all shapes.
func shapes(ctx context.Context, st *store.Store, labels []string, rounds int) error {
	var all shapeResult
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
		res, err := shape(label, rs)
		if err != nil {
			return err
		}
		all.errs, all.single = append(all.errs, res.errs...), append(all.single, res.single...)
		all.widths = append(all.widths, res.widths...)
		all.held, all.total = all.held+res.held, all.total+res.total
	}
	fmt.Printf("shapes %s, %d round(s): error of the medians median %.1f %%, worst %.1f %%; worst single round %.1f %%; bands held %d of %d (%.0f %%), their half-widths median ±%.0f %%\n",
		strings.Join(labels, ", "), rounds, median(all.errs), worst(all.errs), worst(all.single), all.held, all.total, 100*float64(all.held)/float64(max(1, all.total)), median(all.widths))
	return nil
}

// shape predicts one shape's rounds and prints them.
func shape(label string, rs [][]point) (shapeResult, error) {
	var res shapeResult
	preds := make([][]capacity.Prediction, len(rs))
	for r, pts := range rs {
		m, err := capacity.New(pts[0].d, capacity.NewReadCurve(capacity.PointOf(pts[0].d)))
		if err != nil {
			return res, fmt.Errorf("shape %s round %d: %w", label, r+1, err)
		}
		for _, p := range pts {
			preds[r] = append(preds[r], m.Predict(p.d.Config))
		}
	}
	fmt.Printf("shape %s (%d W, %d users, %s), predicted from %s alone:\n", label, rs[0][0].d.Config.Warehouses, rs[0][0].d.Users, rs[0][0].d.Config.Mode, rs[0][0].config)
	fmt.Printf("  %-36s %9s %9s %19s %8s %8s %5s  %s\n", "configuration", "measured", "predicted", "band (round 1)", "error", "worst 1", "held", "limit")
	for i := 1; i < len(rs[0]); i++ {
		var meas, pred, single []float64
		held := 0
		for r := range rs {
			mp, pr := rs[r][i].nopm, preds[r][i]
			meas, pred = append(meas, mp), append(pred, pr.NOPM)
			single = append(single, math.Abs(pr.NOPM-mp)/mp*100)
			if pr.NOPMLow <= mp && mp <= pr.NOPMHigh {
				held++
			}
			if pr.NOPM > 0 {
				res.widths = append(res.widths, (pr.NOPMHigh-pr.NOPMLow)/2/pr.NOPM*100)
			}
		}
		mm, pm, p0 := median(meas), median(pred), preds[0][i]
		e := (pm - mm) / mm * 100
		res.errs, res.single = append(res.errs, math.Abs(e)), append(res.single, single...)
		res.held, res.total = res.held+held, res.total+len(rs)
		fmt.Printf("  %-36s %9.0f %9.0f %8.0f to %8.0f %+7.1f%% %7.1f%% %2d/%-2d  %s\n", rs[0][i].config, mm, pm, p0.NOPMLow, p0.NOPMHigh, e, worst(single), held, len(rs), p0.Limit)
	}
	fmt.Printf("  %s: error of the medians median %.1f %%, worst %.1f %%; worst single round %.1f %%; bands held %d of %d, their half-widths median ±%.0f %%\n\n",
		label, median(res.errs), worst(res.errs), worst(res.single), res.held, res.total, median(res.widths))
	return res, nil
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
