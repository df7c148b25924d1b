package driver

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/rightsize/rightsize/engine"
	"github.com/rightsize/rightsize/tpcc"
)

// failingNewOrder answers like idleExec but fails every New-Order.
type failingNewOrder struct{ idleExec }

func (failingNewOrder) NewOrder(context.Context, *tpcc.NewOrderInput, *tpcc.NewOrderResult) error {
	return errors.New("no new orders today")
}

type failingTarget struct{}

func (failingTarget) NewExecutor(context.Context, engine.Mode) (tpcc.Executor, error) {
	return failingNewOrder{idleExec{time.Millisecond}}, nil
}
func (failingTarget) Classify(error) engine.ErrClass { return engine.ErrOther }

func TestProgressEverySecond(t *testing.T) {
	cases := []struct {
		name       string
		tgt        Target
		wantErrors bool
		wantNOPM   bool
	}{
		{"idle", idleTarget{time.Millisecond}, false, true},
		{"failing new-orders", failingTarget{}, true, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var mu sync.Mutex
			var got []Progress
			_, err := RunStep(context.Background(), c.tgt, StepConfig{Users: 2, Warehouses: 1, Constants: tpcc.LoadConstants(1).WithRunConstants(tpcc.NewRand(1, 1)), Seed: 1,
				OnProgress: func(p Progress) { mu.Lock(); got = append(got, p); mu.Unlock() }, Spec: Spec{Rampup: 1500 * time.Millisecond, Duration: 2 * time.Second, Mode: engine.Statements}})
			if err != nil {
				t.Fatal(err)
			}
			if len(got) < 3 {
				t.Fatalf("%d progress calls in 3.5 s, want at least 3", len(got))
			}
			first, last := got[0], got[len(got)-1]
			if first.Measuring || first.Phase != 1500*time.Millisecond || first.Users != 2 {
				t.Errorf("first progress %+v, want ramp-up of 1.5 s with 2 users", first)
			}
			if !last.Measuring || last.Phase != 2*time.Second || last.Remaining() > time.Second {
				t.Errorf("last progress %+v, want the measurement nearly over", last)
			}
			if last.TPM <= 0 {
				t.Errorf("last progress TPM %v, want > 0", last.TPM)
			}
			if last.Txn <= first.Txn || (last.NewOrders > 0) != c.wantNOPM {
				t.Errorf("transactions counted %d then %d (New-Orders %d), want a growing count", first.Txn, last.Txn, last.NewOrders)
			}
			if (last.NOPM > 0) != c.wantNOPM {
				t.Errorf("last progress NOPM %v, want > 0: %v", last.NOPM, c.wantNOPM)
			}
			if (last.Errors > 0) != c.wantErrors {
				t.Errorf("last progress errors %d, want > 0: %v", last.Errors, c.wantErrors)
			}
		})
	}
}

func TestWindowP95(t *testing.T) {
	var w Window
	for ty := range w.Hists {
		w.Hists[ty] = newHist()
	}
	if got := w.p95(); got != 0 {
		t.Fatalf("empty window p95 = %v, want 0", got)
	}
	for i := 1; i <= 100; i++ { // 1..100 ms spread over two types
		_ = w.Hists[i%2].RecordValue(int64(i) * 1000)
	}
	if got := w.p95(); got < 94*time.Millisecond || got > 96*time.Millisecond {
		t.Fatalf("p95 = %v, want 95 ms", got)
	}
}
