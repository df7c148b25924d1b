package main

import (
	"context"
	"encoding/json"
	"math"
	"runtime"
	"strings"
	"testing"

	"github.com/rightsize/rightsize/scenario"
	"github.com/rightsize/rightsize/store"
)

// TestSweepPredictsCPUs: a cpus sweep on a real managed PostgreSQL learns
// the demands of its first value (2 cores) and predicts the NOPM of 1 core
// before measuring it, within 25 % (issue 33's real-server test); the text
// shows it beside the measurement and results show prints the demands.
//
// One sweep's error carries the drift between runs (identical runs differ
// by 15-35 % on a shared 2-core host), so a miss is measured again with a
// fresh sweep, and two misses in a row fail: a model off by more than 25 %
// still fails nearly every time, one whose single sweeps miss one time in
// ten fails one time in a hundred.
func TestSweepPredictsCPUs(t *testing.T) {
	needCgroups(t)
	ctx := context.Background()
	args, _ := embeddedArgs(t, "predict-")
	// a warehouse per user: at 4 users on 1 warehouse the step measures
	// row-lock queueing, which the model holds constant
	if out, errOut, code := cli(t, ctx, append([]string{"build", "--warehouses", "4"}, args...)...); code != 0 {
		t.Fatalf("build: %d\n%s%s", code, out, errOut)
	}
	loc := tempStore(t)
	const tries = 2
	for try := 1; ; try++ {
		errPct := predictOneCore(t, ctx, loc, args)
		if math.Abs(errPct) <= 25 {
			break
		}
		if try == tries {
			t.Fatalf("cpus 1 predicted with an error of %+.1f %% in %d sweeps in a row, want within ±25 %%", errPct, tries)
		}
		t.Logf("sweep %d missed by more than 25 %%: measuring again", try)
	}
}

// predictOneCore runs TestSweepPredictsCPUs's sweep once (cpus 2, then 1
// predicted from 2), checks what it prints and stores, and returns the
// prediction's error, %. It skips the test where other
// work took the CPU the model reads as the server's.
func predictOneCore(t *testing.T, ctx context.Context, loc string, args []string) float64 {
	t.Helper()
	out, errOut, code := cli(t, ctx, append([]string{"sweep", "cpus", "--values", "2,1", "--users", "4", "--rampup", "2s", "--duration", "12s",
		"--repeat", "1", "--predict", "--json", "--store", loc}, args...)...)
	if code != 0 {
		t.Fatalf("sweep --predict: %d\n%s%s", code, out, errOut)
	}
	var res scenario.SweepResult
	if err := json.Unmarshal([]byte(out), &res); err != nil || len(res.Points) != 2 {
		t.Fatalf("sweep --json: %v\n%s", err, out)
	}
	base, one := res.Points[0], res.Points[1]
	if base.Predicted != nil || !strings.Contains(base.PredictNote, "base") {
		t.Errorf("the first value is the model's base, not predicted: %+v, %q", base.Predicted, base.PredictNote)
	}
	if one.Predicted == nil {
		t.Fatalf("cpus 1 not predicted: %q", one.PredictNote)
	}
	busy := hostBusy(t, loc, base.RunID)
	other := max(otherCPU(t, loc, base.RunID), otherCPU(t, loc, one.RunID))
	t.Logf("cpus 1: measured NOPM %.0f, predicted %.0f (%.0f to %.0f, limit %s), error %+.1f %%; base (cpus 2) NOPM %.0f; host busy during the base %.0f %%, other work up to %.0f %% of a core",
		one.NOPM, one.Predicted.NOPM, one.Predicted.NOPMLow, one.Predicted.NOPMHigh, one.Predicted.Limit, one.Predicted.ErrorPct, base.NOPM, busy, other)
	if math.Abs(one.Predicted.ErrorPct) > 25 {
		switch {
		case busy >= 90:
			t.Skipf("the host's CPUs were %.0f %% busy during the base: other work took the CPU the model counts as the server's waits", busy)
		case other >= 35:
			// go test runs other packages' tests beside this one: a
			// point measured beside them is not the model's to answer for
			t.Skipf("other work than the server and the driver took %.0f %% of a core during a point", other)
		}
	}
	show, errOut, code := cli(t, ctx, "results", "show", base.RunID, "--store", loc)
	if code != 0 || !strings.Contains(show, "demands per transaction") || !strings.Contains(show, "server CPU µs") {
		t.Errorf("results show: %d, no demands table\n%s%s", code, show, errOut)
	}
	return one.Predicted.ErrorPct
}

// otherCPU is the CPU, % of one core, that the host spent on anything but
// the server and the driver during a stored run's first step.
func otherCPU(t *testing.T, loc, runID string) float64 {
	t.Helper()
	s := firstStep(t, loc, runID)
	return s.Host.CPUBusyPct*float64(runtime.NumCPU()) - s.ServerCPUPct - s.DriverCPUPct
}

// hostBusy is the host CPU busy % of a stored run's first step.
func hostBusy(t *testing.T, loc, runID string) float64 {
	t.Helper()
	return firstStep(t, loc, runID).Host.CPUBusyPct
}

// firstStep is a stored run's first step.
func firstStep(t *testing.T, loc, runID string) store.Step {
	t.Helper()
	_, steps := storedRun(t, loc, runID)
	if len(steps) == 0 {
		t.Fatalf("run %s has no step", runID)
	}
	return steps[0]
}

// storedRun is run runID and its steps, from the store at loc.
func storedRun(t *testing.T, loc, runID string) (store.Run, []store.Step) {
	t.Helper()
	st, err := store.Open(context.Background(), loc)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	run, steps, err := st.LoadRun(context.Background(), runID)
	if err != nil {
		t.Fatalf("load run %s: %v", runID, err)
	}
	return *run, steps
}
