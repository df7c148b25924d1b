package scenario

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/rightsize/rightsize/driver"
	"github.com/rightsize/rightsize/engine"
	"github.com/rightsize/rightsize/steady"
	"github.com/rightsize/rightsize/telemetry"
	"github.com/rightsize/rightsize/tpcc"
	"github.com/rightsize/rightsize/waits"
)

// Restorer is implemented by engines that can return the database to its
// freshly built state quickly (PostgreSQL: a template database).
type Restorer interface {
	// Snapshot records the current state as the one Restore returns to.
	Snapshot(ctx context.Context) error
	// Restore brings the database back to the snapshot.
	Restore(ctx context.Context) error
}

// RunSpec is what a run's autopilot does, as run's flags and a plan's
// autopilot say it: each step's driver.Spec, the users of the steps, the
// repeats and the time-to-answer rules, the transaction inputs' seed and
// the wait sampling. RunOptions and the Autopilot embed it, so an option
// added here reaches the autopilot without being copied on the way.
type RunSpec struct {
	// Spec is every step's (driver.StepConfig.Spec).
	driver.Spec
	Users   []int
	Repeats int
	// RebuildBetweenRepeats restores the freshly built state before every
	// repeat after the first (the engine must implement Restorer).
	RebuildBetweenRepeats bool
	// Seed seeds the transaction inputs (RunOptions: 0 is random).
	Seed uint64
	// NoWaits turns wait sampling off; WaitInterval is its interval
	// (0: waits.DefaultInterval).
	NoWaits      bool
	WaitInterval time.Duration
	// Answer ends ramp-ups at steady state and measurements at a
	// precision (run's --rampup auto, --duration auto); Rampup and
	// Duration are then the caps (--rampup-max, --duration-max).
	Answer steady.Plan
	// RepeatAuto (--repeat auto) stops repeating once every step's TPM
	// and NOPM agree across the repeats (CV at most MaxCV); Repeats is
	// then the maximum (--repeat-max).
	RepeatAuto bool
	MaxCV      float64
	// TxnLog asks for each step's per-transaction log of a pgbench
	// workload (run --log, as pgbench -l).
	TxnLog TxnLogSpec
}

// Autopilot describes a sequence of steps repeated Repeats times.
type Autopilot struct {
	// RunSpec is the run's, with the Mode resolved, and the Users and
	// Connections this worker's share.
	RunSpec
	DB         engine.DB
	Warehouses int
	Constants  tpcc.Constants
	// AfterRestore, when set, runs after each restore between repeats
	// (RunOptions.Prewarm loads the cache again).
	AfterRestore func(ctx context.Context) error
	// Unthrottled, when set, runs the restore between repeats with the
	// server's I/O limits lifted (registry.Target.Unthrottled).
	Unthrottled func(fn func() error) error
	// ServerPID is the database server's process (0: not on this machine).
	ServerPID int
	// ServerDataDir is the managed server's data directory ("": none): a
	// step ends, as for a dead server, once its file system is full.
	ServerDataDir string
	// ServerIO is the server's cgroup directory whose block I/O counters
	// the telemetry samples (telemetry.Sampler.ServerIO; "": none).
	ServerIO string
	// AdaptiveProcs runs every step with as few Ps as the driver needs
	// (driver.StepConfig.AdaptiveProcs).
	AdaptiveProcs bool
	// Loops is every step's driver.StepConfig.Loops.
	Loops int
	// Worker numbers this process among the workers of a run (its users'
	// random streams differ from the others'); HomeFirst and HomeCount
	// are its slice of home warehouses (driver.StepConfig).
	Worker               int
	HomeFirst, HomeCount int
	// Workers, when over 0, is how many workers share each step's
	// AllUsers (the run's users before the shares; Users are this
	// worker's): a workload's users are numbered among all of them
	// (driver.StepConfig.FirstUser).
	Workers  int
	AllUsers []int
	// StepStart, when set, returns the instant step seq (0-based over
	// repeats and steps) starts at, once its users are connected: the
	// workers of one run agree on it.
	StepStart func(ctx context.Context, seq int) (time.Time, error)
	// Interval is the telemetry sampling interval (default 1 s).
	Interval time.Duration
	// OnStepStart, when set, is told about each step before it starts.
	OnStepStart func(repeat, index, users int)
	// OnProgress, when set, gets the live figures of the running step
	// every second (driver.StepConfig.OnProgress).
	OnProgress func(repeat, index int, p driver.Progress)
	// ServerCPUs is the server's CPU cap (--cpus; 0: the host's CPUs).
	ServerCPUs float64
	// OnRepeatsEnd, when set with RepeatAuto, is told how many repeats
	// were made and why no more.
	OnRepeatsEnd func(repeats int, how string)
}

