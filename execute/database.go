package execute

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"time"

	"github.com/rightsize/rightsize/loader"
	"github.com/rightsize/rightsize/registry"
	"github.com/rightsize/rightsize/scenario"
)

// ensureDatabase makes t hold c's database: built there once (and
// snapshot where the engine can), restored from that snapshot later.
func ensureDatabase(ctx context.Context, t *registry.Target, c Config, out io.Writer) error {
	if out == nil {
		out = io.Discard
	}
	say := func(format string, a ...any) { fmt.Fprintf(out, "  %s: "+format+"\n", append([]any{c.Name}, a...)...) }
	b := c.Build
	switch b.Tables {
	case TablesTPCB, TablesInit:
		return ensureWorkloadDatabase(ctx, t, b, say)
	case TablesNone:
		say("a script workload without build.init: the database as it is")
		return nil
	}
	restorer, canRestore := t.DB.(scenario.Restorer)
	m, err := scenario.ReadySchema(ctx, t)
	same := err == nil && m.Warehouses == b.Warehouses && m.Seed == b.Seed
	if same && canRestore {
		if has, ok := t.DB.(snapshotChecker); ok {
			if made, err := has.HasSnapshot(ctx); err == nil && !made {
				if m.Runs == 0 { // built outside a study and never run: the built state
					return t.Unthrottled(func() error { return restorer.Snapshot(ctx) })
				}
				same = false // run since its build, and no snapshot: build again
			}
		}
	}
	if same {
		if canRestore {
			if err := t.Unthrottled(func() error { return restorer.Restore(ctx) }); err != nil {
				return fmt.Errorf("restore the built database: %w", err)
			}
			say("the built database restored")
			return nil
		}
		say("the database is already built (%d warehouses)", b.Warehouses)
		return nil
	}
	loaders := b.Loaders
	if loaders <= 0 {
		loaders = runtime.NumCPU()
	}
	say("building %d warehouses (seed %d)", b.Warehouses, b.Seed)
	t0 := time.Now()
	if _, err := loader.Build(ctx, t, loader.Config{Warehouses: b.Warehouses, Seed: b.Seed, Loaders: loaders, Version: c.Run.Version}); err != nil {
		return fmt.Errorf("build: %w", err)
	}
	say("built in %s", time.Since(t0).Round(100*time.Millisecond))
	if canRestore {
		return t.Unthrottled(func() error { return restorer.Snapshot(ctx) })
	}
	return nil
}

// snapshotChecker tells whether a snapshot exists (engine/postgres).
type snapshotChecker interface {
	HasSnapshot(ctx context.Context) (bool, error)
}
