package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEmbeddedTPCBFit: fit --workload tpcb --target-tps judges each
// candidate on the workload's TPS (per minute, its interval as TPC-C's
// NOPM) and searches with the capacity model on that figure: the
// candidate with the most resources is measured first, the cheaper one
// predicted from its demands (every script's TPM) before it is measured;
// a low target is met by the cheaper candidate, an unreachable one by
// none (exit 2), and the answer says the target's TPS.
func TestEmbeddedTPCBFit(t *testing.T) {
	needCgroups(t)
	ctx := context.Background()
	args := builtTPCB(t, "tpcbfit-")
	loc := tempStore(t)
	common := append([]string{"--store", loc, "--workload", "tpcb", "--users", "2", "--rampup", "500ms", "--duration", "3s", "--repeat", "1",
		"--cost", writeCostFile(t, fitCosts), "--config", "vm", "--cpus", "0.5,2"}, args...)
	low := fitJSON(t, append([]string{"--target-tps", "1", "--label", "low"}, common...)...)
	tr := low.Result.Trials
	if got := verdicts(low); strings.Join(got, ",") != "meets,meets" || tr[0].Cpus != 0.5 || low.Result.Best != 0 {
		t.Fatalf("--target-tps 1: verdicts %v (%s), best %d: want cpus 2 measured first (the model's base) and cpus 0.5 the answer", got, tr[0].Reason, low.Result.Best)
	}
	if p := tr[0].Prediction; p == nil || p.Figure != "TPM of every script" || p.NOPM <= 0 {
		t.Errorf("cpus 0.5's prediction %+v (%s): want every script's TPM predicted from cpus 2 before it was measured", p, tr[0].NotPredicted)
	}
	if c := low.Result.Criteria; c.Merit == nil || !c.Merit.All() || c.TargetNOPM != 60 || !low.Result.Predicted {
		t.Errorf("criteria %+v, predicted %v: want every script's TPS 1 as TPM 60, with the model", c, low.Result.Predicted)
	}
	if tr[0].NOPM <= 60 || tr[0].P90Ms <= 0 || !strings.HasPrefix(tr[0].Reason, "TPM ") {
		t.Errorf("cpus 0.5: TPM %.0f, p90 %.2f ms, reason %q; want its figure above 60 with its p90", tr[0].NOPM, tr[0].P90Ms, tr[0].Reason)
	}
	page := filepath.Join(t.TempDir(), "fit.html")
	if out, errOut, code := cli(t, ctx, "report", "--fit", "low", "--store", loc, "-o", page); code != 0 {
		t.Fatalf("report --fit: exit %d\n%s%s", code, out, errOut)
	}
	html, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	if h := string(html); !strings.Contains(h, "<th>TPM of every script</th>") || !strings.Contains(h, "Cost against TPM of every script") || strings.Contains(h, "New-Order") {
		t.Errorf("report --fit: want the workload's figure named as every view names it, not TPC-C's NOPM or New-Order p90")
	}
	out, errOut, code := cli(t, ctx, append([]string{"fit", "--target-tps", "10000000", "--label", "high"}, common...)...)
	if code != 2 || !strings.Contains(out, "no configuration meets TPM 600,000,000") ||
		!strings.Contains(out, "[target TPS 1e+07 of every script = TPM 600,000,000]") ||
		!strings.Contains(out, "dominated   cpus 2 has at least its resources and missed") {
		t.Errorf("an unreachable --target-tps: exit %d, want 2, the answer in TPS and cpus 0.5 not measured after cpus 2 missed\n%s%s", code, out, errOut)
	}
	t.Log(out)
}
