package txnlog

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rightsize/rightsize/driver"
)

// failure is an error as pgbench/client's: retryable, a deadlock or not.
type failure struct{ deadlock bool }

func (f failure) Error() string   { return "failure" }
func (f failure) Retryable() bool { return true }
func (f failure) Deadlock() bool  { return f.deadlock }

// wrapped is f wrapped, as the driver hands it over.
func wrapped(f failure) error { return fmt.Errorf("user 1: %w", f) }

func at(t0 time.Time, ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }

// TestAggregate: each interval of the window gets its line, empty ones
// too, with pgbench's sums, squares, extremes and counts.
func TestAggregate(t *testing.T) {
	path := filepath.Join(t.TempDir(), "agg")
	l, err := Create(path, Options{Aggregate: time.Second, Retries: true})
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Unix(1796091440, 0)
	l.Window(t0, t0.Add(3*time.Second))
	a, b := l.User(0), l.User(1)
	a(driver.TxnEntry{Latency: time.Millisecond, End: at(t0, 200), Tries: 1})
	b(driver.TxnEntry{Latency: 3 * time.Millisecond, End: at(t0, 500), Tries: 2})
	a(driver.TxnEntry{Status: driver.TxnFailed, End: at(t0, 1500), Tries: 1, Err: wrapped(failure{deadlock: true})})
	b(driver.TxnEntry{Status: driver.TxnFailed, End: at(t0, 1600), Tries: 3, Err: wrapped(failure{})})
	a(driver.TxnEntry{Status: driver.TxnFailed, End: at(t0, 1650), Tries: 1, Err: errors.New("syntax error")})
	b(driver.TxnEntry{Status: driver.TxnSkipped, End: at(t0, 1700)})
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"1796091440 2 4000 10000000 1000 3000 0 0 0 0 0 1 1 0 0",
		"1796091441 0 0 0 0 0 0 0 0 0 1 1 2 1 1",
		"1796091442 0 0 0 0 0 0 0 0 0 0 0 0 0 0",
	}
	got := readLines(t, path)
	if len(got) != len(want) {
		t.Fatalf("lines %q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("interval %d: %q, want %q", i, got[i], want[i])
		}
	}
}

// TestAggregateRefusesSampling: pgbench logs every transaction of an
// aggregate or a sample of them, not both.
func TestAggregateRefusesSampling(t *testing.T) {
	if _, err := Create(filepath.Join(t.TempDir(), "x"), Options{Aggregate: time.Second, SamplingRate: 0.5}); err == nil {
		t.Error("an aggregated, sampled log accepted")
	}
}

// TestAggregateStoppedEarly: a step stopped before its window's end (Ctrl-C)
// writes its intervals up to the stop, not empty ones to the planned end.
func TestAggregateStoppedEarly(t *testing.T) {
	l, err := Create(filepath.Join(t.TempDir(), "agg"), Options{Aggregate: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = l.f.Close() })
	t0 := time.Unix(1796091440, 0)
	l.Window(t0, t0.Add(60*time.Second))
	l.User(0)(driver.TxnEntry{Latency: time.Millisecond, End: at(t0, 300), Tries: 1})
	l.agg.finish(at(t0, 2500))
	if got := strings.Count(string(l.agg.buf), "\n"); got != 3 {
		t.Errorf("%d lines for a step stopped 2.5 s into its 60 s window, want 3:\n%s", got, l.agg.buf)
	}
}
