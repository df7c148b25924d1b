// Package driver runs virtual users against an engine: the TPC-C mix from a
// deck per user, optional keying and think times, retries of serialization
// failures and deadlocks, reconnection after a lost connection, HdrHistogram
// latencies and per-second throughput, for one step (a number of users with
// a ramp-up and a measured duration) at a time.
package driver

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync/atomic"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/rightsize/rightsize/engine"
	"github.com/rightsize/rightsize/internal/rawsock"
	"github.com/rightsize/rightsize/tpcc"
)

// Target is what the driver needs from an engine.
type Target interface {
	NewExecutor(ctx context.Context, mode engine.Mode) (tpcc.Executor, error)
	Classify(err error) engine.ErrClass
}

// Spec is how every step of a run goes, as run's flags and a plan's
// autopilot say it. scenario.RunOptions and the Autopilot embed it and
// hand it to each StepConfig as it is, so an option added here reaches
// the step without being copied on the way (the autopilot only puts in
// the resolved mode and a worker's share of the connections).
type Spec struct {
	// Rampup (not measured) and Duration (measured) are each step's
	// lengths, the caps when a StepControl ends the phases.
	Rampup   time.Duration
	Duration time.Duration
	// Mode is procedures or statements ("": the engine's default, which
	// the autopilot resolves before the step).
	Mode           engine.Mode
	KeyingThinking bool
	// Connections, when over 0 and below Users, is how many connections
	// the users share (a pool, as a TP monitor multiplexes terminals):
	// each user takes one for a transaction, its retries included, and
	// gives it back before it thinks; waiting for one counts in the
	// response time. 0: one connection per user.
	Connections int
	// Delivery, when DeliveryDeferred, queues each Delivery for the
	// step's delivery workers (DeliveryWorkers, each on its own
	// connection) as clause 2.7.2 defines; the terminal's response time is
	// the queueing, and StepResult.Deferred has the executions. The zero
	// value is interactive.
	Delivery Delivery
	// ReconnectTimeout ends the step (partial, ErrServerLost) when a user
	// cannot reconnect for this long (0: DefaultReconnectTimeout).
	ReconnectTimeout time.Duration
	// Workload, when set, is run instead of TPC-C (see Workload); its
	// figures are StepResult.Kinds. Keying, shared connections and
	// deferred Delivery are TPC-C's and refused with it.
	Workload Workload
	// Rate, when above 0, paces the Workload's users to this many
	// transactions per second in all, as pgbench -R does: one Poisson
	// schedule the users share (see pacer). A transaction's latency then
	// counts from its scheduled start, and how late it started is its
	// schedule lag (StepResult.ScheduleLag). 0: as fast as the users go.
	// When workers drive the step (StepConfig.AllUsers), each paces its
	// users' share of it (rateShare).
	Rate float64
	// LatencyLimit, when above 0, counts the Workload's transactions
	// whose latency exceeds it (StepResult.Late), as pgbench -L does;
	// with Rate, a transaction whose scheduled start is further behind
	// than the limit when a user is free for it is not sent but counted
	// skipped (StepResult.Skipped): it could not have met the limit.
	LatencyLimit time.Duration
}

// DefaultMaxRetries is StepConfig.MaxRetries's default: a transaction
// runs at most 11 times.
const DefaultMaxRetries = 10

// DefaultReconnectTimeout is Spec.ReconnectTimeout's default, also run's
// --reconnect-timeout's and a plan's reconnect_timeout's.
const DefaultReconnectTimeout = 30 * time.Second

