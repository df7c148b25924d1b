package driver

import (
	"cmp"
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
	"time"

	"github.com/rightsize/rightsize/engine"
	"github.com/rightsize/rightsize/telemetry"
	"github.com/rightsize/rightsize/tpcc"
)

// RunStep runs one step. Cancelling ctx ends it early: the result is then
// marked Partial and covers what was measured until then.
func RunStep(ctx context.Context, tgt Target, cfg StepConfig) (*StepResult, error) {
	s, err := newStep(tgt, cfg)
	if err != nil {
		return nil, err
	}
	if err := s.connect(ctx); err != nil {
		return nil, err
	}
	defer s.close()
	s.start()
	s.loop(ctx)
	s.stop(ctx)
	s.collect()
	return s.res, nil
}

// step is one running step: its configuration, its connections, users and
// delivery workers, and what the step's own goroutine keeps while it
// runs. RunStep calls its phases in order: connect, start, loop, stop,
// collect; close releases what is left.
type step struct {
	cfg StepConfig
	tgt Target

	// connect
	userExecs, workerExecs []tpcc.Executor
	wusers                 []User // a Workload's users (nil for TPC-C)

	// start
	pool  connPool // users share connections (nil: one each)
	gov   *procsGovernor
	procs *time.Ticker // the governor's (nil without AdaptiveProcs)
	// restoreProcs is the GOMAXPROCS to restore at the end when the
	// step's loops raised it without a governor (0: none).
	restoreProcs int
	res          *StepResult
	rec          *recorder
	stats        []userStats
	win          *measureWindow
	seconds      int // the step's whole seconds at the caps
	halt         chan struct{}
	ended        chan error
	runCtx       context.Context // the users' and workers': cancelled 2 s after halt
	cancel       context.CancelFunc
	users        sync.WaitGroup
	queue        *deliveryQueue // deferred Deliveries (nil: interactive)
	drain        chan struct{}  // closed when the delivery workers must stop
	delivers     sync.WaitGroup

	// loop
	measureStart, measureEnd time.Time
	measuring                bool
	serverCPU                func() time.Duration
	cpuStart, srvStart       time.Duration
	winStart                 time.Duration
	series                   perSecond
	lastP95                  time.Duration
	lastWin                  *Window
}

// newStep checks cfg and fills its defaults.
func newStep(tgt Target, cfg StepConfig) (*step, error) {
	if cfg.Users < 1 {
		return nil, fmt.Errorf("users must be at least 1 (got %d)", cfg.Users)
	}
	if cfg.MaxRetries == 0 {
		cfg.MaxRetries = DefaultMaxRetries
	}
	if cfg.ReconnectTimeout <= 0 {
		cfg.ReconnectTimeout = DefaultReconnectTimeout
	}
	if err := checkWorkload(&cfg); err != nil {
		return nil, err
	}
	s := &step{cfg: cfg, tgt: tgt, serverCPU: cfg.ServerCPU}
	if s.serverCPU == nil {
		s.serverCPU = func() time.Duration { return 0 }
	}
	return s, nil
}

// connect connects the step's users (one connection each, or the
// Connections they share) and, with deferred Delivery, its delivery
// workers, before the step starts so that connecting is not measured;
// then it waits for StartAt.
func (s *step) connect(ctx context.Context) error {
	cfg := &s.cfg
	if cfg.Workload != nil {
		return s.connectWorkload(ctx)
	}
	conns := Connections(cfg.Users, cfg.Connections)
	nw := 0
	if cfg.Delivery.Deferred() {
		nw = DeliveryWorkers(cmp.Or(cfg.HomeCount, cfg.Warehouses))
	}
	execs, err := connectAll(ctx, s.tgt, cfg.Mode, conns+nw)
	if err != nil {
		if conns < cfg.Users || nw > 0 {
			return fmt.Errorf("connect %d connections for %d virtual users and %d delivery workers: %w", conns, cfg.Users, nw, err)
		}
		return fmt.Errorf("connect %d virtual users: %w", cfg.Users, err)
	}
	if cfg.StartAt != nil {
		if err := waitStart(ctx, cfg.StartAt); err != nil {
			for _, e := range execs {
				_ = e.Close(context.Background())
			}
			return fmt.Errorf("agree on the step's start: %w", err)
		}
	}
	s.userExecs, s.workerExecs = execs[:conns], execs[conns:]
	return nil
}

