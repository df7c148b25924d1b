package expr

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/rightsize/rightsize/internal/pgtest"
	"github.com/rightsize/rightsize/pgbench/prng"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// testEnv is a client's environment as pgbench sets it up with
// --random-seed=seed and one client: client 0's random state is the first
// draw of the base sequence, default_seed the second.
type testEnv struct {
	vars   map[string]Value
	rand   *prng.State
	debugs []Value
}

func newTestEnv(seed uint64) *testEnv {
	base := prng.New(seed)
	r := prng.New(base.Uint64())
	env := &testEnv{rand: r, vars: map[string]Value{
		"default_seed": IntValue(int64(base.Uint64())), "random_seed": IntValue(int64(seed)),
		"scale": IntValue(1), "client_id": IntValue(0),
	}}
	for name, s := range conformanceDefines {
		v, err := ParseValue(s)
		if err != nil {
			panic(err)
		}
		env.vars[name] = v
	}
	return env
}

func (e *testEnv) Var(name string) (Value, error) {
	v, ok := e.vars[name]
	if !ok {
		return Value{}, fmt.Errorf("undefined variable %q", name)
	}
	return v, nil
}
func (e *testEnv) Rand() *prng.State { return e.rand }
func (e *testEnv) Debug(v Value)     { e.debugs = append(e.debugs, v) }

// conformanceExprs are evaluated by pgbench and by this package, in this
// order in one client, so that the random ones draw the same stream.
var conformanceExprs = []string{
	"1 + 2 * 3", "(1 + 2) * 3", "7 / 2", "-7 / 2", "7 % 3", "-7 % 3", "7 % -3", "mod(-7, 3)",
	"9223372036854775807", "-9223372036854775808", "-9223372036854775807 - 1", "(-9223372036854775807 - 1) / 1",
	"(-9223372036854775807 - 1) % -1", "5 / -1", "1.5 + 2", "7.0 / 2", "1 / 3.0", "1e300 * 1e10", "-1e300 * 1e10",
	"0.1 + 0.2", "1.0 / 0", "~0", "~5", "5 & 3", "5 | 3", "5 # 3", "1 << 62", "1 << 63", "1 << 64",
	"-16 >> 2", "1 << -1", "5 > 3", "5 >= 5", "5 < 3", "5 <= 4", "5 = 5.0", "5 <> 5", "5 != 4", "1.5 < 2",
	"true AND false", "true OR false", "NOT true", "NOT false AND true", "NULL AND false", "false AND NULL",
	"true OR NULL", "NULL OR true", "NULL IS NULL", "1 IS NULL", "1 IS NOT NULL", "true IS TRUE", "false IS NOT TRUE",
	"NULL IS FALSE", "1 ISNULL", "NULL NOTNULL", "NULL + 1", "abs(NULL)", "least(1, NULL)", "debug(NULL)",
	"CASE WHEN 1 = 2 THEN 1 WHEN 2 = 2 THEN 2 ELSE 3 END", "CASE WHEN false THEN 1 END", "CASE WHEN 0 THEN 1 ELSE 0.5 END",
	"CASE WHEN 2 THEN 7 END", "abs(-5)", "abs(-5.5)", "abs(-9223372036854775807)", "debug(42)", "pi()", "sqrt(2)",
	"sqrt(-1)", "ln(10)", "ln(0)", "exp(1)", "exp(1000)", "int(3.5)", "int(4.5)", "int(-2.5)", "int(2.7)", "double(5)",
	"pow(2, 10)", "power(2.5, 3)", "pow(2, -1)", "pow(-8, 1.0/3)", "least(3, 1, 2)", "greatest(3, 1, 2)",
	"least(3, 1.5, 2)", "greatest(1, 2.5)", "hash(0)", "hash(1)", "hash(-1)", "hash(12345, 67890)", "hash_murmur2(5, 0)",
	"hash_fnv1a(0)", "hash_fnv1a(1)", "hash_fnv1a(12345, 67890)", "hash_fnv1a(-9223372036854775807, -1)",
	"permute(0, 10)", "permute(1, 10)", "permute(9, 10)", "permute(12, 10, 5)", "permute(-3, 7, 11)",
	"permute(123456, 1000000, 42)", "permute(5, 1)", "permute(1, 2, 3)", "permute(2, 3, 4)", "permute(77, 1099511627776, 1)",
	":scale", ":client_id", ":random_seed", ":default_seed", ":scale * 100000 + 1",
	"random(1, 10)", "random(1, 100000)", "random(-5000, 5000)", "random(5, 5)", "random(-9223372036854775806, 0)",
	"random_gaussian(1, 1000, 2.5)", "random_gaussian(1, 10, 5)", "random_exponential(1, 1000, 3)",
	"random_exponential(1, 100, 0.5)", "random_zipfian(1, 1000, 1.5)", "random_zipfian(1, 10, 1.07)", "random_zipfian(1, 1, 2)",
	"random(1, 1000) + random(1, 1000)", "1 + 2 * 3 - 4 / 2 % 3", "3 - - 2", "- (3)", "+ 4", "1 < 2 AND 2 < 3 OR false",
	"NOT 1 = 2", "1 | 2 + 3", "~1 + 2", "6 & 3 << 1",
	"true OR false AND false", "NOT NULL IS NULL", "1 = 1 IS TRUE", "2 * 3 % 4", "-2 * -3", "- 9223372036854775808",
	"CASE WHEN true THEN 1 END + 1", "case when 1 then 2 else 3 end", "RANDOM(1, 1)", "Abs(-1)", ".5 + 1.", "1e3", "1E-2",
	"0.000001234", "1e100", "123456789012345678.0", "1.0e15", "1e16", "greatest(1)", "least(2.5)", "debug(debug(1))",
	":scale+1", "5 - 3 - 1", "100 / 10 / 5", "2 << 1 << 1", "NOT NOT true", "- - 5", "~ ~ 5",
	":d_yes", ":d_t", ":d_off", ":d_no", ":d_int", ":d_neg", ":d_dbl", ":d_exp", ":d_null", ":d_int + 1", ":d_dbl * 2",
	"1 IS NOT NULL AND NULL IS NULL", "1 IS NULL IS NULL", "1 ISNULL ISNULL", "NULL NOTNULL IS FALSE", "mod(9223372036854775807, 10)", "abs(-9223372036854775808)",
}

