// Package pgtest gives a package's tests a real PostgreSQL server: one per
// test binary, shared by all its tests, each of which takes fresh databases.
//
//	func TestMain(m *testing.M) { pgtest.Main(m) }
//
//	func TestSomething(t *testing.T) {
//		dsn := pgtest.NewDatabase(t) // empty database, dropped after the test
//		...
//		dsn = pgtest.NewDatabaseFrom(t, "tpcc1", build) // a copy of a template built once
//	}
//
// The server runs the binaries in $RIGHTSIZE_PG_BIN (e.g.
// /usr/lib/postgresql/15/bin) if set, else PostgreSQL 15 downloaded by
// embedded-postgres into the cache shared by all tests, instance.DefaultBaseDir().
// Its data directory is a fresh temporary directory under that base
// directory, removed at the end. It runs with fsync off: fast, and still safe
// against a killed server (only an OS crash loses data).
package pgtest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/rightsize/rightsize/instance"
)

var (
	mainUsed atomic.Bool
	dbSeq    atomic.Int64

	startCtx, cancelStart = context.WithCancel(context.Background())

	mu      sync.Mutex // guards the fields below
	tried   bool
	srv     *instance.Postgres
	srvErr  error
	workDir string
	done    bool
)

// Main runs the package's tests (call it from TestMain) and then stops the
// server and removes its data. The server starts when a test first needs
// it, so test runs that need none (go test -run, -list) pay nothing. An
// interrupt (SIGINT, SIGTERM) also stops it before the binary exits; a
// server left behind by a crashed test binary is stopped by the next one.
func Main(m *testing.M) {
	mainUsed.Store(true)
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	go func() {
		s := <-sig
		fmt.Fprintf(os.Stderr, "pgtest: %v: stopping PostgreSQL\n", s)
		shutdown(true)
		os.Exit(1)
	}()
	code := m.Run()
	shutdown(code != 0)
	os.Exit(code)
}

// Server returns the test binary's server, starting it on first use. It
// fails the test if the package does not use Main or the server cannot start.
func Server(t testing.TB) *instance.Postgres {
	t.Helper()
	if !mainUsed.Load() {
		t.Fatal("pgtest: no server: add `func TestMain(m *testing.M) { pgtest.Main(m) }` to this package's tests")
	}
	mu.Lock()
	defer mu.Unlock()
	if done {
		t.Fatal("pgtest: the server has been shut down")
	}
	if !tried {
		tried = true
		begin := time.Now()
		srv, srvErr = start()
		if srvErr == nil {
			t.Logf("pgtest: PostgreSQL %s on port %d started in %v", srv.Version(), srv.Port(), time.Since(begin).Round(time.Millisecond))
		}
	}
	if srvErr != nil {
		t.Fatalf("pgtest: PostgreSQL did not start: %v", srvErr)
	}
	return srv
}

// NewDatabase creates an empty database with a unique name on the server
// and returns its DSN; the database is dropped (with FORCE, closing leftover
// connections) when the test and its subtests finish.
func NewDatabase(t testing.TB) string {
	t.Helper()
	s := Server(t)
	name := databaseName(t.Name(), dbSeq.Add(1))
	ident := pgx.Identifier{name}.Sanitize()
	if err := admin(s, "CREATE DATABASE "+ident); err != nil {
		t.Fatalf("pgtest: create database %s: %v", name, err)
	}
	t.Cleanup(func() {
		// as the superuser: FORCE ends every session on the database,
		// which the benchmark role may only do for its own
		if err := superuser(s, "DROP DATABASE IF EXISTS "+ident+" WITH (FORCE)"); err != nil {
			t.Errorf("pgtest: drop database %s: %v", name, err)
		}
	})
	return s.DSN(name)
}

// templates and shared are the template databases NewDatabaseFrom filled
// and the directories SharedDir filled.
var (
	tplMu     sync.Mutex // guards templates and shared
	templates = map[string]bool{}
	shared    = map[string]bool{}
)

