package script

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/rightsize/rightsize/internal/pgtest"
)

func TestParseGood(t *testing.T) {
	src := `-- a comment line
\set aid random(1, 100000 * :scale)
\set  big  1 + \
  2
SELECT abalance, 'it''s :not_a_var?' AS q, now()::date
  FROM pgbench_accounts WHERE aid = :aid \gset acc_
UPDATE t SET x = :acc_abalance + :big WHERE id = :aid;
\if :big > 2
  SELECT 1; SELECT $$a;b$$ AS c \aset
\elif :big = 2
  \sleep 10 ms
\else
  \sleep :big
\endif
/* a ; comment */ SELECT (1;
`
	s, err := Parse("good.sql", src)
	if err != nil {
		t.Fatal(err)
	}
	agreeGood(t, src)
	var kinds []Kind
	for _, c := range s.Commands {
		kinds = append(kinds, c.Kind)
	}
	want := []Kind{Set, Set, SQL, SQL, If, SQL, SQL, Elif, Sleep, Else, Sleep, Endif, SQL}
	if !reflect.DeepEqual(kinds, want) {
		t.Fatalf("kinds %v, want %v", kinds, want)
	}
	sel := s.Commands[2]
	if sel.Line != 5 || sel.Col != 1 || sel.Store != Gset || sel.Prefix != "acc_" {
		t.Errorf("select: line %d col %d store %d prefix %q", sel.Line, sel.Col, sel.Store, sel.Prefix)
	}
	// pgbench binds variables everywhere in the text, quoted or not; :: is a cast
	if !strings.Contains(sel.SQL, "'it''s $1?'") || !strings.Contains(sel.SQL, "now()::date") || !strings.HasSuffix(sel.SQL, "aid = $2 ") {
		t.Errorf("select SQL %q", sel.SQL)
	}
	if !reflect.DeepEqual(sel.Params, []string{"not_a_var", "aid"}) {
		t.Errorf("select params %v", sel.Params)
	}
	upd := s.Commands[3]
	if !reflect.DeepEqual(upd.Params, []string{"acc_abalance", "big", "aid"}) || upd.SQL != "UPDATE t SET x = $1 + $2 WHERE id = $3;" ||
		upd.QSQL != "UPDATE t SET x = ? + ? WHERE id = ?;" {
		t.Errorf("update %q %q %v", upd.SQL, upd.QSQL, upd.Params)
	}
	// -M simple's text: the values go between the pieces, :: stays a cast
	if !reflect.DeepEqual(upd.Pieces, []string{"UPDATE t SET x = ", " + ", " WHERE id = ", ";"}) ||
		len(sel.Pieces) != 3 || !strings.HasPrefix(sel.Pieces[1], "?'") || !strings.Contains(sel.Pieces[1], "now()::date") {
		t.Errorf("pieces %q, %q", upd.Pieces, sel.Pieces)
	}
	if c := s.Commands[6]; c.Store != Aset || c.SQL != "SELECT $$a;b$$ AS c " {
		t.Errorf("aset command %q store %d", c.SQL, c.Store)
	}
	if s.Commands[4].Next != 7 || s.Commands[7].Next != 9 || s.Commands[9].Next != 11 || s.Commands[4].End != 11 || s.Commands[9].End != 11 {
		t.Errorf("if links: %+v", s.Commands[4])
	}
	if c := s.Commands[8]; c.SleepN != 10 || c.SleepUnit != 1000 {
		t.Errorf("sleep 10 ms: %d × %d", c.SleepN, c.SleepUnit)
	}
	if c := s.Commands[10]; c.SleepVar != "big" || c.SleepUnit != 1000000 {
		t.Errorf("sleep :big: %q × %d", c.SleepVar, c.SleepUnit)
	}
	if c := s.Commands[12]; c.SQL != "/* a ; comment */ SELECT (1;\n" || c.Line != 15 {
		t.Errorf("last command %q at line %d", c.SQL, c.Line)
	}
}

