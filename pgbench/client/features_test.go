package client

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rightsize/rightsize/internal/pgtest"

	"github.com/rightsize/rightsize/pgbench/expr"
	"github.com/rightsize/rightsize/pgbench/script"
)

func parse(t *testing.T, name, src string, weight int) *script.Script {
	t.Helper()
	s, err := script.Parse(name, src)
	if err != nil {
		t.Fatal(err)
	}
	s.Weight = weight
	return s
}

// TestGsetIfAndSleep runs a script whose \gset feeds a later statement and
// whose \if chain picks a branch from a variable, on a real server.
func TestGsetIfAndSleep(t *testing.T) { forEachSession(t, testGsetIfAndSleep) }

func testGsetIfAndSleep(t *testing.T, open opener) {
	dsn := tpcbDatabase(t)
	s := parse(t, "f.sql", `\set n 3 * :k
SELECT :n + 1 AS m, 'x' AS tag \gset r_
SELECT :r_m * 2 AS doubled \gset
\if :doubled > 100
  \set branch 1
\elif :doubled = 20
  \set branch 2
  SELECT abalance AS bal FROM pgbench_accounts WHERE aid = :doubled \aset
  SELECT 1 AS none WHERE false \aset
\else
  \set branch 3
\endif
\sleep 1 ms
\set out debug(:branch * 10 + :bal)
`, 1)
	var debugs []expr.Value
	c := newClient(t, open, dsn, Config{Scripts: []*script.Script{s}, Scale: 1, Seed: Seeds(1, 1)[0],
		Defines: map[string]string{"k": "3"}, Debug: func(_, _ int, v expr.Value) { debugs = append(debugs, v) }})
	o := c.Run(context.Background())
	if o.Err != nil {
		t.Fatal(o.Err)
	}
	for name, want := range map[string]string{"n": "9", "r_m": "10", "r_tag": "x", "doubled": "20", "branch": "2", "bal": "0", "out": "20"} {
		if got, _ := c.Var(name); got != want {
			t.Errorf(":%s = %q, want %q", name, got, want)
		}
	}
	if _, ok := c.Var("none"); ok {
		t.Error("\\aset of no row stored a variable")
	}
	if len(debugs) != 1 || debugs[0] != expr.IntValue(20) {
		t.Errorf("debug values %v", debugs)
	}
	if o.Commands[4] != 0 || o.Commands[10] != 0 || o.Commands[12] < 1000000 {
		t.Errorf("command times: skipped branches %v %v, sleep %v", o.Commands[4], o.Commands[10], o.Commands[12])
	}
}

// TestErrorsRollBack checks that an SQL error ends the script with the
// failing line, rolls the transaction back, and that the client goes on.
func TestErrorsRollBack(t *testing.T) { forEachSession(t, testErrorsRollBack) }

func testErrorsRollBack(t *testing.T, open opener) {
	dsn := tpcbDatabase(t)
	bad := parse(t, "bad.sql", "BEGIN;\nUPDATE pgbench_branches SET bbalance = bbalance + 1;\nSELECT 1 / :zero;\nEND;\n", 1)
	gset := parse(t, "gset.sql", "SELECT aid FROM pgbench_accounts WHERE aid < 3 \\gset\n", 0)
	meta := parse(t, "meta.sql", "\\if false\n\\elif 1 / 0\n\\endif\n", 0)
	c := newClient(t, open, dsn, Config{Scripts: []*script.Script{bad, gset, meta}, Scale: 1, Seed: Seeds(1, 1)[0],
		Defines: map[string]string{"zero": "0"}})
	var ce *CommandError
	if o := c.Run(context.Background()); !errors.As(o.Err, &ce) || ce.Line != 3 || !ce.SQL || !strings.Contains(o.Err.Error(), "bad.sql:3: ERROR: division by zero") {
		t.Fatalf("error %v", o.Err)
	}
	if o := c.RunScript(context.Background(), 1); o.Err == nil || !strings.Contains(o.Err.Error(), "gset.sql:1: \\gset expected one row, got 2") {
		t.Errorf("gset of 2 rows: %v", o.Err)
	}
	if o := c.RunScript(context.Background(), 2); !errors.As(o.Err, &ce) || ce.SQL || !strings.Contains(o.Err.Error(), "meta.sql:2: division by zero") {
		t.Errorf("meta-command error: %v", o.Err)
	}
	if got := queryString(t, dsn, "select sum(bbalance)::text from pgbench_branches"); got != "0" {
		t.Errorf("branch balance %s after the rolled back update", got)
	}
}

