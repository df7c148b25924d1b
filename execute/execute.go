// Package execute measures one configuration: it opens the
// configuration's target, makes sure its database is there as the policy
// says (built and snapshot once, restored before each run; or left as it is,
// where scenario.Run refuses a missing one), runs the autopilot (Run), a
// sweep (Sweep), the right-size search (Fit) or the noisy-neighbour
// scenario (Neighbour) through scenario and leaves it in the store. A study
// (package study) calls it for each configuration of its plan with its
// policy; the run, sweep, fit and neighbour commands call it for the one
// configuration their flags describe with their own. The caller's extras
// (progress, a storage probe, live metrics, a worker meeting, the printed
// summary) are its Hooks.
package execute

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/rightsize/rightsize/pgbench/tpcb"
	"github.com/rightsize/rightsize/registry"
	"github.com/rightsize/rightsize/scenario"
	"github.com/rightsize/rightsize/store"
)

// Config is one configuration to measure: its target, the database it
// runs on and the run options (the label and the flags recorded included).
type Config struct {
	// Name names the configuration in progress lines.
	Name string
	// Spec and Target are what registry.Open opens.
	Spec   string
	Target registry.Options
	// Build is the database built where the policy builds a missing one.
	Build Build
	// Run are the run options (Label names the run, Flags are recorded).
	Run scenario.RunOptions
}

// Build is the database a configuration runs on.
type Build struct {
	Warehouses int
	Seed       uint64
	Loaders    int // 0: one per CPU
	// Tables is what is built: TablesTPCC ("" too), TablesTPCB (pgbench's
	// tables at Scale), TablesInit (the SQL file Init run as it is) or
	// TablesNone (the database as it is).
	Tables string
	Scale  int
	// Layout is how TablesTPCB stores pgbench's tables (fill factor,
	// partitions), as pgbench -i's options.
	Layout tpcb.Layout
	Init   string
}

// What a Build makes (Build.Tables).
const (
	TablesTPCC = "tpcc"
	TablesTPCB = "tpcb"
	TablesInit = "init"
	TablesNone = "none"
)

// Policy is what a caller decides about the steps around the run.
type Policy struct {
	// BuildMissing builds the database where it is missing or differs from
	// Build (and snapshots it where the engine can), and restores the built
	// state before the run; without it the database is left as it is.
	BuildMissing bool
	// SkipStored keeps a run stored complete under the run's label and
	// measures nothing.
	SkipStored bool
	// MakeDataDir creates the parent of the target's data directory first.
	MakeDataDir bool
	// Out gets the lines of building and restoring (nil: none).
	Out io.Writer
	// OpenError turns an error opening the target into the caller's (nil:
	// wrapped with the configuration's name).
	OpenError func(error) error
	Hooks
}

// Hooks are a caller's extras around the run (each may be nil).
type Hooks struct {
	// Opening is called before the target opens (Run only).
	Opening func()
	// Ready is called with the target open and its database ready, before
	// the run (or the sweep, fit or neighbour scenario); it may change the
	// run options (t is nil for a neighbour scenario that opened nothing
	// first: see Neighbour). The func it returns (nil allowed) is called
	// when the run is over.
	Ready func(ctx context.Context, t *registry.Target, o *scenario.RunOptions) (func(), error)
	// Measured is called with what scenario.Run returned, the target still
	// open; the error it returns is the run's (Run and On only).
	Measured func(ctx context.Context, t *registry.Target, res *scenario.Result, err error) error
}

// Result is what Run did.
type Result struct {
	// Kept is the id of a run already stored complete under the label
	// (SkipStored): nothing was measured.
	Kept string
	// Run is the run measured (nil when none was stored).
	Run *scenario.Result
}

// RunID is the id of the run kept or measured ("" without one).
func (r Result) RunID() string {
	if r.Kept != "" {
		return r.Kept
	}
	if r.Run != nil && r.Run.Run != nil {
		return r.Run.Run.ID
	}
	return ""
}

// Run measures configuration c as policy p says, storing into st: a run
// kept (SkipStored), or the target opened, its database made ready, the
// hooks and scenario.Run, and the target closed.
func Run(ctx context.Context, st *store.Store, c Config, p Policy) (Result, error) {
	if p.SkipStored {
		if id := completeRun(ctx, st, c.Run.Label); id != "" {
			return Result{Kept: id}, nil
		}
	}
	if p.Opening != nil {
		p.Opening()
	}
	t, err := Open(ctx, c, p)
	if err != nil {
		return Result{}, err
	}
	defer func() { _ = t.Close() }()
	res, err := On(ctx, st, t, c.Run, p.Hooks)
	return Result{Run: res}, err
}

// On runs o on the open target t: the Ready hook, scenario.Run, the
// Measured hook. The result is nil when no run was stored.
func On(ctx context.Context, st *store.Store, t *registry.Target, o scenario.RunOptions, h Hooks) (*scenario.Result, error) {
	done, err := ready(ctx, h.Ready, t, &o)
	if err != nil {
		return nil, err
	}
	defer done()
	res, err := scenario.Run(ctx, st, t, o)
	if h.Measured != nil {
		err = h.Measured(ctx, t, res, err)
	}
	return res, err
}

// Open opens c's target and, with BuildMissing, makes sure the database
// is there (see Policy).
func Open(ctx context.Context, c Config, p Policy) (*registry.Target, error) {
	if p.MakeDataDir && c.Target.DataDir != "" {
		if err := os.MkdirAll(filepath.Dir(c.Target.DataDir), 0o755); err != nil {
			return nil, fmt.Errorf("make the data directory's parent for %s: %w", c.Name, err)
		}
	}
	t, err := registry.Open(ctx, c.Spec, c.Target)
	if err != nil {
		if p.OpenError != nil {
			return nil, p.OpenError(err)
		}
		return nil, fmt.Errorf("open %s: %w", c.Name, err)
	}
	if !p.BuildMissing {
		return t, nil
	}
	if err := ensureDatabase(ctx, t, c, p.Out); err != nil {
		t.Close()
		return nil, err
	}
	return t, nil
}

// ready calls the Ready hook, if any; the func it returns is never nil.
func ready(ctx context.Context, hook func(context.Context, *registry.Target, *scenario.RunOptions) (func(), error),
	t *registry.Target, o *scenario.RunOptions) (func(), error) {
	if hook == nil {
		return func() {}, nil
	}
	done, err := hook(ctx, t, o)
	if err != nil || done == nil {
		return func() {}, err
	}
	return done, nil
}

// completeRun is the id of a complete run labelled label ("" if none).
func completeRun(ctx context.Context, st *store.Store, label string) string {
	runs, err := st.ListRuns(ctx)
	if err != nil {
		return ""
	}
	for _, run := range runs {
		if run.Label == label && run.Status == store.StatusComplete {
			return run.ID
		}
	}
	return ""
}