// conformanceDefines are given to pgbench with -D and read as pgbench
// reads a variable's string.
var conformanceDefines = map[string]string{
	"d_yes": "yes", "d_t": "T", "d_off": "off", "d_no": "n", "d_int": "42", "d_neg": "-7", "d_dbl": "1.25",
	"d_exp": "2e3", "d_null": "NULL",
}

// conformanceErrors are expressions whose evaluation fails: pgbench's
// message must be ours.
var conformanceErrors = []string{
	"9223372036854775807 + 1", "-9223372036854775807 - 2", "9223372036854775807 * 2", "(-9223372036854775807 - 1) * -1",
	"4611686018427387904 * 2", "(-9223372036854775807 - 1) / -1", "1 / 0", "1 % 0", "mod(5, 0)", "int(1e19)",
	"int(-1e19)", "int(sqrt(-1))", "NOT 1", "true + 1", "true AND 1", "random(10, 1)", "random(-9223372036854775807, 9223372036854775807)", "random(-9223372036854775807, 0)",
	"random_gaussian(1, 10, 1.5)", "random_exponential(1, 10, 0)", "random_zipfian(1, 10, 1)", "random_zipfian(1, 10, 2000)",
	"permute(1, 0)", "permute(1, -5, 2)", ":nosuchvar", "least(1, true)", "1 << true", "hash(true)", "(1 = 1) = true", "1 IS NULL = false",
}

func pgbenchPath(t *testing.T) string { return pgtest.Pgbench(t) }

