package mysql_test

import (
	"bytes"
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	gomysql "github.com/go-sql-driver/mysql"

	"github.com/rightsize/rightsize/engine"
	"github.com/rightsize/rightsize/engine/enginetest"
	"github.com/rightsize/rightsize/engine/mysql"
	"github.com/rightsize/rightsize/instance/mariadb"
	"github.com/rightsize/rightsize/tpcc"
)

// server is the managed MariaDB all tests share, started once in TestMain.
var server *mariadb.Server

// serverLog collects the server's output, printed when a test fails.
var serverLog lockedBuffer

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func TestMain(m *testing.M) {
	if os.Getenv("RIGHTSIZE_SKIP_MYSQL") == "1" {
		fmt.Println("RIGHTSIZE_SKIP_MYSQL=1: skipping the MySQL engine tests")
		os.Exit(0)
	}
	os.Exit(run(m))
}

func run(m *testing.M) int {
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	if err := mariadb.EnsureInstalled(ctx); err != nil {
		fmt.Fprintf(os.Stderr, "FAIL: MariaDB is not installed and could not be installed: %v\n(set RIGHTSIZE_SKIP_MYSQL=1 to skip)\n", err)
		return 1
	}
	t0 := time.Now()
	var err error
	settings := map[string]string{"innodb_buffer_pool_size": "1G"}
	if f := os.Getenv("RIGHTSIZE_MYSQL_FLUSH"); f != "" { // innodb_flush_log_at_trx_commit (default 1)
		settings["innodb_flush_log_at_trx_commit"] = f
	}
	server, err = mariadb.Start(ctx, mariadb.Config{Log: &serverLog, Settings: settings})
	if err != nil {
		fmt.Fprintf(os.Stderr, "FAIL: start MariaDB: %v\n", err)
		return 1
	}
	fmt.Printf("MariaDB %s started in %v\n", server.Version(), time.Since(t0).Round(time.Millisecond))
	code := m.Run()
	if code != 0 {
		fmt.Fprintf(os.Stderr, "server log (tail):\n%s\n", tailString(serverLog.String(), 4000))
	}
	if err := server.Stop(); err != nil {
		fmt.Fprintf(os.Stderr, "stop MariaDB: %v\n", err)
		return 1
	}
	return code
}

func tailString(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

var dbSeq atomic.Int64

// open creates a fresh database and opens it; the database is dropped at
// cleanup.
func open(t testing.TB) engine.DB {
	t.Helper()
	ctx := context.Background()
	url := server.URL(fmt.Sprintf("rs_test_%d_%d", os.Getpid(), dbSeq.Add(1)))
	if err := mysql.EnsureDatabase(ctx, url); err != nil {
		t.Fatal(err)
	}
	db, err := mysql.Open(ctx, url, 4)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		db.Close()
		if err := mysql.DropDatabase(context.Background(), url); err != nil {
			t.Errorf("drop database: %v", err)
		}
	})
	return db
}

