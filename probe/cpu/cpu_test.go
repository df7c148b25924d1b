package cpu

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"math"
	"net"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
	_ "github.com/microsoft/go-mssqldb"

	"github.com/rightsize/rightsize/engine"
	"github.com/rightsize/rightsize/engine/postgres"
	"github.com/rightsize/rightsize/internal/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

func openPostgres(t *testing.T) *postgres.DB {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	db, err := postgres.Open(ctx, pgtest.NewDatabase(t), 2)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func TestPostgresRun(t *testing.T) {
	db := openPostgres(t)
	ctx := context.Background()
	r, err := Run(ctx, db, PLpgSQLLoop, 100_000, 3)
	if err != nil {
		t.Fatal(err)
	}
	if r.Engine != "postgres" || !strings.Contains(r.Version, "PostgreSQL") || r.Language != "PL/pgSQL" {
		t.Errorf("engine %q version %q language %q", r.Engine, r.Version, r.Language)
	}
	if r.Runs != 3 || len(r.ServerMs) != 3 || r.Iterations != 100_000 {
		t.Fatalf("runs %d, server ms %v, iterations %d", r.Runs, r.ServerMs, r.Iterations)
	}
	for _, ms := range r.ServerMs {
		if ms <= 0 {
			t.Errorf("run took %v ms", ms)
		}
	}
	if r.BestMs <= 0 || r.BestMs > r.MedianMs || r.ClientGoMs <= 0 || r.Host == "" {
		t.Errorf("best %v median %v client %v host %q", r.BestMs, r.MedianMs, r.ClientGoMs, r.Host)
	}
	var buf bytes.Buffer
	FormatText(&buf, r)
	for _, want := range []string{"100,000 iterations", "PL/pgSQL", "run  3:", "best ", "compiled Go"} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, buf.String())
		}
	}
	t.Logf("\n%s", buf.String())

	// Nothing is left behind: the function lived in pg_temp and was dropped.
	var n int64
	if err := db.Pool().QueryRow(ctx, "SELECT count(*) FROM pg_proc WHERE proname = 'rightsize_cpu_probe'").Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Errorf("%d rightsize_cpu_probe functions left", n)
	}
}

func TestPostgresSameArithmeticAsGo(t *testing.T) {
	db := openPostgres(t)
	ctx := context.Background()
	loop, err := newPostgresLoop(ctx, db.Pool())
	if err != nil {
		t.Fatal(err)
	}
	defer loop.close()
	_, x, err := loop.run(ctx, 12345)
	if err != nil {
		t.Fatal(err)
	}
	if want := clientLoop(12345); math.Abs(x-want) > 1e-9*want {
		t.Errorf("server x = %v, Go x = %v", x, want)
	}
}

func TestMoreIterationsTakeLonger(t *testing.T) {
	db := openPostgres(t)
	ctx := context.Background()
	small, err := Run(ctx, db, PLpgSQLLoop, 100_000, 2)
	if err != nil {
		t.Fatal(err)
	}
	large, err := Run(ctx, db, PLpgSQLLoop, 1_000_000, 2)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("1e5: best %.1f ms; 1e6: best %.1f ms", small.BestMs, large.BestMs)
	// 10 times the work: demand only 2.5 times the time.
	if large.BestMs < 2.5*small.BestMs {
		t.Errorf("1e6 iterations took %.1f ms, 1e5 took %.1f ms", large.BestMs, small.BestMs)
	}
}

func TestCancelled(t *testing.T) {
	db := openPostgres(t)
	ctx, cancel := context.WithCancel(context.Background())
	go func() { time.Sleep(200 * time.Millisecond); cancel() }()
	start := time.Now()
	_, err := Run(ctx, db, PLpgSQLLoop, 1_000_000_000, 1)
	if err == nil {
		t.Fatal("a cancelled run succeeded")
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("cancel took %v", d)
	}
	// The pool still works.
	if _, err := Run(context.Background(), db, PLpgSQLLoop, 1000, 1); err != nil {
		t.Errorf("after a cancel: %v", err)
	}
}

func TestClientGo(t *testing.T) {
	small, large := ClientGo(1000), ClientGo(10_000_000)
	if small <= 0 || large <= small {
		t.Errorf("1e3: %v, 1e7: %v", small, large)
	}
}

func TestBestMedian(t *testing.T) {
	for _, c := range []struct {
		in           []float64
		best, median float64
	}{
		{nil, 0, 0},
		{[]float64{5}, 5, 5},
		{[]float64{9, 1, 5}, 1, 5},
		{[]float64{4, 1, 3, 2}, 1, 2.5},
	} {
		b, m := bestMedian(c.in)
		if b != c.best || m != c.median {
			t.Errorf("%v: best %v median %v, want %v %v", c.in, b, m, c.best, c.median)
		}
	}
}

func TestTSQLText(t *testing.T) {
	s := TSQL(1_000_000)
	for _, want := range []string{
		"SET NOCOUNT ON;",
		"DECLARE @n bigint = 1000000, @i bigint = 0, @x float = 0",
		"WHILE @i < @n",
		"BEGIN",
		"SET @x = @x + SQRT(CAST(@i AS float)) * CAST(1.0001 AS float);",
		"SET @i += 1;",
		"END;",
		"SYSDATETIME()",
		"DATEDIFF(microsecond, @t0, SYSDATETIME())",
		"AS ms, @x AS x;",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("T-SQL lacks %q:\n%s", want, s)
		}
	}
	if strings.Contains(s, "DATEDIFF_BIG") {
		t.Error("DATEDIFF_BIG needs SQL Server 2016; the studies include 2008 R2 and 2012")
	}
	if strings.Count(s, "BEGIN") != strings.Count(s, "END;") {
		t.Errorf("unbalanced BEGIN/END:\n%s", s)
	}
}

