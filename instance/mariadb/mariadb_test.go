package mariadb_test

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	_ "github.com/go-sql-driver/mysql"

	"github.com/rightsize/rightsize/instance/mariadb"
)

func TestMain(m *testing.M) {
	if os.Getenv("RIGHTSIZE_SKIP_MYSQL") == "1" {
		fmt.Println("RIGHTSIZE_SKIP_MYSQL=1: skipping the managed MariaDB tests")
		os.Exit(0)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	err := mariadb.EnsureInstalled(ctx)
	cancel()
	if err != nil {
		fmt.Fprintf(os.Stderr, "FAIL: MariaDB is not installed and could not be installed: %v\n(set RIGHTSIZE_SKIP_MYSQL=1 to skip)\n", err)
		os.Exit(1)
	}
	os.Exit(m.Run())
}

// syncBuffer is a log sink safe for the server's concurrent writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func start(t *testing.T, cfg mariadb.Config) *mariadb.Server {
	t.Helper()
	var log syncBuffer
	if cfg.Log == nil {
		cfg.Log = &log
	}
	t0 := time.Now()
	s, err := mariadb.Start(context.Background(), cfg)
	if err != nil {
		t.Fatalf("start: %v", err)
	}
	t.Logf("started %s on port %d in %v", s.Version(), s.Port(), time.Since(t0).Round(time.Millisecond))
	t.Cleanup(func() {
		if err := s.Stop(); err != nil {
			t.Errorf("stop: %v", err)
		}
		if t.Failed() {
			t.Logf("server log:\n%s", log.String())
		}
	})
	return s
}

func TestStartQueryStop(t *testing.T) {
	dir := t.TempDir()
	s := start(t, mariadb.Config{DataDir: dir, Settings: map[string]string{"innodb_buffer_pool_size": "64M", "max-connections": "77"}})
	if !strings.Contains(s.Version(), "MariaDB") && !strings.HasPrefix(s.Version(), "8.") {
		t.Errorf("version %q", s.Version())
	}
	pid, err := s.PID()
	if err != nil || pid <= 0 {
		t.Fatalf("PID %d, %v", pid, err)
	}
	// t.TempDir is private (0700): the mysql user cannot reach it, so a
	// server started by root runs as root
	checkUID(t, s, "0")
	ctx := context.Background()
	db, err := sql.Open("mysql", s.DSN(""))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.ExecContext(ctx, "CREATE DATABASE t1"); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := db.QueryRowContext(ctx, "SELECT @@max_connections").Scan(&n); err != nil || n != 77 {
		t.Fatalf("max_connections %d, %v (settings not applied)", n, err)
	}
	var bind string
	if err := db.QueryRowContext(ctx, "SELECT @@bind_address").Scan(&bind); err != nil || bind != "127.0.0.1" {
		t.Errorf("bind_address %q, %v", bind, err)
	}
	db2, err := sql.Open("mysql", s.DSN("t1"))
	if err != nil {
		t.Fatal(err)
	}
	defer db2.Close()
	if _, err := db2.ExecContext(ctx, "CREATE TABLE x (a int primary key) ENGINE=InnoDB"); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(s.URL("t1"), "mysql://rightsize:") || strings.Contains(s.URL("t1"), ":rightsize@") || !strings.HasSuffix(s.URL("t1"), "/t1") {
		t.Errorf("URL %q", s.URL("t1"))
	}
	db.Close()
	db2.Close()

	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	if _, err := s.PID(); !errors.Is(err, mariadb.ErrNotRunning) {
		t.Errorf("PID after stop: %v", err)
	}
	if err := s.Stop(); err != nil {
		t.Errorf("second stop: %v", err)
	}

	// The data directory survives a restart.
	s2 := start(t, mariadb.Config{DataDir: dir})
	db3, err := sql.Open("mysql", s2.DSN("t1"))
	if err != nil {
		t.Fatal(err)
	}
	defer db3.Close()
	if err := db3.QueryRowContext(ctx, "SELECT count(*) FROM x").Scan(&n); err != nil {
		t.Fatalf("table lost across restart: %v", err)
	}
}

