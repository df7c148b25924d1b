package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/rightsize/rightsize/capacity"
	"github.com/rightsize/rightsize/scenario"
)

// TestEmbeddedTPCBSweepPredicts: sweep cpus 1,0.5 --predict --workload
// tpcb on the embedded server predicts the second value's figure of merit
// (every script's transactions per minute) from the first's demands per
// transaction, names it in the prediction and the table, stores what a
// later look predicts again from, and the band holds the measurement
// (skipped only when the host was busy during the base, as checkInBand)
// in one of two sweeps.
func TestEmbeddedTPCBSweepPredicts(t *testing.T) {
	needCgroups(t)
	ctx := context.Background()
	args := builtTPCB(t, "tpcbpredict-")
	with := func(a ...string) []string { return append(a, args...) }
	loc := tempStore(t)
	// a band holds the measurement 9 times in 10 (issue 48), so a miss is
	// measured again with a fresh sweep, and two misses in a row fail
	for try := 1; ; try++ {
		base, p := tpcbSweepPredict(t, ctx, loc, with)
		if p.Predicted.InBand || try == 2 {
			checkInBand(t, loc, base, p, capacity.KindQuota)
			return
		}
		t.Logf("sweep %d: cpus 0.5 measured %.0f outside the band %.0f to %.0f: measuring again", try, p.NOPM, p.Predicted.NOPMLow, p.Predicted.NOPMHigh)
	}
}

// tpcbSweepPredict runs TestEmbeddedTPCBSweepPredicts's sweep once and
// checks what it prints and stores; it returns the base and the point
// predicted from it.
func tpcbSweepPredict(t *testing.T, ctx context.Context, loc string, with func(...string) []string) (base, p scenario.SweepPoint) {
	t.Helper()
	out, errOut, code := cli(t, ctx, with("sweep", "cpus", "--values", "1,0.5", "--workload", "tpcb", "--users", "4", "--rampup", "1s",
		"--duration", "6s", "--repeat", "1", "--predict", "--json", "--store", loc)...)
	if code != 0 {
		t.Fatalf("sweep --predict --workload tpcb: %d\n%s%s", code, out, errOut)
	}
	var res scenario.SweepResult
	if err := json.Unmarshal([]byte(out), &res); err != nil || len(res.Points) != 2 {
		t.Fatalf("sweep --json: %v\n%s", err, out)
	}
	base, p = res.Points[0], res.Points[1]
	if !base.Decides() || !p.Decides() {
		t.Fatalf("cpus 1: %s, cpus 0.5: %s: want both measured", base.Status, p.Status)
	}
	pr := p.Predicted
	if pr == nil {
		t.Fatalf("cpus 0.5 not predicted: %q", p.PredictNote)
	}
	if pr.Figure != "TPM of every script" || pr.NOPM <= 0 || pr.NOPMLow > pr.NOPM || pr.NOPMHigh < pr.NOPM {
		t.Errorf("prediction %+v: want every script's TPM, inside its band", pr.Prediction)
	}
	if d := stepDemands(t, loc, base.RunID); d.Figure != "TPM of every script" || d.NewOrderShare != 1 || d.NewOrderP90Ms <= 0 {
		t.Errorf("base demands: figure %q, share %g, p90 %g: want every script's, all of them, with its p90", d.Figure, d.NewOrderShare, d.NewOrderP90Ms)
	}
	// stored: a later look at the sweep predicts it again from the store
	show, errOut, code := cli(t, ctx, with("sweep", "cpus", "--resume", res.ID, "--workload", "tpcb", "--predict", "--store", loc)...)
	t.Log(show)
	if code != 0 || !strings.Contains(show, "FIG/min predicted") || !strings.Contains(show, "the model's base") {
		t.Errorf("sweep --resume --predict: %d, want the table of the figure predicted\n%s%s", code, show, errOut)
	}
	return base, p
}