// StepConfig describes one step.
type StepConfig struct {
	Spec
	Users int
	// DeliveryDrain is how long after the users stop the delivery workers
	// may still run what is queued (0: DeliveryDeadline); what is left
	// then counts as not delivered.
	DeliveryDrain time.Duration
	Warehouses    int
	Constants     tpcc.Constants // with CLastRun set
	Seed          uint64
	// MaxRetries bounds retries of one transaction (serialization failures,
	// deadlocks); 0: DefaultMaxRetries.
	MaxRetries int
	// ServerCPU, when set, returns the database server's cumulative CPU
	// time; it is sampled at the same instants as the driver's own CPU.
	ServerCPU func() time.Duration
	// OnMeasureStart, when set, is called as the ramp-up ends (the
	// autopilot snapshots server counters there).
	OnMeasureStart func()
	// ServerAlive, when set, is polled every 250 ms; once it reports false
	// the step ends at once (partial, ErrServerLost). Managed servers use it:
	// nobody will restart a server rightsize started and saw die.
	ServerAlive func() bool
	// AdaptiveProcs runs the step with as few Ps (GOMAXPROCS) as the
	// driver's CPU use allows, starting at one (see procsGovernor), and
	// restores GOMAXPROCS at the end. It changes a process-wide setting:
	// only the program's one running step should set it.
	AdaptiveProcs bool
	// Loops is how many loops run a Workload's users whose connections
	// can wait in one (LoopUser: PostgreSQL's scripts): each loop is one
	// goroutine that runs its users as coroutines and waits for their
	// sockets itself, as one of pgbench's threads (-j) does, and holds a
	// P throughout (GOMAXPROCS is raised to Loops+1 during the step). 0:
	// one per 16 such users, at most one per core; -1: none, every user
	// on a goroutine of its own.
	Loops int
	// HomeFirst and HomeCount, when HomeCount > 0, restrict the users' home
	// warehouses to HomeFirst..HomeFirst+HomeCount-1 (a worker's slice);
	// remote warehouses still range over all Warehouses.
	HomeFirst, HomeCount int
	// FirstUser and AllUsers, when AllUsers > 0, place this process's
	// Users among the AllUsers of a step several workers drive: a
	// Workload's user i is user FirstUser+i of AllUsers (pgbench's
	// :client_id and random streams).
	FirstUser, AllUsers int
	// StartAt, when set, is called once the users are connected and
	// returns the instant the step starts at (workers agree on it); the
	// users wait until then.
	StartAt func(context.Context) (time.Time, error)
	// OnProgress, when set, is called every second from the step's own
	// goroutine with the live figures (see Progress). It reads only what
	// the step counts anyway.
	OnProgress func(Progress)
	// Control, when set, may end the ramp-up or the measurement before
	// Rampup or Duration (which are then caps): see StepControl.
	Control StepControl
	// TxnLog, when set, gets every measured transaction of a Workload's
	// users as it ends (pgbench -l); TPC-C's are not logged.
	TxnLog TxnLog
}

// StepControl decides when a step's phases end (steady state reached,
// precision reached). The driver calls it once per whole second from the
// step's own goroutine, with the per-second counts it keeps anyway, so
// virtual users are not slowed.
type StepControl interface {
	// EndRampup gets the completed transactions of each whole second
	// since the step started; true ends the ramp-up now.
	EndRampup(txn []int64) bool
	// EndMeasure gets the completed transactions and New-Orders of each
	// whole second since the measurement started; true ends it now.
	EndMeasure(txn, newOrders []int64) bool
}

// Progress is the live state of a step, for progress bars and lines.
type Progress struct {
	Users     int
	Measuring bool          // false during the ramp-up
	Elapsed   time.Duration // into the current phase (ramp-up or measurement)
	Phase     time.Duration // the current phase's length
	// TPM and NOPM are the completed transactions and New-Orders per
	// minute over the last 10 whole seconds (fewer at the start).
	TPM, NOPM float64
	// Errors counts failed transactions since the step started (ramp-up
	// included).
	Errors int64
	// P95 is the 95th percentile latency over all transaction types of
	// the last finished 10 s window (0 before the first one ends).
	P95 time.Duration
	// Retries counts retried attempts since the step started.
	Retries int64
	// Txn and NewOrders count completed transactions and New-Orders since
	// the step started (ramp-up included), over whole seconds.
	Txn, NewOrders int64
	// LastWindow is the last finished 10 s window (nil before the first);
	// WindowsDone counts the finished windows, so a reader can tell a new
	// one from the one it has seen. Its histograms are not written again.
	LastWindow  *Window
	WindowsDone int
}

// Remaining is the time left in the current phase.
func (p Progress) Remaining() time.Duration { return max(p.Phase-p.Elapsed, 0) }

