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
	args, _ := embeddedArgs(t, "tpcbsweep-")
	with := func(a ...string) []string { return append(a, args...) }
	if out, errOut, code := cli(t, ctx, with("build", "--workload", "tpcb", "--scale", "1")...); code != 0 {
		t.Fatalf("build --workload tpcb: %d\n%s%s", code, out, errOut)
	}
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
	if res.Figure != "every script" || res.Knee < 0 {
		t.Errorf("figure %q, knee %d: want every script's, and a value that holds", res.Figure, res.Knee)
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
	if code != 0 || !strings.Contains(show, "figure of merit: the transactions per minute of every script") || !strings.Contains(show, "FIG/min") {
		t.Errorf("sweep's text: %d\n%s%s", code, show, errOut)
	}
}
