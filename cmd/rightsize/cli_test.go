package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/rightsize/rightsize/instance"
	"github.com/rightsize/rightsize/internal/pgtest"
	"github.com/rightsize/rightsize/store"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// cli runs rightsize with args and returns stdout, stderr and the exit code.
func cli(t *testing.T, ctx context.Context, args ...string) (string, string, int) {
	t.Helper()
	return cliWatch(t, ctx, nil, args...)
}

// watchWriter calls on with every write (stderr progress lines).
type watchWriter struct {
	bytes.Buffer
	on func(string)
}

func (w *watchWriter) Write(p []byte) (int, error) {
	if w.on != nil {
		w.on(string(p))
	}
	return w.Buffer.Write(p)
}

// cliWatch is cli with a callback on everything written to stderr.
func cliWatch(t *testing.T, ctx context.Context, onErr func(string), args ...string) (string, string, int) {
	t.Helper()
	root := newRootCmd()
	var out bytes.Buffer
	errOut := &watchWriter{on: onErr}
	root.SetOut(&out)
	root.SetErr(errOut)
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	code := 0
	if err != nil {
		code = exitCode(err)
		errOut.WriteString("rightsize: " + err.Error() + "\n")
	}
	return out.String(), errOut.String(), code
}

func tempStore(t *testing.T) string { return filepath.Join(t.TempDir(), "results.db") }

// built returns the DSN of a fresh database with 1 warehouse: a copy of
// one built through the CLI once per test binary (the build itself is
// TestBuildInterrupted's, TestEmbeddedBuildRunCheck's and others').
func built(t *testing.T) string {
	return pgtest.NewDatabaseFrom(t, "tpcc1", func(dsn string) error {
		if out, errOut, code := cli(t, context.Background(), "build", "--target", dsn, "--warehouses", "1", "--loaders", "2"); code != 0 {
			return fmt.Errorf("build: %d\n%s%s", code, out, errOut)
		}
		return nil
	})
}

