package main

import (
	"context"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rightsize/rightsize/internal/pgtest"
	"github.com/rightsize/rightsize/store"
)

// autoArgs are the time-to-answer flags both real-database tests use: a
// loose precision, because on a shared 2-core host even a 1-warehouse
// database's per-second throughput swings by a factor of two or more.
var autoArgs = []string{"--users", "1", "--rampup", "auto", "--rampup-min", "5s", "--rampup-max", "20s",
	"--duration", "auto", "--duration-min", "10s", "--duration-max", "60s", "--precision", "25%"}

// TestAutoEndsEarlyWhenQuiet: on a quiet database the ramp-up ends at
// steady state and the measurement at the precision, both before the caps.
func TestAutoEndsEarlyWhenQuiet(t *testing.T) {
	dsn := built(t)
	prioritize(t)
	// commits that wait for no disk flush: the shared host's I/O does not
	// make the quiet database noisy either
	mustExec(t, dsn, "DO $$BEGIN EXECUTE format('ALTER DATABASE %I SET synchronous_commit = off', current_database()); END$$")
	st := tempStore(t)
	out, errOut, code := cli(t, context.Background(), append([]string{"run", "--target", dsn, "--store", st}, autoArgs...)...)
	if code != 0 {
		t.Fatalf("run: %d\n%s%s", code, out, errOut)
	}
	s := oneStep(t, st)
	t.Logf("ramp-up %s after %s: %s", s.RampupEnd, s.MeasureStart.Sub(s.Start).Round(time.Second), s.RampupNote)
	if s.RampupEnd != "steady" && s.RampupEnd != "max" {
		t.Errorf("ramp-up ended %q, want steady or max", s.RampupEnd)
	}
	if m := s.Measured(); s.MeasureEndHow != "precision" || s.PrecisionPct <= 0 || s.PrecisionPct > 25 || m >= 60*time.Second || m < 10*time.Second {
		t.Errorf("measurement %s after %s at ±%.1f %%: want the precision (±25 %%) reached between 10 s and the 60 s cap\n%s",
			s.MeasureEndHow, m, s.PrecisionPct, out)
	}
	for _, want := range []string{"how each step ended", "precision", "time to answer:", "for the fixed plan"} {
		if !strings.Contains(out, want) {
			t.Errorf("run output lacks %q:\n%s", want, out)
		}
	}
}

// TestAutoRunsToCapWhenUnstable: a table locked for 3 s of every 5 s makes
// the throughput swing; the measurement never reaches the precision and
// runs to its cap, saying so with the precision it achieved.
func TestAutoRunsToCapWhenUnstable(t *testing.T) {
	dsn := built(t)
	st := tempStore(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); lockPeriodically(ctx, t, dsn, "district", 6*time.Second, 3*time.Second) }()
	args := append([]string{"run", "--target", dsn, "--store", st}, autoArgs...)
	out, errOut, code := cli(t, context.Background(), append(args, "--duration-max", "30s")...)
	cancel()
	<-done
	if code != 0 {
		t.Fatalf("run: %d\n%s%s", code, out, errOut)
	}
	s := oneStep(t, st)
	if s.MeasureEndHow != "max" || s.Measured() < 30*time.Second {
		t.Errorf("measurement %s after %s at ±%.1f %%: want the 30 s cap\n%s", s.MeasureEndHow,
			s.Measured(), s.PrecisionPct, out)
	}
	out, _, code = cli(t, context.Background(), "results", "show", s.RunID, "--store", st)
	if code != 0 || !strings.Contains(out, "how each step ended") || !strings.Contains(out, "max") {
		t.Errorf("results show (exit %d) does not say how the step ended:\n%s", code, out)
	}
}

