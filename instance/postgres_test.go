package instance

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// These tests run a real PostgreSQL: the embedded download (cached under
// DefaultBaseDir()), or the binaries in $RIGHTSIZE_PG_BIN when set.

func testConfig(t *testing.T) PostgresConfig {
	t.Helper()
	tmpRoot := filepath.Join(DefaultBaseDir(), "tmp")
	if err := os.MkdirAll(tmpRoot, 0o755); err != nil {
		t.Fatal(err)
	}
	dir, err := os.MkdirTemp(tmpRoot, "instance-test-")
	if err != nil {
		t.Fatal(err)
	}
	// MkdirTemp makes 0700 dirs; the server user (when root) must get in.
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return PostgresConfig{
		BinDir:    os.Getenv("RIGHTSIZE_PG_BIN"),
		DataDir:   filepath.Join(dir, "data"),
		SecretDir: filepath.Join(dir, "secrets"),
		Settings:  map[string]string{"fsync": "off"},
	}
}

func start(t *testing.T, cfg PostgresConfig) *Postgres {
	t.Helper()
	p, err := startE(t, cfg)
	if err != nil {
		t.Fatalf("StartPostgres: %v", err)
	}
	return p
}

// startE starts a server stopped at the end of the test; safe in goroutines.
func startE(t *testing.T, cfg PostgresConfig) (*Postgres, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	begin := time.Now()
	p, err := StartPostgres(ctx, cfg)
	if err != nil {
		return nil, err
	}
	t.Logf("started PostgreSQL %s on port %d in %v", p.Version(), p.Port(), time.Since(begin).Round(time.Millisecond))
	t.Cleanup(func() {
		if err := p.Stop(); err != nil {
			t.Errorf("Stop: %v", err)
		}
		if t.Failed() {
			t.Logf("server log kept: %s", p.LogFile())
		} else {
			os.Remove(p.LogFile())
		}
	})
	return p, nil
}

