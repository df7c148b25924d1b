package main

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rightsize/rightsize/scenario"
	"github.com/rightsize/rightsize/store"
)

// TestEmbeddedPacedRun: run --rate paces a pgbench workload on the
// embedded server: its users complete about the rate asked, each step
// stores its schedule lag and the run its rate, and results show says
// both; a rate the users cannot keep is said to fall behind. --rate is
// refused, exit 2, where it cannot be honoured: TPC-C, a negative rate,
// sweep --predict and fit; so are --log's options where they cannot be.
func TestEmbeddedPacedRun(t *testing.T) {
	ctx := context.Background()
	args := builtTPCB(t, "paced-")
	with := func(a ...string) []string { return append(a, args...) }
	loc := tempStore(t)
	out, errOut, code := cli(t, ctx, with("run", "--workload", "select-only", "--rate", "150", "--users", "2", "--rampup", "500ms", "--duration", "3s",
		"--label", "paced", "--json", "--store", loc)...)
	if code != 0 {
		t.Fatalf("run --rate: exit %d\n%s%s", code, out, errOut)
	}
	var res struct {
		RunID string `json:"run_id"`
		Steps []struct {
			Lag    float64 `json:"schedule_lag_ms"`
			LagMax float64 `json:"schedule_lag_max_ms"`
		} `json:"steps"`
		Workload struct {
			Steps []struct {
				TPS float64 `json:"tps"`
			} `json:"steps"`
		} `json:"workload"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil || len(res.Steps) != 1 || len(res.Workload.Steps) != 1 {
		t.Fatalf("run --json: %v\n%s", err, out)
	}
	// 450 transactions asked in 3 s: a Poisson count's standard deviation
	// is 4.7 %, so ±25 % fails only a run that did not keep the rate
	if tps := res.Workload.Steps[0].TPS; math.Abs(tps-150)/150 > 0.25 {
		t.Errorf("paced at 150 TPS: %.1f TPS", tps)
	}
	if s := res.Steps[0]; s.Lag <= 0 || s.LagMax < s.Lag {
		t.Errorf("schedule lag %.3f ms, max %.3f ms: want the lag measured", s.Lag, s.LagMax)
	}
	if st := firstStep(t, loc, res.RunID); st.ScheduleLagMs != res.Steps[0].Lag || st.ScheduleLagMaxMs != res.Steps[0].LagMax {
		t.Errorf("stored lag %.3f (max %.3f), want --json's", st.ScheduleLagMs, st.ScheduleLagMaxMs)
	}
	show, errOut, code := cli(t, ctx, "results", "show", "paced", "--store", loc)
	if code != 0 || !strings.Contains(show, "paced at 150.0 TPS (--rate)") || !strings.Contains(show, "asked TPS") || strings.Contains(show, "behind the schedule") {
		t.Errorf("results show of a paced run: exit %d\n%s%s", code, show, errOut)
	}
	if run, _ := storedRun(t, loc, res.RunID); run.Env[store.EnvRate] != "150" {
		t.Errorf("stored rate %q, want 150", run.Env[store.EnvRate])
	}
	out, errOut, code = cli(t, ctx, with("run", "--workload", "select-only", "--rate", "1000000", "--users", "1", "--rampup", "500ms", "--duration", "1s", "--store", loc)...)
	if code != 0 || !strings.Contains(out, "! behind the schedule at 1 users") {
		t.Errorf("a rate beyond the users: exit %d, want it said to fall behind\n%s%s", code, out, errOut)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--rate", "10", "--duration", "1s"}, "--rate paces a pgbench workload"},
		{[]string{"run", "--latency-limit", "50ms", "--duration", "1s"}, "--latency-limit counts a pgbench workload's late transactions"},
		{[]string{"run", "--workload", "tpcb", "--latency-limit", "-1s", "--duration", "1s"}, "--latency-limit must be a duration above 0"},
		{[]string{"run", "--workload", "tpcb", "--rate", "-1", "--duration", "1s"}, "--rate must be a number of transactions per second"},
		{[]string{"sweep", "cpus", "--values", "1", "--workload", "tpcb", "--rate", "10", "--predict"}, "--predict predicts users that run back to back"},
		{[]string{"run", "--log", "--duration", "1s"}, "--log writes a pgbench workload's per-transaction log"},
		{[]string{"run", "--workload", "tpcb", "--sampling-rate", "0.5", "--duration", "1s"}, "--sampling-rate samples the per-transaction log: add --log"},
		{[]string{"run", "--workload", "tpcb", "--log", "--sampling-rate", "2", "--duration", "1s"}, "--sampling-rate is the share of transactions logged"},
		{[]string{"run", "--workload", "tpcb", "--log-prefix", "x", "--duration", "1s"}, "--log-prefix names the per-transaction logs: add --log"},
		{[]string{"run", "--workload", "tpcb", "--log", "--log-prefix", "/nonexistent/x", "--duration", "1s"}, "its directory /nonexistent does not exist"},
		{[]string{"run", "--workload", "tpcb", "--aggregate-interval", "1", "--duration", "1s"}, "--aggregate-interval aggregates the per-transaction log: add --log"},
		{[]string{"run", "--workload", "tpcb", "--log", "--aggregate-interval", "1", "--sampling-rate", "0.5", "--duration", "2s"}, "drop --sampling-rate"},
		{[]string{"run", "--workload", "tpcb", "--log", "--aggregate-interval", "2", "--duration", "3s"}, "must be a whole number of intervals, as pgbench -T's (such as 4s)"},
		{[]string{"fit", "--workload", "tpcb", "--rate", "10", "--target-tps", "1", "--cpus", "1", "--cost", writeCostFile(t, fitCosts), "--config", "vm",
			"--duration", "1s"}, "--rate does not fit"},
	} {
		out, errOut, code := cli(t, ctx, with(append(c.args, "--store", loc)...)...)
		if code != 2 || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, want 2 and %q\n%s%s", c.args, code, c.want, out, errOut)
		}
	}
	checkLatencyLimit(t, loc, with)
	checkAggregatedLog(t, loc, with)
	// an earlier log at the name a step would take is refused, kept as it was
	prefix := filepath.Join(t.TempDir(), "old")
	if err := os.WriteFile(scenario.TxnLogPath(prefix, os.Getpid(), 0), []byte("kept\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code = cli(t, ctx, with("run", "--workload", "select-only", "--log", "--log-prefix", prefix, "--duration", "1s", "--store", loc)...)
	if b, _ := os.ReadFile(scenario.TxnLogPath(prefix, os.Getpid(), 0)); code != 2 || !strings.Contains(errOut, "exists (an earlier run's?)") || string(b) != "kept\n" {
		t.Errorf("run --log onto an existing log: exit %d, the log now %q\n%s%s", code, b, out, errOut)
	}
}

// checkAggregatedLog: run --log --aggregate-interval 1 writes a line per
// second of the measured 2 s, pgbench's 15 columns, counting every
// transaction the step counted.
func checkAggregatedLog(t *testing.T, loc string, with func(...string) []string) {
	t.Helper()
	prefix := filepath.Join(t.TempDir(), "agg")
	out, errOut, code := cli(t, context.Background(), with("run", "--workload", "select-only", "--users", "2", "--rampup", "0s", "--duration", "2s",
		"--log", "--aggregate-interval", "1", "--log-prefix", prefix, "--json", "--store", loc)...)
	var res struct {
		Steps []struct {
			Txn map[string]struct {
				Count int64 `json:"count"`
			} `json:"txn"`
		} `json:"steps"`
	}
	if err := json.Unmarshal([]byte(out), &res); code != 0 || err != nil || len(res.Steps) != 1 {
		t.Fatalf("run --aggregate-interval 1: exit %d, %v\n%s%s", code, err, out, errOut)
	}
	files, _ := filepath.Glob(prefix + ".*.1")
	if len(files) != 1 {
		t.Fatalf("--aggregate-interval: files %v, want one", files)
	}
	b, _ := os.ReadFile(files[0])
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	var sum int64
	for _, line := range lines {
		f := strings.Fields(line)
		n, err := strconv.ParseInt(f[min(1, len(f)-1)], 10, 64)
		if len(f) != 15 || err != nil {
			t.Fatalf("aggregated line %q: want 15 columns", line)
		}
		sum += n
	}
	if want := res.Steps[0].Txn["select-only"].Count; len(lines) != 2 || sum != want || want == 0 {
		t.Errorf("%d aggregated lines counting %d transactions, want 2 lines counting the step's %d", len(lines), sum, want)
	}
}

// checkLatencyLimit: --latency-limit counts, as pgbench -L, every
// transaction over it late (1µs: each one), and with --rate beyond what
// one user keeps skips those already further behind their schedule than
// the limit (1ms); the run stores its limit, each step its counts, and
// results show says them.
func checkLatencyLimit(t *testing.T, loc string, with func(...string) []string) {
	t.Helper()
	ctx := context.Background()
	for _, c := range []struct {
		label, limit, shown string
		args                []string
	}{
		{"late", "1us", "1µs", nil}, {"late-paced", "1ms", "1ms", []string{"--rate", "100000"}},
	} {
		logs := t.TempDir()
		out, errOut, code := cli(t, ctx, with(append([]string{"run", "--workload", "select-only", "--latency-limit", c.limit, "--users", "1",
			"--rampup", "0s", "--duration", "1s", "--label", c.label, "--json", "--store", loc, "--log", "--log-prefix", filepath.Join(logs, "tx")}, c.args...)...)...)
		var res struct {
			RunID string `json:"run_id"`
			Steps []struct {
				Late    int64 `json:"late_txns"`
				Skipped int64 `json:"skipped_txns"`
				Txn     map[string]struct {
					Count int64 `json:"count"`
				} `json:"txn"`
			} `json:"steps"`
		}
		if err := json.Unmarshal([]byte(out), &res); code != 0 || err != nil || len(res.Steps) != 1 || len(res.Steps[0].Txn) != 1 {
			t.Fatalf("run --latency-limit 1us %v: exit %d, %v\n%s%s", c.args, code, err, out, errOut)
		}
		s := res.Steps[0]
		n := s.Txn["select-only"].Count
		if paced := c.args != nil; n == 0 || (!paced && s.Late != n) || (paced && s.Late > n) || paced != (s.Skipped > 0) {
			t.Errorf("%s: %d late, %d skipped of %d completed; want every completed one late unpaced, and skipped ones only when paced", c.label, s.Late, s.Skipped, n)
		}
		checkTxnLog(t, logs, c.label, n, s.Skipped, c.args != nil)
		run, steps := storedRun(t, loc, res.RunID)
		if run.Env[store.EnvLatencyLimit] != c.shown || steps[0].LateTxns != s.Late || steps[0].SkippedTxns != s.Skipped {
			t.Errorf("%s: stored limit %q, late %d, skipped %d; want %s and --json's", c.label, run.Env[store.EnvLatencyLimit], steps[0].LateTxns, steps[0].SkippedTxns, c.shown)
		}
		show, _, code := cli(t, ctx, "results", "show", c.label, "--store", loc)
		if code != 0 || !strings.Contains(show, "latency limit "+c.shown+" (--latency-limit, as pgbench -L)") || (c.args != nil) != strings.Contains(show, "skipped, not sent") {
			t.Errorf("results show of %s: exit %d\n%s", c.label, code, show)
		}
	}
}

// TestEmbeddedPacedSweep: a sweep of a paced workload stores its rate,
// says that its values differ by their latency, and predicts nothing (the
// model predicts users that run back to back), in its text and report.
func TestEmbeddedPacedSweep(t *testing.T) {
	needCgroups(t)
	ctx := context.Background()
	args := builtTPCB(t, "pacedsweep-")
	with := func(a ...string) []string { return append(a, args...) }
	loc := tempStore(t)
	out, errOut, code := cli(t, ctx, with("sweep", "cpus", "--values", "1,0.5", "--workload", "select-only", "--rate", "100", "--users", "2",
		"--rampup", "500ms", "--duration", "2s", "--label", "psw", "--json", "--store", loc)...)
	if code != 0 {
		t.Fatalf("sweep --rate: exit %d\n%s%s", code, out, errOut)
	}
	var res scenario.SweepResult
	if err := json.Unmarshal([]byte(out), &res); err != nil || res.Rate != 100 || len(res.Points) != 2 {
		t.Fatalf("sweep --json: rate %g, %v\n%s", res.Rate, err, out)
	}
	show, errOut, code := cli(t, ctx, with("sweep", "cpus", "--resume", "psw", "--workload", "select-only", "--rate", "100", "--store", loc)...)
	if code != 0 || !strings.Contains(show, "paced at 100.0 TPS (--rate)") {
		t.Errorf("a paced sweep's text: exit %d\n%s%s", code, show, errOut)
	}
	page := filepath.Join(t.TempDir(), "psw.html")
	if out, errOut, code := cli(t, ctx, "report", "--sweep", "psw", "--store", loc, "-o", page); code != 0 {
		t.Fatalf("report --sweep: exit %d\n%s%s", code, out, errOut)
	}
	if html, err := os.ReadFile(page); err != nil || !strings.Contains(string(html), "paced at 100.0 TPS") || strings.Contains(string(html), "predicted") {
		t.Errorf("a paced sweep's report: want it said paced and no predictions (%v)", err)
	}
}

// checkTxnLog: run --log wrote one file for the step, a line for each
// completed and each skipped transaction of the measured interval, with
// pgbench -l's columns: the schedule lag where paced, the retries (the
// default of 11 tries).
func checkTxnLog(t *testing.T, dir, label string, completed, skipped int64, paced bool) {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "tx.*.1"))
	if len(files) != 1 {
		t.Fatalf("%s --log: files %v, want one tx.PID.1", label, files)
	}
	b, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	cols := 7
	if paced {
		cols = 8
	}
	var done, skip int64
	for _, line := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
		f := strings.Fields(line)
		if len(f) != cols || f[0] != "0" || f[3] != "0" {
			t.Fatalf("%s --log: line %q, want %d columns of client 0, script 0", label, line, cols)
		}
		if f[2] == "skipped" {
			skip++
		} else {
			done++
		}
	}
	if done != completed || skip != skipped {
		t.Errorf("%s --log: %d completed and %d skipped lines, want the step's %d and %d", label, done, skip, completed, skipped)
	}
}
