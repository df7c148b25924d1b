// Package interleave measures two configurations, a baseline A and a
// candidate B, alternately on one machine: over N rounds in ABBA order
// (round 1 A then B, round 2 B then A, ...), each leg a normal stored run
// on a server restarted with its side's settings, caps or version and its
// database restored to the built state. What drifts between rounds (the
// machine's speed, a neighbour, checkpoints) falls on both sides alike,
// and Judge decides on the paired differences of the rounds (package
// steady's paired t test of the log ratios), not on two runs' own
// intervals, which know nothing of that drift.
package interleave

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"runtime"

	"github.com/rightsize/rightsize/engine"
	"github.com/rightsize/rightsize/execute"
	"github.com/rightsize/rightsize/loader"
	"github.com/rightsize/rightsize/registry"
	"github.com/rightsize/rightsize/scenario"
	"github.com/rightsize/rightsize/store"
)

// Side is one configuration: the target it opens and the options it
// opens it with (settings, caps, version, data directory).
type Side struct {
	Spec   string
	Target registry.Options
}

// Options are an interleaved comparison.
type Options struct {
	// A is the baseline, B the candidate.
	A, B Side
	// Rounds is the number of rounds (at least 2); each measures both.
	Rounds int
	// Label prefixes the legs' labels: "LABEL A r1", "LABEL B r1", ...
	Label string
	// Run are the run options of every leg (its Label is replaced).
	Run scenario.RunOptions
	// OnLeg, when set, is told before each leg starts.
	OnLeg func(l Leg)
	// Hooks are the caller's extras around each leg's run (execute.On).
	Hooks execute.Hooks
}

// Leg is one run of one side in one round.
type Leg struct {
	Round int    `json:"round"` // from 1
	Side  string `json:"side"`  // "A" or "B"
	// RunID and Status are the stored run's ("" before it is stored).
	RunID  string `json:"run_id"`
	Status string `json:"status"`
}

// Order is the sides' order in round r (from 1): ABBA, so that a linear
// drift over two rounds falls on both alike.
func Order(r int) [2]string {
	if r%2 == 1 {
		return [2]string{"A", "B"}
	}
	return [2]string{"B", "A"}
}

// LegLabel is the label of side's run in round r.
func LegLabel(label, side string, r int) string {
	return fmt.Sprintf("%s %s r%d", label, side, r)
}

// ErrBadOptions marks options the user must fix before anything runs.
var ErrBadOptions = errors.New("bad interleave options")

// Validate checks the options that need no server.
func (o Options) Validate() error {
	if o.Rounds < 2 {
		return fmt.Errorf("%w: --rounds %d: at least 2 rounds are needed for a paired interval (3 or more to detect much)", ErrBadOptions, o.Rounds)
	}
	if o.Label == "" {
		return fmt.Errorf("%w: no label for the legs", ErrBadOptions)
	}
	if o.Run.Workload != nil && (o.A.Target.PGVersion != o.B.Target.PGVersion || o.A.Target.DataDir != o.B.Target.DataDir) {
		return fmt.Errorf("%w: --a-pg-version/--b-pg-version with --workload: a side of its own data directory would run without the workload's tables (ab builds only TPC-C's there); build the workload in each version's data directory (build --workload --pg-version V --data-dir DIR) and compare their runs with rightsize compare", ErrBadOptions)
	}
	return nil
}

// Run measures the legs round by round into st and returns them in the
// order measured; on an error or Ctrl-C it returns the legs measured so
// far (the interrupted one stored as partial) with the error, and closes
// whatever it opened.
func Run(ctx context.Context, st *store.Store, o Options) ([]Leg, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	r := &runner{o: o, st: st, snapshot: map[string]bool{}}
	defer r.close()
	var legs []Leg
	for round := 1; round <= o.Rounds; round++ {
		for _, side := range Order(round) {
			if ctx.Err() != nil {
				return legs, ctx.Err()
			}
			l := Leg{Round: round, Side: side}
			if o.OnLeg != nil {
				o.OnLeg(l)
			}
			err := r.leg(ctx, &l)
			if l.RunID != "" {
				legs = append(legs, l)
			}
			if err != nil {
				return legs, fmt.Errorf("round %d, %s: %w", round, side, err)
			}
		}
	}
	return legs, nil
}

// runner holds the open target between legs.
type runner struct {
	o  Options
	st *store.Store
	t  *registry.Target
	// built is the database every side runs on (read from the first
	// side's target); snapshot marks the data directories snapshot in this
	// comparison.
	built    *engine.Meta
	snapshot map[string]bool
}