func connect(t *testing.T, p *Postgres) *pgx.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	// The benchmark role owns the databases it creates (it cannot create
	// tables in the superuser's "postgres" database).
	admin, err := pgx.Connect(ctx, p.DSN("postgres"))
	if err != nil {
		t.Fatalf("connect as %s: %v", BenchRole, err)
	}
	var exists bool
	if err := admin.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = 'bench')").Scan(&exists); err != nil {
		t.Fatal(err)
	}
	if !exists {
		if _, err := admin.Exec(ctx, "CREATE DATABASE bench"); err != nil {
			t.Fatal(err)
		}
	}
	admin.Close(ctx)
	conn, err := pgx.Connect(ctx, p.DSN("bench"))
	if err != nil {
		t.Fatalf("connect as %s: %v", BenchRole, err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

func mustExec(t *testing.T, conn *pgx.Conn, sql string) {
	t.Helper()
	if _, err := conn.Exec(context.Background(), sql); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

func count(t *testing.T, p *Postgres) int {
	t.Helper()
	var n int
	if err := connect(t, p).QueryRow(context.Background(), "SELECT count(*) FROM kept").Scan(&n); err != nil {
		t.Fatalf("count: %v", err)
	}
	return n
}

func TestStartQueryStopAndReuseDataDir(t *testing.T) {
	cfg := testConfig(t)
	p := start(t, cfg)

	if want := "postgres://" + BenchRole + ":"; !strings.HasPrefix(p.DSN("x"), want) || strings.Contains(p.DSN("x"), ":postgres@") ||
		!strings.HasSuffix(p.DSN("x"), "/x?sslmode=disable") {
		t.Errorf("DSN = %q", p.DSN("x"))
	}
	if p.DataDir() != cfg.DataDir {
		t.Errorf("DataDir = %q, want %q", p.DataDir(), cfg.DataDir)
	}
	pid, err := p.PID()
	if err != nil || pid <= 1 {
		t.Fatalf("PID = %d, %v", pid, err)
	}

	conn := connect(t, p)
	var version, encoding, collate string
	if err := conn.QueryRow(context.Background(),
		"SELECT current_setting('server_version_num'), pg_encoding_to_char(encoding), datcollate FROM pg_database WHERE datname = 'postgres'").
		Scan(&version, &encoding, &collate); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(version, p.Version()) || encoding != "UTF8" || collate != "C" {
		t.Errorf("server %s, encoding %s, collate %s; want %s*, UTF8, C", version, encoding, collate, p.Version())
	}
	mustExec(t, conn, "CREATE TABLE kept (id int)")
	mustExec(t, conn, "INSERT INTO kept SELECT generate_series(1, 10)")
	// An error is logged without its statement (log_min_error_statement).
	if _, err := conn.Exec(context.Background(), "SELECT 1/0 AS statement_marker"); err == nil {
		t.Error("SELECT 1/0 succeeded")
	}
	conn.Close(context.Background())

	// Concurrent and repeated Stop calls (as from a signal handler) are fine.
	var wg sync.WaitGroup
	for range 3 {
		wg.Go(func() {
			if err := p.Stop(); err != nil {
				t.Errorf("Stop: %v", err)
			}
		})
	}
	wg.Wait()
	if err := p.Stop(); err != nil {
		t.Errorf("second Stop: %v", err)
	}
	if _, err := p.PID(); !errors.Is(err, ErrNotRunning) {
		t.Errorf("PID after Stop: err = %v, want ErrNotRunning", err)
	}
	if _, err := os.Stat(filepath.Join(cfg.DataDir, "postmaster.pid")); !os.IsNotExist(err) {
		t.Errorf("postmaster.pid after Stop: %v", err)
	}

	serverLog, err := os.ReadFile(p.LogFile())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(serverLog), "division by zero") || strings.Contains(string(serverLog), "statement_marker") {
		t.Errorf("server log: want the error without its statement:\n%s", serverLog)
	}

	// A new server on the same data dir sees the data.
	p2 := start(t, cfg)
	if got := count(t, p2); got != 10 {
		t.Errorf("after restart on the same data dir: %d rows, want 10", got)
	}
}

func TestKillRestart(t *testing.T) {
	p := start(t, testConfig(t))
	conn := connect(t, p)
	mustExec(t, conn, "CREATE TABLE kept (id int)")
	mustExec(t, conn, "INSERT INTO kept VALUES (1), (2), (3)")
	oldPID, _ := p.PID()

	// the backend is not scheduled for half a second (a busy machine), so
	// it notices the postmaster's death only then
	var backend int
	if err := conn.QueryRow(context.Background(), "SELECT pg_backend_pid()").Scan(&backend); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(backend, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	time.AfterFunc(500*time.Millisecond, func() { _ = syscall.Kill(backend, syscall.SIGCONT) })
	if err := p.Kill(); err != nil {
		t.Fatalf("Kill: %v", err)
	}
	// the backends each run in a session of their own: Kill waits for
	// them too, so none is left to answer a query
	if left := dataDirProcesses(p.DataDir()); len(left) > 0 {
		t.Errorf("processes %v still work in the data dir after Kill", left)
	}
	if _, err := conn.Exec(context.Background(), "SELECT 1"); err == nil {
		t.Error("query on a killed server succeeded")
	}
	if err := p.Kill(); !errors.Is(err, ErrNotRunning) {
		t.Errorf("second Kill: err = %v, want ErrNotRunning", err)
	}
	port := p.Port()

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := p.Restart(ctx); err != nil {
		t.Fatalf("Restart after Kill: %v", err)
	}
	if p.Port() != port {
		t.Errorf("port changed on Restart: %d -> %d", port, p.Port())
	}
	if newPID, err := p.PID(); err != nil || newPID == oldPID {
		t.Errorf("PID after Restart = %d, %v (was %d)", newPID, err, oldPID)
	}
	if got := count(t, p); got != 3 {
		t.Errorf("after crash recovery: %d rows, want 3", got)
	}

	// Restart of a running server stops and starts it.
	if err := p.Restart(ctx); err != nil {
		t.Fatalf("Restart of a running server: %v", err)
	}
	if got := count(t, p); got != 3 {
		t.Errorf("after Restart: %d rows, want 3", got)
	}
}

func TestTwoServersGetDifferentPorts(t *testing.T) {
	var a, b *Postgres
	var errA, errB error
	cfgA, cfgB := testConfig(t), testConfig(t)
	var wg sync.WaitGroup
	wg.Go(func() { a, errA = startE(t, cfgA) })
	wg.Go(func() { b, errB = startE(t, cfgB) })
	wg.Wait()
	if err := errors.Join(errA, errB); err != nil {
		t.Fatalf("StartPostgres: %v", err)
	}
	if a.Port() == b.Port() || a.Port() == 0 {
		t.Fatalf("ports %d and %d", a.Port(), b.Port())
	}
	for _, p := range []*Postgres{a, b} {
		var port int
		if err := connect(t, p).QueryRow(context.Background(), "SELECT current_setting('port')::int").Scan(&port); err != nil {
			t.Fatal(err)
		}
		if uint32(port) != p.Port() {
			t.Errorf("server reports port %d, want %d", port, p.Port())
		}
	}
}

func TestDataDirInUse(t *testing.T) {
	cfg := testConfig(t)
	p := start(t, cfg)
	_, err := StartPostgres(context.Background(), cfg)
	if err == nil || !strings.Contains(err.Error(), "in use") {
		t.Fatalf("second server on the same data dir: err = %v, want 'in use'", err)
	}
	// The first one is unharmed.
	count := 0
	if err := connect(t, p).QueryRow(context.Background(), "SELECT 1").Scan(&count); err != nil {
		t.Fatalf("first server after the failed second start: %v", err)
	}
}

func TestBadConfig(t *testing.T) {
	ctx := context.Background()
	_, err := StartPostgres(ctx, PostgresConfig{BinDir: "/nonexistent/postgresql/bin"})
	if err == nil || !strings.Contains(err.Error(), "/nonexistent/postgresql/bin") || !strings.Contains(err.Error(), "pg_ctl") {
		t.Errorf("missing BinDir: err = %v", err)
	}

	cfg := testConfig(t)
	if err := os.MkdirAll(cfg.DataDir, 0o755); err != nil {
		t.Fatal(err)
	}
	precious := filepath.Join(cfg.DataDir, "precious.txt")
	if err := os.WriteFile(precious, []byte("keep me"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = StartPostgres(ctx, cfg)
	if err == nil || !strings.Contains(err.Error(), "not empty") {
		t.Errorf("non-empty data dir: err = %v", err)
	}
	if _, err := os.Stat(precious); err != nil {
		t.Errorf("non-empty data dir was touched: %v", err)
	}

	cfg.Settings = map[string]string{"port": "1"}
	if _, err := StartPostgres(ctx, cfg); err == nil {
		t.Error("Settings[port] accepted")
	}
}

func TestDefaultBaseDir(t *testing.T) {
	d := DefaultBaseDir()
	if !filepath.IsAbs(d) || filepath.Base(d) != "rightsize" && !strings.Contains(d, "rightsize") {
		t.Errorf("DefaultBaseDir = %q", d)
	}
	if os.Geteuid() == 0 && strings.HasPrefix(d, "/root") {
		t.Errorf("DefaultBaseDir as root = %q, under /root", d)
	}
}

func TestCancelledStartLeavesNoServer(t *testing.T) {
	// Cancelled during initdb: nothing runs, the new data dir is emptied.
	cfg := testConfig(t)
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	_, err := StartPostgres(ctx, cfg)
	cancel()
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("cancelled start: err = %v, want DeadlineExceeded", err)
	}
	if entries, _ := os.ReadDir(cfg.DataDir); len(entries) != 0 {
		t.Errorf("cancelled start: new data dir not emptied: %d entries", len(entries))
	}
	assertNotRunning(t, cfg.DataDir)

	// The same data dir then starts normally.
	p := start(t, cfg)
	if err := p.Stop(); err != nil {
		t.Fatal(err)
	}

	// Cancelled restarts of an existing cluster, at points around pg_ctl
	// start and the health check: never a server left behind.
	for _, ms := range []time.Duration{30, 60, 90, 120, 150, 200, 300} {
		delay := ms * time.Millisecond
		ctx, cancel := context.WithTimeout(context.Background(), delay)
		err := p.Restart(ctx)
		cancel()
		if err == nil {
			t.Logf("restart finished within %v", delay)
			if err := p.Stop(); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("restart cancelled after %v: err = %v", delay, err)
		}
		assertNotRunning(t, cfg.DataDir)
	}
	if err := p.Restart(context.Background()); err != nil {
		t.Fatalf("Restart after cancelled restarts: %v", err)
	}
}

func TestWithCancellation(t *testing.T) {
	ended, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancel()
	dialTimeout := &net.OpError{Op: "dial", Net: "tcp", Err: os.ErrDeadlineExceeded}
	wrapped := fmt.Errorf("query: %w", context.DeadlineExceeded)
	for _, tc := range []struct {
		name     string
		ctx      context.Context
		err      error
		deadline bool // the result wraps context.DeadlineExceeded
		same     bool // the result is err itself
	}{
		{"no error", ended, nil, false, true},
		{"live context", context.Background(), dialTimeout, false, true},
		{"dial timeout on the deadline", ended, dialTimeout, true, false},
		{"already wraps it", ended, wrapped, true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := withCancellation(tc.ctx, tc.err)
			if errors.Is(got, context.DeadlineExceeded) != tc.deadline {
				t.Errorf("withCancellation(%v) = %v: wraps DeadlineExceeded %v, want %v", tc.err, got, !tc.deadline, tc.deadline)
			}
			if (got == tc.err) != tc.same {
				t.Errorf("withCancellation(%v) = %v: same error %v, want %v", tc.err, got, !tc.same, tc.same)
			}
			if tc.err != nil && !errors.Is(got, tc.err) {
				t.Errorf("withCancellation(%v) = %v: lost the error", tc.err, got)
			}
		})
	}
}

func assertNotRunning(t *testing.T, dataDir string) {
	t.Helper()
	if pid, err := readPostmasterPID(dataDir); err == nil && ProcessRunning(pid) {
		t.Errorf("server pid %d left running on %s", pid, dataDir)
		_ = StopDataDir(dataDir, time.Second)
	}
}