func TestParseErrors(t *testing.T) {
	cases := []struct{ src, want string }{
		{"\\set x 1 +\n", "bad.sql:1:11: syntax error in expression \"1 +\""},
		{"SELECT 1;\n\\set x 1 + * 2\n", "bad.sql:2:12: syntax error"},
		{"\\set x foo(1)\n", "bad.sql:1:8: unexpected function name (foo)"},
		{"\\set x abs(1, 2)\n", "bad.sql:1:8: unexpected number of arguments (abs)"},
		{"\\set x 1 < 2 < 3\n", "bad.sql:1:14: syntax error"},
		{"\\set x 99999999999999999999\n", "bad.sql:1:8: bigint constant overflow (99999999999999999999)"},
		{"\\set x 1 ^ 2\n", "bad.sql:1:10: unexpected character (^)"},
		{"\\set 1x 1\n", "bad.sql:1:6: invalid variable name \"1x\""},
		{"\\set x\n", "bad.sql:1:1: missing argument"},
		{"SELECT 1;\n  \\bogus 1\n", "bad.sql:2:3: invalid command \\bogus"},
		{"\\shell echo 1\n", "bad.sql:1:1: \\shell is not supported"},
		{"\\setshell x echo 1\n", "bad.sql:1:1: \\setshell is not supported"},
		{"\\startpipeline\n", "bad.sql:1:1: \\startpipeline is never ended: end the pipeline with \\endpipeline before the script ends"},
		{"\\startpipeline\nSELECT 1;\n\\startpipeline\n\\endpipeline\n\\endpipeline\n", "bad.sql:3:1: \\startpipeline: already in a pipeline (the one started at line 1)"},
		{"\\endpipeline\n", "bad.sql:1:1: \\endpipeline: not in a pipeline; start one with \\startpipeline"},
		{"SELECT 1;\n\\syncpipeline\n", "bad.sql:2:1: \\syncpipeline: not in a pipeline"},
		{"\\startpipeline\nSELECT 1 AS x \\gset\n\\endpipeline\n", "bad.sql:2:1: \\gset and \\aset cannot be used in a pipeline"},
		{"\\startpipeline now\n\\endpipeline\n", "bad.sql:1:16: unexpected argument to \\startpipeline"},
		{"\\sleep\n", "bad.sql:1:1: missing argument"},
		{"\\sleep 1 2 3\n", "bad.sql:1:12: too many arguments"},
		{"\\sleep abc\n", "bad.sql:1:8: invalid sleep time \"abc\""},
		{"\\sleep 10 hours\n", "bad.sql:1:11: unrecognized time unit \"hours\""},
		{"\\sleep 10xs\n", "bad.sql:1:10: unrecognized time unit \"xs\""},
		{"\\gset\n", "bad.sql:1:1: \\gset must follow an SQL command"},
		{"\\set x 1\n\\aset\n", "bad.sql:2:1: \\aset must follow an SQL command"},
		{"SELECT 1 \\gset\n\\gset\n", "bad.sql:2:1: \\gset must follow an SQL command"},
		{"SELECT 1 \\gset a b\n", "bad.sql:1:18: too many arguments to \\gset"},
		{"SELECT 1 \\; SELECT 2;\n", "bad.sql:1:1: combined queries"},
		{"\\if true\nSELECT 1;\n", "bad.sql:1:1: \\if without matching \\endif"},
		{"\\if true\n\\if false\n\\endif\n", "bad.sql:1:1: \\if without matching \\endif"},
		{"\\if 1\n\\endif\n\\endif\n", "bad.sql:3:1: \\endif without matching \\if"},
		{"SELECT 1;\n\\else\n", "bad.sql:2:1: \\else without matching \\if"},
		{"\\elif true\n", "bad.sql:1:1: \\elif without matching \\if"},
		{"\\if 1\n\\else\n\\else\n\\endif\n", "bad.sql:3:1: \\else after \\else"},
		{"\\if 1\n\\else\n\\elif 2\n\\endif\n", "bad.sql:3:1: \\elif after \\else"},
		{"\\if\n\\endif\n", "bad.sql:1:1: missing condition in \\if"},
		{"\\if 1\n\\endif extra\n", "bad.sql:2:8: unexpected argument to \\endif"},
		{"-- only a comment\n\n", "bad.sql:1:1: empty command list"},
	}
	for _, c := range cases {
		_, err := Parse("bad.sql", c.src)
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%q: error %v, want %q...", c.src, err, c.want)
		}
		agreeWithPgbench(t, c.src, err)
	}
}

// refusedHere are scripts pgbench runs and rightsize refuses, or that
// pgbench rejects only when it runs them (\set 1x: at the assignment).
// A pipeline's mistakes pgbench finds only as it runs the script.
var refusedHere = []string{"\\shell", "\\setshell", "pipeline", "\\;", "\\set 1x"}

