package driver

import (
	"context"
	"testing"
	"time"

	"github.com/rightsize/rightsize/engine"
	"github.com/rightsize/rightsize/tpcc"
)

// afterSeconds ends the ramp-up and the measurement once it has seen that
// many whole seconds of each (0: never).
type afterSeconds struct {
	rampup, measure int
	sawTxn          int64 // transactions in the seconds EndMeasure saw
}

func (a *afterSeconds) EndRampup(txn []int64) bool { return a.rampup > 0 && len(txn) >= a.rampup }
func (a *afterSeconds) EndMeasure(txn, _ []int64) bool {
	for _, n := range txn {
		a.sawTxn += n
	}
	return a.measure > 0 && len(txn) >= a.measure
}

func TestStepControl(t *testing.T) {
	for _, tc := range []struct {
		name               string
		ctl                *afterSeconds
		rampup, duration   time.Duration
		wantRamp, wantMeas time.Duration
	}{
		{"ends both phases early", &afterSeconds{rampup: 2, measure: 2}, time.Minute, time.Minute, 2 * time.Second, 2 * time.Second},
		{"never satisfied runs to the caps", &afterSeconds{}, 1500 * time.Millisecond, 2 * time.Second, 1500 * time.Millisecond, 2 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := RunStep(context.Background(), idleTarget{time.Millisecond}, StepConfig{Users: 2, Warehouses: 1, Constants: tpcc.LoadConstants(1).WithRunConstants(tpcc.NewRand(1, 1)), Seed: 1,
				Control: tc.ctl, Spec: Spec{Rampup: tc.rampup, Duration: tc.duration, Mode: engine.Statements}})
			if err != nil {
				t.Fatal(err)
			}
			near := func(got, want time.Duration) bool {
				return got > want-100*time.Millisecond && got < want+400*time.Millisecond
			}
			if ramp := res.MeasureStart.Sub(res.StepStart); !near(ramp, tc.wantRamp) {
				t.Errorf("ramp-up %s, want %s", ramp, tc.wantRamp)
			}
			if m := res.Measured(); !near(m, tc.wantMeas) {
				t.Errorf("measured %s, want %s", m, tc.wantMeas)
			}
			if tc.ctl.measure > 0 && tc.ctl.sawTxn == 0 {
				t.Error("EndMeasure saw no transaction in the measured seconds")
			}
			if res.Partial || res.Completed() == 0 {
				t.Errorf("partial %v, %d completed: want a complete step with transactions", res.Partial, res.Completed())
			}
		})
	}
}