func TestTwoServersGetDifferentPorts(t *testing.T) {
	var a, b *mariadb.Server
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); a = start(t, mariadb.Config{}) }()
	go func() { defer wg.Done(); b = start(t, mariadb.Config{}) }()
	wg.Wait()
	if t.Failed() {
		return
	}
	// default data directories are reachable: root hands them to mysql
	if u, err := user.Lookup("mysql"); err == nil {
		checkUID(t, a, u.Uid)
	}
	if a.Port() == b.Port() {
		t.Fatalf("both servers on port %d", a.Port())
	}
	for _, s := range []*mariadb.Server{a, b} {
		db, err := sql.Open("mysql", s.DSN(""))
		if err != nil {
			t.Fatal(err)
		}
		var port int
		err = db.QueryRow("SELECT @@port").Scan(&port)
		db.Close()
		if err != nil || uint32(port) != s.Port() {
			t.Errorf("server on %d answers port %d, %v", s.Port(), port, err)
		}
	}
	pa, _ := a.PID()
	pb, _ := b.PID()
	if pa == pb {
		t.Errorf("same pid %d", pa)
	}
}

func TestFixedPortInUse(t *testing.T) {
	a := start(t, mariadb.Config{})
	_, err := mariadb.Start(context.Background(), mariadb.Config{Port: a.Port()})
	if err == nil {
		t.Fatal("second server started on a port already in use")
	}
	if !strings.Contains(err.Error(), "already in use") {
		t.Errorf("error does not say the port is in use: %v", err)
	}
}

// TestServerDiesWithParent starts a server from a child process, kills the
// child with SIGKILL and expects the server to go away too.
func TestServerDiesWithParent(t *testing.T) {
	if os.Getenv("RIGHTSIZE_MARIADB_CHILD") != "" {
		return // running as the child: see TestChildStartsServer
	}
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestChildStartsServer$", "-test.v")
	cmd.Env = append(os.Environ(), "RIGHTSIZE_MARIADB_CHILD="+dir)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var pid int
	var socket string
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		if _, err := fmt.Sscanf(sc.Text(), "SERVER %d %s", &pid, &socket); err == nil {
			break
		}
	}
	if pid == 0 {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		t.Fatal("child did not start a server")
	}
	defer os.RemoveAll(filepath.Dir(socket))
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	deadline := time.Now().Add(2 * time.Minute)
	for syscall.Kill(pid, 0) == nil {
		if b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid)); strings.Contains(string(b), ") Z ") {
			break // exited, waiting to be reaped by init
		}
		if time.Now().After(deadline) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("server %d still running 2 minutes after its parent died", pid)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestChildStartsServer is the child half of TestServerDiesWithParent.
func TestChildStartsServer(t *testing.T) {
	dir := os.Getenv("RIGHTSIZE_MARIADB_CHILD")
	if dir == "" {
		t.Skip("only run as a child of TestServerDiesWithParent")
	}
	s, err := mariadb.Start(context.Background(), mariadb.Config{DataDir: filepath.Join(dir, "data")})
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := s.PID()
	fmt.Printf("SERVER %d %s\n", pid, s.Socket())
	time.Sleep(10 * time.Minute) // killed by the parent
}

func TestDataDirInUse(t *testing.T) {
	dir := t.TempDir()
	start(t, mariadb.Config{DataDir: dir})
	_, err := mariadb.Start(context.Background(), mariadb.Config{DataDir: dir})
	if err == nil || !strings.Contains(err.Error(), "in use") {
		t.Fatalf("second server on the same data directory: %v", err)
	}
}

// checkUID verifies, when the tests run as root, that the server runs as uid.
func checkUID(t *testing.T, s *mariadb.Server, uid string) {
	t.Helper()
	pid, err := s.PID()
	if err != nil || os.Geteuid() != 0 {
		return
	}
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return
	}
	if !strings.Contains(string(status), "\nUid:\t"+uid+"\t") {
		t.Errorf("server does not run as uid %s:\n%s", uid, status)
	}
}