// lockPeriodically holds an exclusive lock on table for hold, releases it
// for free, and so on until ctx ends.
func lockPeriodically(ctx context.Context, t *testing.T, dsn, table string, hold, free time.Duration) {
	conn, err := pgxConnect(dsn)
	if err != nil {
		t.Error(err)
		return
	}
	defer conn.Close(context.Background())
	for ctx.Err() == nil {
		tx, err := conn.Begin(ctx)
		if err != nil {
			return
		}
		if _, err := tx.Exec(ctx, "LOCK TABLE "+table+" IN ACCESS EXCLUSIVE MODE"); err != nil {
			_ = tx.Rollback(context.Background())
			return
		}
		sleepCtx(ctx, hold)
		_ = tx.Rollback(context.Background())
		sleepCtx(ctx, free)
	}
}

func sleepCtx(ctx context.Context, d time.Duration) {
	select {
	case <-ctx.Done():
	case <-time.After(d):
	}
}

// oneStep returns the one step of the one run in the store at path.
func oneStep(t *testing.T, path string) store.Step {
	t.Helper()
	_, steps := onlyRun(t, path)
	if len(steps) != 1 {
		t.Fatalf("%d steps, want 1", len(steps))
	}
	return steps[0]
}

// onlyRun checks that the store at path holds exactly one run and returns
// it with its steps.
func onlyRun(t *testing.T, path string) (*store.Run, []store.Step) {
	t.Helper()
	s, err := store.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	runs, err := s.ListRuns(context.Background())
	if err != nil || len(runs) != 1 {
		t.Fatalf("store: want one run, got %+v %v", runs, err)
	}
	run, steps, err := s.LoadRun(context.Background(), runs[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	return run, steps
}

// prioritize gives this test's driver and database CPU priority (nice
// -10) until it ends, so other work on a shared host does not make the
// quiet database noisy: the threads of this process and the test server's
// postmaster, whose new backends inherit it.
func prioritize(t *testing.T) {
	pid, err := pgtest.Server(t).PID()
	if err != nil {
		t.Fatal(err)
	}
	set := func(nice int) {
		ids := []int{pid}
		tasks, _ := os.ReadDir("/proc/self/task")
		for _, e := range tasks {
			if id, err := strconv.Atoi(e.Name()); err == nil {
				ids = append(ids, id)
			}
		}
		for _, id := range ids {
			if err := syscall.Setpriority(syscall.PRIO_PROCESS, id, nice); err != nil {
				t.Logf("setpriority %d: %v", id, err)
			}
		}
	}
	set(-10)
	t.Cleanup(func() { set(0) })
}

// TestAutoBadInput: bad time-to-answer values are refused with one line
// naming the flag, exit code 2, before anything connects.
func TestAutoBadInput(t *testing.T) {
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"precision 0", []string{"--duration", "auto", "--precision", "0%"}, "--precision"},
		{"negative precision", []string{"--precision", "-2%"}, "--precision"},
		{"precision not a number", []string{"--precision", "two"}, "percentage"},
		{"rampup min above max", []string{"--rampup", "auto", "--rampup-min", "3m", "--rampup-max", "1m"}, "--rampup-min"},
		{"duration min above max", []string{"--duration", "auto", "--duration-min", "10m", "--duration-max", "1m"}, "--duration-min"},
		{"confidence 100 %", []string{"--duration", "auto", "--confidence", "100%"}, "--confidence"},
		{"max cv 0", []string{"--repeat", "auto", "--max-cv", "0"}, "--max-cv"},
		{"repeat max 1", []string{"--repeat", "auto", "--repeat-max", "1"}, "--repeat-max"},
		{"rampup word", []string{"--rampup", "soon"}, "or auto"},
	} {
		t.Run(c.name, func(t *testing.T) {
			args := append([]string{"run", "--target", "postgres://nobody@127.0.0.1:1/x", "--store", tempStore(t)}, c.args...)
			_, errOut, code := cli(t, context.Background(), args...)
			if code != 2 || !strings.Contains(errOut, c.want) || strings.Count(strings.TrimSpace(errOut), "\n") > 1 {
				t.Errorf("exit %d, want 2 and one line naming %q:\n%s", code, c.want, errOut)
			}
		})
	}
}