// StepRecord is one finished step with its telemetry.
type StepRecord struct {
	Repeat, Index int // 1-based repeat, 0-based position in Users
	Result        *driver.StepResult
	Ending        Ending
	Samples       []telemetry.Sample // the whole step, ramp-up included
	Host          telemetry.Summary  // over the measured interval
	Counters      engine.Counters    // server counters' change over the measured interval
	CountersOK    bool
	// WAL is the WAL written in each second of the step's PerSecondTxn
	// (nil where the database cannot tell its WAL position).
	WAL        []int64
	Waits      *waits.Profile    // nil with NoWaits
	Saturation *waits.Saturation // nil without host samples
}

// ErrNoRestore is returned when RebuildBetweenRepeats is asked of an engine
// that cannot restore.
var ErrNoRestore = errors.New("this engine cannot restore the built state between repeats")

// unthrottled runs fn through a.Unthrottled when set.
func (a *Autopilot) unthrottled(fn func() error) error {
	if a.Unthrottled == nil {
		return fn()
	}
	return a.Unthrottled(fn)
}

// Run runs every step and hands each to sink as soon as it is measured (so
// a store keeps everything measured even if the run is interrupted). It
// stops at the first partial step (Ctrl-C) and returns ctx's error then.
func (a *Autopilot) Run(ctx context.Context, sink func(context.Context, StepRecord) error) error {
	if a.Repeats < 1 {
		a.Repeats = 1
	}
	var restorer Restorer
	if a.RebuildBetweenRepeats && a.Repeats > 1 {
		r, ok := a.DB.(Restorer)
		if !ok {
			return ErrNoRestore
		}
		restorer = r
		if err := a.unthrottled(func() error { return r.Snapshot(ctx) }); err != nil {
			return fmt.Errorf("snapshot the built database: %w", err)
		}
	}
	interval := a.Interval
	if interval <= 0 {
		interval = telemetry.DefaultInterval
	}
	recCtx, stopRec := context.WithCancel(context.Background())
	defer stopRec()
	smp := telemetry.NewSampler(interval, a.ServerPID)
	smp.ServerIO = a.ServerIO
	rec := smp.Start(recCtx)
	defer rec.Stop()

	agree := newAgreement(a.MaxCV)
	for repeat := 1; repeat <= a.Repeats; repeat++ {
		if repeat > 1 && restorer != nil {
			if err := a.unthrottled(func() error { return restorer.Restore(ctx) }); err != nil {
				return fmt.Errorf("restore the built database before repeat %d: %w", repeat, err)
			}
			if a.AfterRestore != nil {
				if err := a.AfterRestore(ctx); err != nil {
					return fmt.Errorf("after restoring the built database before repeat %d: %w", repeat, err)
				}
			}
		}
		for i, users := range a.Users {
			if a.OnStepStart != nil {
				a.OnStepStart(repeat, i, users)
			}
			rec := a.step(ctx, rec, repeat, i, users)
			if rec.err != nil {
				return rec.err
			}
			if err := sink(ctx, rec.StepRecord); err != nil && ctx.Err() == nil {
				return fmt.Errorf("store step %d of repeat %d: %w", i+1, repeat, err)
			}
			if rec.logErr != nil {
				return fmt.Errorf("step %d of repeat %d is stored, but not its --log: %w", i+1, repeat, rec.logErr)
			}
			if rec.Result.Partial {
				if rec.Result.Err != nil {
					return rec.Result.Err
				}
				return ctx.Err()
			}
			agree.add(i, rec.Result)
		}
		if !a.RepeatAuto {
			continue
		}
		if ok, how := agree.check(repeat, a.Repeats); ok || repeat == a.Repeats {
			if a.OnRepeatsEnd != nil {
				a.OnRepeatsEnd(repeat, how)
			}
			break
		}
	}
	return nil
}

type stepOutcome struct {
	StepRecord
	err error
	// logErr is the step's transaction log's (the step is kept)
	logErr error
}

