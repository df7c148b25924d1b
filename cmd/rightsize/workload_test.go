package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rightsize/rightsize/internal/pgtest"
	"github.com/rightsize/rightsize/store"
)

// TestEmbeddedTPCBWorkload: on the embedded server, build --workload tpcb
// --scale 1, run --workload tpcb (its figures stored under tpcb-like, the
// run's workload in its JSON), check --workload tpcb (balances equal to
// the history), then a two-script workload weighted 9:1 whose mix is
// within 2 % of its weights, and a bad script refused with exit 2 at its
// FILE:LINE:COLUMN before anything runs.
func TestEmbeddedTPCBWorkload(t *testing.T) {
	if testing.Short() {
		t.Skip("starts its own embedded server")
	}
	ctx := context.Background()
	args, _ := embeddedArgs(t, "tpcb-")
	with := func(a ...string) []string { return append(a, args...) }
	out, errOut, code := cli(t, ctx, with("build", "--workload", "tpcb", "--scale", "1")...)
	if code != 0 || !strings.Contains(out, "built tpcb at scale 1: 100011 rows") {
		t.Fatalf("build --workload tpcb: %d\n%s%s", code, out, errOut)
	}
	st := tempStore(t)
	rep := runJSON(t, with("run", "--workload", "tpcb", "--users", "2", "--rampup", "500ms", "--duration", "2s", "--store", st)...)
	if rep.Workload.Name != "tpcb" || rep.Workload.Scripts != "tpcb-like@1" || rep.Workload.Steps[0].Scripts["tpcb-like"] <= 0 ||
		rep.Steps[0].Txn["tpcb-like"].Count == 0 || len(rep.Steps[0].Txn) != 1 {
		t.Fatalf("run --workload tpcb: workload %+v, transactions %+v", rep.Workload, rep.Steps[0].Txn)
	}
	if out, errOut, code = cli(t, ctx, with("check", "--workload", "tpcb")...); code != 0 || !strings.Contains(out, "ok") {
		t.Fatalf("check --workload tpcb: %d\n%s%s", code, out, errOut)
	}
	dir := t.TempDir()
	a, b, bad := filepath.Join(dir, "a.sql"), filepath.Join(dir, "b.sql"), filepath.Join(dir, "bad.sql")
	write(t, a, "\\set aid random(1, 100000 * :scale)\nSELECT abalance FROM pgbench_accounts WHERE aid = :aid;\n")
	write(t, b, "\\set bid random(1, :scale)\nSELECT bbalance FROM pgbench_branches WHERE bid = :bid;\n")
	write(t, bad, "SELECT 1;\n\\set x 1 +\n")
	rep = runJSON(t, with("run", "--workload", a+"@9", "--workload", b+"@1", "--users", "2", "--rampup", "500ms", "--duration", "4s", "--store", st)...)
	na, nb := rep.Steps[0].Txn["a"].Count, rep.Steps[0].Txn["b"].Count
	if n := na + nb; n < 1000 || math.Abs(float64(na)/float64(n)-0.9) > 0.02 || rep.Workload.Scripts != "a@9,b@1" {
		t.Fatalf("a@9 + b@1: %d and %d transactions (scripts %q), want over 1000 with a's share within 2 %% of 90 %%", na, nb, rep.Workload.Scripts)
	}
	out, errOut, code = cli(t, ctx, with("run", "--workload", bad, "--users", "1", "--duration", "1s", "--store", st)...)
	if code != 2 || !strings.HasPrefix(errOut, "rightsize: "+bad+":2:11: ") || strings.Contains(out+errOut, "step 1/1") {
		t.Fatalf("a bad script: exit %d\n%s%s", code, out, errOut)
	}
	init, c := filepath.Join(dir, "init.sql"), filepath.Join(dir, "c.sql")
	write(t, init, "DROP TABLE IF EXISTS rs_init; CREATE TABLE rs_init (x int PRIMARY KEY); INSERT INTO rs_init SELECT generate_series(1, 10);\n")
	write(t, c, "\\set x random(1, 10)\nSELECT x FROM rs_init WHERE x = :x \\gset y_\n\\if :y_x != :x\nSELECT 1/0;\n\\endif\n")
	if out, errOut, code = cli(t, ctx, with("build", "--workload", c, "--init", init)...); code != 0 || !strings.Contains(out, "ran "+init) {
		t.Fatalf("build --workload FILE --init: %d\n%s%s", code, out, errOut)
	}
	if rep := runJSON(t, with("run", "--workload", c, "--users", "1", "--duration", "1s", "--store", st)...); rep.Steps[0].Txn["c"].Count == 0 || rep.Steps[0].Txn["c"].Errors != 0 {
		t.Fatalf("a script on the tables --init made: %+v", rep.Steps[0].Txn)
	}
	out, errOut, code = cli(t, ctx, "results", "show", "--store", st, rep.RunID)
	if code != 0 || !strings.Contains(out, "workload scripts: a@9,b@1") || !strings.Contains(out, "not TPC-C: no validity verdict") {
		t.Fatalf("results show of a scripts run: %d\n%s%s", code, out, errOut)
	}
	html := filepath.Join(dir, "report.html")
	if out, errOut, code = cli(t, ctx, "report", "--store", st, "-o", html, rep.RunID); code != 0 {
		t.Fatalf("report of a scripts run: %d\n%s%s", code, out, errOut)
	}
	if b, err := os.ReadFile(html); err != nil || !strings.Contains(string(b), "scripts: a@9,b@1") {
		t.Fatalf("the report does not name the workload and its scripts (%v)", err)
	}
	checkStatements(t, ctx, args, st, dir)
}

