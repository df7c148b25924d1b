package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// TestEmbeddedTPCBGate: compare and run --baseline gate two runs of a
// pgbench workload on its figure of merit (every script's transactions
// per minute) and its latency (p99 here: a 3 s run has no 10 s window for
// the p90 interval): two tpcb runs pass a loose gate, a run whose
// script sleeps 50 ms per transaction fails it (exit 1) on that figure.
func TestEmbeddedTPCBGate(t *testing.T) {
	if testing.Short() {
		t.Skip("starts its own embedded server")
	}
	ctx := context.Background()
	args := builtTPCB(t, "tpcbgate-")
	with := func(a ...string) []string { return append(a, args...) }
	st := tempStore(t)
	run := func(label string, workload ...string) {
		a := append([]string{"run", "--label", label, "--users", "2", "--rampup", "500ms", "--duration", "3s", "--store", st}, workload...)
		if out, errOut, code := cli(t, ctx, with(a...)...); code != 0 {
			t.Fatalf("run %s: %d\n%s%s", label, code, out, errOut)
		}
	}
	run("a", "--workload", "tpcb")
	run("b", "--workload", "tpcb")
	out, errOut, code := cli(t, ctx, "compare", "a", "b", "--json", "--max-regression", "90%", "--max-latency-regression", "100%", "--store", st)
	if code != 0 || !strings.Contains(out, `"TPM of every script"`) || !strings.Contains(out, `"p99 ms"`) || strings.Contains(out, `"New-Order p9`) {
		t.Errorf("compare two tpcb runs, gate 90 %%: exit %d, want 0 and the workload's figure and p99\n%s%s", code, out, errOut)
	}
	slow := filepath.Join(t.TempDir(), "slow.sql")
	write(t, slow, "\\set aid random(1, 100000 * :scale)\nSELECT abalance FROM pgbench_accounts WHERE aid = :aid;\n\\sleep 50 ms\n")
	a := []string{"run", "--label", "slow", "--users", "2", "--rampup", "500ms", "--duration", "3s", "--store", st,
		"--workload", slow, "--baseline", "a", "--max-regression", "50%"}
	out, errOut, code = cli(t, ctx, with(a...)...)
	if code != 1 || !strings.Contains(out+errOut, "TPM of every script") {
		t.Errorf("run --baseline a of a script 50 ms asleep per transaction, gate 50 %%: exit %d, want 1 on the workload's figure\n%s%s", code, out, errOut)
	}
	for _, l := range strings.Split(out+errOut, "\n") {
		gate := strings.Contains(l, "gate FAILED") || strings.HasPrefix(strings.TrimSpace(l), "FAIL ")
		if gate && (strings.Contains(l, "NOPM") || strings.Contains(l, "New-Order") || strings.Contains(l, " TPM:")) {
			t.Errorf("a gate line of a workload names TPC-C's figures or the TPM beside the same figure of merit: %s", l)
		}
	}
	t.Log(out, errOut)
}