// start starts the step: the procs governor, the delivery workers and the
// users; the step's clock starts now.
func (s *step) start() {
	cfg := &s.cfg
	if len(s.userExecs) < cfg.Users {
		s.pool = newConnPool(s.userExecs)
	}
	if cfg.AdaptiveProcs {
		s.gov = startProcsGovernor()
		s.procs = time.NewTicker(procsInterval)
	}
	stepStart := time.Now()
	s.res = &StepResult{Users: cfg.Users, StepStart: stepStart}
	s.measureStart = stepStart.Add(cfg.Rampup)
	s.measureEnd = s.measureStart.Add(cfg.Duration)
	s.win = &measureWindow{}
	s.setWindow()
	s.seconds = int((cfg.Rampup + cfg.Duration) / time.Second)
	s.rec = s.newRecorder(stepStart)
	s.stats = newUserStats(cfg.Users, s.rec.kinds)
	s.halt = make(chan struct{})
	s.ended = make(chan error, 1)
	s.runCtx, s.cancel = context.WithCancel(context.Background())
	s.drain = make(chan struct{})
	if len(s.workerExecs) > 0 {
		s.startDeliveryWorkers()
	}
	var wusers []*user
	for i := range cfg.Users {
		u := &user{
			id: i, cfg: cfg, tgt: s.tgt, pool: s.pool, deliveries: s.queue, rec: s.rec, stats: &s.stats[i],
			win: s.win, stop: s.halt, ended: s.ended,
			backoff: rand.New(rand.NewPCG(cfg.Seed, uint64(i)+1)),
		}
		if cfg.Workload != nil {
			u.wl, u.wu = cfg.Workload, s.wusers[i]
			wusers = append(wusers, u)
			continue
		}
		if s.pool == nil {
			u.exec = s.userExecs[i]
		}
		s.users.Go(func() { u.run(s.runCtx) })
	}
	s.startWorkloadUsers(wusers)
}

// procsFloor keeps GOMAXPROCS at n or more for the step: each loop holds
// a P, and the step's other goroutines need one.
func (s *step) procsFloor(n int) {
	if s.gov != nil {
		s.gov.raiseFloor(n)
		return
	}
	if old := runtime.GOMAXPROCS(0); old < n {
		runtime.GOMAXPROCS(n)
		s.restoreProcs = old
	}
}

// close releases what the step holds once its users have stopped.
func (s *step) close() {
	s.cancel()
	if s.procs != nil {
		s.procs.Stop()
		s.gov.restore()
	}
	if s.restoreProcs > 0 {
		runtime.GOMAXPROCS(s.restoreProcs)
	}
	if s.pool != nil {
		s.pool.close()
	}
}

// clock is the step goroutine's timers and tickers; a nil channel never
// fires.
type clock struct {
	rampDone, end                   *time.Timer
	window                          *time.Ticker
	control, progress, alive, procs <-chan time.Time
	tickers                         []*time.Ticker
}

func (s *step) newClock() *clock {
	c := &clock{rampDone: time.NewTimer(s.cfg.Rampup), end: time.NewTimer(time.Until(s.measureEnd)),
		window: time.NewTicker(WindowLength)}
	c.control = c.ticker(s.cfg.Control != nil, time.Second)
	c.progress = c.ticker(s.cfg.OnProgress != nil, time.Second)
	c.alive = c.ticker(s.cfg.ServerAlive != nil, 250*time.Millisecond)
	if s.procs != nil {
		c.procs = s.procs.C
	}
	return c
}

// ticker returns the channel of a new ticker of period d, or nil when off.
func (c *clock) ticker(on bool, d time.Duration) <-chan time.Time {
	if !on {
		return nil
	}
	t := time.NewTicker(d)
	c.tickers = append(c.tickers, t)
	return t.C
}