// checkStatements runs a script of two SQL statements (and a \set) on the
// embedded server: each command's latency is stored per step, once per
// completed transaction, and shown by run --json, results show (text and
// JSON) and the report.
func checkStatements(t *testing.T, ctx context.Context, args []string, st, dir string) {
	d := filepath.Join(dir, "d.sql")
	write(t, d, "\\set aid random(1, 100000 * :scale)\nSELECT abalance FROM pgbench_accounts WHERE aid = :aid;\n"+
		"SELECT count(*)\n  FROM pgbench_tellers WHERE tid <= :aid % 10 + 1;\n")
	rep := runJSON(t, append([]string{"run", "--workload", d, "--users", "2", "--rampup", "500ms", "--duration", "2s", "--store", st}, args...)...)
	n := rep.Steps[0].Txn["d"].Count
	want := []struct {
		line int
		text string
	}{{1, "\\set aid random(1, 100000 * :scale)"}, {2, "SELECT abalance FROM pgbench_accounts WHERE aid = :aid;"}, {3, "SELECT count(*)"}}
	ss := rep.Workload.Statements
	if n < 100 || len(ss) != 1 || len(ss[0].Statements) != 3 {
		t.Fatalf("d: %d transactions, statements %+v; want 100 or more and d's 3 commands at 2 users", n, ss)
	}
	for i, x := range ss[0].Statements {
		if x.Type != "d" || x.Index != i || x.Line != want[i].line || x.Text != want[i].text || x.Count != n ||
			!(x.P50Ms > 0 && x.P50Ms <= x.P99Ms && x.P99Ms <= x.MaxMs) {
			t.Errorf("statement %d: %+v; want d's line %d %q run %d times, 0 < p50 <= p99 <= max", i, x, want[i].line, want[i].text, n)
		}
	}
	if sql, set := ss[0].Statements[1].P50Ms, ss[0].Statements[0].P50Ms; sql <= set {
		t.Errorf("a SELECT's median %v ms is not above a \\set's %v ms", sql, set)
	}
	out, errOut, code := cli(t, ctx, "results", "show", "--store", st, rep.RunID)
	if code != 0 || !strings.Contains(out, "latency per statement") || !strings.Contains(out, "SELECT count(*)") ||
		!strings.Contains(out, "workload  scripts: d@1") {
		t.Errorf("results show: %d, no latency per statement or no workload in its header\n%s%s", code, out, errOut)
	}
	out, errOut, code = cli(t, ctx, "results", "show", "--json", "--store", st, rep.RunID)
	var doc struct {
		Workload struct {
			Statements []struct {
				Statements []struct{ Count int64 }
			}
		}
		Steps []struct {
			Statements []struct{ Count int64 }
		}
	}
	if err := json.Unmarshal([]byte(out), &doc); code != 0 || err != nil || len(doc.Workload.Statements) != 1 ||
		len(doc.Steps) != 1 || len(doc.Steps[0].Statements) != 3 || doc.Steps[0].Statements[2].Count != n {
		t.Errorf("results show --json: %d, %v: statements %+v, steps %+v\n%s", code, err, doc.Workload.Statements, doc.Steps, errOut)
	}
	html := filepath.Join(dir, "d.html")
	if out, errOut, code = cli(t, ctx, "report", "--store", st, "-o", html, rep.RunID); code != 0 {
		t.Fatalf("report: %d\n%s%s", code, out, errOut)
	}
	if b, err := os.ReadFile(html); err != nil || !strings.Contains(string(b), "latency per statement") ||
		!strings.Contains(string(b), "SELECT abalance FROM pgbench_accounts WHERE aid = :aid;") {
		t.Errorf("the report has no latency per statement (%v)", err)
	}
}

