package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/rightsize/rightsize/interleave"
	"github.com/rightsize/rightsize/store"
)

// TestABWorkload: ab of a pgbench workload on the embedded server: every
// leg a stored run of the workload, started from the database its build
// snapshot; the verdict judges the workload's figure of merit and its
// p90, named as compare names them (no NOPM, no New-Order, no TPM beside
// "TPM of every script", the same figure), and an A/A comparison passes
// a 50 % gate. A side of its own version is refused before any load.
func TestABWorkload(t *testing.T) {
	if testing.Short() {
		t.Skip("starts its own embedded server")
	}
	ctx := context.Background()
	args := builtTPCB(t, "abwl-")
	st := tempStore(t)
	ab := append([]string{"ab", "--workload", "tpcb", "--users", "2", "--rampup", "500ms", "--duration", "2s", "--rounds", "2",
		"--label", "wl", "--store", st}, args...)
	out, errOut, code := cli(t, ctx, append(ab, "--max-regression", "50%", "--json")...)
	if code != 0 {
		t.Fatalf("ab --workload tpcb, A/A: exit %d, want 0\n%s%s", code, out, errOut)
	}
	var v interleave.Verdict
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatalf("ab --json: %v\n%s", err, out)
	}
	var names []string
	for _, f := range v.Overall.Figures {
		names = append(names, f.Figure)
	}
	if !v.Passed || v.Figure != store.FigureEveryScript || strings.Join(names, ",") != "TPM of every script,p90 ms" || len(v.Legs) != 4 {
		t.Fatalf("A/A verdict: passed %v, figure %q, figures %v, %d legs; want passed, the workload's figure and p90 over 4 legs\n%s", v.Passed, v.Figure, names, len(v.Legs), out)
	}
	if p := v.Overall.Figures[0].MaxRegressionPct; p == nil || *p != 50 {
		t.Errorf("the workload's figure is not the gated one: %+v", v.Overall.Figures[0])
	}
	for _, l := range v.Legs {
		if run, _ := storedRun(t, st, l.RunID); run.Env[store.EnvWorkload] != "tpcb" {
			t.Errorf("leg %+v: workload %q, want tpcb", l, run.Env[store.EnvWorkload])
		}
	}
	out, errOut, code = cli(t, ctx, append(ab, "--label", "wl2")...)
	if code != 0 || !strings.Contains(out, "in TPM of every script over all steps") || strings.Contains(out+errOut, "New-Order") || strings.Contains(out, "NOPM") {
		t.Errorf("ab --workload's text: exit %d, want the workload's figure named\n%s%s", code, out, errOut)
	}
	_, errOut, code = cli(t, ctx, append(ab, "--label", "wl3", "--b-pg-version", "16")...)
	if code != 2 || !strings.Contains(errOut, "--b-pg-version with --workload") {
		t.Errorf("a side of its own version: exit %d, want 2\n%s", code, errOut)
	}
}
