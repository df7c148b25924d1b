package steady

import (
	"math"
	"strings"
	"testing"
)

// The widened interval against values computed by hand (scipy's
// norm.ppf(0.975) = 1.959964, t.ppf(0.975, 3) = 3.182446):
// √(2,000² + (1.959964 × 0.10 × 100,000)²) = 19,701.418 for the default;
// groups {100, 110, 90} (CV 0.1) and {200, 220, 190} (CV 0.0751242) pool
// to √((2 × 0.01 + 2 × 0.0751242²)/4) = 0.0884411 with 4 df (a group of 2
// adds nothing), and with t.ppf(0.975, 4) = 2.776445
// √(1,000² + (2.776445 × 0.0884411 × 50,000)²) = 12,318.245.
func TestDriftWiden(t *testing.T) {
	d, ok := PooledDrift([][]float64{{100, 110, 90}, {200, 220, 190}, {5, 7}})
	if !ok || d.DF != 4 || d.Runs != 3 || math.Abs(d.CV-0.0884410656) > 1e-9 {
		t.Fatalf("pooled drift %+v ok %v, want CV 0.0884411 over 3 runs, 4 df", d, ok)
	}
	for _, c := range []struct {
		name   string
		d      Drift
		iv     Interval
		want   float64
		source string
	}{
		{"default", DefaultDrift(), Interval{Mean: 100000, Half: 2000, Confidence: 0.95}, 19701.418275581, "10 % CV assumed (not measured)"},
		{"zero value is the default", Drift{}, Interval{Mean: 100000, Half: 2000}, 19701.418275581, "10 % CV assumed"},
		{"measured", d, Interval{Mean: 50000, Half: 1000, Confidence: 0.95}, 12318.245481525, "8.8 % CV measured over 3 runs"},
		{"no within interval", DefaultDrift(), Interval{Mean: 1000}, 195.9963985, "assumed"},
	} {
		got := c.d.Widen(c.iv)
		if math.Abs(got.Half-c.want) > 1e-6 || got.Mean != c.iv.Mean {
			t.Errorf("%s: widened %+v, want half %.6f", c.name, got, c.want)
		}
		if !strings.Contains(c.d.String(), c.source) {
			t.Errorf("%s: %q, want %q", c.name, c.d.String(), c.source)
		}
	}
	if _, ok := PooledDrift([][]float64{{100, 110}, {7}, {1, 2}}); ok {
		t.Error("groups of two runs replaced the default")
	}
}
