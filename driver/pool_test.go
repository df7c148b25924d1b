package driver

import (
	"cmp"
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rightsize/rightsize/engine"
	"github.com/rightsize/rightsize/tpcc"
)

// countingTarget's executors take a fixed service time, like idleTarget's,
// and it counts the connections opened, closed and busy at once.
type countingTarget struct {
	service                   time.Duration
	opened, closed, busy, top atomic.Int64
	// lose fails that many transactions with a lost connection.
	lose atomic.Int64
	// delivery, when set, is a Delivery's service time.
	delivery time.Duration
}

var errLost = errors.New("connection lost")

func (t *countingTarget) NewExecutor(context.Context, engine.Mode) (tpcc.Executor, error) {
	t.opened.Add(1)
	return &countingExec{t: t}, nil
}
func (*countingTarget) Classify(err error) engine.ErrClass {
	if errors.Is(err, errLost) {
		return engine.ErrConnection
	}
	return engine.ErrOther
}

// countingExec serves every transaction type in its target's service time
// (a Delivery in its own, when set).
type countingExec struct {
	t *countingTarget
}

func (e *countingExec) run(ctx context.Context) error { return e.serve(ctx, e.t.service) }

func (e *countingExec) serve(ctx context.Context, service time.Duration) error {
	if e.t.lose.Add(-1) >= 0 {
		return errLost
	}
	n := e.t.busy.Add(1)
	defer e.t.busy.Add(-1)
	for {
		top := e.t.top.Load()
		if n <= top || e.t.top.CompareAndSwap(top, n) {
			break
		}
	}
	return idleExec{service}.wait(ctx)
}
func (e *countingExec) NewOrder(ctx context.Context, _ *tpcc.NewOrderInput, _ *tpcc.NewOrderResult) error {
	return e.run(ctx)
}
func (e *countingExec) Payment(ctx context.Context, _ *tpcc.PaymentInput, _ *tpcc.PaymentResult) error {
	return e.run(ctx)
}
func (e *countingExec) OrderStatus(ctx context.Context, _ *tpcc.OrderStatusInput, _ *tpcc.OrderStatusResult) error {
	return e.run(ctx)
}
func (e *countingExec) Delivery(ctx context.Context, _ *tpcc.DeliveryInput, _ *tpcc.DeliveryResult) error {
	return e.serve(ctx, cmp.Or(e.t.delivery, e.t.service))
}
func (e *countingExec) StockLevel(ctx context.Context, _ *tpcc.StockLevelInput, _ *tpcc.StockLevelResult) error {
	return e.run(ctx)
}
func (e *countingExec) Close(context.Context) error { e.t.closed.Add(1); return nil }

// TestSharedConnections: 40 users sharing 4 connections open 4, use at most
// 4 at once, close all 4, and their response times include the wait for a
// connection (10 users queue for each 2 ms connection: about 20 ms, not
// 2; the line is drawn at 5 service times, far from both on a loaded
// machine); without Connections each user has its own.
func TestSharedConnections(t *testing.T) {
	for _, tc := range []struct {
		name                  string
		connections, wantOpen int
		queued                bool
	}{
		{"shared", 4, 4, true},
		{"one each", 0, 40, false},
		{"more connections than users", 80, 40, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tgt := &countingTarget{service: 2 * time.Millisecond}
			res, err := RunStep(context.Background(), tgt, StepConfig{Users: 40, Warehouses: 4, Seed: 1, Constants: tpcc.LoadConstants(1).WithRunConstants(tpcc.NewRand(1, 1)), Spec: Spec{Connections: tc.connections, Duration: time.Second, Mode: engine.Statements}})
			if err != nil {
				t.Fatal(err)
			}
			p50 := time.Duration(res.Txn[tpcc.PaymentTxn].Hist.ValueAtQuantile(50)) * time.Microsecond
			t.Logf("%d opened, %d closed, at most %d busy; %d transactions, Payment p50 %s", tgt.opened.Load(), tgt.closed.Load(), tgt.top.Load(), res.Completed(), p50)
			if o, c := tgt.opened.Load(), tgt.closed.Load(); o != int64(tc.wantOpen) || c != o {
				t.Errorf("%d connections opened, %d closed; want %d, all closed", o, c, tc.wantOpen)
			}
			if top := tgt.top.Load(); top > int64(tc.wantOpen) {
				t.Errorf("%d connections busy at once, want at most %d", top, tc.wantOpen)
			}
			if res.Completed() == 0 {
				t.Fatal("no transaction completed")
			}
			if queued := p50 >= 5*tgt.service; queued != tc.queued {
				t.Errorf("Payment p50 %s: want the wait for a connection counted (%v)", p50, tc.queued)
			}
		})
	}
}

// TestSharedConnectionLost: a user whose shared connection is lost
// reconnects, and the new connection goes back to the pool; every
// connection opened is closed at the end.
func TestSharedConnectionLost(t *testing.T) {
	tgt := &countingTarget{service: time.Millisecond}
	tgt.lose.Store(3)
	res, err := RunStep(context.Background(), tgt, StepConfig{Users: 20, Warehouses: 2, Seed: 1, Constants: tpcc.LoadConstants(1).WithRunConstants(tpcc.NewRand(1, 1)), Spec: Spec{Connections: 2, Duration: 500 * time.Millisecond, Mode: engine.Statements}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Reconnects != 3 || tgt.opened.Load() != 2+3 || tgt.closed.Load() != tgt.opened.Load() || tgt.top.Load() > 2 {
		t.Errorf("%d reconnects, %d opened, %d closed, at most %d busy: want 3, 5, 5 and 2", res.Reconnects, tgt.opened.Load(), tgt.closed.Load(), tgt.top.Load())
	}
	if res.Completed() == 0 {
		t.Error("no transaction completed after the reconnects")
	}
}