// TestWeightedMix runs 4000 transactions of three scripts weighted 6:3:1:
// each script's share within 4 standard deviations of its weight's.
func TestWeightedMix(t *testing.T) { forEachSession(t, testWeightedMix) }

func testWeightedMix(t *testing.T, open opener) {
	dsn := tpcbDatabase(t)
	var scripts []*script.Script
	for i, w := range []int{6, 3, 1} {
		scripts = append(scripts, parse(t, string(rune('a'+i))+".sql", "SELECT 1;\n", w))
	}
	scripts = append(scripts, parse(t, "never.sql", "SELECT 1/0;\n", 0))
	c := newClient(t, open, dsn, Config{Scripts: scripts, Scale: 1, Seed: Seeds(99, 1)[0]})
	stats := NewStats(scripts)
	const n = 4000
	for range n {
		o := c.Run(context.Background())
		if o.Err != nil {
			t.Fatal(o.Err)
		}
		stats.Record(o)
	}
	for i, w := range []float64{0.6, 0.3, 0.1, 0} {
		got := float64(stats.Scripts[i].Count)
		if sd := math.Sqrt(n * w * (1 - w)); math.Abs(got-n*w) > 4*sd {
			t.Errorf("script %d: %v transactions, want %v ± %.0f", i, got, n*w, 4*sd)
		}
	}
}

// TestRetries checks that a serialization failure runs the script again,
// up to MaxTries, from the random state the first try began with.
func TestRetries(t *testing.T) { forEachSession(t, testRetries) }

func testRetries(t *testing.T, open opener) {
	dsn := tpcbDatabase(t)
	s := parse(t, "retry.sql", `\set r debug(random(1, 1000000000))
SELECT :r AS r, coalesce(:empty, 'was null') AS e \gset got_
DO $$ BEGIN RAISE EXCEPTION 'conflict' USING ERRCODE = '40001'; END $$;
`, 1)
	var draws []expr.Value
	c := newClient(t, open, dsn, Config{Scripts: []*script.Script{s}, Scale: 1, Seed: Seeds(3, 1)[0], MaxTries: 3,
		Defines: map[string]string{"empty": ""}, Debug: func(_, _ int, v expr.Value) { draws = append(draws, v) }})
	o := c.Run(context.Background())
	var ce *CommandError
	if !errors.As(o.Err, &ce) || !ce.Retryable() || o.Tries != 3 || ce.Line != 3 {
		t.Fatalf("tries %d, error %v", o.Tries, o.Err)
	}
	st := NewStats([]*script.Script{s})
	st.Record(o)
	if st.Scripts[0].Retries != 2 || st.Scripts[0].Errors != 1 || st.Scripts[0].Commands[2].Errors != 1 {
		t.Errorf("stats: %d retries, %d errors, %d errors of the DO", st.Scripts[0].Retries, st.Scripts[0].Errors, st.Scripts[0].Commands[2].Errors)
	}
	if len(draws) != 3 || draws[0] != draws[1] || draws[1] != draws[2] {
		t.Errorf("draws of the three tries: %v", draws)
	}
	if got, _ := c.Var("got_e"); got != "" {
		t.Errorf("empty parameter came back as %q", got)
	}
	if o := c.Run(context.Background()); len(draws) != 6 || draws[3] == draws[0] {
		t.Errorf("the next transaction drew %v again (%v)", draws[3:], o.Err)
	}
}

// TestFailureKinds: the server's deadlock (40P01) is a retryable
// failure that is a deadlock, its serialization failure (40001) one that
// is not, and another error neither (pgbench's aggregated log splits
// them so).
func TestFailureKinds(t *testing.T) { forEachSession(t, testFailureKinds) }

func testFailureKinds(t *testing.T, open opener) {
	dsn := pgtest.NewDatabase(t)
	for _, c := range []struct {
		code                string
		retryable, deadlock bool
	}{{"40P01", true, true}, {"40001", true, false}, {"22012", false, false}} {
		s := parse(t, "f.sql", "DO $$ BEGIN RAISE EXCEPTION 'x' USING ERRCODE = '"+c.code+"'; END $$;\n", 1)
		cl := newClient(t, open, dsn, Config{Scripts: []*script.Script{s}, Scale: 1, Seed: Seeds(1, 1)[0], MaxTries: 1})
		var ce *CommandError
		if o := cl.Run(context.Background()); !errors.As(o.Err, &ce) || ce.Retryable() != c.retryable || ce.Deadlock() != c.deadlock {
			t.Errorf("SQLSTATE %s: error %v, want retryable %v, deadlock %v", c.code, o.Err, c.retryable, c.deadlock)
		}
	}
}

