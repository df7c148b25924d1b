package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/rightsize/rightsize/analysis"
	"github.com/rightsize/rightsize/driver"
	"github.com/rightsize/rightsize/engine"
	"github.com/rightsize/rightsize/execute"
	"github.com/rightsize/rightsize/registry"
	"github.com/rightsize/rightsize/report"
	"github.com/rightsize/rightsize/scenario"
	"github.com/rightsize/rightsize/store"
	"github.com/rightsize/rightsize/telemetry"
	"github.com/rightsize/rightsize/waits"
)

// runFlags are the flags of run that become scenario.RunOptions.
type runFlags struct {
	o        scenario.RunOptions
	users    string
	json     bool
	interval time.Duration
	// metricsAddr serves live Prometheus metrics during the run (run only).
	metricsAddr string
	workers     workerFlags // run only
	answer      answerFlags
	workload    workloadFlags
	txnLog      txnLogFlags // run only
}

func (f *runFlags) register(cmd *cobra.Command) {
	cmd.Flags().StringVarP(&f.users, "users", "u", "1", "virtual users per step: N, a list, fib:N or A..BxF")
	f.answer.register(cmd)
	f.workload.register(cmd)
	cmd.Flags().BoolVar(&f.o.RebuildBetweenRepeats, "rebuild-between-repeats", false, "restore the freshly built database before each repeat")
	f.o.Mode, f.o.Delivery, f.o.Isolation = "", driver.DeliveryInteractive, engine.IsolationSpec // the defaults help shows
	cmd.Flags().Var(modeValue(&f.o.Mode), "mode", "procedures or statements (default: procedures where the engine has them)")
	cmd.Flags().BoolVar(&f.o.KeyingThinking, "keying-thinking", false, "use the spec's keying and think times")
	cmd.Flags().Var(deliveryValue(&f.o.Delivery), "delivery", "interactive (Delivery in the user's own transaction, as HammerDB runs it) or deferred (queued for delivery workers, TPC-C clause 2.7.2)")
	cmd.Flags().IntVar(&f.o.Connections, "connections", 0, "connections the users of a step share, as a TP monitor multiplexes terminals (0: one per user); for keyed users, idle most of the time")
	cmd.Flags().Uint64Var(&f.o.Seed, "seed", 0, "seed of the transaction inputs (default: random)")
	cmd.Flags().DurationVar(&f.o.LatencyLimit, "latency-limit", 0, "count a pgbench workload's transactions whose latency exceeds this (such as 50ms) as late, as pgbench -L; with --rate, one already further behind its schedule than the limit is not sent but counted skipped (0: none)")
	cmd.Flags().Float64Var(&f.o.Rate, "rate", 0, "pace a pgbench workload's users to this many transactions per second in all, as pgbench -R: one Poisson schedule they share; latency counts from each transaction's scheduled start, and how late it started is its schedule lag (0: back to back)")
	cmd.Flags().IntVarP(&f.o.Warehouses, "warehouses", "w", 0, "expected warehouse count of the schema (error if it differs)")
	cmd.Flags().BoolVar(&f.json, "json", false, "print one JSON object instead of the text summary")
	cmd.Flags().StringVar(&f.o.Label, "label", "", "name this run (reports and compare accept it instead of the run id)")
	cmd.Flags().DurationVar(&f.o.ReconnectTimeout, "reconnect-timeout", driver.DefaultReconnectTimeout, "end the step (partial) when users cannot reconnect for this long")
	cmd.Flags().DurationVar(&f.interval, "progress-interval", 10*time.Second, "without a terminal, print a progress line this often during a step (0: none)")
	cmd.Flags().IntVar(&f.o.DriverProcs, "driver-procs", 0, "GOMAXPROCS of the driver during steps (0: start at 1 and add as the driver's CPU use needs)")
	cmd.Flags().IntVar(&f.o.DriverLoops, "driver-loops", 0, "loops that run a pgbench workload's PostgreSQL users, each one thread waiting for its users' sockets as pgbench -j's threads (0: one per 16 users; -1: a goroutine per user)")
	cmd.Flags().BoolVar(&f.o.NoWaits, "no-waits", false, "do not sample the server's wait events during steps")
	cmd.Flags().BoolVar(&f.o.Prewarm, "prewarm", false, "load every table and index into the server's cache before the first ramp-up (PostgreSQL: pg_prewarm), so a short run measures the cache's size, not its cold start")
	cmd.Flags().DurationVar(&f.o.WaitInterval, "wait-interval", waits.DefaultInterval, "interval of wait event sampling")
	cmd.Flags().Var(isolationValue(&f.o.Isolation), "isolation", "spec (TPC-C level 3 on each engine) or read-committed (as HammerDB runs; recorded as not spec-compliant)")
}

