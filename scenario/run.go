package scenario

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"runtime"
	"slices"
	"strconv"
	"time"

	"github.com/rightsize/rightsize/driver"
	"github.com/rightsize/rightsize/engine"
	"github.com/rightsize/rightsize/registry"
	"github.com/rightsize/rightsize/steady"
	"github.com/rightsize/rightsize/store"
	"github.com/rightsize/rightsize/tpcc"
	"github.com/rightsize/rightsize/validity"
)

// ErrBadOptions marks run options, or a database state, that the user must
// fix before anything is measured (the CLI exits with code 2).
var ErrBadOptions = errors.New("bad run options")

// badOptions wraps err so that errors.Is(err, ErrBadOptions) holds while the
// message stays err's own.
type badOptions struct{ err error }

func (b badOptions) Error() string        { return b.err.Error() }
func (b badOptions) Unwrap() error        { return b.err }
func (b badOptions) Is(target error) bool { return target == ErrBadOptions }

func bad(format string, a ...any) error { return badOptions{fmt.Errorf(format, a...)} }

// RunOptions are everything one measured run needs besides its target and
// store. run and quickstart fill them from flags; sweeps and other scenarios
// fill them once and call Run for each configuration.
type RunOptions struct {
	// RunSpec is what the autopilot does, handed to it as it is (and its
	// driver.Spec to every driver.StepConfig). Users and Connections are
	// over the whole run: each worker takes its share.
	RunSpec
	Isolation   engine.Isolation // "": spec (engine.ParseIsolation)
	Warehouses  int              // expected warehouse count (0: any)
	Label       string           // names the run
	DriverProcs int              // GOMAXPROCS during the steps; 0: adaptive
	// DriverLoops is driver.StepConfig.Loops: 0 one loop per 16 users of a
	// workload that can run in one, N that many, -1 none.
	DriverLoops     int
	Flags           map[string]string // the command's flags, stored with the run
	Version, Commit string            // rightsize's own version, stored in the environment
	// Prewarm loads the database into the server's cache before the first
	// ramp-up and after each restore between repeats (--prewarm;
	// registry.Target.Prewarm), so a short run measures the cache's size
	// rather than its cold start.
	Prewarm bool

	// OnStepStart, when set, is told about each step before it starts.
	OnStepStart func(repeat, index, users int, mode engine.Mode)
	// OnProgress, when set, gets the live figures of the running step
	// every second.
	OnProgress func(repeat, index int, p driver.Progress)
	// OnCreated, when set, is told the run's id once it is in the store.
	OnCreated func(run *store.Run)

	// Worker and Workers, when Workers > 0, make this process worker
	// Worker (0-based) of Workers measuring one run together: it drives
	// its share of every step's users from its slice of the home
	// warehouses, and Meeting agrees on each step's start and merges.
	Worker, Workers int
	Meeting         Meeting
}

// Validate checks the options that do not depend on the target. It is the
// one validation point of run options; Run calls it too.
func (o *RunOptions) Validate() error {
	if len(o.Users) == 0 {
		return bad("--users: give at least one step (e.g. 1,2,4)")
	}
	for _, u := range o.Users {
		if u < 1 {
			return bad("--users: every step needs at least 1 user (got %d)", u)
		}
	}
	if err := o.validateTimes(); err != nil {
		return err
	}
	if errs := o.specProblems(); len(errs) > 0 {
		return badOptions{errs[0]}
	}
	if err := RateOf(o.Rate, o.Workload != nil); err != nil {
		return badOptions{err}
	}
	if err := LatencyLimitOf(o.LatencyLimit, o.Workload != nil); err != nil {
		return badOptions{err}
	}
	if err := txnLogOf(o.TxnLog, o.Workload != nil, o.fixedDuration()); err != nil {
		return badOptions{err}
	}
	if o.Warehouses != 0 {
		if err := tpcc.ValidateWarehouses(o.Warehouses); err != nil {
			return badOptions{err}
		}
	}
	if err := o.validateAnswer(); err != nil {
		return err
	}
	return o.validateWorkers()
}

// RateOf is the problem of a rate (--rate, a plan's autopilot.rate) for a
// run of a pgbench workload or of TPC-C (nil when none): only a pgbench
// workload is paced by a rate. (A plan knows its workload after its
// autopilot's keys are checked, so this is not one of CheckSpec's.)
func RateOf(rate float64, workload bool) error {
	if rate > 0 && !workload {
		return OptionError{"rate", "paces a pgbench workload (add --workload tpcb or --workload FILE): TPC-C's users are paced by its keying and think times (--keying-thinking)"}
	}
	return nil
}