func (c *clock) stop() {
	c.rampDone.Stop()
	c.end.Stop()
	c.window.Stop()
	for _, t := range c.tickers {
		t.Stop()
	}
}

// loop is the step's own goroutine while the users run: it ends the
// ramp-up and the measurement (by the clock, a StepControl, Ctrl-C, a
// lost server or a user's fatal script error), rotates the latency windows, reports progress and ticks
// the procs governor.
func (s *step) loop(ctx context.Context) {
	c := s.newClock()
	defer c.stop()
	for ended := false; !ended; {
		select {
		case <-c.rampDone.C:
			s.startMeasuring()
		case now := <-c.control:
			ended = s.control(now, c)
		case <-c.window.C:
			s.rotate()
		case now := <-c.progress:
			s.progress(now)
		case <-c.end.C:
			ended = true
		case <-ctx.Done():
			s.res.Partial = true
			ended = true
		case err := <-s.ended:
			s.res.Partial, s.res.Err = true, err
			ended = true
		case now := <-c.procs:
			s.gov.tick(now)
		case <-c.alive:
			if !s.cfg.ServerAlive() {
				s.res.Partial, s.res.Err = true, ErrServerLost
				ended = true
			}
		}
	}
}

// setWindow moves the measured interval the users read (and the
// transaction log's) to measureStart..measureEnd.
func (s *step) setWindow() {
	s.win.set(s.measureStart, s.measureEnd)
	if s.cfg.TxnLog != nil {
		s.cfg.TxnLog.Window(s.measureStart, s.measureEnd)
	}
}

// startMeasuring ends the ramp-up: the measured interval's CPU starts.
func (s *step) startMeasuring() {
	s.measuring = true
	s.cpuStart, s.srvStart = telemetry.SelfCPU(), s.serverCPU()
	if s.cfg.OnMeasureStart != nil {
		s.cfg.OnMeasureStart()
	}
}

// control asks the StepControl whether to end the ramp-up or the
// measurement now; it reports whether the step ends.
func (s *step) control(now time.Time, c *clock) bool {
	stepStart := s.res.StepStart
	s.series.update(s.rec, int(now.Sub(stepStart)/time.Second))
	switch {
	case !s.measuring && s.cfg.Control.EndRampup(s.series.txn):
		c.rampDone.Stop()
		s.measureStart, s.measureEnd = now, now.Add(s.cfg.Duration)
		s.setWindow()
		c.end.Reset(s.cfg.Duration)
		s.startMeasuring()
	case s.measuring:
		first := min(int((s.measureStart.Sub(stepStart)+time.Second/2)/time.Second), len(s.series.txn))
		if s.cfg.Control.EndMeasure(s.series.txn[first:], s.series.newOrders[first:]) {
			s.measureEnd = now
			s.setWindow()
			return true
		}
	}
	return false
}

// rotate closes the current latency window.
func (s *step) rotate() {
	s.res.Windows = append(s.res.Windows, s.window())
	s.winStart += WindowLength
	if s.cfg.OnProgress != nil {
		s.lastWin = &s.res.Windows[len(s.res.Windows)-1]
		s.lastP95 = s.lastWin.p95()
	}
}

// progress reports the live figures to OnProgress.
func (s *step) progress(now time.Time) {
	p := s.rec.progress(now, s.cfg, s.measureStart, s.lastP95)
	if s.lastWin != nil {
		w := *s.lastWin
		p.LastWindow, p.WindowsDone = &w, len(s.res.Windows)
	}
	s.cfg.OnProgress(p)
}