// NewDatabaseFrom is NewDatabase for a database that starts as a copy of
// the template database name: fill fills the template (given its DSN) the
// first time it is asked for, and every copy after that costs a file copy
// instead of fill's work. The template stays until the server stops; a fill
// that fails drops it and fails the test, and the next caller fills it again.
func NewDatabaseFrom(t testing.TB, name string, fill func(dsn string) error) string {
	t.Helper()
	s := Server(t)
	tpl := pgx.Identifier{"tpl_" + name}.Sanitize()
	tplMu.Lock()
	defer tplMu.Unlock()
	if !templates[name] {
		filled := false
		if err := admin(s, "CREATE DATABASE "+tpl); err != nil {
			t.Fatalf("pgtest: create template %s: %v", name, err)
		}
		defer func() { // also when fill ends the test (runtime.Goexit)
			if !filled {
				_ = superuser(s, "DROP DATABASE IF EXISTS "+tpl+" WITH (FORCE)")
			}
		}()
		if err := fill(s.DSN("tpl_" + name)); err != nil {
			t.Fatalf("pgtest: fill template %s: %v", name, err)
		}
		filled, templates[name] = true, true
	}
	dbName := databaseName(t.Name(), dbSeq.Add(1))
	ident := pgx.Identifier{dbName}.Sanitize()
	// a template must have no session: fill's have ended (the server
	// waits up to 5 s for their backends to exit, autovacuum's included)
	if err := admin(s, "CREATE DATABASE "+ident+" TEMPLATE "+tpl); err != nil {
		t.Fatalf("pgtest: copy template %s: %v", name, err)
	}
	t.Cleanup(func() {
		if err := superuser(s, "DROP DATABASE IF EXISTS "+ident+" WITH (FORCE)"); err != nil {
			t.Errorf("pgtest: drop database %s: %v", dbName, err)
		}
	})
	return s.DSN(dbName)
}

// SharedDir returns a directory made once per test binary, by fill the
// first time name is asked for, for what several tests would each make the
// same (a built data directory they clone); it is removed with the server's
// files when the binary ends. Mode 0755, as ServerDir's. A fill that fails
// removes it and fails the test, and the next caller fills it again.
func SharedDir(t testing.TB, name string, fill func(dir string) error) string {
	t.Helper()
	Server(t) // the directory lives beside the server's data
	mu.Lock()
	dir := filepath.Join(workDir, "shared", name)
	mu.Unlock()
	tplMu.Lock()
	defer tplMu.Unlock()
	if shared[name] {
		return dir
	}
	os.RemoveAll(dir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	filled := false
	defer func() { // also when fill ends the test (runtime.Goexit)
		if !filled {
			os.RemoveAll(dir)
		}
	}()
	if err := fill(dir); err != nil {
		t.Fatalf("pgtest: fill shared directory %s: %v", name, err)
	}
	filled, shared[name] = true, true
	return dir
}

func admin(s *instance.Postgres, sql string) error { return execAs(s.DSN("postgres"), sql) }

// superuser runs sql as the server's superuser.
func superuser(s *instance.Postgres, sql string) error { return execAs(s.AdminDSN("postgres"), sql) }

func execAs(dsn, sql string) error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	_, err = conn.Exec(ctx, sql)
	return err
}

// databaseName turns a test name into a unique PostgreSQL identifier of
// at most 63 bytes.
func databaseName(testName string, seq int64) string {
	var b strings.Builder
	for _, r := range strings.ToLower(testName) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	suffix := "_" + strconv.FormatInt(seq, 10)
	base := b.String()
	if max := 63 - len("t_") - len(suffix); len(base) > max {
		base = base[:max]
	}
	return "t_" + base + suffix
}

