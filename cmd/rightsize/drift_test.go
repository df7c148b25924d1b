package main

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/rightsize/rightsize/report"
	"github.com/rightsize/rightsize/store"
)

// A real single run on the embedded server and a stored copy of it at 85 %
// of its TPM and NOPM with a New-Order p90 three times as high and no
// windows (figures controlled through the store API): with no drift
// between runs measured for the configuration (two runs of it) the
// default 10 % CV widens both, the 15 % difference is not distinguishable
// and says how to measure the drift, the p90 without an interval is not
// decided, and the gate passes, exit 0.
func TestGateUnmeasuredDrift(t *testing.T) {
	if testing.Short() {
		t.Skip("starts its own embedded server")
	}
	args, _ := builtEmbedded(t, "drift-")
	ctx := context.Background()
	st := tempStore(t)
	run := append([]string{"run", "--users", "2", "--rampup", "2s", "--duration", "12s", "--label", "base", "--store", st}, args...)
	if out, errOut, code := cli(t, ctx, run...); code != 0 {
		t.Fatalf("baseline run: %d\n%s%s", code, out, errOut)
	}
	storeScaledCopy(t, st, "base", "again", 0.85, 3)
	out, errOut, code := cli(t, ctx, "compare", "base", "again", "--max-regression", "2.5%", "--max-latency-regression", "10%", "--store", st)
	for _, want := range []string{
		"2 users TPM: B ", "not distinguishable at this precision, not a failure (B 15.0 % slower, more than the 2.5 % allowed, but the intervals overlap); " + report.DriftNotMeasuredNote,
		"(3.000x): not decided (B 200.0 % higher); " + report.NoIntervalNote,
		"gate passed", "TPM 10 % CV assumed (not measured)"} {
		if !strings.Contains(out, want) {
			t.Errorf("compare does not say %q", want)
		}
	}
	if code != 0 || t.Failed() {
		t.Fatalf("compare base again: exit %d, want 0\n%s%s", code, out, errOut)
	}
}

// storeScaledCopy stores a copy of run from as label to, its steps' TPM
// and NOPM (and their intervals) times tput, New-Order p90 times p90,
// without latency windows.
func storeScaledCopy(t *testing.T, path, from, to string, tput, p90 float64) {
	t.Helper()
	ctx := context.Background()
	s, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	id, err := s.Resolve(ctx, from)
	if err != nil {
		t.Fatal(err)
	}
	r, steps, err := s.LoadRun(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	r.ID, r.Label, r.StartedAt, r.Status = "", to, r.StartedAt.Add(time.Minute), store.StatusRunning
	r.Flags["label"] = to
	if err := s.CreateRun(ctx, r); err != nil {
		t.Fatal(err)
	}
	for _, st := range steps {
		st.ID, st.RunID, st.Windows = 0, r.ID, nil
		st.TPM, st.NOPM, st.TPMPerUser = st.TPM*tput, st.NOPM*tput, st.TPMPerUser*tput
		st.TPMCIHalf, st.NOPMCIHalf = st.TPMCIHalf*tput, st.NOPMCIHalf*tput
		for i := range st.Txn {
			st.Txn[i].Hist = nil
			if st.Txn[i].Type == "new_order" {
				st.Txn[i].P90Ms *= p90
			}
		}
		if err := s.AddStep(ctx, &st); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.FinishRun(ctx, r.ID, store.StatusComplete, r.StartedAt.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
}

// calibrate measures 3 short runs of one configuration and prints their
// spread; a later run of that configuration (other label and duration)
// is then judged with the drift measured, and the gate's line says so.
func TestCalibrate(t *testing.T) {
	if testing.Short() {
		t.Skip("starts its own embedded server")
	}
	args, _ := builtEmbedded(t, "calibrate-")
	ctx := context.Background()
	st := tempStore(t)
	if _, errOut, code := cli(t, ctx, append([]string{"calibrate", "--runs", "2", "--store", st}, args...)...); code != 2 || !strings.Contains(errOut, "--runs 2: at least 3") {
		t.Fatalf("calibrate --runs 2: exit %d, want 2 naming --runs\n%s", code, errOut)
	}
	cal := append([]string{"calibrate", "--runs", "3", "--pause", "1s", "--users", "2", "--rampup", "2s", "--duration", "6s", "--store", st}, args...)
	out, errOut, code := cli(t, ctx, cal...)
	if code != 0 || !strings.Contains(out, "drift between runs of this configuration on this host") ||
		!regexp.MustCompile(`TPM +\d+\.\d % CV measured over 3 runs \(2 degrees of freedom\)`).MatchString(out) {
		t.Fatalf("calibrate: exit %d, want the TPM CV over 3 runs\n%s%s", code, out, errOut)
	}
	t.Logf("calibrate:%s", out[strings.Index(out, "\ndrift between"):])
	checkRuns(t, st, 3)
	run := append([]string{"run", "--users", "2", "--rampup", "2s", "--duration", "8s", "--label", "later", "--store", st,
		"--baseline", "calibrate-1", "--max-regression", "2.5%"}, args...)
	out, errOut, code = cli(t, ctx, run...)
	if code == 2 || !regexp.MustCompile(`drift between runs of one configuration: TPM \d+\.\d % CV measured over 4 runs`).MatchString(out+errOut) {
		t.Fatalf("a later run gated against calibrate-1: exit %d, want the drift measured over 4 runs named\n%s%s", code, out, errOut)
	}
	t.Logf("later against calibrate-1, exit %d:%s", code, out[strings.Index(out, "\nagainst the baseline"):])
}