// stop ends the measured interval and stops the users (in-flight
// transactions may finish within 2 s, uncounted; then they are
// cancelled) and the delivery workers, and closes the last window.
func (s *step) stop(ctx context.Context) {
	res := s.res
	now := time.Now()
	if !s.measuring { // interrupted during ramp-up
		s.measureStart = now
		s.startMeasuring()
	}
	res.DriverCPU = telemetry.SelfCPU() - s.cpuStart
	res.ServerCPU = s.serverCPU() - s.srvStart
	res.MeasureStart, res.MeasureEnd = s.measureStart, s.measureEnd
	if res.Partial && now.Before(s.measureEnd) {
		res.MeasureEnd = now
	}
	close(s.halt)
	s.waitOrCancel(doneOf(&s.users))
	if s.queue != nil {
		d := s.drainDeliveries(ctx)
		res.Deferred = &d
		res.SkippedDeliveries += d.Skipped
	}
	if s.winStart < time.Since(res.StepStart) {
		res.Windows = append(res.Windows, s.window())
	}
}

// doneOf returns a channel closed once g is done.
func doneOf(g *sync.WaitGroup) <-chan struct{} {
	done := make(chan struct{})
	go func() { g.Wait(); close(done) }()
	return done
}

// waitOrCancel waits for done, cancelling the users' and workers' context
// if it takes over 2 s.
func (s *step) waitOrCancel(done <-chan struct{}) {
	select {
	case <-done:
	case <-time.After(2 * time.Second):
		s.cancel()
		<-done
	}
}

// collect adds up what the users counted and recorded, once they have
// stopped: per transaction type, the step's counters and the per-second
// series up to the measured interval's end (the step's seconds at most).
func (s *step) collect() {
	res := s.res
	txn := s.kindStats()
	if s.cfg.Workload != nil {
		res.Kinds, res.KindNames, res.KindFigure = txn, s.cfg.Workload.Kinds(), s.cfg.Workload.Figure()
		res.Statements = s.rec.stmts.stats()
	} else {
		copy(res.Txn[:], txn)
	}
	var lagSum time.Duration
	var lagN int64
	for i := range s.stats {
		u := &s.stats[i]
		lagSum, lagN, res.ScheduleLagMax = lagSum+u.lagSum, lagN+u.lagN, max(res.ScheduleLagMax, u.lagMax)
		res.Late, res.Skipped = res.Late+u.late, res.Skipped+u.dropped
		res.Txn[tpcc.NewOrderTxn].Rollbacks += u.rollbacks
		res.SkippedDeliveries += u.skipped
		res.Reconnects += u.reconnects
		res.OrderLines += u.lines
		res.RemoteOrderLines += u.remoteLines
		res.RemotePayments += u.remotePayments
	}
	if lagN > 0 {
		res.ScheduleLag = lagSum / time.Duration(lagN)
	}
	n := min(s.seconds, int(res.MeasureEnd.Sub(res.StepStart)/time.Second)+1)
	res.PerSecondTxn = make([]int64, n)
	res.PerSecondNewOrder = make([]int64, n)
	for i := range n {
		res.PerSecondTxn[i] = s.rec.perSecTxn[i].Load()
		res.PerSecondNewOrder[i] = s.rec.perSecNO[i].Load()
	}
}

// connectAll opens n executors, 16 at a time; on an error it closes those
// it opened and returns the first error.
func connectAll(ctx context.Context, tgt Target, mode engine.Mode, n int) ([]tpcc.Executor, error) {
	execs := make([]tpcc.Executor, n)
	var connErr error
	var mu sync.Mutex
	var wg sync.WaitGroup
	sem := make(chan struct{}, 16)
	for i := range execs {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			e, err := tgt.NewExecutor(ctx, mode)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				connErr = cmp.Or(connErr, err)
				return
			}
			execs[i] = e
		}()
	}
	wg.Wait()
	if connErr != nil {
		for _, e := range execs {
			if e != nil {
				_ = e.Close(context.Background())
			}
		}
		return nil, connErr
	}
	return execs, nil
}

// waitStart waits until the instant startAt returns.
func waitStart(ctx context.Context, startAt func(context.Context) (time.Time, error)) error {
	at, err := startAt(ctx)
	if err != nil {
		return err
	}
	return Sleep(ctx, time.Until(at))
}

// Sleep waits d, or returns ctx's error when it ends first.
func Sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
