package txnlog

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rightsize/rightsize/driver"
)

func TestAppendLine(t *testing.T) {
	end := time.Unix(1764547200, 123456789)
	for _, c := range []struct {
		name string
		e    driver.TxnEntry
		opt  Options
		want string
	}{
		{"completed", driver.TxnEntry{Kind: 1, Latency: 2241499 * time.Nanosecond, End: end, Tries: 1}, Options{}, "3 7 2241 1 1764547200 123456\n"},
		{"rounded up", driver.TxnEntry{Latency: 2241500 * time.Nanosecond, End: end, Tries: 1}, Options{}, "3 7 2242 0 1764547200 123456\n"},
		{"paced, retried", driver.TxnEntry{Latency: 5 * time.Millisecond, Lag: 1500 * time.Microsecond, End: end, Tries: 3},
			Options{Lag: true, Retries: true}, "3 7 5000 0 1764547200 123456 1500 2\n"},
		{"failed", driver.TxnEntry{Kind: 2, Status: driver.TxnFailed, End: end, Tries: 11}, Options{Retries: true}, "3 7 failed 2 1764547200 123456 10\n"},
		{"skipped", driver.TxnEntry{Status: driver.TxnSkipped, End: end}, Options{Lag: true, Retries: true}, "3 7 skipped 0 1764547200 123456 0 0\n"},
	} {
		if got := string(appendLine(nil, 3, 7, c.e, c.opt)); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}

func readLines(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
}

// TestUsersNumberAndNeverInterleave: each user numbers its own
// transactions from 1, and lines written by users at once stay whole.
func TestUsersNumberAndNeverInterleave(t *testing.T) {
	path := filepath.Join(t.TempDir(), "log.1.1")
	l, err := Create(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	const users, each = 4, 5000 // several flushes each
	var wg sync.WaitGroup
	for id := range users {
		add := l.User(id)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range each {
				add(driver.TxnEntry{Latency: time.Millisecond, End: time.Now(), Tries: 1})
			}
		}()
	}
	wg.Wait()
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	next := map[string]int{}
	lines := readLines(t, path)
	for _, line := range lines {
		f := strings.Fields(line)
		if len(f) != 6 || f[2] != "1000" {
			t.Fatalf("line %q: want 6 fields, latency 1000", line)
		}
		next[f[0]]++
		if want := next[f[0]]; f[1] != strconv.Itoa(want) {
			t.Fatalf("user %s's line %q: want transaction %d", f[0], line, want)
		}
	}
	if len(lines) != users*each || len(next) != users {
		t.Errorf("%d lines of %d users, want %d of %d", len(lines), len(next), users*each, users)
	}
}

// TestSamplingRate: a sampled log keeps about its share of lines, while
// transaction numbers count every transaction.
func TestSamplingRate(t *testing.T) {
	path := filepath.Join(t.TempDir(), "log")
	l, err := Create(path, Options{SamplingRate: 0.1, Seed: 42})
	if err != nil {
		t.Fatal(err)
	}
	add := l.User(0)
	const n = 20000
	for range n {
		add(driver.TxnEntry{End: time.Now(), Tries: 1})
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	lines := readLines(t, path)
	// binomial(20000, 0.1): mean 2000, sd 42; ±5 sd
	if len(lines) < 1790 || len(lines) > 2210 {
		t.Errorf("%d of %d lines kept at a 0.1 sampling rate, want about 2000", len(lines), n)
	}
	if last, _ := strconv.Atoi(strings.Fields(lines[len(lines)-1])[1]); last < n-200 {
		t.Errorf("last kept line's transaction %d: want it numbered among all %d", last, n)
	}
}

// TestCreateRefuses: an existing file (or a link) is never overwritten,
// and a sampling rate outside (0, 1] is refused.
func TestCreateRefuses(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "log")
	if err := os.WriteFile(path, []byte("kept\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Create(path, Options{}); err == nil || !strings.Contains(err.Error(), "exists") {
		t.Errorf("an existing log: %v, want it refused", err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(filepath.Join(dir, "target"), link); err != nil {
		t.Fatal(err)
	}
	if _, err := Create(link, Options{}); err == nil {
		t.Error("a dangling link: created through it, want it refused")
	}
	if _, err := os.Stat(filepath.Join(dir, "target")); err == nil {
		t.Error("the link's target was created")
	}
	if b, _ := os.ReadFile(path); string(b) != "kept\n" {
		t.Errorf("the existing file now holds %q", b)
	}
	if _, err := Create(filepath.Join(dir, "other"), Options{SamplingRate: 1.5}); err == nil {
		t.Error("sampling rate 1.5 accepted")
	}
}

// BenchmarkLogTxn is one logged transaction's cost to its user: a line
// formatted into the user's buffer and, every 32 KB, written.
func BenchmarkLogTxn(b *testing.B) {
	l, err := Create(filepath.Join(b.TempDir(), "log"), Options{Lag: true, Retries: true})
	if err != nil {
		b.Fatal(err)
	}
	add := l.User(7)
	e := driver.TxnEntry{Latency: 1234567 * time.Nanosecond, Lag: 89 * time.Microsecond, End: time.Now(), Tries: 1}
	b.ReportAllocs()
	for b.Loop() {
		add(e)
	}
	b.StopTimer()
	if err := l.Close(); err != nil {
		b.Fatal(err)
	}
}

// TestWriteErrorKept: a log that cannot be written (a full disk: /dev/full)
// says so at Close, naming the file, however many lines came after.
func TestWriteErrorKept(t *testing.T) {
	f, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Skip("no /dev/full here")
	}
	l := &File{path: "/dev/full", f: f}
	add := l.User(0)
	for range 3 * flushAt / 40 { // several flushes' worth
		add(driver.TxnEntry{Latency: time.Millisecond, End: time.Now(), Tries: 1})
	}
	if err := l.Close(); err == nil || !strings.Contains(err.Error(), "write the transaction log /dev/full") || !strings.Contains(err.Error(), "no space left") {
		t.Errorf("Close: %v, want the full disk named", err)
	}
}
