package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/rightsize/rightsize/scenario"
	"github.com/rightsize/rightsize/store"
)

func TestSweepBadInput(t *testing.T) {
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"unknown kind", []string{"sweep", "disk", "--values", "1"}, `unknown sweep kind "disk"`},
		{"version not downloadable", []string{"sweep", "version", "--values", "17,11"}, "--values 11: rightsize downloads PostgreSQL 13, 14, 15, 16, 17"},
		{"empty values", []string{"sweep", "cpus", "--values", ""}, "--values: give the values to sweep"},
		{"no values", []string{"sweep", "memory"}, "--values: give the values to sweep"},
		{"a flag taken as the values", []string{"sweep", "cpus", "--values", "--users", "2"}, `--values took "--users" as its list`},
		{"bad threshold", []string{"sweep", "memory", "--values", "1G", "--knee-threshold", "150%"}, "--knee-threshold"},
		{"external target", []string{"sweep", "memory", "--values", "1G", "--target", "sqlite:" + t.TempDir() + "/x.db", "--store", tempStore(t)}, "use a managed target"},
		{"more cpus than the machine", []string{"sweep", "cpus", "--values", "2,64"}, "--values --cpus 64: this machine has"},
		{"memory below the engine", []string{"sweep", "memory", "--values", "1G,16M"}, "--values 16M: --memory 16M is below"},
		{"io limit not a limit", []string{"sweep", "io", "--values", "none,fast"}, "--values --io-limit \"fast\""},
		{"io limit on no device", []string{"sweep", "io", "--values", "riops=100", "--data-dir", "/dev/shm/rightsize-sweep-x"}, "without a block device"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, errOut, code := cli(t, context.Background(), c.args...)
			if code != 2 || !strings.Contains(errOut, c.want) {
				t.Fatalf("exit %d, want 2 and %q in:\n%s", code, c.want, errOut)
			}
		})
	}
}

