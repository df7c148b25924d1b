package postgres_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/rightsize/rightsize/driver"
	"github.com/rightsize/rightsize/engine"
	"github.com/rightsize/rightsize/engine/enginetest"
	"github.com/rightsize/rightsize/engine/postgres"
	"github.com/rightsize/rightsize/internal/pgtest"
	"github.com/rightsize/rightsize/tpcc"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

func open(t testing.TB) engine.DB {
	dsn := pgtest.NewDatabase(t)
	db, err := postgres.Open(context.Background(), dsn, 4)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// deadlock provokes a real deadlock between two transactions that lock
// two district rows in opposite orders, and returns the error PostgreSQL
// raised in the victim.
func deadlock(t testing.TB, db engine.DB) error {
	ctx := context.Background()
	pool := db.(*postgres.DB).Pool()
	var a, b pgx.Tx
	var err error
	if a, err = pool.Begin(ctx); err != nil {
		t.Fatal(err)
	}
	if b, err = pool.Begin(ctx); err != nil {
		t.Fatal(err)
	}
	defer a.Rollback(ctx)
	defer b.Rollback(ctx)
	lock := func(tx pgx.Tx, d int32) error {
		_, err := tx.Exec(ctx, "UPDATE district SET d_ytd = d_ytd WHERE d_w_id = 1 AND d_id = $1", d)
		return err
	}
	return enginetest.Deadlock(t, a, b, lock, func(tx pgx.Tx) { _ = tx.Rollback(ctx) })
}

func TestConformance(t *testing.T) {
	enginetest.Run(t, enginetest.Harness{Open: open, RetryableError: deadlock, Exec: execSQL})
}

func TestReadMetaWithoutSchema(t *testing.T) {
	db := open(t)
	if _, err := db.ReadMeta(context.Background()); !errors.Is(err, engine.ErrNoSchema) {
		t.Fatalf("ReadMeta on an empty database: %v, want ErrNoSchema", err)
	}
}

func TestOpenBadDSN(t *testing.T) {
	_, err := postgres.Open(context.Background(), "postgres://nobody:wrong@127.0.0.1:1/nowhere?connect_timeout=2", 2)
	if err == nil {
		t.Fatal("connected to port 1")
	}
}

func TestSnapshotRestore(t *testing.T) {
	db := open(t).(*postgres.DB)
	enginetest.Build(t, db)
	ctx := context.Background()
	if err := db.Snapshot(ctx); err != nil {
		t.Fatal(err)
	}
	meta, _ := db.ReadMeta(ctx)
	res, err := driver.RunStep(ctx, db, driver.StepConfig{Users: 2, Warehouses: 1,
		Constants: meta.Constants.WithRunConstants(tpcc.NewRand(1, 1)), Seed: 3, Spec: driver.Spec{Duration: time.Second, Mode: engine.Procedures}})
	if err != nil || res.Completed() == 0 {
		t.Fatalf("run: %v", err)
	}
	count := func() int64 {
		n, err := db.QueryInt(ctx, "SELECT count(*) FROM orders")
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	if count() == 30000 {
		t.Fatal("the run created no order")
	}
	if err := db.Restore(ctx); err != nil {
		t.Fatal(err)
	}
	if n := count(); n != 30000 {
		t.Fatalf("after restore: %d orders, want the built 30000", n)
	}
	enginetest.Consistent(t, db, true, "after restore")
}

// execSQL runs a data-changing statement for the broken-database checks.
func execSQL(t testing.TB, db engine.DB, sql string) {
	t.Helper()
	if _, err := db.(*postgres.DB).Pool().Exec(context.Background(), sql); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

// executor opens a virtual user's executor in mode, closed when the test
// ends.
func executor(tb testing.TB, db engine.DB, mode engine.Mode) tpcc.Executor {
	tb.Helper()
	ctx := context.Background()
	ex, err := db.NewExecutor(ctx, mode)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { ex.Close(ctx) })
	return ex
}
