package main

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rightsize/rightsize/internal/browsertest"
)

func TestStudyValidate(t *testing.T) {
	ctx := context.Background()
	out, errOut, code := cli(t, ctx, "study", "validate", "../../examples/fewer-cores-faster-storage.yaml", "--max-duration", "15m")
	if code != 0 || !strings.Contains(out, "estimated duration") || !strings.Contains(out, "8m0s") ||
		!strings.Contains(out, "new-1cpu → new-4vc-ssd") || !strings.Contains(out, "USD 34,075.30") {
		t.Errorf("validate study A: exit %d\n%s%s", code, out, errOut)
	}

	dir := t.TempDir()
	if out, errOut, code := cli(t, ctx, "study", "init", dir); code != 0 {
		t.Fatalf("init: exit %d\n%s%s", code, out, errOut)
	}
	if _, _, code := cli(t, ctx, "study", "init", dir); code != 2 {
		t.Errorf("init over an existing plan: exit %d, want 2", code)
	}
	planFile := filepath.Join(dir, "study.yaml")
	if out, errOut, code := cli(t, ctx, "study", "validate", planFile); code != 0 {
		t.Fatalf("validate the init plan: exit %d\n%s%s", code, out, errOut)
	}

	// A deliberate error: its line and column.
	b, err := os.ReadFile(planFile)
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Replace(string(b), "    version: 17\n", "    version: 11\n", 1)
	lines := strings.Split(text, "\n")
	line := 0
	for i, l := range lines {
		if l == "    version: 11" {
			line = i + 1
		}
	}
	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(bad, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	_, errOut, code = cli(t, ctx, "study", "validate", bad)
	want := bad + ":" + strconv.Itoa(line) + ":14: configurations[1].version: \"11\" is not a PostgreSQL version"
	if code != 2 || !strings.Contains(errOut, want) {
		t.Errorf("exit %d, stderr %q; want 2 and %q", code, errOut, want)
	}
	// Several problems: one line each.
	text = strings.Replace(text, "  warehouses: 1\n", "  warehouses: 0\n", 1)
	if err := os.WriteFile(bad, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	_, errOut, code = cli(t, ctx, "study", "validate", bad)
	if code != 2 || !strings.Contains(errOut, "build.warehouses: must be at least 1") || !strings.Contains(errOut, "2 problems") {
		t.Errorf("two problems: exit %d, stderr %q", code, errOut)
	}

	_, errOut, code = cli(t, ctx, "study", "validate", "../../examples/fewer-cores-faster-storage.yaml", "--max-duration", "5m")
	if code != 2 || !strings.Contains(errOut, "fewer-cores-faster-storage.yaml:16:13: autopilot.duration: the plan is estimated at 8m0s, more than --max-duration 5m0s") {
		t.Errorf("--max-duration: exit %d, stderr %q", code, errOut)
	}
	// study run refuses a plan with problems before anything starts.
	_, errOut, code = cli(t, ctx, "study", "run", bad)
	if code != 2 || !strings.Contains(errOut, "build.warehouses: must be at least 1") || strings.Contains(errOut, "configuration 1 of") {
		t.Errorf("study run of a bad plan: exit %d, stderr %q; want 2 and nothing run", code, errOut)
	}
}

const tinyStudyCosts = `currency: USD
baseline: two
configs:
  - name: two
    host_cores: 2
    vm_cores: 2
    hardware: [{item: server, price: 3000}]
    licences: [{name: DB, per: vm_core, pack: 2, pack_price: 1000, minimum: 2}]
  - name: one
    host_cores: 2
    vm_cores: 1
    hardware: [{item: server, price: 2000}]
    licences: [{name: DB, per: vm_core, pack: 2, pack_price: 1000, minimum: 2}]
`

// study run of a tiny plan (two configurations on one build, one short
// step): two runs labelled PLAN/CONFIGURATION, the second restored from the
// first's build, and one report with the cost table that Chromium loads
// with no console message; a rerun measures nothing again.
func TestStudyRunTiny(t *testing.T) {
	needCgroups(t)
	ctx := context.Background()
	_, dataDir := embeddedArgs(t, "study-")
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "costs.yaml"), []byte(tinyStudyCosts), 0o644); err != nil {
		t.Fatal(err)
	}
	report := filepath.Join(dir, "tiny.html")
	planText := `name: tiny
build: {warehouses: 1, seed: 5}
autopilot: {users: "2", rampup: 1s, duration: 2s, repeats: 1}
configurations:
  - {name: big, cpus: 2, data_dir: ` + dataDir + `, cost: two}
  - {name: small, cpus: 1, data_dir: ` + dataDir + `, cost: one}
backups: {cycles: 1, every: 0s}
cost: costs.yaml
report: {output: ` + report + `, title: tiny study}
`
	planFile := filepath.Join(dir, "tiny.yaml")
	if err := os.WriteFile(planFile, []byte(planText), 0o644); err != nil {
		t.Fatal(err)
	}
	st := tempStore(t)
	out, errOut, code := cli(t, ctx, "study", "run", planFile, "--store", st)
	if code != 0 {
		t.Fatalf("study run: exit %d\n%s%s", code, out, errOut)
	}
	for _, want := range []string{"configuration 1 of 2, big", "configuration 2 of 2, small", "building 1 warehouses", "small: the built database restored", "big: 1 backup cycles", "wrote " + report} {
		if !strings.Contains(errOut, want) {
			t.Errorf("progress lacks %q:\n%s", want, errOut)
		}
	}
	// the cost configs: small is priced as "one", big as the baseline "two"
	// (single runs' intervals are widened by the drift between runs: the
	// headline may say they are not distinguishable)
	if !strings.Contains(out, "one reaches") && !strings.Contains(out, "one beats two") && !strings.Contains(out, "one against two: not distinguishable") {
		t.Errorf("no cost headline for small (cost config one) against the baseline:\n%s", out)
	}
	page, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`id="cost"`, `id="backup"`, "tiny/big", "tiny/small", "4,000.00", "3,000.00"} {
		if !strings.Contains(string(page), want) {
			t.Errorf("report lacks %q", want)
		}
	}
	if first := strings.Index(string(page), "<section id="); first < 0 || !strings.HasPrefix(string(page)[first:], `<section id="cost">`) {
		t.Error("the study's report does not open with its answer, the cost section")
	}
	bin := browsertest.Chromium(t)
	_, logs := browsertest.Run(t, bin, report, "--dump-dom")
	if msgs := browsertest.ConsoleRE.FindAll(logs, -1); len(msgs) > 0 {
		t.Errorf("console messages while loading the study report:\n%s", strings.Join(func() []string {
			var s []string
			for _, m := range msgs {
				s = append(s, string(m))
			}
			return s
		}(), "\n"))
	}
	// A rerun skips both configurations.
	out, errOut, code = cli(t, ctx, "study", "run", planFile, "--store", st)
	if code != 0 || strings.Count(errOut, "already stored") != 2 {
		t.Errorf("rerun: exit %d, want both configurations skipped:\n%s%s", code, out, errOut)
	}
}