// ServerDir returns a fresh directory for a server the test starts (its
// data, backups), removed at the end of the test: under the instance base
// directory, mode 0755, so that the unprivileged server user can reach it
// when the tests run as root (t.TempDir is under a mode-700 parent).
func ServerDir(t testing.TB, prefix string) string {
	t.Helper()
	base := filepath.Join(instance.DefaultBaseDir(), "tmp")
	if err := os.MkdirAll(base, 0o755); err != nil {
		t.Fatal(err)
	}
	dir, err := os.MkdirTemp(base, prefix)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

func start() (*instance.Postgres, error) {
	tmpRoot := filepath.Join(instance.DefaultBaseDir(), "tmp")
	if err := os.MkdirAll(tmpRoot, 0o755); err != nil {
		return nil, err
	}
	reapStale(tmpRoot)
	dir, err := os.MkdirTemp(tmpRoot, "pgtest-")
	if err != nil {
		return nil, err
	}
	workDir = dir
	// MkdirTemp makes a 0700 directory; when root, the server user must
	// get through it.
	if err := os.Chmod(dir, 0o755); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, "owner"), []byte(strconv.Itoa(os.Getpid())), 0o644); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(startCtx, 10*time.Minute) // includes a first download
	defer cancel()
	return instance.StartPostgres(ctx, instance.PostgresConfig{
		BinDir:    os.Getenv("RIGHTSIZE_PG_BIN"),
		DataDir:   filepath.Join(dir, "data"),
		LogFile:   filepath.Join(dir, "postgres.log"),
		SecretDir: filepath.Join(dir, "secrets"),
		Settings: map[string]string{
			"fsync":              "off",
			"synchronous_commit": "off",
			"full_page_writes":   "off",
		},
	})
}

// shutdown stops the server and removes its directory; after failed tests
// the server log is kept (until a later run finds it a day old).
func shutdown(failed bool) {
	cancelStart()
	mu.Lock()
	defer mu.Unlock()
	if done {
		return
	}
	done = true
	if srv != nil {
		if err := srv.Stop(); err != nil {
			fmt.Fprintf(os.Stderr, "pgtest: %v\n", err)
			failed = true
		}
	}
	if workDir == "" {
		return
	}
	if failed || srvErr != nil {
		os.RemoveAll(filepath.Join(workDir, "data"))
		os.RemoveAll(filepath.Join(workDir, "shared"))
		if _, err := os.Stat(filepath.Join(workDir, "postgres.log")); err == nil {
			fmt.Fprintf(os.Stderr, "pgtest: PostgreSQL log kept in %s\n", filepath.Join(workDir, "postgres.log"))
		}
		return
	}
	os.RemoveAll(workDir)
}

// reapStale cleans up after test binaries that died without shutdown
// (crash, test timeout, kill): their servers are stopped and data removed;
// their directories go once a day old.
func reapStale(tmpRoot string) {
	dirs, _ := filepath.Glob(filepath.Join(tmpRoot, "pgtest-*"))
	for _, dir := range dirs {
		st, err := os.Stat(filepath.Join(dir, "owner"))
		if err != nil {
			// Just being created, or very broken.
			if dst, err := os.Stat(dir); err != nil || time.Since(dst.ModTime()) < time.Hour {
				continue
			}
		} else if b, err := os.ReadFile(filepath.Join(dir, "owner")); err == nil {
			if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && processAlive(pid) {
				continue
			}
		}
		data := filepath.Join(dir, "data")
		if _, err := os.Stat(data); err == nil {
			_ = instance.StopDataDir(data, 10*time.Second)
			os.RemoveAll(data)
		}
		if st == nil || time.Since(st.ModTime()) > 24*time.Hour {
			os.RemoveAll(dir)
		}
	}
}

func processAlive(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	return !errors.Is(p.Signal(syscall.Signal(0)), os.ErrProcessDone)
}

// Bin is the PostgreSQL binaries a test's managed server runs (a target's
// PGBin): $RIGHTSIZE_PG_BIN, else the machine's PostgreSQL 15 where
// installed, else "" (embedded-postgres downloads them).
func Bin() string {
	if bin := os.Getenv("RIGHTSIZE_PG_BIN"); bin != "" {
		return bin
	}
	if _, err := os.Stat("/usr/lib/postgresql/15/bin/postgres"); err == nil {
		return "/usr/lib/postgresql/15/bin"
	}
	return ""
}