// ErrServerLost ends a step whose users could not reconnect within
// StepConfig.ReconnectTimeout.
var ErrServerLost = errors.New("lost the database server: virtual users could not reconnect")

// A Fataler is an error of a Workload's transaction after which no user
// can go on (a pgbench script's meta-command failing, where pgbench
// aborts its client): the step ends at once, partial, with a
// *ScriptError, rather than counting the same error at full speed.
type Fataler interface {
	error
	Fatal() bool
}

// ScriptError ends a step whose user met a Fataler.
type ScriptError struct {
	User int
	Err  error
}

func (e *ScriptError) Error() string {
	return fmt.Sprintf("user %d stopped the step: %v (the script cannot go on here, as pgbench aborts its client; fix the script)", e.User+1, e.Err)
}

func (e *ScriptError) Unwrap() error { return e.Err }

// fatal reports whether err is a Fataler that says so.
func fatal(err error) bool {
	var f Fataler
	return errors.As(err, &f) && f.Fatal()
}

// end ends the step with err, unless another user ended it first (a lost
// server; a Fataler, met in failed).
func (u *user) end(err error) {
	select {
	case u.ended <- err:
	default:
	}
}

// TxnStats are the figures of one transaction type over the measured interval.
type TxnStats struct {
	Count     int64 // completed, including rolled-back New-Orders
	Rollbacks int64 // New-Orders rolled back by the simulated user error
	Retries   int64
	Errors    int64
	// FirstError is the text of the first error of this type, if any.
	FirstError string
	Hist       *hdrhistogram.Histogram `json:"-"`
}

// Window is the latency of one 10 s window of the step (ramp-up included).
type Window struct {
	Start time.Duration // offset from the step start
	Hists [tpcc.NumTxnTypes]*hdrhistogram.Histogram
	// Kinds are a Workload's kinds' histograms (nil for TPC-C).
	Kinds []*hdrhistogram.Histogram
}

// StepResult is everything measured in one step.
type StepResult struct {
	Users        int
	StepStart    time.Time // users started
	MeasureStart time.Time // ramp-up over
	MeasureEnd   time.Time
	Txn          [tpcc.NumTxnTypes]TxnStats
	// Kinds are a Workload's figures per kind, named by KindNames (nil
	// for TPC-C, whose figures are Txn).
	Kinds     []TxnStats
	KindNames []string
	// KindFigure is the Workload's Figure: the kind whose rate NOPM is
	// (-1: every kind).
	KindFigure int
	// Statements are the Workload's commands timed one by one over the
	// measured interval (nil unless it is a StatementWorkload).
	Statements        []StatementStats
	SkippedDeliveries int64
	// Deferred is the deferred execution of the Deliveries queued in the
	// measured interval (nil unless StepConfig.Delivery is deferred).
	Deferred          *DeferredStats
	Reconnects        int64
	DriverCPU         time.Duration // this process's user+system CPU during the measured interval
	ServerCPU         time.Duration // the server's CPU during the measured interval (0 when unknown)
	PerSecondTxn      []int64       // completed transactions per second since StepStart
	PerSecondNewOrder []int64
	Windows           []Window
	Partial           bool // interrupted before the end of the measured interval
	// Err says why a partial step ended early (nil after Ctrl-C).
	Err error

	// ScheduleLag and ScheduleLagMax are the mean and the largest
	// schedule lag of the transactions started in the measured interval
	// when Spec.Rate paced them (0 otherwise): how long after its
	// scheduled start each began, as pgbench -R reports it.
	ScheduleLag, ScheduleLagMax time.Duration
	// Late counts the transactions completed in the measured interval
	// whose latency exceeded Spec.LatencyLimit, and Skipped those whose
	// scheduled start in it was further behind than the limit, which were
	// not sent (pgbench -L with -R); 0 without a limit.
	Late, Skipped int64

	// OrderLines and RemoteOrderLines count the lines of completed
	// New-Orders and those supplied by another warehouse; RemotePayments
	// the completed Payments of another warehouse's customer (the shares
	// of clause 5.5.1.5 a validity verdict checks).
	OrderLines, RemoteOrderLines, RemotePayments int64
}