// workloadReport is what the test reads of run --json.
type workloadReport struct {
	RunID    string `json:"run_id"`
	Workload struct {
		Name, Scripts string
		Steps         []struct {
			Scripts map[string]float64 `json:"script_tps"`
		}
		Statements []struct {
			Users      int
			Statements []store.StatementSummary
		}
	}
	Steps []struct {
		Txn map[string]struct{ Count, Errors int64 }
	}
}

func runJSON(t *testing.T, args ...string) workloadReport {
	t.Helper()
	out, errOut, code := cli(t, context.Background(), append(args, "--json")...)
	var rep workloadReport
	if err := json.Unmarshal([]byte(out), &rep); code != 0 || err != nil || len(rep.Steps) == 0 || len(rep.Workload.Steps) == 0 {
		t.Fatalf("%v: exit %d, %v\n%s%s", args, code, err, out, errOut)
	}
	return rep
}

func write(t *testing.T, path, s string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestWorkloadBadInput: the workload flags' mistakes stop before any
// server starts, with exit 2 and the fix.
func TestWorkloadBadInput(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a.sql")
	write(t, a, "SELECT 1;\n")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--define", "x=1"}, "are for pgbench workloads"},
		{[]string{"fit", "--workload", "tpcb", "--target-nopm", "5", "--cpus", "1"}, "--target-nopm is TPC-C's: a pgbench workload's target is --target-tps N"},
		{[]string{"fit", "--workload", "tpcb", "--cpus", "1"}, "--target-tps must be a positive number"},
		{[]string{"fit", "--target-tps", "5", "--cpus", "1"}, "--target-tps is a pgbench workload's target"},
		{[]string{"run", "--workload", a, "--figure", "b"}, "--figure b: no such script; the workload's are a"},
		{[]string{"run", "--workload", "tpcb", "--workload", "tpcc"}, "--workload tpcc runs alone"},
		{[]string{"run", "--workload", filepath.Join(dir, "missing.sql")}, "read script"},
		{[]string{"build", "--workload", a}, "build and check know tpcc and tpcb"},
		{[]string{"build", "--fillfactor", "90"}, "--fillfactor, --partitions, --partition-method, --unlogged-tables and --foreign-keys lay out pgbench's tables: add --workload tpcb"},
		{[]string{"build", "--unlogged-tables"}, "lay out pgbench's tables: add --workload tpcb"},
		{[]string{"build", "--workload", "tpcb", "--partition-method", "hash"}, "--partition-method hash partitions nothing: give --partitions N too"},
		{[]string{"build", "--workload", "tpcb", "--fillfactor", "5"}, "--fillfactor 5: give 10 to 100"},
		{[]string{"run", "--protocol", "simple"}, "--define, --random-seed, --scale, --figure, --protocol, --max-tries and --connect are for pgbench workloads"},
		{[]string{"run", "--workload", a, "--max-tries", "0"}, "--max-tries must be at least 1 (got 0): the most times a transaction runs, its first try included"},
		{[]string{"run", "--workload", a, "--protocol", "binary"}, `--protocol: unknown protocol "binary": give prepared, extended, simple (as pgbench -M)`},
	} {
		out, errOut, code := cli(t, context.Background(), append(c.args, "--store", tempStore(t), "--target", "postgres://127.0.0.1:1/none")...)
		if code != 2 || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, want 2 and %q\n%s%s", c.args, code, c.want, out, errOut)
		}
	}
}

