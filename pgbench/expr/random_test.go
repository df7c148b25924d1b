package expr

import (
	"math"
	"testing"

	"github.com/rightsize/rightsize/pgbench/prng"
)

// TestDistributions draws 100,000 values of each random function and
// checks the range and the mean and standard deviation against the
// distribution's own (computed from its definition, not from the code).
func TestDistributions(t *testing.T) {
	const n = 100000
	const lo, hi = 1, 1000
	cases := []struct {
		name string
		draw func(r *prng.State) int64
		pmf  func(k int64) float64 // relative weight of k in [lo, hi]
	}{
		{"random", func(r *prng.State) int64 { return Uniform(r, lo, hi) }, func(int64) float64 { return 1 }},
		{"random_exponential(3)", func(r *prng.State) int64 { return Exponential(r, lo, hi, 3) },
			func(k int64) float64 { // mass of [k-lo, k-lo+1)/(hi-lo+1) under density ∝ exp(-3x) on [0,1)
				a, b := float64(k-lo)/(hi-lo+1), float64(k-lo+1)/(hi-lo+1)
				return math.Exp(-3*a) - math.Exp(-3*b)
			}},
		{"random_gaussian(2.5)", func(r *prng.State) int64 { return Gaussian(r, lo, hi, 2.5) },
			func(k int64) float64 {
				a, b := float64(k-lo)/(hi-lo+1), float64(k-lo+1)/(hi-lo+1)
				return math.Erf((b*5-2.5)/math.Sqrt2) - math.Erf((a*5-2.5)/math.Sqrt2)
			}},
		{"random_zipfian(1.5)", func(r *prng.State) int64 { return Zipfian(r, lo, hi, 1.5) },
			func(k int64) float64 { return math.Pow(float64(k-lo+1), -1.5) }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			wantMean, wantSD := moments(lo, hi, c.pmf)
			r := prng.New(7)
			var sum, sum2 float64
			for range n {
				v := c.draw(r)
				if v < lo || v > hi {
					t.Fatalf("%d out of [%d, %d]", v, lo, hi)
				}
				sum += float64(v)
				sum2 += float64(v) * float64(v)
			}
			mean := sum / n
			sd := math.Sqrt(sum2/n - mean*mean)
			se := wantSD / math.Sqrt(n)
			if math.Abs(mean-wantMean) > 5*se {
				t.Errorf("mean %.2f, want %.2f ± %.2f", mean, wantMean, 5*se)
			}
			if math.Abs(sd-wantSD) > 0.02*wantSD {
				t.Errorf("standard deviation %.2f, want %.2f within 2 %%", sd, wantSD)
			}
		})
	}
}

func moments(lo, hi int64, pmf func(int64) float64) (mean, sd float64) {
	var w, m1, m2 float64
	for k := lo; k <= hi; k++ {
		p := pmf(k)
		w += p
		m1 += p * float64(k)
		m2 += p * float64(k) * float64(k)
	}
	mean = m1 / w
	return mean, math.Sqrt(m2/w - mean*mean)
}