// Measured is the length of the measured interval.
func (s *StepResult) Measured() time.Duration { return s.MeasureEnd.Sub(s.MeasureStart) }

// Completed is the number of completed transactions in the measured interval.
func (s *StepResult) Completed() int64 {
	var n int64
	for _, t := range s.Txn {
		n += t.Count
	}
	for _, t := range s.Kinds {
		n += t.Count
	}
	return n
}

// TPM is completed transactions (all types) per minute.
func (s *StepResult) TPM() float64 { return perMinute(s.Completed(), s.Measured()) }

// NOPM is completed New-Orders per minute (rolled-back ones included, as the
// spec counts them; Rollbacks tells how many). For a Workload it is its
// figure of merit per minute: KindFigure's completions, or every kind's.
func (s *StepResult) NOPM() float64 {
	if s.KindNames == nil {
		return perMinute(s.Txn[tpcc.NewOrderTxn].Count, s.Measured())
	}
	if f := s.KindFigure; f >= 0 && f < len(s.Kinds) {
		return perMinute(s.Kinds[f].Count, s.Measured())
	}
	return s.TPM()
}

// DriverCPUPerTxn is the driver's CPU time per completed transaction in µs.
func (s *StepResult) DriverCPUPerTxn() float64 {
	if n := s.Completed(); n > 0 {
		return float64(s.DriverCPU.Microseconds()) / float64(n)
	}
	return 0
}

func perMinute(n int64, d time.Duration) float64 {
	if d <= 0 {
		return 0
	}
	return float64(n) / d.Minutes()
}

// ErrAllUsersFailed is returned when no virtual user could connect.
var ErrAllUsersFailed = errors.New("no virtual user could connect")

// ServerCPUPerTxn is the server's CPU time per completed transaction in µs
// (0 when unknown).
func (s *StepResult) ServerCPUPerTxn() float64 {
	if n := s.Completed(); n > 0 && s.ServerCPU > 0 {
		return float64(s.ServerCPU.Microseconds()) / float64(n)
	}
	return 0
}

// userStats are one user's counters over the measured interval; only that
// user writes them, and they are read after it stops.
type userStats struct {
	// per kind (tpcc.TxnType for TPC-C), sized by newUserStats
	count, retries, errors         []int64
	firstErr                       []error
	rollbacks, skipped, reconnects int64
	lines, remoteLines             int64
	remotePayments                 int64
	// the measured paced transactions' schedule lag (Spec.Rate)
	lagSum, lagMax time.Duration
	lagN           int64
	// over Spec.LatencyLimit: completed late, and skipped (never sent)
	late, dropped int64
	_             [64]byte
}

type user struct {
	id   int
	cfg  *StepConfig
	tgt  Target
	exec tpcc.Executor
	// pool, when users share connections, lends exec for a transaction
	// (held says it is lent).
	pool connPool
	held bool
	// deliveries, with deferred Delivery, queues the user's Deliveries.
	deliveries *deliveryQueue
	rec        *recorder
	stats      *userStats
	win        *measureWindow
	stop       chan struct{}
	ended      chan error // a user that ends the step says why here
	term       *tpcc.Terminal
	// wu is the user of a Workload (nil for TPC-C's term and exec).
	wu User
	wl Workload
	// loop runs wu's connection when it waits in one (see StepConfig.Loops).
	loop *rawsock.Loop
	// pace is the step's schedule when Spec.Rate paces it (nil otherwise).
	pace *pacer
	// backoff draws the waits before retries (its own source, so that
	// retries do not shift the transaction inputs).
	backoff *rand.Rand
	// logTxn, when StepConfig.TxnLog is set, logs wu's measured
	// transactions.
	logTxn func(TxnEntry)
}

// maxRetryBackoff caps the wait before a retry.
const maxRetryBackoff = 64 * time.Millisecond

