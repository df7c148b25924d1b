package instance

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/rightsize/rightsize/internal/testuser"
)

// otherUser is a local user that is neither root nor the server's: the
// hostile neighbour of issue 10.
func otherUser(t *testing.T) *syscall.Credential { return testuser.Neighbour(t) }

// psqlAs runs psql with conninfo as cred and returns its output and error.
func psqlAs(t *testing.T, cred *syscall.Credential, conninfo string) (string, error) {
	t.Helper()
	psql, err := exec.LookPath("psql")
	if err != nil {
		t.Skip("psql (postgresql-client) is not installed: cannot act as another local user")
	}
	cmd := exec.Command(psql, "-X", "-w", "-c", "SELECT 1", conninfo)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	cmd.Dir = "/"
	cmd.Env = []string{"PATH=/usr/bin:/bin"}
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func TestOtherUsersCannotLogIn(t *testing.T) {
	cred := otherUser(t)
	cfg := testConfig(t)
	p := start(t, cfg)
	port := strconv.Itoa(int(p.Port()))

	// The old constants of rightsize < issue 10 no longer log in.
	if out, err := psqlAs(t, cred, "host=127.0.0.1 port="+port+" user=postgres password=postgres dbname=postgres"); err == nil ||
		!strings.Contains(out, "password authentication failed") {
		t.Errorf("login as postgres/postgres over TCP: err %v, output %q; want a failed password authentication", err, out)
	}
	// The socket is out of reach even with the right password.
	sockDir := p.runtimeDir
	if out, err := psqlAs(t, cred, "host="+sockDir+" port="+port+" user=postgres password="+p.secrets.Admin+" dbname=postgres"); err == nil ||
		!strings.Contains(strings.ToLower(out), "permission denied") {
		t.Errorf("login over the socket in %s as another user: err %v, output %q; want permission denied", sockDir, err, out)
	}
	st, err := os.Stat(sockDir)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o700 {
		t.Errorf("socket directory %s has mode %#o, want 0700", sockDir, st.Mode().Perm())
	}

	// The password file is the invoking user's alone.
	sf, err := os.Stat(p.SecretsFile())
	if err != nil {
		t.Fatal(err)
	}
	if sf.Mode().Perm() != 0o600 {
		t.Errorf("secrets file %s has mode %#o, want 0600", p.SecretsFile(), sf.Mode().Perm())
	}
	if b, _ := os.ReadFile(p.SecretsFile()); !bytes.Contains(b, []byte(p.secrets.Bench)) {
		t.Errorf("secrets file does not hold the benchmark password")
	}

	// rightsize itself still connects, as a role that is no superuser.
	conn := connect(t, p)
	var super bool
	if err := conn.QueryRow(context.Background(), "SELECT rolsuper FROM pg_roles WHERE rolname = current_user").Scan(&super); err != nil {
		t.Fatal(err)
	}
	if super {
		t.Errorf("the benchmark role %s is a superuser", BenchRole)
	}
	hba, err := os.ReadFile(filepath.Join(cfg.DataDir, "pg_hba.conf"))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(hba), "\n") {
		if f := strings.Fields(line); len(f) > 0 && !strings.HasPrefix(f[0], "#") && f[len(f)-1] != "scram-sha-256" {
			t.Errorf("pg_hba.conf line %q: want scram-sha-256 only", line)
		}
	}
}