// LatencyLimitOf is the problem of a latency limit (--latency-limit, a
// plan's autopilot.latency_limit) for a run of a pgbench workload or of
// TPC-C (nil when none): only a pgbench workload's transactions are
// counted against one, as pgbench -L counts them.
func LatencyLimitOf(limit time.Duration, workload bool) error {
	if limit > 0 && !workload {
		return OptionError{"latency-limit", "counts a pgbench workload's late transactions (add --workload tpcb or --workload FILE), as pgbench -L: TPC-C's response times are judged by its own limits (New-Order p90, the validity verdict)"}
	}
	return nil
}

// OptionError is a run option with a bad value: Option is its flag's
// name (driver-procs; a plan's autopilot writes driver_procs), Problem
// what is wrong with it and the fix.
type OptionError struct{ Option, Problem string }

// Error says it as run's flag.
func (e OptionError) Error() string { return "--" + e.Option + " " + e.Problem }

// CheckSpec checks the options that a plan's autopilot says as run's
// flags do, with one rule each, and returns every problem (Validate
// returns the first, plan validation each at its field).
func (o *RunOptions) CheckSpec() []OptionError {
	return append(o.specProblems(), o.answerProblems()...)
}

// specProblems are the problems of the step's options, the rules of run's
// flags and of a plan's autopilot keys (CheckSpec).
func (o *RunOptions) specProblems() []OptionError {
	var errs []OptionError
	add := func(option, format string, a ...any) {
		errs = append(errs, OptionError{option, fmt.Sprintf(format, a...)})
	}
	if o.Connections < 0 {
		add("connections", "must be 0 (one per user) or more (got %d)", o.Connections)
	}
	if o.DriverProcs < 0 {
		add("driver-procs", "must be 0 (adaptive) or a number of Ps (got %d)", o.DriverProcs)
	}
	if o.DriverLoops < -1 {
		add("driver-loops", "must be 0 (one per 16 users), a number of loops, or -1 for a goroutine per user (got %d)", o.DriverLoops)
	}
	if o.WaitInterval < 0 || (o.WaitInterval > 0 && o.WaitInterval < time.Millisecond) {
		add("wait-interval", "must be at least 1ms (got %s); turn sampling off with --no-waits", o.WaitInterval)
	}
	if o.ReconnectTimeout < 0 {
		add("reconnect-timeout", "must not be negative (got %s)", o.ReconnectTimeout)
	}
	if _, err := driver.ParseDelivery(string(o.Delivery)); err != nil {
		add("delivery", "%q is not interactive or deferred: use interactive (in the user's transaction) or deferred (queued, clause 2.7.2)", o.Delivery)
	}
	if o.Repeats < 1 {
		add("repeat", "must be at least 1 (got %d)", o.Repeats)
	}
	if _, err := engine.ParseMode(string(o.Mode)); o.Mode != "" && err != nil {
		add("mode", "%q is an unknown mode: use procedures or statements", o.Mode)
	}
	if _, err := engine.ParseIsolation(string(o.Isolation)); err != nil {
		add("isolation", "%q is not spec or read-committed", o.Isolation)
	}
	switch {
	case o.Rate < 0 || math.IsNaN(o.Rate) || math.IsInf(o.Rate, 0):
		add("rate", "must be a number of transactions per second, or 0 for none (got %g)", o.Rate)
	}
	if o.LatencyLimit < 0 {
		add("latency-limit", "must be a duration above 0, such as 50ms, or 0 for none (got %s)", o.LatencyLimit)
	}
	return errs
}

// answerProblems are the problems of the time-to-answer options (the
// steady.Plan's values, --max-cv and --repeat-max with --repeat auto).
func (o *RunOptions) answerProblems() []OptionError {
	var errs []OptionError
	p := o.Answer
	if p.Confidence == 0 {
		p.Confidence = DefaultConfidence
	}
	var oe steady.OptionError
	if err := p.Validate(); errors.As(err, &oe) {
		errs = append(errs, OptionError{oe.Option, oe.Problem})
	}
	if o.RepeatAuto && (o.MaxCV <= 0 || o.MaxCV >= 1) {
		errs = append(errs, OptionError{"max-cv", fmt.Sprintf("must be above 0 %% and below 100 %% (got %g %%)", o.MaxCV*100)})
	}
	if o.RepeatAuto && o.Repeats < 2 {
		errs = append(errs, OptionError{"repeat-max", fmt.Sprintf("must be at least 2 with --repeat auto (got %d)", o.Repeats)})
	}
	return errs
}