// retryBackoff is how long a user waits before the attempt-th retry of a
// transaction that failed with a serialization failure or a deadlock: a
// random wait up to 1 ms × 2^attempt, at most maxRetryBackoff ("full
// jitter" exponential backoff), so that the transactions that collided
// do not meet again at once. The wait counts in the transaction's
// response time, as the terminal's user waits it too.
func retryBackoff(attempt int, r *rand.Rand) time.Duration {
	ceil := min(time.Millisecond<<min(attempt, 16), maxRetryBackoff)
	return time.Duration(r.Int64N(int64(ceil))) + 1
}

// sleep waits d or until the step stops; it reports whether to go on.
func (u *user) sleep(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return true
	}
	if u.loop != nil {
		return u.loopSleep(ctx, d)
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-u.stop:
		return false
	case <-ctx.Done():
		return false
	}
}

func (u *user) stopped() bool {
	select {
	case <-u.stop:
		return true
	default:
		return false
	}
}

func (u *user) run(ctx context.Context) {
	cfg := u.cfg
	r := tpcc.NewRand(cfg.Seed, uint64(u.id)+1<<32)
	first, count := 1, cfg.Warehouses
	if cfg.HomeCount > 0 {
		first, count = cfg.HomeFirst, cfg.HomeCount
	}
	home := first + u.id%count
	dist := (u.id/count)%tpcc.DistrictsPerWarehouse + 1
	u.term = tpcc.NewTerminal(r, cfg.Constants, cfg.Warehouses, home, dist)
	defer func() { // a lent connection went back with its transaction (transact)
		if u.exec != nil {
			_ = u.exec.Close(context.Background())
		}
	}()
	var phase tpcc.StartPhase // the steady state's, so keyed users do not start in step
	if cfg.KeyingThinking {
		phase = tpcc.SteadyStart(r)
		if !phase.Keying && !u.sleep(ctx, phase.Wait) {
			return
		}
	}
	for first := true; !u.stopped() && ctx.Err() == nil; first = false {
		t, keying := u.next(first, phase)
		if cfg.KeyingThinking && !u.sleep(ctx, keying) {
			return
		}
		if t == tpcc.DeliveryTxn && u.deliveries != nil {
			if !u.queueDelivery(ctx) {
				return
			}
		} else if !u.transact(ctx, t) {
			return
		}
		if cfg.KeyingThinking && !u.sleep(ctx, tpcc.ThinkTime(t, r)) {
			return
		}
	}
}

// transact runs the user's transaction t on a connection (with retries of
// serialization failures and deadlocks) and counts it; it reports false
// when the step ended first.
func (u *user) transact(ctx context.Context, t tpcc.TxnType) bool {
	defer u.giveBack()
	start, ok := u.connection(ctx)
	if !ok {
		return false
	}
	var err error
	for attempt := 0; ; attempt++ {
		err = u.term.Exec(ctx, u.exec, t)
		if err == nil || ctx.Err() != nil || u.tgt.Classify(err) != engine.ErrRetry || attempt >= u.cfg.MaxRetries {
			break
		}
		if u.measured(time.Now()) {
			u.stats.retries[t]++
		}
		u.rec.retries.Add(1)
		if !u.sleep(ctx, retryBackoff(attempt, u.backoff)) {
			return false // the step ended while waiting: nothing to count
		}
	}
	end := time.Now()
	if ctx.Err() != nil {
		return false
	}
	if err != nil {
		return u.failed(ctx, t, err, u.measured(end))
	}
	measured := u.measured(end)
	u.rec.record(u.id, t, end.Sub(start), end, measured)
	if measured {
		u.stats.count[t]++
		if t == tpcc.NewOrderTxn && u.term.NewOrderOut.RolledBack {
			u.stats.rollbacks++
		}
		if t == tpcc.DeliveryTxn {
			u.stats.skipped += int64(u.term.DeliveryOut.Skipped)
		}
		u.countRemote(t)
	}
	return true
}

// failed counts a transaction that failed after its retries, and
// reconnects after a lost connection; it reports false when the user
// cannot go on.
func (u *user) failed(ctx context.Context, t tpcc.TxnType, err error, measured bool) bool {
	if measured {
		u.stats.errors[t]++
	}
	u.rec.errors.Add(1)
	if u.stats.firstErr[t] == nil {
		u.stats.firstErr[t] = err
	}
	if fatal(err) {
		u.end(&ScriptError{User: u.id, Err: err})
		return false
	}
	if u.tgt.Classify(err) == engine.ErrConnection {
		u.closeConn()
		return u.reconnect(ctx)
	}
	return true
}