// deadlock provokes a real deadlock between two transactions that lock two
// district rows in opposite orders, and returns the error the server
// raised in the victim (1213).
func deadlock(t testing.TB, db engine.DB) error {
	ctx := context.Background()
	pool := db.(*mysql.DB).Pool()
	a, err := pool.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := pool.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Rollback()
	defer b.Rollback()
	return enginetest.Deadlock(t, a, b, func(tx *sql.Tx, d int32) error {
		_, err := tx.ExecContext(ctx, "UPDATE district SET d_ytd = d_ytd WHERE d_w_id = 1 AND d_id = ?", d)
		return err
	}, func(tx *sql.Tx) { _ = tx.Rollback() })
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

func TestOpenBadURL(t *testing.T) {
	ctx := context.Background()
	if _, err := mysql.Open(ctx, "mysql://nobody:wrong@127.0.0.1:1/nowhere?timeout=2s", 2); err == nil {
		t.Fatal("connected to port 1")
	} else if c := (&mysql.DB{}).Classify(err); c != engine.ErrConnection {
		t.Errorf("connection refused classified %v: %v", c, err)
	}
	if _, err := mysql.Open(ctx, "postgres://x@y/z", 2); err == nil {
		t.Fatal("accepted a postgres URL")
	}
}

func TestParseURL(t *testing.T) {
	cfg, err := mysql.ParseURL("mysql://u:p%40ss@db.example:3307/tpcc?timeout=5s&tls=preferred")
	if err != nil {
		t.Fatal(err)
	}
	if cfg.User != "u" || cfg.Passwd != "p@ss" || cfg.Addr != "db.example:3307" || cfg.DBName != "tpcc" ||
		cfg.Timeout != 5*time.Second || !cfg.ParseTime || cfg.InterpolateParams || cfg.TLSConfig != "preferred" {
		t.Errorf("parsed %+v", cfg)
	}
	cfg, err = mysql.ParseURL("mysql://root@localhost/x?socket=/run/mysqld/mysqld.sock")
	if err != nil || cfg.Net != "unix" || cfg.Addr != "/run/mysqld/mysqld.sock" {
		t.Errorf("socket URL: %+v, %v", cfg, err)
	}
	cfg, err = mysql.ParseURL("mysql://root@db/x")
	if err != nil || cfg.Addr != "db:3306" {
		t.Errorf("default port: %+v, %v", cfg, err)
	}
	// no password on the command line: MYSQL_PWD's, as the mysql client
	t.Setenv("MYSQL_PWD", "from-env")
	if cfg, err = mysql.ParseURL("mysql://root@db/x"); err != nil || cfg.Passwd != "from-env" {
		t.Errorf("MYSQL_PWD: %+v, %v", cfg, err)
	}
	if cfg, err = mysql.ParseURL("mysql://root:given@db/x"); err != nil || cfg.Passwd != "given" {
		t.Errorf("a password in the URL is used over MYSQL_PWD: %+v, %v", cfg, err)
	}
}

func TestInfo(t *testing.T) {
	db := open(t)
	ctx := context.Background()
	v, err := db.Version(ctx)
	if err != nil || !strings.HasPrefix(v, "MariaDB 10.") && !strings.HasPrefix(v, "MariaDB 11.") {
		t.Errorf("version %q, %v", v, err)
	}
	s, err := db.Settings(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"innodb_buffer_pool_size", "innodb_flush_log_at_trx_commit", "max_connections", "innodb_log_file_size"} {
		if s[k] == "" {
			t.Errorf("setting %s missing: %v", k, s)
		}
	}
	if s["tx_isolation"] == "" && s["transaction_isolation"] == "" {
		t.Errorf("no isolation setting: %v", s)
	}
	c1, err := db.Counters(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.(*mysql.DB).Pool().ExecContext(ctx, "CREATE TABLE t (a int primary key)"); err != nil {
		t.Fatal(err)
	}
	tx, _ := db.(*mysql.DB).Pool().BeginTx(ctx, nil)
	_, _ = tx.ExecContext(ctx, "INSERT INTO t VALUES (1)")
	_ = tx.Commit()
	c2, err := db.Counters(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if c2.Commits <= c1.Commits || c2.WALBytes <= c1.WALBytes || c2.BlocksHit <= c1.BlocksHit {
		t.Errorf("counters did not move: %+v -> %+v", c1, c2)
	}
}

func TestClassify(t *testing.T) {
	var db mysql.DB
	for _, c := range []struct {
		err  error
		want engine.ErrClass
	}{
		{errors.New("whatever"), engine.ErrOther},
		{fmt.Errorf("wrapped: %w", errors.New("dial tcp 127.0.0.1:1: connect: connection refused")), engine.ErrConnection},
		{&gomysql.MySQLError{Number: 1213, Message: "Deadlock found"}, engine.ErrRetry},
		{fmt.Errorf("x: %w", &gomysql.MySQLError{Number: 1205}), engine.ErrRetry},
		{&gomysql.MySQLError{Number: 1062, Message: "Duplicate entry"}, engine.ErrOther},
		{&gomysql.MySQLError{Number: 1927}, engine.ErrConnection},
		{&gomysql.MySQLError{Number: 2013}, engine.ErrConnection},
		{driver.ErrBadConn, engine.ErrConnection},
		{gomysql.ErrInvalidConn, engine.ErrConnection},
		{io.ErrUnexpectedEOF, engine.ErrConnection},
	} {
		if got := db.Classify(c.err); got != c.want {
			t.Errorf("%v: %v, want %v", c.err, got, c.want)
		}
	}
}

// TestProceduresAndStatementsAgreeUnderLoad runs both modes concurrently
// on one database, then checks consistency.
func TestConcurrentModes(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	db := open(t)
	enginetest.Build(t, db)
	ctx := context.Background()
	meta, err := db.ReadMeta(ctx)
	if err != nil {
		t.Fatal(err)
	}
	consts := meta.Constants.WithRunConstants(tpcc.NewRand(3, 3))
	var wg sync.WaitGroup
	var mu sync.Mutex
	counts := map[string]int{}
	for u := 0; u < 8; u++ {
		mode := engine.Procedures
		if u%2 == 1 {
			mode = engine.Statements
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			ex, err := db.NewExecutor(ctx, mode)
			if err != nil {
				t.Error(err)
				return
			}
			defer ex.Close(ctx)
			term := tpcc.NewTerminal(tpcc.NewRand(uint64(u), 1), consts, 1, 1, u%10+1)
			deadline := time.Now().Add(3 * time.Second)
			for time.Now().Before(deadline) {
				ty := term.Next()
				var err error
				for attempt := 0; attempt < 5; attempt++ {
					err = term.Exec(ctx, ex, ty)
					if err == nil || db.Classify(err) != engine.ErrRetry {
						break
					}
					mu.Lock()
					counts["retry "+string(mode)]++
					mu.Unlock()
				}
				if err != nil {
					t.Errorf("%s %s: %v", mode, ty, err)
					return
				}
				mu.Lock()
				counts[string(mode)]++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	t.Logf("transactions: %v", counts)
	enginetest.Consistent(t, db, false, "after the transactions")
}

// cpuTicks returns user+system clock ticks of process pid (0: this process).
func cpuTicks(t testing.TB, pid int) int64 {
	path := "/proc/self/stat"
	if pid != 0 {
		path = fmt.Sprintf("/proc/%d/stat", pid)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	var ut, st int64
	fmt.Sscan(f[11], &ut)
	fmt.Sscan(f[12], &st)
	return ut + st
}

// TestLoadMethods loads 1 warehouse (two loaders, as a build does) with
// each load method and reports wall time and the CPU time of this process
// (generators + formatting + driver) against the server's. Loading must be
// server-bound: this process should use under a quarter of the server's
// CPU (measured 22-23 %, the generators alone 12-13 %); the test fails
// above 30 % to leave room for noisy machines.
func TestLoadMethods(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	pid, err := server.PID()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	gen := tpcc.GenConfig{Seed: 1, LoadTime: time.Now().UTC().Truncate(time.Second), Constants: tpcc.LoadConstants(1)}
	loadAll := func(load func(tpcc.Table, tpcc.RowSource) (int64, error)) int64 {
		var rows atomic.Int64
		tables := make(chan tpcc.Table, len(tpcc.Tables))
		for _, tab := range []tpcc.Table{tpcc.OrderLine, tpcc.Stock, tpcc.Customer, tpcc.Item, tpcc.History, tpcc.Orders,
			tpcc.NewOrders, tpcc.District, tpcc.Warehouse} {
			tables <- tab
		}
		close(tables)
		var wg sync.WaitGroup
		for range 2 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for tab := range tables {
					n, err := load(tab, tpcc.Generate(gen, tab, 1))
					if err != nil {
						t.Error(err)
					}
					rows.Add(n)
				}
			}()
		}
		wg.Wait()
		return rows.Load()
	}
	// the generators alone, for the split of this process's CPU
	c0 := cpuTicks(t, 0)
	loadAll(func(_ tpcc.Table, src tpcc.RowSource) (int64, error) {
		var n int64
		for src.Next() {
			if _, err := src.Values(); err != nil {
				return n, err
			}
			n++
		}
		return n, nil
	})
	genCPU := float64(cpuTicks(t, 0)-c0) / 100
	for _, m := range []mysql.LoadMethod{mysql.LoadData, mysql.LoadInsert} {
		t.Run(strings.ReplaceAll(m.String(), " ", "_"), func(t *testing.T) {
			db := open(t)
			db.(*mysql.DB).SetLoadMethod(m)
			if err := db.CreateSchema(ctx); err != nil {
				t.Fatal(err)
			}
			c0, s0, t0 := cpuTicks(t, 0), cpuTicks(t, pid), time.Now()
			rows := loadAll(func(tab tpcc.Table, src tpcc.RowSource) (int64, error) { return db.Load(ctx, tab, src) })
			wall := time.Since(t0)
			client, srv := float64(cpuTicks(t, 0)-c0)/100, float64(cpuTicks(t, pid)-s0)/100
			t.Logf("%s: 1 warehouse, %d rows in %v (%.0f rows/s); CPU: server %.2fs, this process %.2fs = %.0f%% of the server's "+
				"(generators alone %.2fs, so formatting+driver %.2fs = %.0f%%)", m, rows, wall.Round(time.Millisecond),
				float64(rows)/wall.Seconds(), srv, client, 100*client/srv, genCPU, client-genCPU, 100*(client-genCPU)/srv)
			if rows != 599_046 && rows < 590_000 {
				t.Errorf("%d rows loaded", rows)
			}
			// A guard, not the target: this process measures 25-30 % of
			// the server's CPU (16-17 points of it the generators), and a
			// clean-clone run beside cmd/rightsize's tests measured 30.3 %
			// (0.57 s of 1.88 s, 10 ms ticks), so 45 % catches the
			// formatting and driver's share doubling without failing on a
			// busy machine.
			if client > 0.45*srv && !raceEnabled {
				t.Errorf("loading is not server-bound: this process used %.2fs CPU, more than 45%% of the server's %.2fs", client, srv)
			}
		})
	}
}

// TestExecutorErrors checks, in both modes, that a by-name lookup of an
// unknown name gives tpcc.ErrNoSuchCustomer and leaves the connection
// usable, and that a connection killed on the server is classified as a
// connection error.
func TestExecutorErrors(t *testing.T) {
	db := open(t)
	enginetest.Build(t, db)
	ctx := context.Background()
	pool := db.(*mysql.DB).Pool()
	for _, mode := range db.Caps().Modes() {
		t.Run(string(mode), func(t *testing.T) {
			ex, err := db.NewExecutor(ctx, mode)
			if err != nil {
				t.Fatal(err)
			}
			defer ex.Close(ctx)
			before, _ := db.QueryInt(ctx, "SELECT CAST(w_ytd * 100 AS bigint) FROM warehouse")
			pay := tpcc.PaymentInput{WID: 1, DID: 1, CWID: 1, CDID: 1, ByName: true, CLast: "NOSUCHNAME", Amount: 12.34}
			err = ex.Payment(ctx, &pay, &tpcc.PaymentResult{})
			if !errors.Is(err, tpcc.ErrNoSuchCustomer) {
				t.Fatalf("payment for an unknown name: %v", err)
			}
			if after, _ := db.QueryInt(ctx, "SELECT CAST(w_ytd * 100 AS bigint) FROM warehouse"); after != before {
				t.Errorf("failed payment not rolled back: w_ytd %d -> %d", before, after)
			}
			os := tpcc.OrderStatusInput{WID: 1, DID: 1, ByName: true, CLast: "NOSUCHNAME"}
			if err := ex.OrderStatus(ctx, &os, &tpcc.OrderStatusResult{}); !errors.Is(err, tpcc.ErrNoSuchCustomer) {
				t.Fatalf("order status for an unknown name: %v", err)
			}
			pay = tpcc.PaymentInput{WID: 1, DID: 1, CWID: 1, CDID: 1, CID: 7, Amount: 12.34}
			var out tpcc.PaymentResult
			if err := ex.Payment(ctx, &pay, &out); err != nil || out.CID != 7 {
				t.Fatalf("payment after the error: %+v, %v", out, err)
			}

			// kill every other connection to this database: the executor's among them
			rows, err := pool.QueryContext(ctx, "SELECT id FROM information_schema.processlist WHERE db = DATABASE() AND id <> CONNECTION_ID()")
			if err != nil {
				t.Fatal(err)
			}
			var ids []int64
			for rows.Next() {
				var id int64
				_ = rows.Scan(&id)
				ids = append(ids, id)
			}
			rows.Close()
			for _, id := range ids {
				_, _ = pool.ExecContext(ctx, fmt.Sprintf("KILL CONNECTION %d", id))
			}
			err = ex.StockLevel(ctx, &tpcc.StockLevelInput{WID: 1, DID: 1, Threshold: 15}, &tpcc.StockLevelResult{})
			if err == nil {
				t.Fatal("transaction on a killed connection succeeded")
			}
			if c := db.Classify(err); c != engine.ErrConnection {
				t.Errorf("error on a killed connection %v classified %v, want connection", err, c)
			}
		})
	}
}

// execSQL runs a data-changing statement for the broken-database checks.
func execSQL(t testing.TB, db engine.DB, sql string) {
	t.Helper()
	if _, err := db.(*mysql.DB).Pool().ExecContext(context.Background(), sql); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}
