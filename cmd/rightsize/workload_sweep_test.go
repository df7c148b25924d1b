package main

import (
	"context"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/rightsize/rightsize/scenario"
)

// TestEmbeddedTPCBSweep: a cpus sweep of the tpcb workload on the
// embedded server measures each value as a tpcb run whose figure of merit
// (every script's transactions per minute) is the point's figure, stored
// and judged by the knee.
func TestEmbeddedTPCBSweep(t *testing.T) {
	needCgroups(t)
	ctx := context.Background()
	args := builtTPCB(t, "tpcbsweep-")
	with := func(a ...string) []string { return append(a, args...) }
	st := tempStore(t)
	out, errOut, code := cli(t, ctx, with("sweep", "cpus", "--values", "1,0.5", "--workload", "tpcb", "--users", "2", "--rampup", "500ms",
		"--duration", "3s", "--repeat", "1", "--json", "--store", st)...)
	if code != 0 {
		t.Fatalf("sweep --workload tpcb: %d\n%s%s", code, out, errOut)
	}
	var res scenario.SweepResult
	if err := json.Unmarshal([]byte(out), &res); err != nil || len(res.Points) != 2 {
		t.Fatalf("sweep --json: %v\n%s", err, out)
	}
	// where the knee falls depends on the machine (shared, loaded): only
	// that the points it judges carry the workload's figure is checked
	if res.Figure != "every script" {
		t.Errorf("figure %q, want every script's", res.Figure)
	}
	if !strings.Contains(res.KneeRule, "the highest TPM of every script") || strings.Contains(res.KneeRule, "New-Order") {
		t.Errorf("knee rule %q: want the workload's figure named, not TPC-C's", res.KneeRule)
	}
	for _, p := range res.Points {
		if !p.Decides() || p.NOPM <= 0 || math.Abs(p.NOPM-p.TPM) > 1e-6*p.TPM || p.NewOrderP90Ms <= 0 {
			t.Errorf("cpus %s: %+v; want a complete point whose figure is its TPM, with its p90", p.Value, p)
		}
		if s := firstStep(t, st, p.RunID); s.NOPM <= 0 || math.Abs(s.NOPM-s.TPM) > 1e-6*s.TPM {
			t.Errorf("cpus %s: stored step figure %.1f/min, TPM %.1f: want the figure stored as every transaction's rate", p.Value, s.NOPM, s.TPM)
		}
	}
	show, errOut, code := cli(t, ctx, with("sweep", "cpus", "--resume", res.ID, "--workload", "tpcb", "--store", st)...)
	t.Log(show)
	if code != 0 || !strings.Contains(show, "figure of merit: the transactions per minute of every script") || !strings.Contains(show, "FIG/min") ||
		strings.Contains(show, "New-Order") {
		t.Errorf("sweep's text: %d\n%s%s", code, show, errOut)
	}
}

// builtTPCB is embeddedArgs for a data directory holding pgbench's tables
// at scale 1, built through the CLI.
func builtTPCB(t *testing.T, prefix string) []string {
	t.Helper()
	args, _ := embeddedArgs(t, prefix)
	if out, errOut, code := cli(t, context.Background(), append([]string{"build", "--workload", "tpcb", "--scale", "1"}, args...)...); code != 0 {
		t.Fatalf("build --workload tpcb: %d\n%s%s", code, out, errOut)
	}
	return args
}
