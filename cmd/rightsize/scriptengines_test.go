package main

import (
	"context"
	"database/sql"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rightsize/rightsize/engine/sqlite"
	"github.com/rightsize/rightsize/instance/mariadb"
	"github.com/rightsize/rightsize/internal/pgtest"
)

// scriptsOnEngine builds a table with build --workload FILE --init and
// runs a two-script workload weighted 3:1 (\set, :var, \gset, \if, \aset;
// a's transaction opened with begin) on target: the mix within 3 % of
// 75 %, no error (a \gset that did not set its variables, or a wrong \if
// branch, is an error).
func scriptsOnEngine(t *testing.T, begin string, target ...string) (na int64) {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	init, a, b := filepath.Join(dir, "init.sql"), filepath.Join(dir, "a.sql"), filepath.Join(dir, "b.sql")
	write(t, init, "DROP TABLE IF EXISTS rs_kv;\nCREATE TABLE rs_kv (k INTEGER PRIMARY KEY, v INTEGER NOT NULL);\n"+
		"INSERT INTO rs_kv (k, v) VALUES (1, 0), (2, 0), (3, 0), (4, 0), (5, 0), (6, 0), (7, 0), (8, 0), (9, 0), (10, 0);\n")
	write(t, a, "\\set k random(1, 10)\n"+begin+"\nSELECT k AS got, v FROM rs_kv WHERE k = :k \\gset\n\\if :got != :k\nSELECT no_such_column FROM rs_kv;\n"+
		"\\else\nUPDATE rs_kv SET v = v + 1 WHERE k = :k;\n\\endif\nCOMMIT;\n")
	write(t, b, "\\set k random(1, 10)\nSELECT v FROM rs_kv WHERE k <= :k;\nSELECT count(*) AS n FROM rs_kv WHERE k <= :k \\aset\n\\if :n != :k\nSELECT no_such_column FROM rs_kv;\n\\endif\n")
	out, errOut, code := cli(t, ctx, append([]string{"build", "--workload", a, "--init", init}, target...)...)
	if code != 0 || !strings.Contains(out, "ran "+init) {
		t.Fatalf("build --workload FILE --init: exit %d\n%s%s", code, out, errOut)
	}
	rep := runJSON(t, append([]string{"run", "--workload", a + "@3", "--workload", b + "@1", "--users", "2", "--rampup", "500ms",
		"--duration", "4s", "--store", tempStore(t)}, target...)...)
	ta, tb := rep.Steps[0].Txn["a"], rep.Steps[0].Txn["b"]
	t.Logf("%v: a %d, b %d transactions", target, ta.Count, tb.Count)
	n := ta.Count + tb.Count
	if n < 400 || math.Abs(float64(ta.Count)/float64(n)-0.75) > 0.03 || ta.Errors+tb.Errors != 0 || rep.Workload.Scripts != "a@3,b@1" {
		t.Fatalf("a@3 + b@1: %+v and %+v (scripts %q), want over 400 without error and a's share within 3 %% of 75 %%", ta, tb, rep.Workload.Scripts)
	}
	return ta.Count
}

// TestScriptsOnSQLite: a pgbench workload on an SQLite file, and the
// updates of its \else branch in the file.
func TestScriptsOnSQLite(t *testing.T) {
	path := filepath.Join(t.TempDir(), "w.db")
	na := scriptsOnEngine(t, "BEGIN IMMEDIATE;", "--target", "sqlite:"+path)
	db, err := sqlite.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var sum sql.NullInt64
	if err := db.SQL().QueryRow("SELECT sum(v) FROM rs_kv").Scan(&sum); err != nil || sum.Int64 < na {
		t.Fatalf("sum of v %d (%v), want at least a's %d transactions", sum.Int64, err, na)
	}
}

// TestScriptsOnMariaDB: the same workload on the managed MariaDB.
func TestScriptsOnMariaDB(t *testing.T) {
	if testing.Short() || os.Getenv("RIGHTSIZE_SKIP_MYSQL") == "1" {
		t.Skip("starts MariaDB")
	}
	if !mariadb.Installed() {
		t.Skip("no mariadbd on this machine")
	}
	dataDir := filepath.Join(pgtest.ServerDir(t, "scripts-mariadb-"), "data")
	target := []string{"--target", "mariadb", "--data-dir", dataDir}
	scriptsOnEngine(t, "BEGIN;", target...)
	// an --init whose second statement fails fails the build; pgbench's
	// END is not MySQL's (README: write COMMIT)
	dir := t.TempDir()
	bad, end := filepath.Join(dir, "bad.sql"), filepath.Join(dir, "end.sql")
	write(t, bad, "CREATE TABLE IF NOT EXISTS rs_bad (a int);\nSELECT no_such_column FROM rs_bad;\n")
	write(t, end, "BEGIN;\nSELECT 1;\nEND;\n")
	ctx := context.Background()
	if out, errOut, code := cli(t, ctx, append([]string{"build", "--workload", end, "--init", bad}, target...)...); code == 0 || !strings.Contains(errOut, "no_such_column") {
		t.Errorf("a failing --init: exit %d\n%s%s", code, out, errOut)
	}
	rep := runJSON(t, append([]string{"run", "--workload", end, "--users", "1", "--duration", "1s", "--store", tempStore(t)}, target...)...)
	if tx := rep.Steps[0].Txn["end"]; tx.Count != 0 || tx.Errors == 0 {
		t.Errorf("a script ending with END on MariaDB: %+v, want errors only", tx)
	}
}

// TestScriptsEngineRefused: an engine that runs no pgbench script, and
// tpcb's build on an engine other than PostgreSQL, are refused before
// any server is reached: exit 2, one line with the fix.
func TestScriptsEngineRefused(t *testing.T) {
	a := filepath.Join(t.TempDir(), "a.sql")
	write(t, a, "SELECT 1 AS one \\gset\n")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--workload", a, "--target", "sqlserver://127.0.0.1:1?database=x"}, "mssql runs no pgbench scripts; run them on postgres, mysql, sqlite"},
		{[]string{"build", "--workload", "tpcb", "--target", "sqlite:" + filepath.Join(t.TempDir(), "x.db")}, "builds on PostgreSQL only (this target is sqlite): create pgbench's tables with build --workload FILE --init"},
	} {
		out, errOut, code := cli(t, context.Background(), append(c.args, "--store", tempStore(t))...)
		if code != 2 || !strings.Contains(errOut, c.want) || strings.Count(strings.TrimSpace(errOut), "\n") != 0 {
			t.Errorf("%v: exit %d, want 2 and one line with %q\n%s%s", c.args, code, c.want, out, errOut)
		}
	}
}
