package driver

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/rightsize/rightsize/engine"
	"github.com/rightsize/rightsize/tpcc"
)

// TestDeferredDelivery: with deferred Delivery the users queue their
// Deliveries (the terminal's response time is the queueing, well under the
// 2 ms service time) and one delivery worker per 10 warehouses, on its own
// connection, runs every one queued in the measured interval (queue to
// completion at least the service time). A worker too slow for the queue
// leaves Deliveries not run when the drain time ends, counted as errors.
func TestDeferredDelivery(t *testing.T) {
	for _, tc := range []struct {
		name       string
		warehouses int
		delivery   time.Duration // service time of a Delivery
		backlog    bool
	}{
		{"workers keep up", 12, 0, false},
		{"worker too slow", 1, 100 * time.Millisecond, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tgt := &countingTarget{service: 2 * time.Millisecond, delivery: tc.delivery}
			res, err := RunStep(context.Background(), tgt, StepConfig{Users: 10, DeliveryDrain: 300 * time.Millisecond, Warehouses: tc.warehouses, Seed: 1,
				Constants: tpcc.LoadConstants(1).WithRunConstants(tpcc.NewRand(1, 1)), Spec: Spec{Delivery: DeliveryDeferred, Duration: time.Second, Mode: engine.Statements}})
			if err != nil {
				t.Fatal(err)
			}
			d := res.Deferred
			if d == nil {
				t.Fatal("no deferred Delivery figures")
			}
			term := res.Txn[tpcc.DeliveryTxn]
			termP50 := time.Duration(term.Hist.ValueAtQuantile(50)) * time.Microsecond
			t.Logf("%d queued (p50 %s), %d delivered (p50 %s), %d not delivered (%s); %d connections opened, %d closed",
				term.Count, termP50, d.Count, time.Duration(d.Hist.ValueAtQuantile(50))*time.Microsecond, d.Errors, d.FirstError,
				tgt.opened.Load(), tgt.closed.Load())
			if want := int64(10 + DeliveryWorkers(tc.warehouses)); tgt.opened.Load() != want || tgt.closed.Load() != want {
				t.Errorf("%d connections opened, %d closed, want %d each (users and delivery workers)", tgt.opened.Load(), tgt.closed.Load(), want)
			}
			if term.Count == 0 || termP50 >= time.Millisecond {
				t.Errorf("terminal Delivery: %d queued, p50 %s: want some, queued well under the 2 ms service time", term.Count, termP50)
			}
			if got := d.Count + d.Errors; got != term.Count {
				t.Errorf("%d delivered + %d not, want the %d queued in the interval", d.Count, d.Errors, term.Count)
			}
			if backlog := d.Errors > 0 && strings.Contains(d.FirstError, "queued, not run"); backlog != tc.backlog {
				t.Errorf("not delivered %d (%q): want a backlog %v", d.Errors, d.FirstError, tc.backlog)
			}
			if !tc.backlog && time.Duration(d.Hist.ValueAtQuantile(50))*time.Microsecond < 2*time.Millisecond {
				t.Errorf("queue to completion p50 under the 2 ms service time")
			}
		})
	}
}