func TestBinariesNotWritableByServerUser(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root: the server runs as another user only then")
	}
	cfg := testConfig(t)
	if cfg.BinDir != "" {
		t.Skip("RIGHTSIZE_PG_BIN is set: the binaries are not rightsize's download")
	}
	p := start(t, cfg)
	server, err := lookupAccount()
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	err = filepath.Walk(filepath.Dir(p.binariesPath), func(path string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		st := fi.Sys().(*syscall.Stat_t)
		if int(st.Uid) == server.uid || fi.Mode().Perm()&0o022 != 0 && fi.Mode()&os.ModeSymlink == 0 {
			t.Errorf("%s: owner uid %d, mode %#o: the server user (uid %d) or others could change it", path, st.Uid, fi.Mode().Perm(), server.uid)
		}
		checked++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 10 {
		t.Fatalf("walked only %d files under %s", checked, p.binariesPath)
	}
	if err := SafeToExecute(filepath.Join(p.binariesPath, "bin", "postgres")); err != nil {
		t.Errorf("SafeToExecute(postgres): %v", err)
	}
	// A program the server user can change is refused.
	dir := t.TempDir()
	prog := filepath.Join(dir, "postgres")
	if err := os.WriteFile(prog, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(prog, server.uid, server.gid); err != nil {
		t.Fatal(err)
	}
	if err := SafeToExecute(prog); err == nil {
		t.Errorf("SafeToExecute accepted a program owned by the server user")
	}
}

// An old data directory (fixed password, superuser-owned databases) gets
// new passwords on its next start, says so in one line, and its databases
// become the benchmark role's.
func TestOldDataDirectoryUpgraded(t *testing.T) {
	cfg := testConfig(t)
	p := start(t, cfg)
	ctx := context.Background()
	admin, err := pgx.Connect(ctx, p.AdminDSN("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := admin.Exec(ctx, "CREATE DATABASE legacy"); err != nil {
		t.Fatal(err)
	}
	legacy, err := pgx.Connect(ctx, p.AdminDSN("legacy"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := legacy.Exec(ctx, "CREATE TABLE warehouse (w_id int); CREATE FUNCTION f() RETURNS int LANGUAGE sql AS 'SELECT 1'"); err != nil {
		t.Fatal(err)
	}
	legacy.Close(ctx)
	if _, err := admin.Exec(ctx, "ALTER ROLE postgres PASSWORD 'postgres'"); err != nil {
		t.Fatal(err)
	}
	admin.Close(ctx)
	if err := p.Stop(); err != nil {
		t.Fatal(err)
	}
	// What an older rightsize left: no marker, no secrets file.
	os.Remove(filepath.Join(cfg.DataDir, authMarker))
	os.Remove(p.SecretsFile())

	var notices bytes.Buffer
	cfg.Notices = &notices
	p2 := start(t, cfg)
	if n := strings.Count(notices.String(), "\n"); n != 1 || !strings.Contains(notices.String(), "older rightsize") {
		t.Errorf("notice = %q, want one line saying the directory came from an older rightsize", notices.String())
	}
	if c, err := pgx.Connect(ctx, strings.Replace(p2.AdminDSN("postgres"), p2.secrets.Admin, "postgres", 1)); err == nil {
		c.Close(ctx)
		t.Errorf("the old password still logs in after the upgrade")
	}
	bench, err := pgx.Connect(ctx, p2.DSN("legacy"))
	if err != nil {
		t.Fatal(err)
	}
	defer bench.Close(ctx)
	if _, err := bench.Exec(ctx, "INSERT INTO warehouse VALUES (f()); DROP TABLE warehouse"); err != nil {
		t.Errorf("the benchmark role cannot use the upgraded database: %v", err)
	}
}

// A postmaster that dies on its own (a memory limit's OOM kill) can leave a
// backend that never notices (stuck on a lock its dead peer held, here
// stopped): Stop ends it, and the data directory starts again.
func TestStopEndsOrphanedBackends(t *testing.T) {
	cfg := testConfig(t)
	p := start(t, cfg)
	conn := connect(t, p)
	var backend int
	if err := conn.QueryRow(context.Background(), "SELECT pg_backend_pid()").Scan(&backend); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(backend, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	postmaster, err := p.PID()
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(postmaster, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	waitGone(postmaster, 10*time.Second)
	if !ProcessRunning(backend) {
		t.Fatal("the stopped backend exited with its postmaster: nothing to test")
	}
	if err := p.Stop(); err != nil {
		t.Fatal(err)
	}
	if ProcessRunning(backend) {
		_ = syscall.Kill(backend, syscall.SIGKILL)
		t.Fatalf("Stop left backend %d of a dead postmaster running", backend)
	}
	start(t, cfg) // the shared memory is free again
}

// The binaries an older rightsize let the server user own (bin/, cache/)
// are removed at the next start.
func TestLegacyCacheRemoved(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root: only then does the server user own anything")
	}
	cfg := testConfig(t)
	cfg.BaseDir = filepath.Join(filepath.Dir(cfg.DataDir), "base")
	server, err := ensureAccount()
	if err != nil {
		t.Fatal(err)
	}
	old := filepath.Join(cfg.BaseDir, "bin", "postgres-15.13.0-linux-amd64", "bin")
	if err := os.MkdirAll(old, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{filepath.Join(cfg.BaseDir, "bin"), filepath.Join(cfg.BaseDir, "cache")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(d, server.uid, server.gid); err != nil {
			t.Fatal(err)
		}
	}
	p := &Postgres{baseDir: cfg.BaseDir, owner: server, runDir: filepath.Join(cfg.BaseDir, "run"), logDir: filepath.Join(cfg.BaseDir, "log")}
	if err := p.prepareBaseDir(); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"bin", "cache"} {
		if _, err := os.Stat(filepath.Join(cfg.BaseDir, d)); !os.IsNotExist(err) {
			t.Errorf("the server user's old %s/ is still there: %v", d, err)
		}
	}
}