func TestBadInput(t *testing.T) {
	dsn := built(t)
	empty := pgtest.NewDatabase(t)
	st := tempStore(t)
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"zero warehouses", []string{"build", "--target", empty, "--warehouses", "0"}, "warehouses must be at least 1"},
		{"too many warehouses", []string{"build", "--target", empty, "--warehouses", "1000000"}, "at most"},
		{"zero users", []string{"run", "--target", dsn, "--users", "0"}, "1..100000 users"},
		{"bad users", []string{"run", "--target", dsn, "--users", "fib:x"}, "fib:N"},
		{"wrong DSN", []string{"run", "--target", "postgres://nobody:wrong@127.0.0.1:1/tpcc?connect_timeout=3", "--users", "1"}, "fix: check --target"},
		{"unknown target", []string{"check", "--target", "oracle://x"}, "bad target"},
		{"SQLite file in a missing directory", []string{"run", "--target", "sqlite:" + filepath.Join(t.TempDir(), "no", "tpcc.db")}, "create it, or name a file in a directory that exists"}, // and no server to check
		{"more users than connection slots", []string{"run", "--target", dsn, "--users", "1,1000", "--store", st}, "raise max_connections on the server to at least"},
		{"missing schema run", []string{"run", "--target", empty, "--users", "1", "--store", st}, "no rightsize TPC-C schema"},
		{"missing schema check", []string{"check", "--target", empty}, "build one first"},
		{"other warehouse count", []string{"run", "--target", dsn, "--warehouses", "3", "--store", st}, "built with 1 warehouses, not 3"},
		{"bad mode", []string{"run", "--target", dsn, "--mode", "magic", "--store", st}, "unknown mode"},
		{"unknown flag", []string{"run", "--bogus"}, "unknown flag"},
		{"bad repeat", []string{"run", "--target", dsn, "--repeat", "0"}, "--repeat"},
		{"negative driver procs", []string{"run", "--target", dsn, "--driver-procs", "-1"}, "--driver-procs must be 0"},
		{"driver loops below -1", []string{"run", "--target", dsn, "--driver-loops", "-2"}, "--driver-loops must be 0"},
		{"negative progress interval", []string{"run", "--target", dsn, "--progress-interval", "-1s"}, "--progress-interval must not be negative"},
		{"bad wait interval", []string{"run", "--target", dsn, "--wait-interval", "10us", "--store", st}, "--wait-interval must be at least 1ms"},
		{"negative ramp-up cap", []string{"run", "--target", dsn, "--rampup", "auto", "--rampup-max", "-1s", "--store", st}, "--rampup-max must not be negative (got -1s)"},
		{"zero duration", []string{"run", "--target", dsn, "--duration", "0s", "--store", st}, "--duration must be positive (got 0s)"},
		{"sweep values as separate arguments", []string{"sweep", "cpus", "--values", "2", "1", "--store", st}, "one comma-separated list (--values 2,1), not the extra arguments 1"},
		{"sweep without a kind", []string{"sweep", "--values", "2,1", "--store", st}, "name what to sweep (memory, cpus, io, version)"},
		{"bad caps mode", []string{"run", "--target", dsn, "--caps", "maybe", "--store", st}, "--caps \"maybe\": use strict"},
		{"prewarm without the extension or the privilege", []string{"run", "--target", dsn, "--prewarm", "--store", st}, "--prewarm: cannot load the cache ahead of the run: it needs the pg_prewarm extension in database"},
		{"cgroup parent that is no group", []string{"run", "--memory", "256M", "--cgroup-parent", "/no-such-rightsize-group", "--store", st}, "--cgroup-parent /no-such-rightsize-group"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, errOut, code := cli(t, context.Background(), c.args...)
			if code != 2 {
				t.Fatalf("exit code %d, want 2; stderr:\n%s", code, errOut)
			}
			if !strings.Contains(errOut, c.want) {
				t.Fatalf("stderr does not say %q:\n%s", c.want, errOut)
			}
			if strings.HasPrefix(c.name, "SQLite") && strings.Contains(errOut, "server running") {
				t.Errorf("a SQLite file gets the network engines' fix:\n%s", errOut)
			}
			if lines := strings.Count(strings.TrimSpace(errOut), "\n"); lines > 1 {
				t.Errorf("want one clear line (two with the fix), got:\n%s", errOut)
			}
		})
	}
	// nothing was written for the runs that were refused
	if s, err := store.Open(context.Background(), st); err == nil {
		runs, _ := s.ListRuns(context.Background())
		s.Close()
		if len(runs) != 0 {
			t.Errorf("refused runs left %d runs in the store", len(runs))
		}
	}
}

