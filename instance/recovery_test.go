//go:build linux

package instance

import (
	"context"
	"syscall"
	"testing"
	"time"
)

// A fast shutdown while the server recovers from a crash (a backend
// killed, as a memory limit's OOM killer does) can leave the postmaster
// waiting for ever on the checkpointer it started for the recovery
// (PostgreSQL 15): Stop ends it quickly, leaves no process, and the next
// start recovers every committed row.
func TestStopDuringCrashRecovery(t *testing.T) {
	cfg := testConfig(t)
	cfg.StopTimeout = 40 * time.Second // the fast shutdown's grace: the hang waited for it
	p := start(t, cfg)
	conn := connect(t, p)
	ctx := context.Background()
	// WAL for the recovery to replay, so that it lasts long enough to be seen
	if _, err := conn.Exec(ctx, "CREATE TABLE w AS SELECT g, repeat('x', 200) AS pad FROM generate_series(1, 200000) g"); err != nil {
		t.Fatal(err)
	}
	var backend int
	if err := conn.QueryRow(ctx, "SELECT pg_backend_pid()").Scan(&backend); err != nil {
		t.Fatal(err)
	}
	postmaster, err := p.PID()
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(backend, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	seen := false
	for deadline := time.Now().Add(30 * time.Second); !seen && time.Now().Before(deadline); time.Sleep(2 * time.Millisecond) {
		seen = inRecovery(postmaster)
	}
	if !seen {
		t.Fatal("no startup process (crash recovery) seen after a backend was killed")
	}
	begin := time.Now()
	if err := p.Stop(); err != nil {
		t.Fatal(err)
	}
	took := time.Since(begin)
	t.Logf("stop during crash recovery took %v", took.Round(time.Millisecond))
	if took > 20*time.Second {
		t.Errorf("stop during crash recovery took %v, want it quick", took)
	}
	if ProcessRunning(postmaster) {
		t.Fatalf("postmaster %d still runs", postmaster)
	}
	if left := dataDirProcesses(cfg.DataDir); len(left) > 0 {
		t.Errorf("server processes left: %v", left)
	}
	if err := p.Restart(ctx); err != nil {
		t.Fatal(err)
	}
	again := connect(t, p)
	var n int
	if err := again.QueryRow(ctx, "SELECT count(*) FROM w").Scan(&n); err != nil || n != 200000 {
		t.Errorf("after the restart: %d rows, %v; want 200000", n, err)
	}
}