// TestTPCBLayout builds pgbench's tables with pgbench -i's layout
// options (two hash partitions of pgbench_accounts, fill factor 90,
// unlogged, with foreign keys): the build says so, the tables check, and
// tpcb runs on them.
func TestTPCBLayout(t *testing.T) {
	dsn, ctx := pgtest.NewDatabase(t), context.Background()
	out, errOut, code := cli(t, ctx, "build", "--workload", "tpcb", "--scale", "1", "--partitions", "2", "--partition-method", "hash", "--fillfactor", "90",
		"--unlogged-tables", "--foreign-keys", "--target", dsn)
	if code != 0 || !strings.Contains(out, "built tpcb at scale 1 (fill factor 90, 2 hash partitions, unlogged, foreign keys): 100011 rows") {
		t.Fatalf("build with a layout: exit %d\n%s%s", code, out, errOut)
	}
	conn, err := pgxConnect(dsn)
	if err != nil {
		t.Fatal(err)
	}
	var got string
	err = conn.QueryRow(ctx, "select string_agg(relname || ' ' || array_to_string(reloptions, ','), '; ' order by relname) from pg_class where relname like 'pgbench_accounts_%' and relkind = 'r'").Scan(&got)
	conn.Close(ctx)
	if err != nil || got != "pgbench_accounts_1 fillfactor=90; pgbench_accounts_2 fillfactor=90" {
		t.Errorf("partitions %q (%v)", got, err)
	}
	if out, errOut, code = cli(t, ctx, "check", "--workload", "tpcb", "--target", dsn); code != 0 {
		t.Fatalf("check: exit %d\n%s%s", code, out, errOut)
	}
	rep := runJSON(t, "run", "--target", dsn, "--workload", "tpcb", "--users", "2", "--rampup", "0s", "--duration", "1s", "--no-waits", "--store", tempStore(t))
	if x := rep.Steps[0].Txn["tpcb-like"]; x.Count == 0 || x.Errors != 0 {
		t.Errorf("tpcb on partitioned accounts: %+v", x)
	}
}

// TestWorkloadProtocol runs a script that divides by zero only where its
// connection holds a named statement: with --protocol simple every
// transaction succeeds and the run records mode simple; prepared (the
// default) errs in each. On SQLite, --protocol simple is refused.
func TestWorkloadProtocol(t *testing.T) {
	dsn := pgtest.NewDatabase(t)
	named := filepath.Join(t.TempDir(), "named.sql")
	write(t, named, "SELECT count(*) AS named FROM pg_prepared_statements \\gset\nSELECT CASE WHEN :named > 0 THEN 1 / 0 END;\n")
	st := tempStore(t)
	for _, c := range []struct {
		protocol, mode string
		errs           bool
	}{{"simple", "simple", false}, {"extended", "extended", false}, {"", "prepared", true}} {
		out, errOut, code := cli(t, context.Background(), "run", "--target", dsn, "--workload", named, "--protocol", c.protocol, "--users", "1",
			"--rampup", "0s", "--duration", "1s", "--progress-interval", "0", "--no-waits", "--store", st, "--label", "p-"+c.mode)
		if code != 0 || !strings.Contains(out, c.mode+" mode") {
			t.Fatalf("--protocol %q: exit %d, want 0 and %q\n%s%s", c.protocol, code, c.mode+" mode", out, errOut)
		}
		run, x := newestScript(t, st)
		if run.Mode != c.mode || (x.Count > 0) == c.errs || (x.Errors > 0) != c.errs {
			t.Errorf("--protocol %q: stored mode %q, %d transactions, %d errors: want mode %s, errors %v", c.protocol, run.Mode, x.Count, x.Errors, c.mode, c.errs)
		}
	}
	lite := "sqlite:" + filepath.Join(t.TempDir(), "x.db")
	_, errOut, code := cli(t, context.Background(), "run", "--target", lite, "--workload", named, "--protocol", "simple", "--store", st)
	if want := "--protocol simple: sqlite runs a pgbench workload's statements prepared only; drop --protocol, or run it on postgres"; code != 2 || !strings.Contains(errOut, want) {
		t.Errorf("sqlite --protocol simple: exit %d, want 2 and %q\n%s", code, want, errOut)
	}
}