// A memory sweep of two values over one embedded build: two labelled runs
// with their shared_buffers, one sweep, a knee line; Ctrl-C in a second
// sweep leaves it partial and --resume finishes it.
func TestSweepMemoryEmbedded(t *testing.T) {
	if testing.Short() {
		t.Skip("starts its own embedded server")
	}
	args, dataDir := builtEmbedded(t, "sweep-")
	noServer := func(when string) {
		t.Helper()
		if _, err := os.Stat(filepath.Join(dataDir, "postmaster.pid")); !os.IsNotExist(err) {
			t.Errorf("%s: the server still runs (postmaster.pid: %v)", when, err)
		}
		if left := ownGroups(t); len(left) > 0 {
			t.Errorf("%s: cgroups left: %v", when, left)
		}
	}
	st := tempStore(t)
	run := append([]string{"sweep", "memory", "--values", "128M,256M", "--users", "2", "--rampup", "300ms", "--duration", "1500ms",
		"--store", st, "--label", "mem"}, args...)
	out, errOut, code := cli(t, context.Background(), append(run, "--json")...)
	if code != 0 {
		t.Fatalf("sweep: %d\n%s%s", code, out, errOut)
	}
	var res scenario.SweepResult
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("sweep --json: %v\n%s", err, out)
	}
	if res.Status != store.StatusComplete || len(res.Points) != 2 || res.Points[0].Value != "256M" || res.DBBytes <= 0 {
		t.Fatalf("sweep result %+v", res)
	}
	s, err := store.Open(context.Background(), st)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for i, p := range res.Points {
		if !p.Measured() || p.Status != store.StatusComplete {
			t.Fatalf("point %d: %+v", i, p)
		}
		r, _, err := s.LoadRun(context.Background(), p.RunID)
		if err != nil {
			t.Fatal(err)
		}
		if want := "mem memory=" + p.Value; r.Label != want || r.Flags["sweep.value"] != p.Value {
			t.Errorf("run %s labelled %q (flags %v), want %q", r.ID, r.Label, r.Flags["sweep.value"], want)
		}
		if want := map[string]string{"128M": "64MB", "256M": "128MB"}[p.Value]; r.Env["setting.shared_buffers"] != want {
			t.Errorf("run for %s ran with shared_buffers %q, want %s", p.Value, r.Env["setting.shared_buffers"], want)
		}
	}
	// 1 warehouse (about 100 MiB) is larger than PostgreSQL's 64 MiB cache
	// at 128M: its reads leave shared buffers, so the sweep can show a knee
	if strings.Contains(errOut, "fits in the engine's cache") {
		t.Errorf("warned that the 1-warehouse database fits in 128M's 64 MiB cache:\n%s", errOut)
	}
	page := filepath.Join(t.TempDir(), "sweep.html")
	if out, errOut, code := cli(t, context.Background(), "report", "--sweep", "mem", "--store", st, "-o", page); code != 0 {
		t.Fatalf("report --sweep: %d\n%s%s", code, out, errOut)
	}
	b, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`id="sweep"`, "Throughput by memory", "Reads by memory", "Knee rule", res.Points[0].RunID} {
		if !strings.Contains(string(b), want) {
			t.Errorf("sweep report lacks %q", want)
		}
	}
	if !regexp.MustCompile(`Knee: memory = \d+M|No knee within the values tried|Knee above the values tried|Knee: no knee called`).Match(b) {
		t.Errorf("sweep report states no knee")
	}

	// Ctrl-C during the second value, then --resume.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	values := 0
	_, errOut, code = cliWatch(t, ctx, func(s string) {
		if strings.Contains(s, "memory = ") {
			values++
		}
		if values == 2 && strings.Contains(s, "step 1/1") {
			time.AfterFunc(500*time.Millisecond, cancel)
		}
	}, append(append([]string{}, run...), "--label", "mem2")...)
	if code == 0 || !strings.Contains(errOut, "--resume") {
		t.Fatalf("interrupted sweep: exit %d\n%s", code, errOut)
	}
	noServer("after Ctrl-C in a sweep")
	sw, err := s.LoadSweep(context.Background(), "mem2")
	if err != nil || sw.Status != store.StatusPartial {
		t.Fatalf("interrupted sweep stored as %+v, %v", sw, err)
	}
	out, errOut, code = cli(t, context.Background(), append([]string{"sweep", "memory", "--resume", "mem2", "--users", "2", "--rampup", "300ms",
		"--duration", "1500ms", "--store", st}, args...)...)
	if code != 0 || !strings.Contains(out, "(complete)") || !strings.Contains(out, "knee:") {
		t.Fatalf("resumed sweep: %d\n%s%s", code, out, errOut)
	}
	noServer("after the resumed sweep")
	sw, _ = s.LoadSweep(context.Background(), "mem2")
	if sw.Status != store.StatusComplete || len(sw.Points) != 2 || sw.Points[0].Status != store.StatusComplete || sw.Points[1].Status != store.StatusComplete {
		t.Fatalf("resumed sweep stored as %+v", sw)
	}

	// The server killed (kill -9 of the postmaster) during the first value:
	// that point decides nothing, the sweep ends partial naming it, exit 1,
	// and --resume measures it again.
	killed := false
	out, errOut, code = cliWatch(t, context.Background(), func(s string) {
		if !killed && strings.Contains(s, "step 1/1") {
			killed = true
			time.AfterFunc(700*time.Millisecond, func() { killPostmaster(t, dataDir) })
		}
	}, append(append([]string{}, run...), "--label", "mem3")...)
	if code != 1 || !strings.Contains(errOut, "memory=256M did not measure its whole interval and decides nothing") || !strings.Contains(errOut, "--resume") {
		t.Fatalf("sweep with its server killed: exit %d, want 1 naming memory=256M\n%s%s", code, out, errOut)
	}
	sw, err = s.LoadSweep(context.Background(), "mem3")
	if err != nil || sw.Status != store.StatusPartial || len(sw.Points) != 2 || sw.Points[0].Status != store.StatusPartial {
		t.Fatalf("sweep with its server killed stored as %+v, %v", sw, err)
	}
	res3, err := scenario.LoadSweepResult(context.Background(), s, "mem3", 0.10)
	if err != nil || res3.Knee == 0 {
		t.Fatalf("the partial point decided the knee: %+v, %v", res3, err)
	}
	out, errOut, code = cli(t, context.Background(), append([]string{"sweep", "memory", "--resume", "mem3", "--users", "2", "--rampup", "300ms",
		"--duration", "1500ms", "--store", st}, args...)...)
	if code != 0 || !strings.Contains(out, "(complete)") {
		t.Fatalf("resumed sweep after the kill: %d\n%s%s", code, out, errOut)
	}
	noServer("after the sweep whose server was killed")
}