// validateTimes names the flag that set a bad duration or ramp-up: with
// auto, Duration and Rampup are the caps --duration-max and --rampup-max.
func (o *RunOptions) validateTimes() error {
	flag := func(auto bool, name string) string {
		if auto {
			return name + "-max"
		}
		return name
	}
	if o.Duration <= 0 {
		return bad("%s must be positive (got %s)", flag(o.Answer.DurationAuto, "--duration"), o.Duration)
	}
	if o.Rampup < 0 {
		return bad("%s must not be negative (got %s)", flag(o.Answer.RampupAuto, "--rampup"), o.Rampup)
	}
	return nil
}

// applyIsolation sets the isolation of t's executors and returns what it
// records with the run. An engine that cannot choose (SQLite: always
// serializable) runs at spec and refuses read-committed.
func applyIsolation(t *registry.Target, iso engine.Isolation) (engine.Isolation, error) {
	iso = cmp.Or(iso, engine.IsolationSpec)
	if s, ok := t.DB.(engine.IsolationSetter); ok {
		s.SetIsolation(iso)
		return iso, nil
	}
	if !iso.Compliant() {
		return "", bad("--isolation %s: %s transactions are always serializable; drop --isolation", iso, t.Engine())
	}
	return iso, nil
}

// validateAnswer checks the time-to-answer options: the plan's values and
// that its caps are the run's Rampup and Duration.
func (o *RunOptions) validateAnswer() error {
	if errs := o.answerProblems(); len(errs) > 0 {
		return badOptions{errs[0]}
	}
	p := o.Answer
	if p.RampupAuto && p.RampupMax != o.Rampup || p.DurationAuto && p.DurationMax != o.Duration {
		return bad("with auto ramp-up or duration, Rampup and Duration must be the caps")
	}
	return nil
}

// FixedPlanTime is how long the same steps would take at the caps: every
// step at Rampup + Duration, Repeats times (connection and store time
// left out).
func (o *RunOptions) FixedPlanTime() time.Duration {
	return time.Duration(len(o.Users)*o.Repeats) * (o.Rampup + o.Duration)
}

// Auto reports whether any time-to-answer rule is on.
func (o *RunOptions) Auto() bool { return o.Answer.RampupAuto || o.Answer.DurationAuto || o.RepeatAuto }

// Result is a finished (or interrupted) run as stored.
type Result struct {
	Run    *store.Run
	Steps  []store.Step
	Report *Report
	// Err is what ended the run early (nil when it completed).
	Err error
}

// Partial reports whether the run was interrupted and kept what it measured.
func (r *Result) Partial() bool { return r.Run.Status == store.StatusPartial }

// ReadySchema reads the build metadata of t and turns a missing or
// incomplete schema into an ErrBadOptions error that says how to fix it.
func ReadySchema(ctx context.Context, t *registry.Target) (engine.Meta, error) {
	m, err := t.ReadMeta(ctx)
	if errors.Is(err, engine.ErrNoSchema) {
		return m, bad("%s has no rightsize TPC-C schema; build one first: rightsize build --target %s --warehouses N", t.Name, t.Spec)
	}
	if err != nil {
		return m, badOptions{err}
	}
	if !m.Complete {
		return m, bad("the TPC-C schema in %s is incomplete (an interrupted build); rebuild it: rightsize build --target %s --warehouses %d", t.Name, t.Spec, m.Warehouses)
	}
	if m.Format < engine.SchemaFormat {
		return m, bad("the TPC-C schema in %s was built by an older rightsize (its procedures lack the full TPC-C outputs and isolation); rebuild it: rightsize build --target %s --warehouses %d", t.Name, t.Spec, m.Warehouses)
	}
	return m, nil
}

// Run measures t with the autopilot of o and stores it in st: the build
// metadata's run count, the run constants, the run row, each step as soon
// as it is measured (with a context that survives Ctrl-C), and the final
// status (complete, partial or failed). The returned Result is non-nil once
// the run exists in the store, also when err is not nil; err is
// ErrBadOptions-wrapped when nothing was started.
func Run(ctx context.Context, st *store.Store, t *registry.Target, o RunOptions) (*Result, error) {
	r := &runner{st: st, t: t, o: o, bg: context.WithoutCancel(ctx)} // the store is written even after Ctrl-C
	if err := r.prepare(ctx); err != nil {
		return nil, err
	}
	if err := r.create(ctx); err != nil {
		return nil, err
	}
	if o.DriverProcs > 0 {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(o.DriverProcs))
	}
	status, driverCPU, runErr := r.measure(ctx)
	return r.finish(status, driverCPU, runErr)
}