// customScript exercises the executor's paths: random functions, hashes,
// doubles written into SQL, \gset values read back into expressions, \if
// chains and \aset. Each transaction logs what it computed.
const customScript = `\set a random(1, 100)
\set z random_zipfian(1, 1000, 1.2)
\set g random_gaussian(1, 100, 3.0)
\set e random_exponential(1, 100, 2.5)
\set h abs(hash(:a)) % 1000 + hash_fnv1a(:z, 5) % 7
\set p permute(:a, 100) + permute(:z, 1000, :client_id)
\set d :a / 3.0 + :scale
SELECT :a * 2 AS twice, 'v' || :z AS label \gset
\if :twice > 150
  \set branch 1
\elif :twice > 50 AND :h % 2 = 0
  \set branch 2
\else
  \set branch 3 + :twice / 7.0
\endif
SELECT :branch::float8 * 10 AS b10 \aset
\sleep 0
INSERT INTO log (a, z, g, e, h, p, d, twice, label, branch, b10) VALUES (:a, :z, :g, :e, :h, :p, :d, :twice, :label, :branch, :b10);
`

// TestCustomScriptSameAsPgbench runs customScript 80 times in one client
// here and in pgbench -M prepared with the same --random-seed: the logged
// rows, every value as text, must be equal.
func TestCustomScriptSameAsPgbench(t *testing.T) { forEachSession(t, testCustomScriptSameAsPgbench) }

func testCustomScriptSameAsPgbench(t *testing.T, open opener) {
	pgbench := pgtest.Pgbench(t)
	const create = "CREATE TABLE log (n serial, a text, z text, g text, e text, h text, p text, d text, twice text, label text, branch text, b10 text)"
	ours, theirs := pgtest.NewDatabase(t), pgtest.NewDatabase(t)
	for _, dsn := range []string{ours, theirs} {
		if got := queryString(t, dsn, create+"; SELECT 'ok'"); got != "ok" {
			t.Fatal(got)
		}
	}
	f := filepath.Join(t.TempDir(), "custom.sql")
	if err := os.WriteFile(f, []byte(customScript), 0o600); err != nil {
		t.Fatal(err)
	}
	const seed, txns = 31337, 80
	out, err := exec.Command(pgbench, "-n", "-M", "prepared", "-c", "1", "-j", "1", "-t", fmt.Sprint(txns), "-s", "3",
		fmt.Sprintf("--random-seed=%d", seed), "-f", f, theirs).CombinedOutput()
	if err != nil {
		t.Fatalf("pgbench: %v\n%s", err, out)
	}
	s := parse(t, f, customScript, 1)
	c := newClient(t, open, ours, Config{Scripts: []*script.Script{s}, Scale: 3, Seed: Seeds(seed, 1)[0]})
	for range txns {
		if o := c.Run(context.Background()); o.Err != nil {
			t.Fatal(o.Err)
		}
	}
	q := "select string_agg(format('%s %s %s %s %s %s %s %s %s %s', a, z, g, e, h, p, d, twice, label, branch || '/' || b10), E'\\n' order by n) from log"
	a, b := queryString(t, ours, q), queryString(t, theirs, q)
	if a != b {
		t.Errorf("logged rows differ:\n ours:\n%s\n pgbench:\n%s", a, b)
	}
	if strings.Count(a, "\n") != txns-1 {
		t.Errorf("%d rows logged", strings.Count(a, "\n")+1)
	}
}

func TestCancel(t *testing.T) { forEachSession(t, testCancel) }

// testCancel checks that a transaction waiting on the server returns with
// its context's error when the context ends.
func testCancel(t *testing.T, open opener) {
	dsn := tpcbDatabase(t)
	s := parse(t, "slow.sql", "SELECT pg_sleep(60);\n", 1)
	c := newClient(t, open, dsn, Config{Scripts: []*script.Script{s}, Scale: 1, Seed: Seeds(1, 1)[0]})
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	o := c.Run(ctx)
	if !errors.Is(o.Err, context.DeadlineExceeded) {
		t.Errorf("error %v, want the context's deadline", o.Err)
	}
	if o.Latency >= time.Minute {
		t.Errorf("the transaction ran to the end of pg_sleep (%v)", o.Latency)
	}
}
