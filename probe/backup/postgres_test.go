package backup

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/rightsize/rightsize/instance"
)

// The PostgreSQL tests share one managed server (started on first use,
// stopped by TestMain) holding a database "probe" with one table of rows.
var (
	pgOnce    sync.Once
	pgSrv     *instance.Postgres
	pgErr     error
	pgWorkDir string // holds the server's data and the tests' backup dirs
)

func TestMain(m *testing.M) {
	testNoSync = os.Getenv("RIGHTSIZE_TEST_BACKUP_SYNC") == "" // TestCopyTree covers the fsync path
	code := m.Run()
	if pgSrv != nil {
		if err := pgSrv.Stop(); err != nil {
			fmt.Fprintln(os.Stderr, err)
		}
	}
	if pgWorkDir != "" {
		os.RemoveAll(pgWorkDir)
	}
	os.Exit(code)
}

// server returns the shared server; tests skip when no pg_basebackup is
// installed.
func server(t *testing.T) *instance.Postgres {
	t.Helper()
	pgOnce.Do(func() {
		root := filepath.Join(instance.DefaultBaseDir(), "tmp")
		if pgErr = os.MkdirAll(root, 0o755); pgErr != nil {
			return
		}
		if pgWorkDir, pgErr = os.MkdirTemp(root, "backuptest-"); pgErr != nil {
			return
		}
		if pgErr = os.Chmod(pgWorkDir, 0o755); pgErr != nil {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		defer cancel()
		pgSrv, pgErr = instance.StartPostgres(ctx, instance.PostgresConfig{
			BinDir:   os.Getenv("RIGHTSIZE_PG_BIN"),
			DataDir:  filepath.Join(pgWorkDir, "data"),
			LogFile:  filepath.Join(pgWorkDir, "postgres.log"),
			Settings: map[string]string{"shared_buffers": "64MB"},
		})
		if pgErr != nil {
			return
		}
		pgErr = execSQL(ctx, pgSrv.DSN("postgres"), "CREATE DATABASE probe")
		if pgErr == nil {
			pgErr = execSQL(ctx, pgSrv.DSN("probe"),
				"CREATE TABLE items (id int PRIMARY KEY, payload text)",
				"INSERT INTO items SELECT g, md5(g::text) FROM generate_series(1, 20000) g",
				"CREATE TABLE empty_one (id int)")
		}
	})
	if pgErr != nil {
		t.Fatalf("test server: %v", pgErr)
	}
	m := &pgMethod{major: pgSrv.Version()}
	if _, err := m.findBasebackup(context.Background()); errors.Is(err, errUnavailable) {
		t.Skipf("%v", err)
	}
	return pgSrv
}

func execSQL(ctx context.Context, dsn string, sqls ...string) error {
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	for _, s := range sqls {
		if _, err := conn.Exec(ctx, s); err != nil {
			return fmt.Errorf("%s: %w", s, err)
		}
	}
	return nil
}

func managed(srv *instance.Postgres) Spec {
	return Spec{EngineName: "postgres", Method: Postgres, URL: srv.DSN("probe"), Postgres: srv}
}

// backupDir makes a directory for a test's backups that the server user
// can reach (t.TempDir is 0700 under /tmp, closed to it when root).
func backupDir(t *testing.T) string {
	t.Helper()
	d, err := os.MkdirTemp(pgWorkDir, "to-")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(d, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(d) })
	return d
}

// workDirs lists the rightsize-backup-* directories in dir.
func workDirs(t *testing.T, dir string) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(dir, "rightsize-backup-*"))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// checkNothingLeft fails when a backup left a work directory in dir or a
// process running under it.
func checkNothingLeft(t *testing.T, dir string) {
	t.Helper()
	if d := workDirs(t, dir); len(d) != 0 {
		t.Errorf("left behind: %v", d)
	}
	if p := processesUnder(dir); len(p) != 0 {
		t.Errorf("processes left: %v", p)
	}
}