func TestRunJSONAndCheck(t *testing.T) {
	dsn := built(t)
	st := tempStore(t)
	out, errOut, code := cli(t, context.Background(), "run", "--target", dsn, "--users", "1,2", "--rampup", "500ms", "--duration", "2s",
		"--json", "--store", st, "--label", "json-test", "--seed", "5")
	if code != 0 {
		t.Fatalf("run: %d\n%s", code, errOut)
	}
	var rep struct {
		RunID      string `json:"run_id"`
		Mode       string `json:"mode"`
		Warehouses int    `json:"warehouses"`
		Isolation  string `json:"isolation"`
		Steps      []struct {
			Validity *struct {
				Valid      bool     `json:"valid"`
				Violations []string `json:"violations"`
			} `json:"validity"`
			Users             int     `json:"users"`
			TPM               float64 `json:"tpm"`
			NOPM              float64 `json:"nopm"`
			TPMPerUser        float64 `json:"tpm_per_user"`
			DriverCPUUsPerTxn float64 `json:"driver_cpu_us_per_txn"`
			Repeats           int     `json:"repeats"`
			Host              struct {
				CPUBusy float64 `json:"cpu_busy_pct"`
			} `json:"host"`
			Txn map[string]struct {
				Count int64   `json:"count"`
				P50   float64 `json:"p50_ms"`
				P99   float64 `json:"p99_ms"`
				Max   float64 `json:"max_ms"`
			} `json:"txn"`
		} `json:"steps"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("run --json printed no JSON object: %v\n%s", err, out)
	}
	if rep.RunID == "" || rep.Mode != "procedures" || rep.Warehouses != 1 || len(rep.Steps) != 2 {
		t.Fatalf("report header: %+v", rep)
	}
	if rep.Isolation != "spec" {
		t.Errorf("isolation %q, want spec (the default)", rep.Isolation)
	}
	for _, s := range rep.Steps {
		// a 2 s step without think times is measured, and marked not valid
		if v := s.Validity; v == nil || v.Valid || !strings.Contains(strings.Join(v.Violations, "|"), "no keying or think time") {
			t.Errorf("step %d validity %+v", s.Users, v)
		}
		if s.TPM <= 0 || s.NOPM <= 0 || s.NOPM >= s.TPM || s.DriverCPUUsPerTxn <= 0 || s.Repeats != 1 {
			t.Errorf("step %d: %+v", s.Users, s)
		}
		if d := s.TPMPerUser*float64(s.Users) - s.TPM; d > 1 || d < -1 {
			t.Errorf("tpm_per_user %v x %d != tpm %v", s.TPMPerUser, s.Users, s.TPM)
		}
		for _, name := range []string{"new_order", "payment", "order_status", "delivery", "stock_level"} {
			x, ok := s.Txn[name]
			if !ok {
				t.Fatalf("no %s in txn", name)
			}
			if name == "new_order" && (x.Count == 0 || x.P50 <= 0 || x.P99 < x.P50 || x.Max < x.P99) {
				t.Errorf("%s: %+v", name, x)
			}
		}
	}
	// the run is in the store, with its steps, under its label
	s, err := store.Open(context.Background(), st)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	id, err := s.Resolve(context.Background(), "json-test")
	if err != nil || id != rep.RunID {
		t.Fatalf("resolve label: %q %v, want %s", id, err, rep.RunID)
	}
	run, steps, err := s.LoadRun(context.Background(), id)
	if err != nil || run.Status != store.StatusComplete || len(steps) != 2 || len(steps[0].Seconds) == 0 || len(steps[0].Samples) == 0 {
		t.Fatalf("stored run %+v, %d steps, err %v", run, len(steps), err)
	}
	if run.Env["engine.version"] == "" || run.Env["setting.shared_buffers"] == "" || run.Flags["users"] != "1,2" {
		t.Errorf("environment or flags not captured: %v %v", run.Env, run.Flags)
	}

	out, errOut, code = cli(t, context.Background(), "check", "--target", dsn)
	if code != 0 || !strings.Contains(out, "3.3.2.4") || strings.Contains(out, "FAILED") {
		t.Fatalf("check after run: %d\n%s%s", code, out, errOut)
	}
}

func TestCheckFailsNamingCondition(t *testing.T) {
	dsn := built(t)
	db := pgtest.Server(t)
	_ = db
	conn := mustExec(t, dsn, "UPDATE warehouse SET w_ytd = w_ytd + 1 WHERE w_id = 1")
	_ = conn
	out, errOut, code := cli(t, context.Background(), "check", "--target", dsn)
	if code != 1 || !strings.Contains(errOut, "3.3.2.1") {
		t.Fatalf("check on a corrupted database: exit %d\n%s%s", code, out, errOut)
	}
}

func TestRunInterrupted(t *testing.T) {
	dsn := built(t)
	st := tempStore(t)
	ctx, cancel := context.WithCancel(context.Background())
	var cancelled time.Time
	var once sync.Once
	onErr := func(s string) {
		if strings.Contains(s, "step 1/1") { // the step started: Ctrl-C 2.5 s later, after the 1 s ramp-up
			once.Do(func() { time.AfterFunc(2500*time.Millisecond, func() { cancelled = time.Now(); cancel() }) })
		}
	}
	out, errOut, code := cliWatch(t, ctx, onErr, "run", "--target", dsn, "--users", "2", "--rampup", "1s", "--duration", "1m", "--store", st)
	if took := time.Since(cancelled); took > 5*time.Second {
		t.Errorf("Ctrl-C took %v to end the run (want within 5 s)", took)
	}
	if code == 0 || !strings.Contains(out, "PARTIAL") || !strings.Contains(errOut, "partial") {
		t.Fatalf("interrupted run: exit %d\n%s%s", code, out, errOut)
	}
	if steps := onePartialRun(t, st); len(steps) != 1 || !steps[0].Partial || steps[0].TPM <= 0 {
		t.Fatalf("partial step not kept: %+v", steps)
	}
}

func TestBuildInterrupted(t *testing.T) {
	dsn := pgtest.NewDatabase(t)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(1500*time.Millisecond, cancel)
	_, errOut, code := cli(t, ctx, "build", "--target", dsn, "--warehouses", "2")
	if code == 0 || !strings.Contains(errOut, "safe to drop") {
		t.Fatalf("interrupted build: exit %d\n%s", code, errOut)
	}
	_, errOut, code = cli(t, context.Background(), "run", "--target", dsn, "--users", "1", "--store", tempStore(t))
	if code != 2 || !strings.Contains(errOut, "incomplete") {
		t.Fatalf("run on an interrupted build: exit %d\n%s", code, errOut)
	}
}

// ownServer starts a private PostgreSQL the test can kill and restart,
// its database tpcc built with 1 warehouse (builtEmbedded's clone).
func ownServer(t *testing.T) *instance.Postgres {
	_, dataDir := builtEmbedded(t, "cli-test-")
	pg, err := instance.StartPostgres(context.Background(), instance.PostgresConfig{BinDir: os.Getenv("RIGHTSIZE_PG_BIN"),
		DataDir: dataDir, Settings: map[string]string{"fsync": "off"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pg.Stop() })
	return pg
}

func TestServerRestartMidStep(t *testing.T) {
	pg := ownServer(t)
	dsn := pg.DSN("tpcc")
	st := tempStore(t)
	go func() {
		time.Sleep(3 * time.Second)
		if err := pg.Kill(); err != nil {
			t.Error(err)
			return
		}
		time.Sleep(time.Second)
		if err := pg.Restart(context.Background()); err != nil {
			t.Error(err)
		}
	}()
	out, errOut, code := cli(t, context.Background(), "run", "--target", dsn, "--users", "2", "--rampup", "1s", "--duration", "8s", "--store", st, "--json")
	if code != 0 {
		t.Fatalf("run across a server restart: exit %d\n%s%s", code, out, errOut)
	}
	var rep struct {
		Steps []struct {
			TPM        float64 `json:"tpm"`
			Reconnects int64   `json:"reconnects"`
			Txn        map[string]struct {
				Errors int64 `json:"errors"`
			} `json:"txn"`
		} `json:"steps"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	s := rep.Steps[0]
	var errs int64
	for _, x := range s.Txn {
		errs += x.Errors
	}
	if s.Reconnects == 0 || errs == 0 || s.TPM <= 0 {
		t.Fatalf("want reconnects and counted errors and progress, got %+v", s)
	}
	if _, errOut, code := cli(t, context.Background(), "check", "--target", dsn); code != 0 {
		t.Fatalf("check after restart: %s", errOut)
	}
}

func TestServerKilledMidStep(t *testing.T) {
	pg := ownServer(t)
	dsn := pg.DSN("tpcc")
	st := tempStore(t)
	time.AfterFunc(3*time.Second, func() { pg.Kill() })
	start := time.Now()
	out, errOut, code := cli(t, context.Background(), "run", "--target", dsn, "--users", "2", "--rampup", "1s", "--duration", "1m",
		"--reconnect-timeout", "2s", "--store", st)
	if took := time.Since(start); took > 12*time.Second {
		t.Errorf("run took %v after the server died", took)
	}
	if code == 0 || !strings.Contains(errOut, "lost the database server") || !strings.Contains(out, "PARTIAL") {
		t.Fatalf("run with a dead server: exit %d\n%s%s", code, out, errOut)
	}
	onePartialRun(t, st)
}

func TestEmbeddedBuildRunCheck(t *testing.T) {
	if testing.Short() {
		t.Skip("starts its own embedded server")
	}
	args, _ := embeddedArgs(t, "embedded-")
	out, errOut, code := cli(t, context.Background(), append([]string{"build", "--warehouses", "1"}, args...)...)
	if code != 0 || !strings.Contains(out, "built 1 warehouses") {
		t.Fatalf("embedded build: %d\n%s%s", code, out, errOut)
	}
	out, errOut, code = cli(t, context.Background(), append([]string{"run", "--users", "2", "--rampup", "500ms", "--duration", "2s",
		"--store", tempStore(t)}, args...)...)
	if code != 0 || !strings.Contains(out, "server CPU") {
		t.Fatalf("embedded run: %d\n%s%s", code, out, errOut)
	}
	if out, errOut, code = cli(t, context.Background(), append([]string{"check"}, args...)...); code != 0 {
		t.Fatalf("embedded check: %d\n%s%s", code, out, errOut)
	}
}

func mustExec(t *testing.T, dsn, sql string) error {
	t.Helper()
	conn, err := pgxConnect(dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(context.Background(), sql); err != nil {
		t.Fatal(err)
	}
	return nil
}

func TestAutopilotRepeatsRebuild(t *testing.T) {
	dsn := built(t)
	st := tempStore(t)
	out, errOut, code := cli(t, context.Background(), "run", "--target", dsn, "--users", "1..2x2", "--rampup", "200ms", "--duration", "1500ms",
		"--repeat", "2", "--rebuild-between-repeats", "--json", "--store", st)
	if code != 0 {
		t.Fatalf("autopilot: %d\n%s", code, errOut)
	}
	var rep struct {
		Steps []struct {
			Users   int     `json:"users"`
			Repeats int     `json:"repeats"`
			TPM     float64 `json:"tpm"`
			TPMCV   float64 `json:"tpm_cv"`
			TPMMin  float64 `json:"tpm_min"`
			TPMMax  float64 `json:"tpm_max"`
		} `json:"steps"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Steps) != 2 || rep.Steps[0].Users != 1 || rep.Steps[1].Users != 2 {
		t.Fatalf("steps: %+v", rep.Steps)
	}
	for _, s := range rep.Steps {
		if s.Repeats != 2 || s.TPMMin > s.TPM || s.TPM > s.TPMMax || s.TPMCV < 0 {
			t.Errorf("aggregate across repeats: %+v", s)
		}
	}
	s, err := store.Open(context.Background(), st)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	runs, _ := s.ListRuns(context.Background())
	_, steps, err := s.LoadRun(context.Background(), runs[0].ID)
	if err != nil || len(steps) != 4 {
		t.Fatalf("stored steps: %d, %v", len(steps), err)
	}
}

// TestEmbeddedServerKilledMidStep kills the managed server rightsize
// started: nobody will restart it, so the step must end at once.
func TestEmbeddedServerKilledMidStep(t *testing.T) {
	if testing.Short() {
		t.Skip("starts its own embedded server")
	}
	args, data := builtEmbedded(t, "killed-")
	st := tempStore(t)
	var killed time.Time
	var once sync.Once
	onErr := func(s string) {
		if strings.Contains(s, "step 1/1") {
			once.Do(func() {
				time.AfterFunc(2500*time.Millisecond, func() {
					b, err := os.ReadFile(filepath.Join(data, "postmaster.pid"))
					if err != nil {
						t.Error(err)
						return
					}
					pid, _ := strconv.Atoi(strings.TrimSpace(strings.SplitN(string(b), "\n", 2)[0]))
					killed = time.Now()
					syscall.Kill(pid, syscall.SIGKILL)
				})
			})
		}
	}
	out, errOut, code := cliWatch(t, context.Background(), onErr, append([]string{"run", "--users", "2", "--rampup", "1s", "--duration", "1m",
		"--store", st}, args...)...)
	if killed.IsZero() {
		t.Fatalf("server not killed: %d\n%s%s", code, out, errOut)
	}
	if took := time.Since(killed); took > 5*time.Second {
		t.Errorf("the run ended %v after the server died (want within 5 s)", took)
	}
	if code == 0 || !strings.Contains(errOut, "lost the database server") || !strings.Contains(out, "PARTIAL") {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	onePartialRun(t, st)
}

// embeddedArgs are the flags of an embedded target in its own data directory.
func embeddedArgs(t *testing.T, prefix string) (args []string, dataDir string) {
	dataDir = filepath.Join(pgtest.ServerDir(t, prefix), "pg")
	args = []string{"--data-dir", dataDir}
	if b := os.Getenv("RIGHTSIZE_PG_BIN"); b != "" {
		args = append(args, "--pg-bin", b)
	}
	return args, dataDir
}

// builtEmbedded is embeddedArgs for a data directory holding 1 warehouse:
// a clone (instance.CloneDataDir, passwords included) of one built through
// the CLI once per test binary (the build itself is
// TestEmbeddedBuildRunCheck's and others').
func builtEmbedded(t *testing.T, prefix string) (args []string, dataDir string) {
	t.Helper()
	seed := pgtest.SharedDir(t, "embedded-1", func(dir string) error {
		args := []string{"build", "--warehouses", "1", "--data-dir", filepath.Join(dir, "pg")}
		if b := os.Getenv("RIGHTSIZE_PG_BIN"); b != "" {
			args = append(args, "--pg-bin", b)
		}
		if out, errOut, code := cli(t, context.Background(), args...); code != 0 {
			return fmt.Errorf("build: %d\n%s%s", code, out, errOut)
		}
		return nil
	})
	args, dataDir = embeddedArgs(t, prefix)
	if err := instance.CloneDataDir(filepath.Join(seed, "pg"), dataDir); err != nil {
		t.Fatal(err)
	}
	return args, dataDir
}

// onePartialRun checks that the store at path holds exactly one run, marked
// partial, and returns its steps.
func onePartialRun(t *testing.T, path string) []store.Step {
	t.Helper()
	run, steps := onlyRun(t, path)
	if run.Status != store.StatusPartial {
		t.Fatalf("store: want one partial run, got %+v", run)
	}
	return steps
}

// A managed server's error carries its own fix, never the generic one
// about --target (issue 10, point 10).
func TestManagedErrorOwnFix(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root: only then does an unprivileged user run the server")
	}
	closed := t.TempDir() // mode 0700, as mktemp -d makes
	_, errOut, code := cli(t, context.Background(), "build", "--target", "embedded", "--warehouses", "1",
		"--data-dir", filepath.Join(closed, "data"), "--store", tempStore(t))
	if code != 2 {
		t.Fatalf("exit code %d, want 2:\n%s", code, errOut)
	}
	if !strings.Contains(errOut, "cannot reach data directory") || !strings.Contains(errOut, "chmod o+x") {
		t.Errorf("stderr does not say the server user cannot reach the directory and how to fix it:\n%s", errOut)
	}
	if strings.Contains(errOut, "fix: check --target") {
		t.Errorf("the generic --target fix follows an error it does not fit:\n%s", errOut)
	}
	if n := strings.Count(strings.TrimSpace(errOut), "\n"); n > 1 {
		t.Errorf("want the problem and its fix on two lines, got:\n%s", errOut)
	}
}