func (a *Autopilot) step(ctx context.Context, rec *telemetry.Recording, repeat, index, users int) stepOutcome {
	cfg, ctl := a.stepConfig(repeat, index, users)
	log, err := a.openTxnLog((repeat-1)*len(a.Users)+index, cfg.Seed)
	if err != nil {
		return stepOutcome{StepRecord: StepRecord{Repeat: repeat, Index: index}, err: err}
	}
	if log != nil {
		cfg.TxnLog = log
	}
	out := a.measure(ctx, rec, repeat, index, cfg, ctl)
	if log != nil {
		out.logErr = log.Close()
	}
	return out
}

// stepConfig is the driver's configuration of a step, with the controller
// that ends its phases (nil: fixed lengths).
func (a *Autopilot) stepConfig(repeat, index, users int) (driver.StepConfig, *steady.Controller) {
	cfg := driver.StepConfig{Spec: a.Spec, Users: users, Warehouses: a.Warehouses, Constants: a.Constants, Seed: a.Seed + uint64(repeat)<<20 + uint64(index),
		AdaptiveProcs: a.AdaptiveProcs, Loops: a.Loops, HomeFirst: a.HomeFirst, HomeCount: a.HomeCount}
	cfg.Seed += uint64(a.Worker) << 40
	if a.Workers > 0 && index < len(a.AllUsers) {
		cfg.FirstUser, cfg.AllUsers = FirstShare(a.AllUsers[index], a.Worker, a.Workers), a.AllUsers[index]
	}
	if a.StepStart != nil {
		seq := (repeat-1)*len(a.Users) + index
		cfg.StartAt = func(ctx context.Context) (time.Time, error) { return a.StepStart(ctx, seq) }
	}
	if a.OnProgress != nil {
		cfg.OnProgress = func(p driver.Progress) { a.OnProgress(repeat, index, p) }
	}
	var ctl *steady.Controller
	if a.Answer.RampupAuto || a.Answer.DurationAuto {
		ctl = steady.NewController(a.Answer)
		cfg.Control = ctl
	}
	if a.ServerPID > 0 {
		pid := a.ServerPID
		cfg.ServerCPU = func() time.Duration { d, _ := telemetry.ProcessTreeCPU(pid); return d }
		cfg.ServerAlive = serverAlive(pid, a.ServerDataDir)
	}
	return cfg, ctl
}

// measure runs the step cfg describes with the server's counters, waits,
// WAL and the host's telemetry around it.
func (a *Autopilot) measure(ctx context.Context, rec *telemetry.Recording, repeat, index int, cfg driver.StepConfig, ctl *steady.Controller) stepOutcome {
	out := stepOutcome{StepRecord: StepRecord{Repeat: repeat, Index: index}}
	var before engine.Counters
	var beforeErr error
	// Counters are read when the ramp-up ends and when measuring stops.
	sw := a.openWaits(ctx)
	cfg.OnMeasureStart = func() {
		before, beforeErr = a.DB.Counters(context.Background())
		sw.start(ctx, a.waitInterval())
	}
	wal := startWAL(ctx, a.DB)
	res, err := driver.RunStep(ctx, a.DB, cfg)
	out.Waits = sw.stop(context.WithoutCancel(ctx))
	if err != nil {
		wal.stop(time.Time{}, 0)
		out.err = err
		return out
	}
	out.WAL = wal.stop(res.StepStart, len(res.PerSecondTxn))
	after, afterErr := a.DB.Counters(context.Background())
	if beforeErr == nil && afterErr == nil {
		out.Counters = diffCounters(after, before)
		out.CountersOK = true
	}
	out.Result = res
	out.Ending = ending(a.Answer, ctl, res)
	out.Samples = rec.Window(res.StepStart, res.MeasureEnd)
	measured := telemetry.Window(out.Samples, res.MeasureStart, res.MeasureEnd)
	out.Host = telemetry.Summarize(measured)
	out.Saturation = saturation(measured, out.Host, serverOf(a.DB.Caps().Server, a.ServerPID), a.ServerCPUs)
	out.Waits.AddServerCPU(out.Saturation)
	return out
}

func diffCounters(a, b engine.Counters) engine.Counters {
	d := engine.Counters{Commits: a.Commits - b.Commits, Rollbacks: a.Rollbacks - b.Rollbacks, BlocksRead: a.BlocksRead - b.BlocksRead,
		BlocksHit: a.BlocksHit - b.BlocksHit, WALBytes: a.WALBytes - b.WALBytes, Checkpoints: a.Checkpoints - b.Checkpoints}
	if len(a.Extra) > 0 {
		d.Extra = map[string]int64{}
		for k, v := range a.Extra {
			d.Extra[k] = v - b.Extra[k]
		}
	}
	return d
}