// processesUnder lists processes whose working directory or command line
// mentions dir (restored servers chdir to their data directory;
// pg_basebackup has -D on its command line).
func processesUnder(dir string) []string {
	var out []string
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		cwd, _ := os.Readlink(filepath.Join("/proc", e.Name(), "cwd"))
		cmd, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		stat, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if strings.Contains(string(stat), ") Z ") {
			continue // zombie: exited
		}
		if strings.HasPrefix(cwd, dir) || strings.Contains(string(cmd), dir) {
			out = append(out, fmt.Sprintf("pid %d (%s)", pid, strings.ReplaceAll(string(cmd), "\x00", " ")))
		}
	}
	return out
}

func portFree(port string) bool {
	c, err := net.DialTimeout("tcp", "127.0.0.1:"+port, time.Second)
	if err != nil {
		return true
	}
	c.Close()
	return false
}

func TestPostgresTwoCycles(t *testing.T) {
	srv := server(t)
	var lines []string
	start := time.Now()
	res, err := Run(context.Background(), managed(srv), Options{Cycles: 2, Every: time.Second, Interval: 200 * time.Millisecond},
		func(s string) { lines = append(lines, s) })
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("2 cycles in %v", time.Since(start).Round(time.Millisecond))
	if res.Engine != "postgres" || res.Method != MethodPgBasebackup || !strings.HasPrefix(res.Version, "PostgreSQL 15") || res.Partial {
		t.Errorf("result %+v", res)
	}
	if want := filepath.Dir(srv.DataDir()); res.Dir != want {
		t.Errorf("default dir %s, want %s (next to the data directory)", res.Dir, want)
	}
	if len(res.Cycles) != 2 {
		t.Fatalf("%d cycles", len(res.Cycles))
	}
	for _, c := range res.Cycles {
		if c.Bytes <= 1<<20 || c.BackupMBps <= 0 || c.RestoreMBps <= 0 || c.BackupSeconds <= 0 || c.RestoreSeconds <= c.RestoreStartSeconds || c.RestoreStartSeconds <= 0 {
			t.Errorf("cycle %+v", c)
		}
		if !c.RestoreChecked || c.Note != "" && !strings.Contains(c.Note, "overran") {
			t.Errorf("cycle %d: checked %v, note %q", c.N, c.RestoreChecked, c.Note)
		}
		if len(c.DiskLatencyMs) == 0 || len(c.DiskLatencyMs) != len(c.DiskMBps) {
			t.Errorf("cycle %d: %d latency samples, %d MB/s samples", c.N, len(c.DiskLatencyMs), len(c.DiskMBps))
		}
		if !c.End.After(c.Start) {
			t.Errorf("cycle %d: start %v end %v", c.N, c.Start, c.End)
		}
	}
	// cycle 2 starts on a multiple of Every from the start
	off := res.Cycles[1].Start.Sub(res.StartedAt)
	if off < time.Second || off%time.Second > 200*time.Millisecond {
		t.Errorf("cycle 2 started %v after the start, want a multiple of 1s", off)
	}
	if d := workDirs(t, res.Dir); len(d) != 0 {
		t.Errorf("left behind: %v", d)
	}
	if p := processesUnder(filepath.Join(res.Dir, "rightsize-backup-")); len(p) != 0 {
		t.Errorf("processes left: %v", p)
	}
	for _, c := range res.Cycles {
		t.Logf("cycle %d: backup %.2f s, restore %.2f s of which start+check %.2f s", c.N, c.BackupSeconds, c.RestoreSeconds, c.RestoreStartSeconds)
	}
	if len(lines) < 8 {
		t.Errorf("progress: %q", lines)
	}
	var buf bytes.Buffer
	FormatText(&buf, res)
	t.Logf("progress:\n%s\n\n%s", strings.Join(lines, "\n"), buf.String())
	for _, want := range []string{"pg_basebackup", "every 1s", "    1 |", "    2 |", "avg"} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("report lacks %q", want)
		}
	}
}

