package store

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

const (
	envCrashStore = "RIGHTSIZE_STORE_TEST_CRASH_STORE"
	envCrashRun   = "RIGHTSIZE_STORE_TEST_CRASH_RUN"
)

// TestKilledWriter kills (SIGKILL) a process in the middle of AddStep's
// transaction: the store must hold no trace of that step, pass an integrity
// check, and accept writes at once (no stale lock).
func TestKilledWriter(t *testing.T) {
	if os.Getenv(envCrashStore) != "" {
		t.Skip("helper process")
	}
	ctx := context.Background()
	loc := sqliteLocation(t)
	s := openAt(t, loc)
	r := created(t, s, testRun("crash", t0))
	first := testStep(t, r.ID, 1, 0, 1, 70, 7, 70)
	if err := s.AddStep(ctx, &first); err != nil {
		t.Fatal(err)
	}
	before := childCounts(t, s, r.ID)

	cmd := exec.Command(os.Args[0], "-test.run=^TestKilledWriterHelper$", "-test.v")
	cmd.Env = append(os.Environ(), envCrashStore+"="+loc, envCrashRun+"="+r.ID)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	ready := make(chan bool, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if strings.Contains(sc.Text(), "IN_TRANSACTION") {
				ready <- true
			}
		}
		close(ready)
	}()
	select {
	case ok := <-ready:
		if !ok {
			cmd.Wait()
			t.Fatal("helper ended before reaching the transaction")
		}
	case <-time.After(time.Minute):
		cmd.Process.Kill()
		t.Fatal("helper did not reach the transaction")
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()

	if after := childCounts(t, s, r.ID); after != before {
		t.Errorf("rows after the killed writer %+v, before %+v", after, before)
	}
	var check string
	if err := s.db.QueryRow("PRAGMA integrity_check").Scan(&check); err != nil || check != "ok" {
		t.Errorf("integrity_check: %q, %v", check, err)
	}
	// A fresh process (a new Store) writes at once.
	s2 := openAt(t, loc)
	ctx2, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	st := testStep(t, r.ID, 1, 1, 2, 70, 7, 70)
	if err := s2.AddStep(ctx2, &st); err != nil {
		t.Fatalf("AddStep after the killed writer: %v", err)
	}
}

// TestKilledWriterHelper is the process TestKilledWriter kills: it writes
// a step and stops inside the transaction, after the step row and the
// transactions, per-second and window rows, before the host samples.
func TestKilledWriterHelper(t *testing.T) {
	loc := os.Getenv(envCrashStore)
	if loc == "" {
		t.Skip("run by TestKilledWriter")
	}
	s := openAt(t, loc)
	testHook = func(_ context.Context, table string) {
		if table == "step_windows" {
			fmt.Println("IN_TRANSACTION")
			time.Sleep(time.Minute)
		}
	}
	st := testStep(t, os.Getenv(envCrashRun), 1, 1, 2, 70, 7, 70)
	_ = s.AddStep(context.Background(), &st)
	t.Error("AddStep returned: the helper should have been killed")
}