// TestWorkloadPipeline runs a script with a pipeline on PostgreSQL in
// each protocol that pipelines; the simple protocol and SQLite, which
// cannot, are refused before anything runs, at the \startpipeline.
func TestWorkloadPipeline(t *testing.T) {
	dsn := pgtest.NewDatabase(t)
	piped := filepath.Join(t.TempDir(), "piped.sql")
	write(t, piped, "\\set x random(1, 100)\n\\startpipeline\nSELECT :x;\nSELECT :x + 1;\n\\syncpipeline\nSELECT 2;\n\\endpipeline\n")
	st := tempStore(t)
	for _, p := range []string{"prepared", "extended"} {
		out, errOut, code := cli(t, context.Background(), "run", "--target", dsn, "--workload", piped, "--protocol", p, "--users", "2",
			"--rampup", "0s", "--duration", "1s", "--progress-interval", "0", "--no-waits", "--store", st)
		if _, x := newestScript(t, st); code != 0 || x.Count == 0 || x.Errors != 0 {
			t.Errorf("--protocol %s: exit %d, %d transactions, %d errors\n%s%s", p, code, x.Count, x.Errors, out, errOut)
		}
	}
	for _, c := range []struct{ target, protocol, want string }{
		{dsn, "simple", piped + ":2:1: \\startpipeline cannot run with --protocol simple: a pipeline is the extended query protocol's; give --protocol prepared or extended"},
		{"sqlite:" + filepath.Join(t.TempDir(), "x.db"), "", piped + ":2:1: \\startpipeline: sqlite cannot run it; run this script on postgres\n"},
	} {
		_, errOut, code := cli(t, context.Background(), "run", "--target", c.target, "--workload", piped, "--protocol", c.protocol, "--store", st)
		if code != 2 || !strings.Contains(errOut, c.want) {
			t.Errorf("%s %s: exit %d, want 2 and %q\n%s", c.target, c.protocol, code, c.want, errOut)
		}
	}
}

// TestWorkloadConnect records each transaction's backend: with --connect
// each is a new one (the statements prepared again on it), as pgbench -C,
// and the run says so; without it, one per user.
func TestWorkloadConnect(t *testing.T) {
	dsn, ctx := pgtest.NewDatabase(t), context.Background()
	conn, err := pgxConnect(dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "CREATE TABLE pids (pid int)"); err != nil {
		t.Fatal(err)
	}
	pid := filepath.Join(t.TempDir(), "pid.sql")
	write(t, pid, "\\set x 1\nINSERT INTO pids VALUES (pg_backend_pid() + :x - 1);\n")
	st := tempStore(t)
	for _, connect := range []bool{true, false} {
		if _, err := conn.Exec(ctx, "TRUNCATE pids"); err != nil {
			t.Fatal(err)
		}
		out, errOut, code := cli(t, ctx, "run", "--target", dsn, "--workload", pid, "--users", "2", "--rampup", "0s", "--duration", "1s",
			"--progress-interval", "0", "--no-waits", "--store", st, fmt.Sprintf("--connect=%v", connect))
		run, x := newestScript(t, st)
		var rows, backends int
		if err := conn.QueryRow(ctx, "SELECT count(*), count(DISTINCT pid) FROM pids").Scan(&rows, &backends); err != nil {
			t.Fatal(err)
		}
		// a backend's pid may come again after it exits; never on a connection kept
		few := backends >= rows*9/10 && rows > 20
		if !connect {
			few = backends == 2
		}
		if code != 0 || x.Errors != 0 || !few || (run.Env[store.EnvConnect] == "true") != connect {
			t.Errorf("--connect=%v: exit %d, %d errors, %d rows by %d backends, recorded %q\n%s%s", connect, code, x.Errors, rows, backends, run.Env[store.EnvConnect], out, errOut)
		}
	}
}