// options turns the flags into validated run options.
func (f *runFlags) options(cmd *cobra.Command) (scenario.RunOptions, error) {
	o := f.o
	var err error
	if o.Users, err = driver.ParseUsers(f.users); err != nil {
		return o, badInput(err)
	}
	o.Flags = allFlags(cmd)
	f.answer.apply(cmd, &o)
	if wl, err := f.workload.workload(cmd.Name()); err != nil {
		return o, badInput(err)
	} else if wl != nil {
		o.Workload = wl
		if err := checkScriptEngine(cmd, wl); err != nil {
			return o, err
		}
	}
	if o.TxnLog, err = f.txnLog.spec(cmd); err != nil {
		return o, badInput(err)
	}
	if err := o.Validate(); err != nil {
		return o, badInput(err)
	}
	if f.interval < 0 {
		return o, badInput(fmt.Errorf("--progress-interval must not be negative (got %s)", f.interval))
	}
	return o, checkPrewarm(cmd, o)
}

// checkPrewarm refuses --prewarm before a server starts when the target's
// engine cannot load its cache (registry.Engine.CheckPrewarm).
func checkPrewarm(cmd *cobra.Command, o scenario.RunOptions) error {
	spec, err := cmd.Flags().GetString("target")
	if !o.Prewarm || err != nil {
		return nil
	}
	if e, _, err := registry.EngineOf(spec); err == nil {
		if err := e.CheckPrewarm(); err != nil {
			return badInput(err)
		}
	}
	return nil
}

func newRunCmd() *cobra.Command {
	var tf targetFlags
	var rf runFlags
	var bf baselineFlags
	cmd := &cobra.Command{
		Use:   "run",
		Short: "Run virtual users with the TPC-C mix (an autopilot of steps) and store TPM, NOPM, latencies and telemetry",
		Long: `run starts the virtual users of each step in parallel, lets them ramp up
(not measured), then measures for --duration; steps follow the --users sequence
and the whole sequence is repeated --repeat times. Everything measured is kept
in the results store (--store, default ./rightsize.db).

--users takes a number, a list (1,2,4), fib:89 (1,2,3,5,...,89) or a range
1..128x2 (doubling) / 10..50+10 (adding).`,
		Example: `  rightsize run --users 4 --rampup 10s --duration 1m
  rightsize run --users fib:89 --rampup 2m --duration 5m --repeat 3 --label ssd-16cores
  rightsize run --users 1,2,4 --mode statements --json
  rightsize run --target postgres://postgres:secret@db1/tpcc --users 16 --keying-thinking
  rightsize run --users 1000 --keying-thinking --connections 100 --delivery deferred --rampup 10m --duration 2h
  rightsize run --users 1,2,4 --label candidate --baseline main --max-regression 2.5% --junit gate.xml`,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o, err := rf.options(cmd)
			if err != nil {
				return err
			}
			if err := rf.txnLog.prepare(cmd, o); err != nil {
				return err
			}
			baseID, th, err := bf.check(cmd, o.Users)
			if err != nil {
				return err
			}
			tf.forUsers(o.Users, o.Connections)
			join, err := rf.workers.setup(cmd, &o)
			if err != nil {
				return err
			}
			o.Version, o.Commit = version, commit
			c, err := tf.config(false, 2, o)
			if err != nil {
				return err
			}
			rep, err := runConfig(cmd, &tf, c, &rf, join)
			if err != nil || baseID == "" || rep == nil {
				return err
			}
			return bf.gate(cmd.Context(), cmd, baseID, rep.RunID, th, rf.json)
		},
	}
	tf.register(cmd)
	rf.register(cmd)
	bf.register(cmd)
	rf.workers.register(cmd)
	cmd.Flags().StringVar(&rf.metricsAddr, "metrics-addr", "", "serve live Prometheus metrics on this address during the run, e.g. :9464 (default: off)")
	rf.txnLog.register(cmd)
	return cmd
}

// allFlags records every flag of a command, changed or not.
func allFlags(cmd *cobra.Command) map[string]string {
	m := map[string]string{}
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		if f.Name == "help" {
			return
		}
		v := f.Value.String()
		if f.Name == "target" {
			v = registry.Redact(v)
		}
		m[f.Name] = v
	})
	return m
}

// meetingJoiner makes this process one worker of a shared run, once the
// store is open (workerFlags.setup).
type meetingJoiner func(*store.Store) (scenario.Meeting, error)

// runConfig measures run's configuration c with execute.Run and the
// command's policy (targetFlags.policy): the caps applied, the live
// metrics (--metrics-addr), the worker meeting and the live progress
// before the run, the summary or the JSON document after it (runView).
func runConfig(cmd *cobra.Command, tf *targetFlags, c execute.Config, rf *runFlags, join meetingJoiner) (*scenario.Report, error) {
	st, err := openStore(cmd)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	v := &runView{cmd: cmd, st: st, asJSON: rf.json, every: rf.interval, join: join}
	p := tf.policy()
	p.Ready = func(ctx context.Context, t *registry.Target, o *scenario.RunOptions) (func(), error) {
		tf.sayCaps(t)
		stop, err := serveMetrics(o, rf.metricsAddr, fmt.Sprintf("%d/%d", o.Worker, max(o.Workers, 1)))
		if err != nil {
			return nil, err
		}
		if _, err := v.ready(ctx, t, o); err != nil {
			stop()
			return nil, err
		}
		return stop, nil
	}
	p.Measured = v.measured
	_, err = execute.Run(cmd.Context(), st, c, p)
	return v.report, err
}