// runPgbench runs script once in one client with --random-seed=seed and
// returns its standard error and whether it succeeded.
func runPgbench(t *testing.T, dsn, script string, seed uint64) (string, bool) {
	t.Helper()
	f := filepath.Join(t.TempDir(), "s.sql")
	if err := os.WriteFile(f, []byte(script), 0o600); err != nil {
		t.Fatal(err)
	}
	args := []string{"-n", "-t", "1", "-c", "1", "-j", "1", fmt.Sprintf("--random-seed=%d", seed), "-f", f}
	for name, value := range conformanceDefines {
		args = append(args, "-D", name+"="+value)
	}
	cmd := exec.Command(pgbenchPath(t), append(args, dsn)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	return stderr.String(), err == nil
}

var debugLine = regexp.MustCompile(`(?m)^debug\(script=0,command=(\d+)\): (.*)$`)

func TestConformanceWithPgbench(t *testing.T) {
	pgbenchPath(t)
	dsn := pgtest.NewDatabase(t)
	const seed = 20261128
	var script strings.Builder
	for i, e := range conformanceExprs {
		fmt.Fprintf(&script, "\\set v%d debug(%s)\n", i, e)
	}
	stderr, ok := runPgbench(t, dsn, script.String(), seed)
	if !ok {
		t.Fatalf("pgbench failed:\n%s", stderr)
	}
	theirs := map[string][]string{} // command number → its debug lines
	for _, m := range debugLine.FindAllStringSubmatch(stderr, -1) {
		theirs[m[1]] = append(theirs[m[1]], m[2])
	}
	env := newTestEnv(seed)
	for i, src := range conformanceExprs {
		env.debugs = env.debugs[:0]
		e, err := Parse("debug(" + src + ")")
		if err != nil {
			t.Fatalf("%s: parse: %v", src, err)
		}
		if _, err := e.Eval(env); err != nil {
			t.Fatalf("%s: eval: %v", src, err)
		}
		var ours []string
		for _, v := range env.debugs {
			ours = append(ours, v.Debug())
		}
		if got, want := strings.Join(ours, "; "), strings.Join(theirs[fmt.Sprint(i+1)], "; "); got != want {
			t.Errorf("%s: ours %q, pgbench %q", src, got, want)
		}
	}
}

func TestConformanceErrorsWithPgbench(t *testing.T) {
	pgbenchPath(t)
	dsn := pgtest.NewDatabase(t)
	for _, src := range conformanceErrors {
		stderr, ok := runPgbench(t, dsn, fmt.Sprintf("\\set x %s\n", src), 1)
		if ok {
			t.Errorf("%s: pgbench succeeded, expected an error", src)
			continue
		}
		e, err := Parse(src)
		if err != nil {
			t.Errorf("%s: parse: %v", src, err)
			continue
		}
		_, err = e.Eval(newTestEnv(1))
		if err == nil {
			t.Errorf("%s: evaluated, pgbench: %s", src, stderr)
			continue
		}
		if !strings.Contains(stderr, err.Error()) {
			t.Errorf("%s: our error %q is not pgbench's:\n%s", src, err, stderr)
		}
	}
}

// conformanceSyntaxErrors are expressions pgbench refuses when it parses
// the script; so must Parse.
var conformanceSyntaxErrors = []string{
	"1 < 2 = true", "1 < 2 < 3", "1 = 1 <> true", "2 ^ 1", "foo(1)", "abs()", "abs(1, 2)", "pi(1)",
	"least()", "hash(1, 2, 3)", "hash()", "permute(1)", "permute(1, 2, 3, 4)", "random(1)", "CASE END", "CASE WHEN 1 END END",
	"CASE 1 WHEN 1 THEN 2 END", "(1", "1)", "1 +", "99999999999999999999", "9223372036854775808", "- (9223372036854775808)",
	"abs", ":", "1 2", "1 IS 2", "NOT", "1,2", "'a'", "1 == 1", "1 === 1", "1 && 1",
}

func TestConformanceSyntaxErrorsWithPgbench(t *testing.T) {
	pgbench := pgbenchPath(t)
	for _, src := range conformanceSyntaxErrors {
		_, ours := Parse(src)
		f := filepath.Join(t.TempDir(), "s.sql")
		if err := os.WriteFile(f, []byte("\\set x "+src+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		// pgbench parses its scripts before it connects: no server needed
		out, _ := exec.Command(pgbench, "-n", "-t", "1", "-h", "/nonexistent", "-f", f).CombinedOutput()
		theirs := strings.Contains(string(out), f+":1:")
		if ours == nil || !theirs {
			t.Errorf("%s: our error %v; pgbench:\n%s", src, ours, out)
		}
	}
}