// agreeWithPgbench checks that pgbench, when the machine has it, also
// rejects the script src, on the same line when it names one. pgbench
// parses its scripts before it connects: it is pointed at a server that
// does not exist.
func agreeWithPgbench(t *testing.T, src string, ours error) {
	t.Helper()
	pgbench := pgbenchIfAny()
	if pgbench == "" {
		return
	}
	for _, r := range refusedHere {
		if strings.Contains(src, r) {
			return
		}
	}
	f := filepath.Join(t.TempDir(), "bad.sql")
	if err := os.WriteFile(f, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	out, _ := exec.Command(pgbench, "-n", "-t", "1", "-h", "/nonexistent", "-f", f).CombinedOutput()
	stderr := string(out)
	parseFailed := strings.Contains(stderr, f+":") || strings.Contains(stderr, "condition error") || strings.Contains(stderr, "empty command list")
	if !parseFailed {
		t.Errorf("%q: pgbench accepts it:\n%s", src, stderr)
		return
	}
	var se *Error
	if m := regexp.MustCompile(regexp.QuoteMeta(f) + `:(\d+): `).FindStringSubmatch(stderr); m != nil && errors.As(ours, &se) && m[1] != strconv.Itoa(se.Line) {
		t.Errorf("%q: our line %d, pgbench's %s:\n%s", src, se.Line, m[1], stderr)
	}
}

func TestIfNestingLinks(t *testing.T) {
	s, err := Parse("n.sql", "\\if 1\n\\if 0\nSELECT 1;\n\\elif 1\nSELECT 2;\n\\endif\n\\else\nSELECT 3;\n\\endif\n")
	if err != nil {
		t.Fatal(err)
	}
	// 0 if, 1 if, 2 sql, 3 elif, 4 sql, 5 endif, 6 else, 7 sql, 8 endif
	c := s.Commands
	if c[0].Next != 6 || c[0].End != 8 || c[1].Next != 3 || c[3].Next != 5 || c[1].End != 5 || c[3].End != 5 || c[6].Next != 8 || c[6].End != 8 {
		t.Errorf("links: %d/%d %d/%d %d/%d %d/%d", c[0].Next, c[0].End, c[1].Next, c[1].End, c[3].Next, c[3].End, c[6].Next, c[6].End)
	}
}

func TestBuiltinsAndOptions(t *testing.T) {
	for _, b := range Builtins {
		s, err := ParseBuiltin(b, 3)
		if err != nil || s.Weight != 3 {
			t.Fatalf("%s: %v", b.Name, err)
		}
	}
	b, err := FindBuiltin("tpcb")
	if err != nil || b.Name != "tpcb-like" {
		t.Errorf("tpcb: %v %v", b.Name, err)
	}
	if _, err := FindBuiltin("s"); err == nil || !strings.Contains(err.Error(), "ambiguous") {
		t.Errorf("s: %v", err)
	}
	s, _ := ParseBuiltin(Builtins[0], 1)
	if got := s.Commands[5]; got.SQL != "UPDATE pgbench_accounts SET abalance = abalance + $1 WHERE aid = $2;" {
		t.Errorf("tpcb-like update: %q", got.SQL)
	}
	for _, c := range []struct {
		opt, name string
		w         int
		bad       bool
	}{{"a.sql", "a.sql", 1, false}, {"a.sql@9", "a.sql", 9, false}, {"x@y.sql@0", "x@y.sql", 0, false},
		{"a.sql@", "", 0, true}, {"a.sql@x", "", 0, true}, {"a.sql@-1", "", 0, true}, {"a.sql@2147483648", "", 0, true}} {
		name, w, err := SplitWeight(c.opt)
		if (err != nil) != c.bad || name != c.name || w != c.w {
			t.Errorf("%s: %q %d %v", c.opt, name, w, err)
		}
	}
	if n, v, err := ParseDefine("x=a=b"); err != nil || n != "x" || v != "a=b" {
		t.Errorf("define: %q %q %v", n, v, err)
	}
	if _, _, err := ParseDefine("1x=2"); err == nil {
		t.Error("define 1x accepted")
	}
}

// agreeGood checks that pgbench parses src without an error.
func agreeGood(t *testing.T, src string) {
	pgbench := pgbenchIfAny()
	if pgbench == "" {
		return
	}
	f := filepath.Join(t.TempDir(), "good.sql")
	if err := os.WriteFile(f, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	out, _ := exec.Command(pgbench, "-n", "-t", "1", "-h", "/nonexistent", "-f", f).CombinedOutput()
	if !strings.Contains(string(out), "connection to server") || strings.Contains(string(out), f+":") {
		t.Errorf("pgbench does not parse the script as we do:\n%s", out)
	}
}

// pgbenchIfAny is the machine's pgbench, "" when it has none (the parse
// tests then check only rightsize's side).
func pgbenchIfAny() string {
	p := filepath.Join(pgtest.Bin(), "pgbench")
	if _, err := os.Stat(p); pgtest.Bin() == "" || err != nil {
		return ""
	}
	return p
}

func TestLoad(t *testing.T) {
	f := filepath.Join(t.TempDir(), "w@x.sql")
	if err := os.WriteFile(f, []byte("SELECT 1;\n\\set x 1 +\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadFile(f + "@3"); err == nil || err.Error() != f+":2:11: syntax error in expression \"1 +\"" {
		t.Errorf("bad file: %v", err)
	}
	if err := os.WriteFile(f, []byte("SELECT 1;\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if s, err := LoadFile(f + "@3"); err != nil || s.Weight != 3 || s.Name != f {
		t.Errorf("good file: %v", err)
	}
	if _, err := LoadFile(filepath.Join(filepath.Dir(f), "missing.sql")); err == nil || !strings.Contains(err.Error(), "read script") {
		t.Errorf("missing file: %v", err)
	}
	if s, err := LoadBuiltin("select@2"); err != nil || s.Weight != 2 || s.Name != "<builtin: select only>" {
		t.Errorf("builtin: %v", err)
	}
}