func (r *runner) close() {
	if r.t != nil {
		_ = r.t.Close()
	}
}

func (r *runner) side(name string) Side {
	if name == "A" {
		return r.o.A
	}
	return r.o.B
}

// leg opens (or restarts) the side's server, restores its database and
// runs; l gets the stored run.
func (r *runner) leg(ctx context.Context, l *Leg) error {
	s := r.side(l.Side)
	if err := r.open(ctx, s); err != nil {
		return err
	}
	if err := r.ready(ctx, s); err != nil {
		return err
	}
	ro := r.o.Run
	ro.Label = LegLabel(r.o.Label, l.Side, l.Round)
	ro.Flags = maps.Clone(ro.Flags)
	if ro.Flags == nil {
		ro.Flags = map[string]string{}
	}
	ro.Flags["ab"], ro.Flags["ab.side"], ro.Flags["ab.round"] = r.o.Label, l.Side, fmt.Sprint(l.Round)
	res, err := execute.On(ctx, r.st, r.t, ro, r.o.Hooks)
	if res != nil && res.Run != nil {
		l.RunID, l.Status = res.Run.ID, res.Run.Status
	}
	return err
}

// open makes r.t the side's target: a managed server is restarted with the
// side's options before every leg (so that both sides start alike, from a
// cold server), a server rightsize does not manage is opened once.
func (r *runner) open(ctx context.Context, s Side) error {
	if r.t != nil && r.t.Spec == s.Spec && r.t.Server == nil && !registry.Managed(s.Spec) {
		return nil
	}
	if r.t != nil && r.t.Spec == s.Spec {
		return r.t.Restart(ctx, s.Target)
	}
	if r.t != nil {
		if err := r.t.Close(); err != nil {
			return err
		}
		r.t = nil
	}
	t, err := registry.Open(ctx, s.Spec, s.Target)
	if err != nil {
		return err
	}
	r.t = t
	return nil
}

// ready restores the built database where the engine can: the first leg
// on a data directory snapshots it (building it first where a side's
// version has a data directory of its own without it), later legs restore
// it. A target that cannot restore runs on the database as it is.
func (r *runner) ready(ctx context.Context, s Side) error {
	if r.o.Run.Workload != nil {
		return r.readyAsIs(ctx, s)
	}
	m, err := scenario.ReadySchema(ctx, r.t)
	if r.built == nil {
		if err != nil {
			return err
		}
		r.built = &m
	}
	restorer, ok := r.t.DB.(scenario.Restorer)
	if !ok {
		return err
	}
	key := s.Spec + "\x00" + s.Target.DataDir + "\x00" + s.Target.PGVersion
	if r.snapshot[key] {
		return r.t.Unthrottled(func() error { return restorer.Restore(ctx) })
	}
	if err != nil || m.Warehouses != r.built.Warehouses || m.Seed != r.built.Seed {
		if _, err := loader.Build(ctx, r.t, loader.Config{Warehouses: r.built.Warehouses, Seed: r.built.Seed, Loaders: runtime.NumCPU(), Version: r.o.Run.Version}); err != nil {
			return fmt.Errorf("build the database (%d warehouses) for %s: %w", r.built.Warehouses, s.Spec, err)
		}
	}
	if err := r.t.Unthrottled(func() error { return restorer.Snapshot(ctx) }); err != nil {
		return fmt.Errorf("snapshot the built database: %w", err)
	}
	r.snapshot[key] = true
	return nil
}

// readyAsIs is ready for a pgbench workload, whose database is the one
// the target holds (build --workload tpcb or --init, or as it is): the
// first leg snapshots it where the engine can and later legs restore
// that, so that every leg starts from the same data (a snapshot an
// earlier build left may be of another workload's database: not used).
// A target that cannot restore runs on the database as it is.
func (r *runner) readyAsIs(ctx context.Context, s Side) error {
	restorer, ok := r.t.DB.(scenario.Restorer)
	if !ok {
		return nil
	}
	key := s.Spec + "\x00" + s.Target.DataDir
	if r.snapshot[key] {
		return r.t.Unthrottled(func() error { return restorer.Restore(ctx) })
	}
	if err := r.t.Unthrottled(func() error { return restorer.Snapshot(ctx) }); err != nil {
		return fmt.Errorf("snapshot the workload's database: %w", err)
	}
	r.snapshot[key] = true
	return nil
}
