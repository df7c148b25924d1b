package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"

	"github.com/rightsize/rightsize/scenario"
)

// sweepFiles summarises sweeps predicted where they ran (sweep --predict
// --json, each file a round of the same sweep: the cgroup v2 guest's
// bandwidth layout), as shapes does for the store's: per value the
// median measured and predicted NOPM, the error of the medians, every
// round's error, the worst single round and the bands that held. The
// predictions are the files' own: the tool's, made in the guest.
func sweepFiles(pattern string) error {
	files, err := filepath.Glob(pattern)
	if err != nil {
		return fmt.Errorf("sweep files %q: %w", pattern, err)
	}
	if len(files) == 0 {
		return fmt.Errorf("sweep files %q: none", pattern)
	}
	sort.Strings(files)
	byValue, order, err := readSweepFiles(files)
	if err != nil {
		return err
	}
	fmt.Printf("sweeps %s, %d round(s), each predicted from its first value where it ran:\n", pattern, len(files))
	fmt.Printf("  %-14s %9s %9s %8s %8s %5s  %s\n", "value", "measured", "predicted", "error", "worst 1", "held", "every round: measured → predicted (error)")
	var res shapeResult
	for _, v := range order {
		fmt.Println(res.value(v, byValue[v]))
	}
	fmt.Printf("  over the values: %s\n", res.summary())
	return nil
}

// readSweepFiles reads each file's predicted points, by value, with the
// values in the first file's order.
func readSweepFiles(files []string) (map[string][]scenario.SweepPoint, []string, error) {
	byValue := map[string][]scenario.SweepPoint{}
	var order []string
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, nil, fmt.Errorf("read sweep: %w", err)
		}
		var sw scenario.SweepResult
		if err := json.Unmarshal(b, &sw); err != nil {
			return nil, nil, fmt.Errorf("sweep %s: %w", f, err)
		}
		for _, p := range sw.Points {
			if p.Predicted == nil {
				continue
			}
			if _, ok := byValue[p.Value]; !ok {
				order = append(order, p.Value)
			}
			byValue[p.Value] = append(byValue[p.Value], p)
		}
	}
	return byValue, order, nil
}

// value takes one value's rounds into r and returns its line. A round
// that measured nothing (no New-Order in its window) has no error and
// its band is not counted: the median of the measured is over all rounds.
func (r *shapeResult) value(v string, pts []scenario.SweepPoint) string {
	var meas, pred, single []float64
	held, rounds := 0, ""
	for _, p := range pts {
		meas, pred = append(meas, p.NOPM), append(pred, p.Predicted.NOPM)
		if p.NOPM <= 0 {
			rounds += fmt.Sprintf(" 0 → %.1f (-)", p.Predicted.NOPM)
			continue
		}
		e := (p.Predicted.NOPM - p.NOPM) / p.NOPM * 100
		single = append(single, math.Abs(e))
		rounds += fmt.Sprintf(" %.1f → %.1f (%+.1f %%)", p.NOPM, p.Predicted.NOPM, e)
		if p.Predicted.NOPMLow <= p.NOPM && p.NOPM <= p.Predicted.NOPMHigh {
			held++
		}
		if p.Predicted.NOPM > 0 {
			r.widths = append(r.widths, (p.Predicted.NOPMHigh-p.Predicted.NOPMLow)/2/p.Predicted.NOPM*100)
		}
	}
	mm, mp := median(meas), median(pred)
	e := (mp - mm) / mm * 100
	r.errs, r.single = append(r.errs, math.Abs(e)), append(r.single, single...)
	r.held, r.total = r.held+held, r.total+len(single)
	return fmt.Sprintf("  %-14s %9.1f %9.1f %+7.1f%% %7.1f%% %2d/%-2d %s", v, mm, mp, e, worst(single), held, len(single), rounds)
}
