package driver

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/rightsize/rightsize/engine"
	"github.com/rightsize/rightsize/tpcc"
)

// Deferred Delivery (clause 2.7.2): with StepConfig.Delivery deferred a
// user's Delivery is queued, and the terminal's response time is the
// queueing; the step's delivery workers, each on a connection of its own,
// run the queued Deliveries in order, and at least 90 % of them must
// complete within DeliveryDeadline of being queued (5.2.5.3).

// DeliveryDeadline is the time within which 90 % of deferred Deliveries
// must complete after being queued (clause 5.2.5.3).
const DeliveryDeadline = 80 * time.Second

// deliveriesPerWorker are the home warehouses one delivery worker serves.
const deliveriesPerWorker = 10

// DeliveryWorkers is the number of delivery workers (and their
// connections) a step with deferred Delivery runs for its home warehouses:
// one per 10 warehouses, at least one. A worker runs a Delivery in tens
// of milliseconds; 10 warehouses of keyed users queue one every 2.3 s.
func DeliveryWorkers(warehouses int) int {
	return max(1, (warehouses+deliveriesPerWorker-1)/deliveriesPerWorker)
}

// Delivery is how a step runs the Delivery transaction: in the user's own
// transaction or deferred (clause 2.7.2). The zero value is interactive.
type Delivery string

// Delivery choices.
const (
	// DeliveryInteractive runs Delivery in the user's own transaction, as
	// HammerDB does; the default.
	DeliveryInteractive Delivery = "interactive"
	// DeliveryDeferred queues each Delivery for the step's delivery
	// workers (DeliveryWorkers).
	DeliveryDeferred Delivery = "deferred"
)

// ParseDelivery reads a --delivery value: "" or "interactive" (Delivery in
// the user's own transaction) or "deferred" (queued for delivery workers).
func ParseDelivery(s string) (Delivery, error) {
	switch Delivery(s) {
	case "", DeliveryInteractive:
		return DeliveryInteractive, nil
	case DeliveryDeferred:
		return DeliveryDeferred, nil
	}
	return "", fmt.Errorf("%q is not interactive or deferred", s)
}

// Deferred reports whether Deliveries are queued for delivery workers.
func (d Delivery) Deferred() bool { return d == DeliveryDeferred }

// DeferredStats are the deferred executions of the Deliveries queued in
// the measured interval.
type DeferredStats struct {
	// Count, Retries and FirstError as TxnStats; Hist is the time from
	// queueing to completion (µs, up to an hour). Errors counts the
	// Deliveries that failed and those not complete DeliveryDeadline after
	// the measured interval ended (or when the step was interrupted).
	TxnStats
	// Skipped counts the districts skipped for want of an undelivered
	// order (2.7.4.2).
	Skipped int64
}

// deferredDelivery is one queued Delivery.
type deferredDelivery struct {
	queued   time.Time
	in       tpcc.DeliveryInput
	measured bool // queued in the measured interval
}

// deliveryQueue is a step's queue of deferred Deliveries and what its
// workers measured.
type deliveryQueue struct {
	ch chan deferredDelivery

	mu    sync.Mutex // guards stats
	stats DeferredStats
}

func newDeliveryQueue(users int) *deliveryQueue {
	return &deliveryQueue{ch: make(chan deferredDelivery, 4*users),
		stats: DeferredStats{TxnStats: TxnStats{Hist: hdrhistogram.New(histMin, int64(time.Hour/time.Microsecond), histSigFigs)}}}
}

// queueDelivery is a user's deferred Delivery: it queues the inputs its
// terminal drew and records the queueing as the transaction's response
// time. It reports false when the step ends first.
func (u *user) queueDelivery(ctx context.Context) bool {
	start := time.Now()
	d := deferredDelivery{queued: start, in: u.term.DeliveryIn, measured: u.measured(start)}
	select {
	case u.deliveries.ch <- d:
	case <-u.stop:
		return false
	case <-ctx.Done():
		return false
	}
	end := time.Now()
	// counted by the instant it was queued, as its deferred execution is
	u.rec.record(u.id, tpcc.DeliveryTxn, end.Sub(start), end, d.measured)
	if d.measured {
		u.stats.count[tpcc.DeliveryTxn]++
	}
	return true
}

