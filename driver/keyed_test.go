package driver

import (
	"context"
	"testing"
	"time"

	"github.com/rightsize/rightsize/engine"
	"github.com/rightsize/rightsize/tpcc"
)

// TestKeyedUsersStartSteady: users with keying and think times start where
// the steady state has them (tpcc.SteadyStart), so transactions, New-Orders
// among them, complete in the first two seconds. Users starting at their
// first menu would complete none: the shortest keying time is 2 s, a
// New-Order's 18 s. 200 users complete about 9.7 a second in the steady
// state, a third of them New-Orders (the draws follow the seed).
func TestKeyedUsersStartSteady(t *testing.T) {
	res, err := RunStep(context.Background(), idleTarget{time.Millisecond}, StepConfig{Users: 200, Warehouses: 20, Seed: 1,
		Constants: tpcc.LoadConstants(1).WithRunConstants(tpcc.NewRand(1, 1)), Spec: Spec{Duration: 1900 * time.Millisecond, Mode: engine.Statements, KeyingThinking: true}})
	if err != nil {
		t.Fatal(err)
	}
	no := res.Txn[tpcc.NewOrderTxn].Count
	t.Logf("%d transactions, %d New-Orders in %s", res.Completed(), no, res.Measured().Round(time.Millisecond))
	if res.Completed() < 8 || no < 2 {
		t.Errorf("%d transactions, %d New-Orders in the first %s: want at least 8 and 2 (about 18 and 6 from a steady start, none in step)",
			res.Completed(), no, res.Measured().Round(time.Millisecond))
	}
}