// newestScript is the newest run in the store st, and its one step's one
// script's figures.
func newestScript(t *testing.T, st string) (store.Run, store.TxnSummary) {
	t.Helper()
	run, steps := storedRun(t, st, mustRuns(storeAt(t, st))[0].ID)
	if len(steps) != 1 || len(steps[0].Txn) != 1 {
		t.Fatalf("run %s: %d steps stored, want 1 of one script", run.ID, len(steps))
	}
	return run, steps[0].Txn[0]
}

// TestWorkloadMaxTries runs a script whose every transaction fails with a
// serialization failure: --max-tries N runs each N times (N-1 retries per
// failed transaction, none with 1, as pgbench's default), the default 11,
// and the run records the bound it was given.
func TestWorkloadMaxTries(t *testing.T) {
	dsn := pgtest.NewDatabase(t)
	fail := filepath.Join(t.TempDir(), "fail.sql")
	write(t, fail, "DO $$ BEGIN RAISE EXCEPTION 'conflict' USING ERRCODE = 'serialization_failure'; END $$;\n")
	st := tempStore(t)
	for _, c := range []struct {
		flag  string
		tries int64
	}{{"1", 1}, {"3", 3}, {"", 11}} {
		args := []string{"run", "--target", dsn, "--workload", fail, "--users", "1", "--rampup", "0s", "--duration", "1s",
			"--progress-interval", "0", "--no-waits", "--store", st}
		if c.flag != "" {
			args = append(args, "--max-tries", c.flag)
		}
		out, errOut, code := cli(t, context.Background(), args...)
		if code != 0 {
			t.Fatalf("--max-tries %q: exit %d\n%s%s", c.flag, code, out, errOut)
		}
		run, x := newestScript(t, st)
		// the step's end may cut the last transaction's retries short
		if lo, hi := (c.tries-1)*(x.Errors-1), (c.tries-1)*x.Errors; x.Errors < 10 || x.Retries < lo || x.Retries > hi || run.Env[store.EnvMaxTries] != c.flag {
			t.Errorf("--max-tries %q: %d failed, %d retries (want %d..%d), recorded %q", c.flag, x.Errors, x.Retries, lo, hi, run.Env[store.EnvMaxTries])
		}
	}
}

// TestWorkloadScriptErrorEndsRun: a meta-command that fails as the script
// runs (a division by zero no check sees before: client_id varies) ends
// the run at once, where it counted the same error at full speed for the
// whole step: partial (exit 1), saying which user, the script's place and
// the fix, and the error stored with the step.
func TestWorkloadScriptErrorEndsRun(t *testing.T) {
	dsn := pgtest.NewDatabase(t)
	div := filepath.Join(t.TempDir(), "div.sql")
	write(t, div, "\\set x 1 / (:client_id - :client_id)\nSELECT :x;\n")
	st := tempStore(t)
	start := time.Now()
	out, errOut, code := cli(t, context.Background(), "run", "--target", dsn, "--workload", div, "--users", "2",
		"--rampup", "0s", "--duration", "30s", "--progress-interval", "0", "--store", st, "--label", "div")
	if took := time.Since(start); code != 1 || took > 20*time.Second ||
		!strings.Contains(errOut, "div.sql:1: division by zero (the script cannot go on here, as pgbench aborts its client; fix the script)") ||
		!strings.Contains(errOut, "stopped the step: ") || !strings.Contains(errOut, "(partial)") {
		t.Fatalf("a script that divides by zero: exit %d after %s, want 1 at once naming the place\n%s%s", code, took, out, errOut)
	}
	run, steps := storedRun(t, st, mustRuns(storeAt(t, st))[0].ID)
	if run.Status != store.StatusPartial || len(steps) != 1 || len(steps[0].Txn) != 1 || steps[0].Txn[0].Errors < 1 ||
		!strings.HasSuffix(steps[0].Txn[0].FirstError, "div.sql:1: division by zero") || steps[0].MeasureEndHow != "interrupted" {
		t.Errorf("stored run %s, steps %+v: want partial with the error", run.Status, steps)
	}
}