// deliveryWorker runs queued Deliveries on its own connection until the
// queue is empty after stop, or drain ends (the deadline after the
// measured interval), or ctx ends.
type deliveryWorker struct {
	q       *deliveryQueue
	tgt     Target
	mode    engine.Mode
	exec    tpcc.Executor
	retries int
	backoff *rand.Rand
	out     tpcc.DeliveryResult
}

func (w *deliveryWorker) run(ctx context.Context, stop, drain <-chan struct{}) {
	defer func() {
		if w.exec != nil {
			_ = w.exec.Close(context.Background())
		}
	}()
	for {
		var d deferredDelivery
		select {
		case d = <-w.q.ch:
		case <-stop:
			select {
			case d = <-w.q.ch:
			default:
				return // stopped and the queue is empty
			}
		case <-ctx.Done():
			return
		}
		select {
		case <-drain:
			w.q.count(d, time.Now(), 0, 0, errNotDelivered)
			continue
		default:
		}
		retries, err := w.deliver(ctx, &d)
		w.q.count(d, time.Now(), retries, int64(w.out.Skipped), err)
	}
}

// errNotDelivered marks a queued Delivery its worker did not run in time.
var errNotDelivered = errors.New("queued, not run by the end of the step (its delivery workers run what is queued for up to 80 s after the measured interval)")

// deliver runs one Delivery with the users' retry rule, reconnecting once
// after a lost connection.
func (w *deliveryWorker) deliver(ctx context.Context, d *deferredDelivery) (int64, error) {
	var retries int64
	for attempt := 0; ; attempt++ {
		if w.exec == nil {
			e, err := w.tgt.NewExecutor(ctx, w.mode)
			if err != nil {
				return retries, err
			}
			w.exec = e
		}
		err := w.exec.Delivery(ctx, &d.in, &w.out)
		switch {
		case err == nil || ctx.Err() != nil:
			return retries, err
		case w.tgt.Classify(err) == engine.ErrConnection:
			_ = w.exec.Close(context.Background())
			w.exec = nil
			if attempt > 0 {
				return retries, err
			}
		case w.tgt.Classify(err) != engine.ErrRetry || attempt >= w.retries:
			return retries, err
		}
		retries++
		time.Sleep(retryBackoff(attempt, w.backoff))
	}
}

// count records a measured Delivery's deferred execution.
func (q *deliveryQueue) count(d deferredDelivery, done time.Time, retries, skipped int64, err error) {
	if !d.measured {
		return
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	s := &q.stats
	s.Retries += retries
	if err != nil {
		s.Errors++
		if s.FirstError == "" {
			s.FirstError = err.Error()
		}
		return
	}
	s.Count++
	s.Skipped += skipped
	_ = s.Hist.RecordValue(max(done.Sub(d.queued).Microseconds(), histMin))
}

// result returns what the workers measured once they have stopped; the
// measured Deliveries still queued count as errors.
func (q *deliveryQueue) result() DeferredStats {
	for len(q.ch) > 0 {
		q.count(<-q.ch, time.Now(), 0, 0, errNotDelivered)
	}
	return q.stats
}

// drainDeliveries lets the delivery workers run what was queued until the
// queue is empty, for at most DeliveryDrain after the users stopped (none
// when the step was interrupted or ctx ends), and returns what they
// measured. A Delivery still running 2 s after that is cancelled, as the
// users' transactions are.
func (s *step) drainDeliveries(ctx context.Context) DeferredStats {
	done := doneOf(&s.delivers)
	if !s.res.Partial {
		t := time.NewTimer(cmp.Or(s.cfg.DeliveryDrain, DeliveryDeadline))
		defer t.Stop()
		select {
		case <-done:
		case <-t.C:
		case <-ctx.Done():
		}
	}
	close(s.drain)
	s.waitOrCancel(done)
	return s.queue.result()
}

// startDeliveryWorkers starts a delivery worker on each of the step's
// worker connections, and the queue they run.
func (s *step) startDeliveryWorkers() {
	cfg := &s.cfg
	s.queue = newDeliveryQueue(cfg.Users)
	for i, e := range s.workerExecs {
		w := &deliveryWorker{q: s.queue, tgt: s.tgt, mode: cfg.Mode, exec: e, retries: cfg.MaxRetries,
			backoff: rand.New(rand.NewPCG(cfg.Seed, uint64(cfg.Users+i)+1))}
		s.delivers.Go(func() { w.run(s.runCtx, s.halt, s.drain) })
	}
}