// runWith runs o on an open target (execute.On) with run's view of it
// (runView): quickstart's run.
func runWith(cmd *cobra.Command, t *registry.Target, o scenario.RunOptions, asJSON bool, progressEvery time.Duration,
	join meetingJoiner) (*scenario.Report, error) {
	st, err := openStore(cmd)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	o.Version, o.Commit = version, commit
	v := &runView{cmd: cmd, st: st, asJSON: asJSON, every: progressEvery, join: join}
	_, err = execute.On(cmd.Context(), st, t, o, execute.Hooks{Ready: v.ready, Measured: v.measured})
	return v.report, err
}

// runView is what run shows of a run: its step lines with live progress
// on standard error (see stepProgress), then the summary, or the JSON
// document with --json. join, when not nil, makes this process one worker
// of a shared run.
type runView struct {
	cmd    *cobra.Command
	st     *store.Store
	asJSON bool
	every  time.Duration
	join   meetingJoiner
	prog   *stepProgress
	o      scenario.RunOptions // as run, for the time-to-answer lines
	report *scenario.Report    // what was measured (nil: nothing)
}

// ready joins the meeting and sets o's progress hooks (execute.Hooks.Ready).
func (v *runView) ready(_ context.Context, _ *registry.Target, o *scenario.RunOptions) (func(), error) {
	if v.join != nil {
		var err error
		if o.Meeting, err = v.join(v.st); err != nil {
			return nil, err
		}
	}
	if !v.asJSON {
		prog := newStepProgress(v.cmd.ErrOrStderr(), v.every, len(o.Users), o.Repeats)
		prog.tps = o.Workload != nil
		prevStart, prevProgress := o.OnStepStart, o.OnProgress
		o.OnStepStart = func(repeat, index, users int, mode engine.Mode) {
			if prevStart != nil {
				prevStart(repeat, index, users, mode)
			}
			prog.start(repeat, index, users, o.Rampup, o.Duration, fmt.Sprintf("repeat %d/%d · step %d/%d: %d users, ramp-up %s, measuring %s (%s mode)",
				repeat, o.Repeats, index+1, len(o.Users), users, phaseText(o.Answer.RampupAuto, o.Rampup), phaseText(o.Answer.DurationAuto, o.Duration), mode))
		}
		o.OnProgress = func(repeat, index int, p driver.Progress) {
			if prevProgress != nil {
				prevProgress(repeat, index, p)
			}
			prog.update(p, o.Rampup)
		}
		v.prog = prog
	}
	v.o = *o
	return nil, nil
}

// measured prints the summary or the JSON document of what scenario.Run
// returned (execute.Hooks.Measured); a partial run is an error that says
// where it is stored.
func (v *runView) measured(ctx context.Context, _ *registry.Target, res *scenario.Result, runErr error) error {
	if v.prog != nil {
		v.prog.finish() // the last bar ends before the summary is printed
	}
	if errors.Is(runErr, scenario.ErrBadOptions) {
		return badInput(runErr)
	}
	if res == nil || res.Report == nil {
		return runErr
	}
	v.report = res.Report
	if err := v.write(ctx, res); err != nil {
		return err
	}
	if res.Partial() {
		why := "run interrupted"
		if runErr != nil && ctx.Err() == nil {
			why = runErr.Error()
		} else if runErr == nil && res.Run.Note != "" {
			why = "run partial (" + res.Run.Note + ")"
		}
		return fmt.Errorf("%s: the summary above is partial; what was measured is stored as run %s (partial)", why, res.Run.ID)
	}
	return runErr
}

// write prints the run's JSON document, or its summary, workers and time
// to answer.
func (v *runView) write(ctx context.Context, res *scenario.Result) error {
	out := v.cmd.OutOrStdout()
	var err error
	if v.asJSON {
		if res.Report.Workers, err = analysis.WorkerSummaries(context.WithoutCancel(ctx), v.st, res.Run.ID); err != nil {
			return err
		}
		return writeJSON(out, res.Report)
	}
	report.WriteRunSummary(out, *res.Run, res.Steps)
	if err := writeWorkers(context.WithoutCancel(ctx), out, v.st, res.Run.ID); err != nil {
		return err
	}
	writeTimeToAnswer(out, v.o, res.Run)
	return nil
}

// serverCPU returns the managed server's cumulative CPU (nil when the
// server is not ours to watch).
func serverCPU(t *registry.Target) func() time.Duration {
	pid := t.ServerPID()
	if pid == 0 {
		return nil
	}
	return func() time.Duration {
		d, _ := telemetry.ProcessTreeCPU(pid)
		return d
	}
}
