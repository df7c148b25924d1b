package execute

import (
	"context"

	"github.com/rightsize/rightsize/registry"
	"github.com/rightsize/rightsize/scenario"
	"github.com/rightsize/rightsize/store"
)

// Sweep measures sweep so over configuration c as p says: the target
// opened (the database built or restored with BuildMissing), so.Run set
// to c's run options and given to the Ready hook, scenario.RunSweep
// (which restarts the target in place per value), the target closed.
func Sweep(ctx context.Context, st *store.Store, c Config, so scenario.SweepOptions, p Policy) (*scenario.SweepResult, error) {
	var res *scenario.SweepResult
	err := with(ctx, c, p, &so.Run, func(t *registry.Target) error {
		var err error
		res, err = scenario.RunSweep(ctx, st, t, so)
		return err
	})
	return res, err
}

// Fit measures the right-size search fo over configuration c as p says,
// as Sweep does with scenario.RunFit.
func Fit(ctx context.Context, st *store.Store, c Config, fo scenario.FitOptions, p Policy) (*scenario.FitResult, error) {
	var res *scenario.FitResult
	err := with(ctx, c, p, &fo.Run, func(t *registry.Target) error {
		var err error
		res, err = scenario.RunFit(ctx, st, t, fo)
		return err
	})
	return res, err
}

// Neighbour measures the noisy-neighbour scenario no over copies of
// configuration c's build, as p says: with BuildMissing the database is
// made ready in c's target first, which is closed again before the copies
// are made; no.Run is c's run options, given to the Ready hook (with that
// target, or nil without BuildMissing); scenario.RunNeighbour starts the
// copies from c's target options.
func Neighbour(ctx context.Context, st *store.Store, c Config, no scenario.NeighbourOptions, p Policy) (*scenario.NeighbourResult, error) {
	no.Run = c.Run
	var t *registry.Target
	if p.BuildMissing {
		var err error
		if t, err = Open(ctx, c, p); err != nil {
			return nil, err
		}
	}
	done, err := ready(ctx, p.Ready, t, &no.Run)
	if t != nil {
		t.Close()
	}
	if err != nil {
		return nil, err
	}
	defer done()
	return scenario.RunNeighbour(ctx, st, c.Spec, c.Target, no)
}

// with opens c's target as p says, sets *o to c's run options, calls the
// Ready hook and run, and closes the target.
func with(ctx context.Context, c Config, p Policy, o *scenario.RunOptions, run func(*registry.Target) error) error {
	t, err := Open(ctx, c, p)
	if err != nil {
		return err
	}
	defer func() { _ = t.Close() }()
	*o = c.Run
	done, err := ready(ctx, p.Ready, t, o)
	if err != nil {
		return err
	}
	defer done()
	return run(t)
}
