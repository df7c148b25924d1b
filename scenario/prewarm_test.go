package scenario

import (
	"context"
	"errors"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rightsize/rightsize/analysis"
	"github.com/rightsize/rightsize/driver"
	"github.com/rightsize/rightsize/internal/pgtest"
	"github.com/rightsize/rightsize/internal/storetest"
	"github.com/rightsize/rightsize/loader"
	"github.com/rightsize/rightsize/registry"
	"github.com/rightsize/rightsize/store"
)

// TestPrewarmPostgres: restarted (a cold cache) and run briefly, a managed
// PostgreSQL reads blocks for the first transactions that touch them;
// restarted and prewarmed, with a cache larger than the database, the same
// run reads almost none, and the run stores what was loaded.
func TestPrewarmPostgres(t *testing.T) {
	if testing.Short() {
		t.Skip("starts PostgreSQL")
	}
	ctx := context.Background()
	opt := registry.Options{PGBin: pgtest.Bin(), DataDir: filepath.Join(pgtest.ServerDir(t, "waits-"), "data"), PoolSize: 4,
		Settings: map[string]string{"fsync": "off", "shared_buffers": "256MB"}}
	tg, err := registry.Open(ctx, "embedded", opt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tg.Close() })
	if _, err := loader.Build(ctx, tg, loader.Config{Warehouses: 1, Loaders: 2, Seed: 7}); err != nil {
		t.Fatal(err)
	}
	st := storetest.Open(t)
	run := func(prewarm bool) (float64, *store.Run) {
		t.Helper()
		if err := tg.Restart(ctx, opt); err != nil {
			t.Fatal(err)
		}
		spec := RunSpec{Spec: driver.Spec{Rampup: time.Second, Duration: 3 * time.Second}, Users: []int{2}, Repeats: 1, Seed: 11, NoWaits: true}
		res, err := Run(ctx, st, tg, RunOptions{RunSpec: spec, Prewarm: prewarm})
		if err != nil {
			t.Fatal(err)
		}
		return analysis.Aggregate(res.Steps)[0].BlocksReadPerTxn, res.Run
	}
	cold, coldRun := run(false)
	warm, warmRun := run(true)
	t.Logf("blocks read per transaction: %.2f cold, %.2f prewarmed (%s)", cold, warm, warmRun.Prewarmed())
	if coldRun.Prewarmed() != "" {
		t.Errorf("a run without --prewarm says %q", coldRun.Prewarmed())
	}
	if b, _ := strconv.ParseInt(warmRun.Env[store.EnvPrewarmBytes], 10, 64); b < 50<<20 {
		t.Errorf("prewarmed %d bytes; want the whole 1-warehouse database (over 50 MiB)", b)
	}
	// a prewarmed cache still reads a few blocks per transaction that
	// prewarm cannot load (measured on a quiet host on 2026-11-28, on
	// a7e92c0 and today's main alike: 0.31-0.32 cold, 0.11 prewarmed, where
	// a third of cold failed both); prewarm doing nothing reads as cold
	if warm > 0.5 || warm > cold/2 {
		t.Errorf("prewarmed, a cache larger than the database read %.2f blocks per transaction (cold: %.2f); want almost none", warm, cold)
	}
}

// An engine rightsize cannot prewarm is bad options naming the fix.
func TestPrewarmSQLite(t *testing.T) {
	ctx := context.Background()
	tg, err := registry.Open(ctx, "sqlite:"+filepath.Join(t.TempDir(), "tpcc.db"), registry.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	_, err = prewarm(ctx, tg)
	if !errors.Is(err, ErrBadOptions) || !strings.Contains(err.Error(), "--prewarm") || !strings.Contains(err.Error(), "drop --prewarm") {
		t.Fatalf("prewarm on SQLite: %v; want bad options saying to drop --prewarm", err)
	}
}