func TestPostgresExternalKeepInPlace(t *testing.T) {
	srv := server(t)
	dir := backupDir(t)
	// The same server seen as an external one: no instance, so the
	// binaries are found by version and the restored copy gets a trust
	// pg_hba.conf; pgx's pool parameters must not reach pg_basebackup.
	target := Spec{EngineName: "postgres", Method: Postgres, URL: srv.DSN("probe") + "&pool_max_conns=4"}
	res, err := Run(context.Background(), target, Options{Dir: dir, Keep: true, RestoreInPlace: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Cycles) != 1 || !res.Cycles[0].RestoreChecked || res.Cycles[0].Bytes == 0 {
		t.Fatalf("%+v", res)
	}
	if res.Kept == "" || !strings.HasPrefix(res.Kept, dir) {
		t.Fatalf("kept %q", res.Kept)
	}
	if _, err := os.Stat(filepath.Join(res.Kept, "PG_VERSION")); err != nil {
		t.Errorf("kept backup: %v", err)
	}
	if _, err := os.Stat(filepath.Join(res.Kept, "postmaster.pid")); err == nil {
		t.Errorf("kept backup still has a running server")
	}
	// only the kept backup remains in the work directory
	entries, _ := os.ReadDir(filepath.Dir(res.Kept))
	if len(entries) != 1 {
		t.Errorf("work dir holds %d entries", len(entries))
	}
	if p := processesUnder(dir); len(p) != 0 {
		t.Errorf("processes left: %v", p)
	}
}

func TestPostgresCancelMidBackup(t *testing.T) {
	srv := server(t)
	dir := backupDir(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var backupPath string
	testHook = func(event, info string) {
		if event == "backup-started" {
			backupPath = info
			cancel()
		}
	}
	defer func() { testHook = nil }()
	res, err := Run(ctx, managed(srv), Options{Dir: dir, Cycles: 3}, nil)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
	if !res.Partial || len(res.Cycles) != 0 || backupPath == "" {
		t.Errorf("partial %v, %d cycles, backup %q", res.Partial, len(res.Cycles), backupPath)
	}
	if _, err := os.Stat(backupPath); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("partial backup %s: %v", backupPath, err)
	}
	checkNothingLeft(t, dir)
	// the source server is fine
	if err := execSQL(context.Background(), srv.DSN("probe"), "SELECT 1"); err != nil {
		t.Error(err)
	}
}

func TestPostgresCancelMidRestore(t *testing.T) {
	srv := server(t)
	dir := backupDir(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var port string
	testHook = func(event, info string) {
		if event == "restore-started" {
			port = info
			if portFree(port) {
				t.Errorf("restored server on port %s does not answer", port)
			}
			cancel()
		}
	}
	defer func() { testHook = nil }()
	res, err := Run(ctx, managed(srv), Options{Dir: dir, Cycles: 2, Keep: true}, nil)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
	if !res.Partial || len(res.Cycles) != 0 || port == "" || res.Kept != "" {
		t.Errorf("partial %v, %d cycles, port %q, kept %q", res.Partial, len(res.Cycles), port, res.Kept)
	}
	if !portFree(port) {
		t.Errorf("restored server still listens on port %s", port)
	}
	checkNothingLeft(t, dir)
}

func TestPostgresBadMethod(t *testing.T) {
	srv := server(t)
	_, err := Run(context.Background(), managed(srv), Options{Method: MethodMySQLDump}, nil)
	if err == nil || !strings.Contains(err.Error(), "not available for PostgreSQL") {
		t.Errorf("err = %v", err)
	}
}

func TestUnreachableDirAsRoot(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("only root hands the restore to another user")
	}
	srv := server(t)
	dir := t.TempDir() // 0700, root's
	_, err := Run(context.Background(), managed(srv), Options{Dir: dir}, nil)
	if err == nil || !strings.Contains(err.Error(), "cannot reach") {
		t.Errorf("err = %v", err)
	}
	if d := workDirs(t, dir); len(d) != 0 {
		t.Errorf("left behind: %v", d)
	}
}