// closeConn closes the user's connection after it was lost.
func (u *user) closeConn() {
	if u.wu != nil {
		_ = u.wu.Close(context.Background())
		u.wu = nil
		return
	}
	_ = u.exec.Close(context.Background())
	u.exec = nil
}

// open opens the user's connection again: a new executor, or a new User
// of its Workload.
func (u *user) open(ctx context.Context) error {
	if u.wl != nil {
		wu, err := u.wl.NewUser(ctx, u.tgt, u.userConfig())
		if err == nil && u.loop != nil {
			err = attach(wu, u.loop)
		}
		if err == nil {
			u.wu = wu
		}
		return err
	}
	e, err := u.tgt.NewExecutor(ctx, u.cfg.Mode)
	if err == nil {
		u.exec = e
	}
	return err
}

// next returns the user's next transaction, its inputs drawn, and its
// keying time: the one it was keying at the start of the step, first, if
// start says so, else the deck's next card.
func (u *user) next(first bool, start tpcc.StartPhase) (tpcc.TxnType, time.Duration) {
	if first && start.Keying {
		return u.term.Prepare(start.Txn), start.Wait
	}
	t := u.term.Next()
	return t, tpcc.KeyingTime(t)
}

// countRemote counts the order lines and remote shares of a completed
// New-Order or Payment.
func (u *user) countRemote(t tpcc.TxnType) {
	switch t {
	case tpcc.NewOrderTxn:
		in := &u.term.NewOrderIn
		u.stats.lines += int64(len(in.Lines))
		for _, l := range in.Lines {
			if l.SupplyWID != in.WID {
				u.stats.remoteLines++
			}
		}
	case tpcc.PaymentTxn:
		if u.term.PaymentIn.CWID != u.term.PaymentIn.WID {
			u.stats.remotePayments++
		}
	}
}

func (u *user) measured(t time.Time) bool { return u.win.contains(t) }

// measureWindow is the measured interval as users read it; the step's
// goroutine moves it when a StepControl ends a phase early.
type measureWindow struct{ start, end atomic.Int64 } // Unix ns

func (w *measureWindow) set(start, end time.Time) {
	w.start.Store(start.UnixNano())
	w.end.Store(end.UnixNano())
}

func (w *measureWindow) contains(t time.Time) bool {
	n := t.UnixNano()
	return n >= w.start.Load() && n < w.end.Load()
}

// perSecond is the step's per-second counts of whole seconds, copied from
// the recorder's atomics once a second for a StepControl.
type perSecond struct{ txn, newOrders []int64 }

func (p *perSecond) update(rec *recorder, done int) {
	for i := len(p.txn); i < done && i < len(rec.perSecTxn); i++ {
		p.txn = append(p.txn, rec.perSecTxn[i].Load())
		p.newOrders = append(p.newOrders, rec.perSecNO[i].Load())
	}
}

// maxReconnectBackoff caps the wait between a user's reconnect attempts:
// a restarted server is found within a second of taking connections again
// (with 5 s, users came back up to 5 s late, the measured interval losing
// that time), and one connection attempt per user a second is no load on
// a server that is down.
const maxReconnectBackoff = time.Second

// reconnect retries with exponential backoff (100 ms .. maxReconnectBackoff)
// until it succeeds, the step stops, or ReconnectTimeout passes (then it
// reports the server lost).
func (u *user) reconnect(ctx context.Context) bool {
	backoff := 100 * time.Millisecond
	deadline := time.Now().Add(u.cfg.ReconnectTimeout)
	for {
		if err := u.open(ctx); err == nil {
			u.stats.reconnects++
			return true
		}
		if time.Now().After(deadline) {
			u.end(ErrServerLost)
			return false
		}
		if !u.sleep(ctx, min(backoff, time.Until(deadline)+time.Millisecond)) {
			return false
		}
		backoff = min(backoff*2, maxReconnectBackoff)
	}
}
