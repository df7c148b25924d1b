package execute

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/rightsize/rightsize/pgbench/tpcb"
	"github.com/rightsize/rightsize/registry"
	"github.com/rightsize/rightsize/scenario"
)

// pgConnector opens plain PostgreSQL connections (engine/postgres), what
// pgbench's tables are built and checked with.
type pgConnector interface {
	ConnectPg(ctx context.Context) (*pgconn.PgConn, error)
}

// scriptExecer runs an SQL file of several statements as it is
// (engine/mysql and engine/sqlite).
type scriptExecer interface {
	ExecScript(ctx context.Context, sql string) (time.Duration, error)
}

// ensureWorkloadDatabase makes t hold a pgbench workload's database
// (b.Tables TablesTPCB or TablesInit): restored from the snapshot when
// there is one and it holds the build (pgbench's tables at the scale and
// in the layout, untouched; an init's snapshot is taken as it is), else
// built and snapshot where the engine can.
func ensureWorkloadDatabase(ctx context.Context, t *registry.Target, b Build, say func(string, ...any)) error {
	restorer, canRestore := t.DB.(scenario.Restorer)
	if canRestore {
		if has, ok := t.DB.(snapshotChecker); ok {
			if made, err := has.HasSnapshot(ctx); err == nil && made {
				if err := t.Unthrottled(func() error { return restorer.Restore(ctx) }); err != nil {
					return fmt.Errorf("restore the built database: %w", err)
				}
				if b.Tables == TablesInit || tpcbBuilt(ctx, t, b.Scale, b.Layout) == nil {
					say("the built database restored")
					return nil
				}
			}
		}
	}
	t0 := time.Now()
	switch b.Tables {
	case TablesTPCB:
		pc, ok := t.DB.(pgConnector)
		if !ok {
			return fmt.Errorf("build tpcb: pgbench's tables are built on PostgreSQL only (this target is %s)", t.Engine())
		}
		loaders := b.Loaders
		if loaders <= 0 {
			loaders = runtime.NumCPU()
		}
		say("building pgbench's tables at scale %d", b.Scale)
		if _, err := tpcb.Build(ctx, pc.ConnectPg, tpcb.Config{Scale: b.Scale, Loaders: loaders, Layout: b.Layout}); err != nil {
			return fmt.Errorf("build tpcb at scale %d: %w", b.Scale, err)
		}
	case TablesInit:
		say("running %s", b.Init)
		if _, err := RunInit(ctx, t, b.Init); err != nil {
			return err
		}
	}
	say("built in %s", time.Since(t0).Round(100*time.Millisecond))
	if canRestore {
		return t.Unthrottled(func() error { return restorer.Snapshot(ctx) })
	}
	return nil
}

// tpcbBuilt checks that t holds pgbench's tables at scale as built: the
// scale's rows, every balance equal to the history's deltas, stored as
// layout says.
func tpcbBuilt(ctx context.Context, t *registry.Target, scale int, layout tpcb.Layout) error {
	pc, ok := t.DB.(pgConnector)
	if !ok {
		return fmt.Errorf("not PostgreSQL")
	}
	conn, err := pc.ConnectPg(ctx)
	if err != nil {
		return err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	tot, err := tpcb.ReadTotals(ctx, conn)
	if err != nil {
		return err
	}
	if tot.History != 0 {
		return fmt.Errorf("pgbench_history has %d rows: run since its build", tot.History)
	}
	if l, err := tpcb.ReadLayout(ctx, conn); err != nil || l != layout.Normal() {
		return fmt.Errorf("stored as %s, not %s (%v)", l, layout, err)
	}
	return tot.Check(scale)
}

// RunInit runs the SQL file path, as it is, on t's database (a script
// workload's own tables: build --init, a plan's build.init): one
// ExecScript on engines that have it (MySQL, SQLite), else one
// simple-query call on PostgreSQL. It returns how long the file ran.
func RunInit(ctx context.Context, t *registry.Target, path string) (time.Duration, error) {
	sql, err := os.ReadFile(path)
	if err != nil {
		return 0, fmt.Errorf("--init: %w", err)
	}
	if se, ok := t.DB.(scriptExecer); ok {
		took, err := se.ExecScript(ctx, string(sql))
		if err != nil {
			return took, fmt.Errorf("run --init %s: %w", path, err)
		}
		return took, nil
	}
	pc, ok := t.DB.(pgConnector)
	if !ok {
		return 0, fmt.Errorf("--init %s: %s runs no SQL file", path, t.Engine())
	}
	conn, err := pc.ConnectPg(ctx)
	if err != nil {
		return 0, err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	start := time.Now()
	if _, err := conn.Exec(ctx, string(sql)).ReadAll(); err != nil {
		return time.Since(start), fmt.Errorf("run --init %s: %w", path, err)
	}
	return time.Since(start), nil
}
