package scenario

import (
	"strings"
	"testing"
	"time"

	"github.com/rightsize/rightsize/driver"
	"github.com/rightsize/rightsize/steady"
)

func TestAgreement(t *testing.T) {
	res := func(count int64) *driver.StepResult {
		s := time.Unix(0, 0)
		r := &driver.StepResult{MeasureStart: s, MeasureEnd: s.Add(time.Minute)}
		r.Txn[0].Count = count
		return r
	}
	for _, tc := range []struct {
		name    string
		counts  [][]int64 // per repeat, per step
		ok      bool
		wantHow string
	}{
		{"one repeat is not enough", [][]int64{{1000, 2000}}, false, "maximum of 3"},
		{"two that agree", [][]int64{{1000, 2000}, {1010, 1990}}, true, "agreed after 2 repeats"},
		{"one step disagrees", [][]int64{{1000, 2000}, {1010, 3000}}, false, "> 5.0 %"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := newAgreement(0.05)
			for _, rep := range tc.counts {
				for i, c := range rep {
					g.add(i, res(c))
				}
			}
			ok, how := g.check(len(tc.counts), 3)
			if ok != tc.ok || !strings.Contains(how, tc.wantHow) {
				t.Errorf("check = %v, %q; want %v, %q", ok, how, tc.ok, tc.wantHow)
			}
		})
	}
}

func TestEnding(t *testing.T) {
	start := time.Unix(1000, 0)
	res := &driver.StepResult{StepStart: start, MeasureStart: start.Add(5 * time.Second), MeasureEnd: start.Add(35 * time.Second)}
	for i := range 36 {
		n := int64(100 + i%3)
		if i < 5 {
			n = 1 // the ramp-up, left out
		}
		res.PerSecondTxn = append(res.PerSecondTxn, n)
		res.PerSecondNewOrder = append(res.PerSecondNewOrder, n/2)
	}
	txn, _ := measuredSeconds(res)
	if len(txn) != 30 || txn[0] != 102 {
		t.Fatalf("measured seconds %v, want the 30 seconds 5..34", txn)
	}
	auto := steady.Plan{RampupAuto: true, DurationAuto: true, Confidence: 0.95}
	for _, tc := range []struct {
		name          string
		plan          steady.Plan
		ctl           *steady.Controller
		partial       bool
		ramp, measure string
	}{
		{"fixed", steady.Plan{}, nil, false, steady.EndFixed, steady.EndFixed},
		{"auto, caps reached", auto, &steady.Controller{}, false, steady.EndMax, steady.EndMax},
		{"auto, rules met", auto, &steady.Controller{RampupDone: true, MeasureDone: true}, false, steady.EndSteady, steady.EndPrecision},
		{"interrupted", auto, &steady.Controller{RampupDone: true}, true, steady.EndSteady, steady.EndInterrupted},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := *res
			r.Partial = tc.partial
			e := ending(tc.plan, tc.ctl, &r)
			if e.Rampup != tc.ramp || e.Measure != tc.measure || e.Precision <= 0 || e.Precision > 0.01 || e.TPM.Mean < 6000 {
				t.Errorf("ending %+v, want ramp-up %s, measurement %s, precision under 1 %% of ~6060 TPM", e, tc.ramp, tc.measure)
			}
		})
	}
}