// killPostmaster kills the server of dataDir as kill -9 would.
func killPostmaster(t *testing.T, dataDir string) {
	b, err := os.ReadFile(filepath.Join(dataDir, "postmaster.pid"))
	if err != nil {
		t.Errorf("kill the postmaster: %v", err)
		return
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(strings.SplitN(string(b), "\n", 2)[0]))
	if pid <= 0 || syscall.Kill(pid, syscall.SIGKILL) != nil {
		t.Errorf("kill the postmaster %q", b)
	}
}

// sweep version: each PostgreSQL version gets its own data directory, the
// same database is built there, and each value's run says which server
// version it measured.
func TestSweepVersion(t *testing.T) {
	if testing.Short() || os.Getenv("RIGHTSIZE_PG_BIN") != "" {
		t.Skip("downloads PostgreSQL 13 and 17")
	}
	args, dataDir := embeddedArgs(t, "sweepver-")
	if out, errOut, code := cli(t, context.Background(), append([]string{"build", "--warehouses", "1", "--seed", "3"}, args...)...); code != 0 {
		t.Fatalf("build: %d\n%s%s", code, out, errOut)
	}
	st := tempStore(t)
	out, errOut, code := cli(t, context.Background(), append([]string{"sweep", "version", "--values", "17,13", "--users", "2", "--rampup", "300ms",
		"--duration", "1500ms", "--store", st, "--label", "ver", "--json"}, args...)...)
	if code != 0 {
		t.Fatalf("sweep version: %d\n%s%s", code, out, errOut)
	}
	var res scenario.SweepResult
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("sweep --json: %v\n%s", err, out)
	}
	s, err := store.Open(context.Background(), st)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for i, want := range []string{"17", "13"} {
		p := res.Points[i]
		if p.Value != want || !p.Measured() {
			t.Fatalf("point %d: %+v, want version %s measured", i, p, want)
		}
		r, _, err := s.LoadRun(context.Background(), p.RunID)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(r.EngineVersion, " "+want+".") || r.Warehouses != 1 {
			t.Errorf("version %s: run measured server %q on %d warehouses", want, r.EngineVersion, r.Warehouses)
		}
		if _, err := os.Stat(filepath.Join(dataDir+"-pg"+want, "PG_VERSION")); err != nil {
			t.Errorf("version %s: no data directory of its own: %v", want, err)
		}
	}
}

// The sweep table's VALUE column is as wide as the longest value (an io
// limit), so STATUS starts at one column on every line.
func TestWriteSweepAlignsLongValues(t *testing.T) {
	var b strings.Builder
	writeSweep(&b, &scenario.SweepResult{ID: "x", Kind: "io", Status: "complete", Knee: 0, Points: []scenario.SweepPoint{
		{Value: "none", RunID: "r1", Status: "complete", NOPM: 100, TPM: 200},
		{Value: "riops=2000:wiops=500", RunID: "r2", Status: "complete", NOPM: 50, TPM: 100},
		{Value: "riops=200:wiops=100", Status: "failed", Reason: "server did not start"},
	}})
	lines := strings.Split(b.String(), "\n")
	col := -1
	for _, l := range lines {
		i := strings.Index(l, "complete")
		if strings.Contains(l, "STATUS") {
			i = strings.Index(l, "STATUS")
		} else if j := strings.Index(l, "failed"); j >= 0 {
			i = j
		}
		if i < 0 || strings.HasPrefix(l, "sweep") || strings.Contains(l, "(complete)") {
			continue
		}
		i = utf8.RuneCountInString(l[:i]) // the knee mark is one rune of three bytes
		if col >= 0 && i != col {
			t.Errorf("STATUS at column %d, not %d:\n%s", i, col, b.String())
		}
		col = i
	}
	if col < 0 {
		t.Fatalf("no table:\n%s", b.String())
	}
}
