package sqlite_test

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rightsize/rightsize/driver"
	"github.com/rightsize/rightsize/engine"
	"github.com/rightsize/rightsize/engine/enginetest"
	"github.com/rightsize/rightsize/engine/sqlite"
	"github.com/rightsize/rightsize/loader"
	"github.com/rightsize/rightsize/tpcc"
)

func open(t testing.TB) engine.DB {
	db, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "tpcc.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// busy provokes a real SQLITE_BUSY: a second connection with no busy
// timeout tries BEGIN IMMEDIATE while another holds a write transaction.
func busy(t testing.TB, db engine.DB) error {
	ctx := context.Background()
	other, err := sql.Open("sqlite", "file:"+db.(*sqlite.DB).Path()+"?_pragma=busy_timeout(0)")
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	a, err := other.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := other.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if _, err := a.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	defer a.ExecContext(ctx, "ROLLBACK")
	_, err = b.ExecContext(ctx, "BEGIN IMMEDIATE")
	if err == nil {
		b.ExecContext(ctx, "ROLLBACK")
	}
	return err
}

func TestConformance(t *testing.T) {
	enginetest.Run(t, enginetest.Harness{Open: open, RetryableError: busy, Exec: execSQL})
}

func TestReadMetaWithoutSchema(t *testing.T) {
	db := open(t)
	if _, err := db.ReadMeta(context.Background()); !errors.Is(err, engine.ErrNoSchema) {
		t.Fatalf("ReadMeta on an empty database: %v, want ErrNoSchema", err)
	}
}

func TestOpenBadPath(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	_, err := sqlite.Open(ctx, filepath.Join(dir, "no", "such", "dir", "tpcc.db"))
	if err == nil || !strings.Contains(err.Error(), "does not exist") {
		t.Errorf("missing directory: %v", err)
	}
	if _, err = sqlite.Open(ctx, dir); err == nil || !strings.Contains(err.Error(), "is a directory") {
		t.Errorf("directory as file: %v", err)
	}
	notDB := filepath.Join(dir, "text.db")
	if err := os.WriteFile(notDB, []byte(strings.Repeat("this is not a database\n", 100)), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err = sqlite.Open(ctx, notDB); err == nil {
		t.Errorf("a text file opened as a database")
	}
	file := filepath.Join(dir, "plain")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err = sqlite.Open(ctx, filepath.Join(file, "tpcc.db")); err == nil || !strings.Contains(err.Error(), "not a directory") {
		t.Errorf("file as directory: %v", err)
	}
	if os.Geteuid() != 0 { // root writes anywhere
		ro := filepath.Join(dir, "ro")
		os.Mkdir(ro, 0o555)
		if _, err = sqlite.Open(ctx, filepath.Join(ro, "tpcc.db")); err == nil || !strings.Contains(err.Error(), "not writable") {
			t.Errorf("read-only directory: %v", err)
		}
	}
	// A name with URI metacharacters works.
	db, err := sqlite.Open(ctx, filepath.Join(dir, "odd?name#1%.db"))
	if err != nil {
		t.Fatalf("odd file name: %v", err)
	}
	defer db.Close()
	if _, err := os.Stat(filepath.Join(dir, "odd?name#1%.db")); err != nil {
		t.Errorf("odd file name not created as given: %v", err)
	}
}

func TestClosedDBIsConnectionError(t *testing.T) {
	ctx := context.Background()
	db := open(t)
	if err := db.CreateSchema(ctx); err != nil {
		t.Fatal(err)
	}
	ex, err := db.NewExecutor(ctx, engine.Statements)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.NewExecutor(ctx, engine.Procedures); err == nil {
		t.Error("procedures mode accepted")
	}
	db.Close()
	var out tpcc.StockLevelResult
	err = ex.StockLevel(ctx, &tpcc.StockLevelInput{WID: 1, DID: 1, Threshold: 15}, &out)
	if err == nil {
		t.Fatal("statement on a closed database succeeded")
	}
	if c := db.Classify(err); c != engine.ErrConnection {
		t.Errorf("%v classified %v, want connection", err, c)
	}
	ex.Close(ctx)
	if _, err := db.NewExecutor(ctx, engine.Statements); err == nil || db.Classify(err) != engine.ErrConnection {
		t.Errorf("new executor on a closed database: %v", err)
	}
}

// TestPaymentBCData checks the BC credit prefix matches PostgreSQL's text.
func TestPaymentBCData(t *testing.T) {
	ctx := context.Background()
	db := open(t)
	for amount, want := range map[float64]string{100: "100", 12.5: "12.5", 4999.99: "4999.99", 0.1: "0.1", 1234.56: "1234.56"} {
		var got string
		if err := db.(*sqlite.DB).SQL().QueryRowContext(ctx, "SELECT printf('%.15g', ?)", amount).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("amount %v formatted %q, want %q", amount, got, want)
		}
	}
}

// build loads 1 warehouse and logs how long it took.
func build(t testing.TB, db engine.DB, loaders int) loader.Result {
	t.Helper()
	res, err := loader.Build(context.Background(), db, loader.Config{Warehouses: 1, Loaders: loaders, Seed: 42, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("1 warehouse, %d loaders: %d rows, %.1f MB, load %.2fs, indexes+analyze %.2fs, total %.2fs (%.0f rows/s)",
		loaders, res.Rows, float64(res.Bytes)/1e6, res.Load.Seconds(), res.Indexes.Seconds(), res.Total.Seconds(),
		float64(res.Rows)/res.Load.Seconds())
	return res
}

// TestFourUsers builds 1 warehouse, then runs 4 virtual users with no
// keying or think time (5 s measured, 2 s with -short) and requires
// progress, no errors and consistent data afterwards.
func TestFourUsers(t *testing.T) {
	ctx := context.Background()
	db := open(t)
	build(t, db, 4)
	meta, err := db.ReadMeta(ctx)
	if err != nil {
		t.Fatal(err)
	}
	dur := 5 * time.Second
	if testing.Short() {
		dur = 2 * time.Second
	}
	c0, _ := db.Counters(ctx)
	res, err := driver.RunStep(ctx, db, driver.StepConfig{Users: 4, Warehouses: 1, Constants: meta.Constants.WithRunConstants(tpcc.NewRand(3, 3)), Seed: 11, Spec: driver.Spec{Rampup: 500 * time.Millisecond, Duration: dur, Mode: engine.Statements}})
	if err != nil {
		t.Fatal(err)
	}
	c1, _ := db.Counters(ctx)
	for ty, s := range res.Txn {
		if s.Errors > 0 {
			t.Errorf("%s: %d errors, first: %s", tpcc.TxnType(ty), s.Errors, s.FirstError)
		}
		if s.Count == 0 {
			t.Errorf("%s: none completed", tpcc.TxnType(ty))
		}
		if s.Hist != nil && s.Count > 0 {
			t.Logf("%-12s %6d  p50 %6.2f ms  p99 %6.2f ms  retries %d", tpcc.TxnType(ty), s.Count,
				float64(s.Hist.ValueAtQuantile(50))/1e3, float64(s.Hist.ValueAtQuantile(99))/1e3, s.Retries)
		}
	}
	t.Logf("4 users, %s: TPM %.0f, NOPM %.0f, rolled back %d, skipped deliveries %d", dur, res.TPM(), res.NOPM(),
		res.Txn[tpcc.NewOrderTxn].Rollbacks, res.SkippedDeliveries)
	t.Logf("counters: commits %d, rollbacks %d, cache hits %d, misses %d, WAL bytes %d",
		c1.Commits-c0.Commits, c1.Rollbacks-c0.Rollbacks, c1.BlocksHit-c0.BlocksHit, c1.BlocksRead-c0.BlocksRead, c1.WALBytes-c0.WALBytes)
	if c1.Commits <= c0.Commits || c1.BlocksHit <= c0.BlocksHit {
		t.Errorf("counters did not move: %+v -> %+v", c0, c1)
	}
	enginetest.Consistent(t, db, false, "after run")
}

func TestVersionSettingsSizes(t *testing.T) {
	ctx := context.Background()
	db := open(t)
	v, err := db.Version(ctx)
	if err != nil || !strings.HasPrefix(v, "SQLite 3.") {
		t.Errorf("version %q, %v", v, err)
	}
	s, err := db.Settings(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if s["journal_mode"] != "wal" || s["synchronous"] != "NORMAL" || s["busy_timeout"] != "10000" {
		t.Errorf("settings %v", s)
	}
	t.Logf("%s, settings %v", v, s)
	if err := db.CreateSchema(ctx); err != nil {
		t.Fatal(err)
	}
	sizes, err := db.TableSizes(ctx)
	if err != nil || len(sizes) != len(tpcc.Tables) {
		t.Fatalf("sizes %v, %v", sizes, err)
	}
	for _, s := range sizes {
		if s.DataBytes == 0 {
			t.Errorf("%s: no data bytes (dbstat missing?)", s.Table)
		}
	}
}

// TestStockLevelPlan makes sure Stock-Level reads order lines by key and
// stock by key, never scanning stock.
func TestStockLevelPlan(t *testing.T) {
	ctx := context.Background()
	db := open(t)
	if err := db.CreateSchema(ctx); err != nil {
		t.Fatal(err)
	}
	rows, err := db.(*sqlite.DB).SQL().QueryContext(ctx, `EXPLAIN QUERY PLAN SELECT count(DISTINCT s_i_id) FROM order_line CROSS JOIN stock
 WHERE s_i_id = ol_i_id AND s_w_id = ol_w_id AND ol_w_id = 1 AND ol_d_id = 2 AND s_quantity < 15
   AND ol_o_id >= (SELECT d_next_o_id - 20 FROM district WHERE d_w_id = 1 AND d_id = 2)
   AND ol_o_id < (SELECT d_next_o_id FROM district WHERE d_w_id = 1 AND d_id = 2)`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var plan []string
	for rows.Next() {
		var id, parent, notused int
		var detail string
		if err := rows.Scan(&id, &parent, &notused, &detail); err != nil {
			t.Fatal(err)
		}
		plan = append(plan, detail)
	}
	for _, p := range plan {
		if strings.HasPrefix(p, "SCAN") {
			t.Errorf("plan scans: %q", plan)
		}
	}
}

// BenchmarkLoad measures a 1-warehouse build.
func BenchmarkLoad(b *testing.B) {
	for range b.N {
		db := open(b)
		res := build(b, db, 2)
		b.ReportMetric(res.Load.Seconds(), "load-s")
		b.ReportMetric(float64(res.Rows)/res.Load.Seconds(), "rows/s")
		db.Close()
	}
}

// BenchmarkMix runs the transaction mix on one executor (no think time)
// and reports time and allocations per transaction.
func BenchmarkMix(b *testing.B) {
	ctx := context.Background()
	db := open(b)
	build(b, db, 2)
	meta, err := db.ReadMeta(ctx)
	if err != nil {
		b.Fatal(err)
	}
	ex, err := db.NewExecutor(ctx, engine.Statements)
	if err != nil {
		b.Fatal(err)
	}
	defer ex.Close(ctx)
	term := tpcc.NewTerminal(tpcc.NewRand(5, 1), meta.Constants.WithRunConstants(tpcc.NewRand(5, 2)), 1, 1, 1)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if err := term.Exec(ctx, ex, term.Next()); err != nil {
			b.Fatal(err)
		}
	}
}

// execSQL runs a data-changing statement for the broken-database checks.
func execSQL(t testing.TB, db engine.DB, sql string) {
	t.Helper()
	if _, err := db.(*sqlite.DB).SQL().ExecContext(context.Background(), sql); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}