func TestMySQLText(t *testing.T) {
	s := MySQLProcedure()
	for _, want := range []string{
		"CREATE PROCEDURE rightsize_cpu_probe(IN n BIGINT)",
		"DECLARE x DOUBLE DEFAULT 0;",
		"WHILE i < n DO",
		"SET x = x + SQRT(i) * CAST(1.0001 AS DOUBLE);",
		"SET i = i + 1;",
		"END WHILE;",
		"SYSDATE(6)",
		"AS ms, x;",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("procedure lacks %q:\n%s", want, s)
		}
	}
	if strings.Contains(s, "NOW(") {
		t.Error("NOW() is the statement's start time inside a procedure: use SYSDATE(6)")
	}
}

func TestPLpgSQLText(t *testing.T) {
	s := PLpgSQL()
	for _, want := range []string{"pg_temp.rightsize_cpu_probe", "WHILE i < n LOOP", "sqrt(", "clock_timestamp()", "END LOOP;"} {
		if !strings.Contains(s, want) {
			t.Errorf("function lacks %q:\n%s", want, s)
		}
	}
}

// fakeDB is an engine.DB of a given engine; only Engine, Version and
// SQLDB are implemented (Run needs no more).
type fakeDB struct {
	engine.DB
	name string
	db   *sql.DB
}

func (f fakeDB) Engine() string { return f.name }
func (f fakeDB) Version(ctx context.Context) (string, error) {
	q := "SELECT VERSION()"
	if f.name == "mssql" {
		q = "SELECT @@VERSION"
	}
	var v string
	err := f.db.QueryRowContext(ctx, q).Scan(&v)
	return v, err
}
func (f fakeDB) SQLDB() *sql.DB { return f.db }

func TestUnsupportedEngine(t *testing.T) {
	_, err := Run(context.Background(), fakeDB{name: "sqlite"}, Loop{}, 10, 1)
	if !errors.Is(err, ErrNotSupported) || !strings.Contains(err.Error(), "sqlite") {
		t.Errorf("sqlite: %v", err)
	}
	_, err = Run(context.Background(), fakeNamed{name: "mssql"}, TSQLLoop, 10, 1)
	if !errors.Is(err, ErrNotSupported) || !strings.Contains(err.Error(), "SQLDB") {
		t.Errorf("mssql without a pool: %v", err)
	}
}

// fakeNamed is an engine.DB with only a name.
type fakeNamed struct {
	engine.DB
	name string
}

func (f fakeNamed) Engine() string { return f.name }

// mysqlDSN turns mysql://user:pass@host:port/db (or a go-sql-driver DSN)
// into a go-sql-driver DSN.
func mysqlDSN(t *testing.T, s string) string {
	if !strings.Contains(s, "://") {
		return s
	}
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	c := mysql.NewConfig()
	c.User = u.User.Username()
	c.Passwd, _ = u.User.Password()
	port := u.Port()
	if port == "" {
		port = "3306"
	}
	c.Net, c.Addr, c.DBName = "tcp", net.JoinHostPort(u.Hostname(), port), strings.TrimPrefix(u.Path, "/")
	return c.FormatDSN()
}

func TestMySQLLive(t *testing.T) {
	dsn := os.Getenv("RIGHTSIZE_TEST_MYSQL_URL")
	if dsn == "" {
		t.Skip("set RIGHTSIZE_TEST_MYSQL_URL=mysql://user:pass@host:port/db to run the CPU probe on MySQL/MariaDB")
	}
	sdb, err := sql.Open("mysql", mysqlDSN(t, dsn))
	if err != nil {
		t.Fatal(err)
	}
	defer sdb.Close()
	db := fakeDB{name: "mysql", db: sdb}
	r, err := Run(context.Background(), db, MySQLLoop, 100_000, 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.ServerMs) != 2 || r.BestMs <= 0 || r.Language != "MySQL stored procedure" {
		t.Errorf("%+v", r)
	}
	var buf bytes.Buffer
	FormatText(&buf, r)
	t.Logf("\n%s", buf.String())
	var n int
	if err := sdb.QueryRow("SELECT COUNT(*) FROM information_schema.ROUTINES WHERE ROUTINE_SCHEMA = DATABASE() AND ROUTINE_NAME = ?", mysqlProcName).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Errorf("procedure left behind")
	}
	// the loop's arithmetic matches Go's
	loop, err := newMySQLLoop(context.Background(), sdb)
	if err != nil {
		t.Fatal(err)
	}
	defer loop.close()
	if _, x, err := loop.run(context.Background(), 12345); err != nil {
		t.Fatal(err)
	} else if want := clientLoop(12345); math.Abs(x-want) > 1e-9*want {
		t.Errorf("server x = %v, Go x = %v", x, want)
	}
}

func TestMSSQLLive(t *testing.T) {
	dsn := os.Getenv("RIGHTSIZE_TEST_MSSQL_DSN")
	if dsn == "" {
		t.Skip("set RIGHTSIZE_TEST_MSSQL_DSN=sqlserver://user:pass@host:1433?database=db to run the T-SQL loop on SQL Server")
	}
	sdb, err := sql.Open("sqlserver", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer sdb.Close()
	r, err := Run(context.Background(), fakeDB{name: "mssql", db: sdb}, TSQLLoop, 100_000, 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.ServerMs) != 2 || r.BestMs <= 0 || r.Language != "T-SQL" {
		t.Errorf("%+v", r)
	}
	var buf bytes.Buffer
	FormatText(&buf, r)
	t.Logf("\n%s", buf.String())
}