// runner is one run of Run as it goes through its phases: prepare, create,
// measure, finish.
type runner struct {
	st *store.Store
	t  *registry.Target
	o  RunOptions
	bg context.Context // ctx without its cancel: the store is written after Ctrl-C

	// prepare
	meta   engine.Meta
	mode   engine.Mode
	iso    engine.Isolation
	consts tpcc.Constants
	warmed *engine.Warmed // what --prewarm loaded (nil: not asked)

	// create
	run       *store.Run
	users     []int // this process's share of each step's users
	conns     int   // and of the shared connections
	oomBefore int64

	// measure (spill.go)
	unstored  []store.Step // steps the store could not take
	storeFull error        // the store's first "disk full" error
}

// prepare checks the options against the target and its schema, draws the
// run constants and counts the run in the build metadata.
func (r *runner) prepare(ctx context.Context) error {
	o, t := &r.o, r.t
	if err := o.Validate(); err != nil {
		return err
	}
	if o.Workload != nil {
		return r.prepareWorkload(ctx)
	}
	meta, err := ReadySchema(ctx, t)
	if err != nil {
		return err
	}
	if o.Warehouses != 0 && o.Warehouses != meta.Warehouses {
		return bad("the schema in %s was built with %d warehouses, not %d; rebuild with: rightsize build --warehouses %d, or drop --warehouses",
			t.Name, meta.Warehouses, o.Warehouses, o.Warehouses)
	}
	r.mode = cmp.Or(o.Mode, t.Caps().DefaultMode())
	if o.Mode != "" {
		if !slices.Contains(t.Caps().Modes(), r.mode) {
			return bad("%s has no %s mode (it has %v)", t.Engine(), r.mode, t.Caps().Modes())
		}
	}
	if r.iso, err = applyIsolation(t, o.Isolation); err != nil {
		return err
	}
	if o.RebuildBetweenRepeats && o.Repeats > 1 {
		if _, ok := t.DB.(Restorer); !ok {
			return bad("--rebuild-between-repeats: %w", ErrNoRestore)
		}
	}
	if o.Seed == 0 {
		o.Seed = uint64(time.Now().UnixNano())
	}
	r.consts = meta.Constants.WithRunConstants(tpcc.NewRand(o.Seed, 0xC1))
	if o.Workers > 0 && meta.Warehouses < o.Workers {
		return bad("%d workers need at least %d warehouses (the schema has %d): each drives its own slice of home warehouses", o.Workers, o.Workers, meta.Warehouses)
	}
	if err := checkSlots(ctx, t, *o, meta.Warehouses); err != nil {
		return err
	}
	if o.Prewarm {
		if r.warmed, err = prewarm(ctx, t); err != nil {
			return err
		}
	}
	if o.Worker == 0 { // one count per run, also with workers
		meta.Runs++
		if err := t.WriteMeta(ctx, meta); err != nil {
			return err
		}
	}
	r.meta = meta
	return nil
}

// create writes the run row (with workers, after the meeting agreed on it,
// under this worker's id and share of the users).
func (r *runner) create(ctx context.Context) error {
	o, t := &r.o, r.t
	env := Environment(ctx, t, o.Version, o.Commit)
	maps.Copy(env, CapsEnvironment(t))
	if o.Connections > 0 {
		env[store.EnvConnections] = strconv.Itoa(o.Connections)
	}
	if o.Delivery.Deferred() {
		env[store.EnvDelivery] = store.DeliveryDeferred
	}
	prewarmEnv(env, r.warmed)
	workloadEnv(env, o.Workload, o.Rate, o.LatencyLimit)
	r.oomBefore = t.ServerOOMKills()
	run := &store.Run{Label: o.Label, Target: t.Name, Engine: t.Engine(), EngineVersion: env["engine.version"], Mode: string(r.mode),
		Warehouses: r.meta.Warehouses, Seed: o.Seed, KeyingThinking: o.KeyingThinking, Isolation: string(r.iso), Users: o.Users, Rampup: o.Rampup,
		Duration: o.Duration, Repeats: o.Repeats, Flags: o.Flags, Env: env, StartedAt: time.Now().UTC()}
	if t.Spec == "embedded" {
		run.Target = "embedded"
	}
	r.run, r.users, r.conns = run, o.Users, o.Connections
	if o.Meeting != nil {
		shared := *run
		if err := o.Meeting.Join(ctx, &shared); err != nil {
			return badOptions{err}
		}
		r.users = make([]int, len(o.Users))
		for i, u := range o.Users {
			r.users[i] = Share(u, o.Worker, o.Workers)
		}
		run.ID, run.Label, run.Users = o.Meeting.WorkerRunID(), "", r.users
		if r.conns > 0 {
			r.conns = max(Share(r.conns, o.Worker, o.Workers), 1)
		}
	}
	if err := r.st.CreateRun(r.bg, run); err != nil {
		return err
	}
	if o.OnCreated != nil {
		o.OnCreated(run)
	}
	return nil
}

