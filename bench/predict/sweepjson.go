package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/rightsize/rightsize/capacity"
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

// value takes one value's rounds into r (shapeResult.rounds) and returns
// its line.
func (r *shapeResult) value(v string, pts []scenario.SweepPoint) string {
	meas, pred, line := make([]float64, len(pts)), make([]float64, len(pts)), ""
	preds := make([]capacity.Prediction, len(pts))
	for k, p := range pts {
		meas[k], pred[k], preds[k] = p.NOPM, p.Predicted.NOPM, p.Predicted.Prediction
		if p.NOPM <= 0 {
			line += fmt.Sprintf(" 0 → %.1f (-)", p.Predicted.NOPM)
			continue
		}
		line += fmt.Sprintf(" %.1f → %.1f (%+.1f %%)", p.NOPM, p.Predicted.NOPM, (p.Predicted.NOPM-p.NOPM)/p.NOPM*100)
	}
	e, worstOne, held, compared := r.rounds(meas, preds)
	return fmt.Sprintf("  %-14s %9.1f %9.1f %+7.1f%% %7.1f%% %2d/%-2d %s", v, median(meas), median(pred), e, worstOne, held, compared, line)
}
