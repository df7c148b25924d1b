package mssql

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rightsize/rightsize/engine"
	"github.com/rightsize/rightsize/engine/enginetest"
	"github.com/rightsize/rightsize/tpcc"
)

// liveDSNVar names the environment variable with the URL of a SQL Server
// login allowed to create and drop databases, for example
// sqlserver://sa:Passw0rd!@127.0.0.1:1433?encrypt=disable. Its database, if
// any, is ignored: every test database is created and dropped by the tests.
const liveDSNVar = "RIGHTSIZE_TEST_MSSQL_DSN"

func liveDSN(t testing.TB) string {
	t.Helper()
	dsn := os.Getenv(liveDSNVar)
	if dsn == "" {
		t.Skip("RIGHTSIZE_TEST_MSSQL_DSN not set: SQL Server conformance not run")
	}
	return dsn
}

var liveSeq atomic.Int64

// sqlDropDatabase drops database @name, closing its sessions first.
const sqlDropDatabase = `IF DB_ID(@name) IS NOT NULL
BEGIN
  DECLARE @sql nvarchar(max);
  SET @sql = N'ALTER DATABASE ' + QUOTENAME(@name) + N' SET SINGLE_USER WITH ROLLBACK IMMEDIATE; DROP DATABASE ' + QUOTENAME(@name);
  EXEC (@sql);
END`

// sqlSimpleRecovery keeps a test database's log small.
const sqlSimpleRecovery = `DECLARE @sql nvarchar(max);
SET @sql = N'ALTER DATABASE ' + QUOTENAME(@name) + N' SET RECOVERY SIMPLE';
EXEC (@sql);`

// onMaster runs one statement with @name on the master database of dsn.
func onMaster(ctx context.Context, dsn, query, name string) error {
	db, err := openMaster(dsn)
	if err != nil {
		return err
	}
	defer db.Close()
	_, err = db.ExecContext(ctx, query, sql.Named("name", name))
	return err
}

// openLive creates a fresh database on the live server, opens it, and drops
// it when the test ends.
func openLive(t testing.TB) engine.DB {
	t.Helper()
	base := liveDSN(t)
	ctx := context.Background()
	name := fmt.Sprintf("rs_test_%d_%d_%d", time.Now().Unix(), os.Getpid(), liveSeq.Add(1))
	url, err := withDatabase(base, name)
	if err != nil {
		t.Fatal(err)
	}
	if err := EnsureDatabase(ctx, url); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := onMaster(context.Background(), base, sqlDropDatabase, name); err != nil {
			t.Errorf("drop test database %s: %v", name, err)
		}
	})
	if err := onMaster(ctx, base, sqlSimpleRecovery, name); err != nil {
		t.Fatal(err)
	}
	db, err := Open(ctx, url, 4)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// deadlock provokes a real deadlock between two transactions that update
// two district rows in opposite orders, and returns the error SQL Server
// raised in the victim (1205; the lock monitor finds it within about 5 s).
func deadlock(t testing.TB, edb engine.DB) error {
	ctx := context.Background()
	pool := edb.(*DB).SQL()
	a, err := pool.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Rollback()
	b, err := pool.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Rollback()
	err = enginetest.Deadlock(t, a, b, func(tx *sql.Tx, d int32) error {
		_, err := tx.ExecContext(ctx, "UPDATE dbo.district SET d_ytd = d_ytd + 1 WHERE d_w_id = 1 AND d_id = @d", sql.Named("d", d))
		return err
	}, func(tx *sql.Tx) { _ = tx.Rollback() })
	if err != nil && !hasNumber(err, ErrDeadlockVictim) {
		t.Fatalf("expected a deadlock victim (1205), got %v", err)
	}
	return err
}

// TestConformance runs the engine-conformance suite on a live SQL Server.
func TestConformance(t *testing.T) {
	liveDSN(t)
	enginetest.Run(t, enginetest.Harness{Open: openLive, RetryableError: deadlock})
}

// TestLiveServer checks the parts the suite does not reach: metadata
// without a schema, version, settings, counters, the procedures' error
// re-raise, and the deadlock's classification in both modes' error paths.
func TestLiveServer(t *testing.T) {
	db := openLive(t).(*DB)
	ctx := context.Background()
	if _, err := db.ReadMeta(ctx); !errors.Is(err, engine.ErrNoSchema) {
		t.Fatalf("ReadMeta on an empty database: %v, want ErrNoSchema", err)
	}
	v, err := db.Version(ctx)
	if err != nil || !strings.HasPrefix(v, "Microsoft SQL Server") || strings.Contains(v, "\n") {
		t.Errorf("Version: %q, %v", v, err)
	}
	t.Logf("server: %s", v)
	s, err := db.Settings(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"max degree of parallelism", "max server memory (MB)", "cost threshold for parallelism",
		"compatibility_level", "recovery_model", "read_committed_snapshot"} {
		if s[k] == "" {
			t.Errorf("setting %q missing: %v", k, s)
		}
	}
	t.Logf("settings: %v", s)
	c1, err := db.Counters(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.CreateSchema(ctx); err != nil {
		t.Fatal(err)
	}
	if err := db.InstallProcedures(ctx); err != nil {
		t.Fatal(err)
	}
	if err := db.CreateSchema(ctx); err != nil { // again: drops procedures and type first
		t.Fatalf("CreateSchema over an installed schema: %v", err)
	}
	if err := db.InstallProcedures(ctx); err != nil {
		t.Fatal(err)
	}
	c2, err := db.Counters(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if c2.Extra["batch_requests"] <= c1.Extra["batch_requests"] {
		t.Errorf("Batch Requests/sec did not grow: %d -> %d", c1.Extra["batch_requests"], c2.Extra["batch_requests"])
	}
	t.Logf("counters: %v", c2.Extra)

	// A procedure's own error comes back re-raised, number in the message.
	ex, err := db.NewExecutor(ctx, engine.Procedures)
	if err != nil {
		t.Fatal(err)
	}
	defer ex.Close(ctx)
	var out tpcc.PaymentResult
	err = ex.Payment(ctx, &tpcc.PaymentInput{WID: 1, DID: 1, CWID: 1, CDID: 1, ByName: true, CLast: "NOBODY", Amount: 10}, &out)
	if err == nil || !strings.Contains(err.Error(), "rs_error 50000 in rs_payment: no customer named NOBODY") {
		t.Fatalf("payment for nobody: %v", err)
	}
	if c := db.Classify(err); c != engine.ErrOther {
		t.Errorf("classified %v", c)
	}
}
