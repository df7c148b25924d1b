package interleave

import (
	"bytes"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/rightsize/rightsize/report"
	"github.com/rightsize/rightsize/steady"
)

// rounds makes the rounds' figures at 4 users: A's NOPM as given, B's
// times ratio (TPM 2.2 NOPM, p90 1000/NOPM ms).
func rounds(a []float64, ratio []float64) []map[string]roundFigures {
	var out []map[string]roundFigures
	for i := range a {
		b := a[i] * ratio[i]
		out = append(out, map[string]roundFigures{
			"A": {4: {2.2 * a[i], a[i], 1000 / a[i]}},
			"B": {4: {2.2 * b, b, 1000 / b}},
		})
	}
	return out
}

func TestJudge(t *testing.T) {
	// A drifts by 30 % between rounds; B follows it
	drift := []float64{60000, 87000, 70000, 80000}
	gate := report.Thresholds{MaxRegression: 0.05, MaxLatencyRegression: report.NotGated}
	for _, c := range []struct {
		name   string
		ratio  []float64
		th     report.Thresholds
		passed bool
		nopm   string
	}{
		{"A/A under drift", []float64{1.02, 0.97, 1.01, 0.99}, gate, true, report.NotDistinguishable},
		{"10 % slower", []float64{0.89, 0.91, 0.90, 0.895}, gate, false, report.Worse},
		{"10 % slower, 15 % allowed", []float64{0.89, 0.91, 0.90, 0.895}, report.Thresholds{MaxRegression: 0.15, MaxLatencyRegression: report.NotGated}, true, report.Worse},
		{"20 % slower, scattered", []float64{0.5, 1.2, 0.7, 1.1}, gate, true, report.NotDistinguishable},
		{"faster", []float64{1.1, 1.12, 1.09, 1.11}, gate, true, report.Better},
		{"not gated", []float64{0.5, 0.5, 0.51, 0.49}, report.Thresholds{MaxRegression: report.NotGated, MaxLatencyRegression: report.NotGated}, true, report.Worse},
	} {
		t.Run(c.name, func(t *testing.T) {
			v, err := judge("x", nil, rounds(drift, c.ratio), c.th, figureNames)
			if err != nil {
				t.Fatal(err)
			}
			nopm := v.Overall.Figures[1]
			if v.Passed != c.passed || nopm.Figure != FigureNOPM || nopm.Verdict != c.nopm {
				t.Errorf("passed %v, NOPM %s (ratio %.3f, p %.3g); want %v, %s", v.Passed, nopm.Verdict, nopm.Ratio, nopm.PAdjusted, c.passed, c.nopm)
			}
			if v.DetectablePct <= 0 {
				t.Errorf("detectable %g %%", v.DetectablePct)
			}
			var b bytes.Buffer
			v.Write(&b)
			if !strings.Contains(b.String(), "could detect a change of") {
				t.Errorf("no detectable line:\n%s", b.String())
			}
		})
	}
	if _, err := judge("x", nil, rounds(drift[:1], []float64{1}), gate, figureNames); err == nil {
		t.Error("one round judged")
	}
}

// The detectable regression follows the paired t test's power: rounds
// scattering by 8 % detect about what steady.MinDetectable says, and more
// rounds detect less.
func TestDetectable(t *testing.T) {
	gate := report.Thresholds{MaxRegression: 0.05, MaxLatencyRegression: report.NotGated}
	ratio := []float64{1.08, 0.92, 1.08, 0.92, 1.08, 0.92}
	v3, err := judge("x", nil, rounds([]float64{1e4, 1e4, 1e4}, ratio[:3]), gate, figureNames)
	if err != nil {
		t.Fatal(err)
	}
	v6, err := judge("x", nil, rounds([]float64{1e4, 1e4, 1e4, 1e4, 1e4, 1e4}, ratio), gate, figureNames)
	if err != nil {
		t.Fatal(err)
	}
	if !(v6.DetectablePct < v3.DetectablePct) || v3.DetectablePct < 10 || v6.DetectablePct > 20 {
		t.Errorf("detectable: 3 rounds %.1f %%, 6 rounds %.1f %%", v3.DetectablePct, v6.DetectablePct)
	}
}

// The gate's error rates by simulation (a fixed seed): rounds whose level
// drifts by 30 % between rounds, each leg with 8 % noise of its own (the
// paired log ratios then scatter by about 8 %). Identical A and B fail at
// most the gate's 5 % (within 3 standard errors of 600 gates), and
// regressions of 10 % and 25 % are caught as often as the paired t test's
// power against the 2.5 % threshold says (steady.PairedPower of the
// regression beyond it), within 3 standard errors.
func TestGateRates(t *testing.T) {
	if testing.Short() {
		t.Skip("simulates 1,800 gates")
	}
	const gates, rounds4, sigma = 600, 4, 0.08
	rng := rand.New(rand.NewPCG(44, 1))
	gate := report.Thresholds{MaxRegression: 0.025, MaxLatencyRegression: report.NotGated}
	for _, effect := range []float64{0, 0.10, 0.25} {
		failed := 0
		for range gates {
			a, ratio := make([]float64, rounds4), make([]float64, rounds4)
			for r := range a {
				a[r] = 50000 * math.Exp(0.3*rng.NormFloat64()+sigma/math.Sqrt2*rng.NormFloat64())
				ratio[r] = (1 - effect) * math.Exp(sigma/math.Sqrt2*(rng.NormFloat64()-rng.NormFloat64()))
			}
			v, err := judge("sim", nil, rounds(a, ratio), gate, figureNames)
			if err != nil {
				t.Fatal(err)
			}
			if !v.Passed {
				failed++
			}
		}
		rate := float64(failed) / gates
		want := 0.05    // the level the gate states
		if effect > 0 { // the test of "worse by more than the threshold"
			want = steady.PairedPower(math.Log((1-gate.MaxRegression)/(1-effect)), sigma, rounds4, 0.05, 1)
		}
		se := max(math.Sqrt(want*(1-want)/gates), 1.0/gates)
		if (effect == 0 && rate > want+3*se) || (effect > 0 && math.Abs(rate-want) > 3*se) {
			t.Errorf("effect %.0f %%: %d of %d gates failed (%.3f), want %.3f ± %.3f", effect*100, failed, gates, rate, want, 3*se)
		}
		t.Logf("effect %.0f %%: %.3f of gates failed, the paired t test's power %.3f", effect*100, rate, want)
	}
}

// A gated figure worse than A but not beyond its threshold passes and says
// so; one beyond it fails and says by how much it may be.
func TestGateVerdictLine(t *testing.T) {
	drift := []float64{60000, 87000, 70000, 80000}
	for _, c := range []struct {
		name  string
		ratio []float64
		want  string
	}{
		{"3 % worse", []float64{0.99, 0.95, 0.985, 0.955}, "worse, not shown beyond the 2.5 % allowed (p "},
		{"10 % worse", []float64{0.89, 0.91, 0.90, 0.895}, "worse by more than the 2.5 % allowed (p "},
	} {
		v, err := judge("x", nil, rounds(drift, c.ratio), report.Thresholds{MaxRegression: 0.025, MaxLatencyRegression: report.NotGated}, figureNames)
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		v.Write(&b)
		if !strings.Contains(b.String(), c.want) || v.Passed != strings.Contains(c.want, "not shown") {
			t.Errorf("%s: passed %v\n%s\nwant %q", c.name, v.Passed, b.String(), c.want)
		}
	}
}