// autopilot is the run's autopilot, without its callbacks to the store.
func (r *runner) autopilot() *Autopilot {
	o, t := &r.o, r.t
	ap := &Autopilot{RunSpec: o.RunSpec, DB: t.DB, Warehouses: r.meta.Warehouses, Constants: r.consts, ServerPID: t.ServerPID(),
		ServerIO: t.ServerIOCgroup(), AdaptiveProcs: o.DriverProcs == 0, Loops: o.DriverLoops, ServerCPUs: t.Options.Caps.CPUs,
		Unthrottled: t.Unthrottled}
	// the mode resolved for the engine; this worker's users and connections
	ap.Mode, ap.Users, ap.Connections = r.mode, r.users, r.conns
	if t.Server != nil {
		ap.ServerDataDir = t.Server.DataDir()
	}
	if o.Meeting != nil {
		ap.Worker, ap.StepStart = o.Worker, o.Meeting.StepStart
		ap.HomeFirst, ap.HomeCount = HomeSlice(r.meta.Warehouses, o.Worker, o.Workers)
		ap.Workers, ap.AllUsers = o.Workers, o.Users
	}
	if ap.Answer.Confidence == 0 {
		ap.Answer.Confidence = 0.95
	}
	if o.OnStepStart != nil {
		ap.OnStepStart = func(repeat, index, users int) { o.OnStepStart(repeat, index, users, r.mode) }
	}
	ap.OnProgress = o.OnProgress
	if o.Prewarm {
		ap.AfterRestore = func(ctx context.Context) error { _, err := prewarm(ctx, t); return err }
	}
	return ap
}

// measure runs the autopilot, storing each step with its validity as it
// ends, and returns the run's status, the driver's CPU over the steps and
// what ended the run early.
func (r *runner) measure(ctx context.Context) (string, time.Duration, error) {
	ap := r.autopilot()
	var repeatErr error
	ap.OnRepeatsEnd = func(repeats int, how string) { repeatErr = r.st.SetRepeatEnd(r.bg, r.run.ID, repeats, how) }
	lastPartial := false
	var driverCPU time.Duration
	runErr := ap.Run(ctx, func(ctx context.Context, rec StepRecord) error {
		lastPartial = rec.Result.Partial
		driverCPU += rec.Result.DriverCPU
		s := rec.StoreStep(r.run.ID)
		if r.o.Workload == nil { // TPC-C's verdict only
			v := validity.Step(r.run, &s)
			s.Validity = &v
		}
		return r.storeStep(&s)
	})
	runErr = oomFailure(r.t, r.oomBefore, runErr)
	runErr = serverLost(r.t, runErr) // why, from the server's log
	if runErr == nil {
		runErr = repeatErr
	}
	status := store.StatusComplete
	switch {
	case errors.Is(runErr, ErrOOMKilled):
		status = store.StatusFailed
	case lastPartial || (runErr != nil && ctx.Err() != nil) || errors.Is(runErr, driver.ErrServerLost):
		status = store.StatusPartial
	case runErr != nil:
		status = store.StatusFailed
	}
	return status, driverCPU, runErr
}

// finish stores the run's status (with workers, tells the meeting, which
// merges the workers' runs) and reads the run back.
func (r *runner) finish(status string, driverCPU time.Duration, runErr error) (*Result, error) {
	run, o := r.run, &r.o
	if err := r.st.FinishRun(r.bg, run.ID, status, time.Now().UTC()); r.storeFull != nil || store.Full(err) {
		return r.spill(status, cmp.Or(r.storeFull, err), runErr)
	} else if err != nil && runErr == nil {
		runErr = err
	}
	id := run.ID
	if o.Meeting != nil {
		note := ""
		if runErr != nil {
			note = runErr.Error()
		}
		merged, err := o.Meeting.Finish(r.bg, workerStatus(status), note, driverCPU)
		if err != nil && runErr == nil {
			runErr = err
		}
		if merged {
			id = o.Meeting.RunID()
		}
	}
	stored, steps, err := r.st.LoadRun(r.bg, id)
	if err != nil {
		return &Result{Run: run, Err: runErr}, fmt.Errorf("read the run back from the store: %w", err)
	}
	return &Result{Run: stored, Steps: steps, Report: BuildReport(stored, steps), Err: runErr}, runErr
}
