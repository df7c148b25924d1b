package txnlog

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rightsize/rightsize/driver"
	"github.com/rightsize/rightsize/internal/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// shape is a log line's form: each column a number (n) or its word.
func shape(line string) string {
	f := strings.Fields(line)
	for i, v := range f {
		if regexp.MustCompile(`^-?\d+$`).MatchString(v) {
			f[i] = "n"
		}
	}
	return strings.Join(f, " ")
}

// pgbenchLog runs pgbench -l with args on a script of one SELECT and
// returns its log's lines.
func pgbenchLog(t *testing.T, dsn string, args ...string) []string {
	t.Helper()
	dir := t.TempDir()
	script := filepath.Join(dir, "s.sql")
	if err := os.WriteFile(script, []byte("SELECT 1;\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	prefix := filepath.Join(dir, "pg")
	args = append([]string{"-n", "-c", "1", "-j", "1", "-l", "--log-prefix", prefix, "-f", script}, args...)
	cmd := exec.Command(pgtest.Pgbench(t), append(args, dsn)...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("pgbench %v: %v\n%s", args, err, out)
	}
	files, _ := filepath.Glob(prefix + ".*")
	if len(files) != 1 {
		t.Fatalf("pgbench's logs: %v, want one", files)
	}
	return readLines(t, files[0])
}

// TestColumnsAsPgbench: our lines have the columns pgbench 17's have
// (the machine's pgbench, 15 in CI: the same), for a plain run, one with
// retries, and a paced one with a latency limit (skipped lines); the
// transactions are numbered from where pgbench numbers them.
func TestColumnsAsPgbench(t *testing.T) {
	dsn := pgtest.NewDatabase(t)
	end := time.Now()
	done := driver.TxnEntry{Latency: time.Millisecond, Lag: time.Microsecond, End: end, Tries: 1}
	skipped := driver.TxnEntry{Status: driver.TxnSkipped, End: end}
	for _, c := range []struct {
		name string
		args []string
		opt  Options
	}{
		{"plain", []string{"-t", "3"}, Options{}},
		{"retries", []string{"-t", "3", "--max-tries", "2"}, Options{Retries: true}},
		{"paced", []string{"-t", "200", "--max-tries", "2", "-R", "1000000", "-L", "1"}, Options{Lag: true, Retries: true}},
	} {
		theirs := pgbenchLog(t, dsn, c.args...)
		if first := strings.Fields(theirs[0])[1]; first != "1" {
			t.Errorf("%s: pgbench numbers its first transaction %s, ours 1", c.name, first)
		}
		shapes := map[string]bool{}
		for _, line := range theirs {
			shapes[shape(line)] = true
		}
		entries := []driver.TxnEntry{done}
		if c.opt.Lag {
			// 200 transactions scheduled 1 µs apart: after the first few
			// every one is more than 1 ms behind
			entries = append(entries, skipped)
		}
		for _, e := range entries {
			line := string(appendLine(nil, 0, 1, e, c.opt))
			if ours := shape(line); !shapes[ours] {
				t.Errorf("%s: our line %q, pgbench's lines are %v", c.name, ours, shapes)
			}
			if e.Status == driver.TxnSkipped {
				// a skipped line's lag and retries: pgbench writes 0 and 0
				if i := slices.IndexFunc(theirs, func(l string) bool { return strings.Contains(l, "skipped") }); i < 0 ||
					!slices.Equal(strings.Fields(theirs[i])[6:], strings.Fields(line)[6:]) {
					t.Errorf("%s: our skipped line %q, pgbench's first %q", c.name, line, theirs[max(i, 0)])
				}
			}
		}
	}
}

// TestAggregateColumnsAsPgbench: an aggregated line has the columns
// pgbench's have (15, all numbers), plain and paced with retries.
func TestAggregateColumnsAsPgbench(t *testing.T) {
	dsn := pgtest.NewDatabase(t)
	ours := shape(string(appendInterval(nil, &interval{start: time.Now()})))
	for _, args := range [][]string{
		{"-T", "2", "--aggregate-interval", "1"},
		{"-T", "2", "--aggregate-interval", "1", "-R", "100", "-L", "5", "--max-tries", "3"},
	} {
		lines := pgbenchLog(t, dsn, args...)
		if len(lines) == 0 || lines[0] == "" {
			t.Fatalf("pgbench %v wrote no interval", args)
		}
		for _, line := range lines {
			if theirs := shape(line); theirs != ours {
				t.Errorf("pgbench %v: line %q, ours %q", args, theirs, ours)
			}
		}
	}
}
