package steady

import (
	"errors"
	"math"
	"testing"
)

// The known answers below were computed once with scipy 1.17.1 and
// statsmodels (Python 3), by these calls:
//
//	a = [100, 104, 98, 110, 95]; b = [97, 101, 99, 104, 90]
//	stats.ttest_rel(b, a)                       -> t -2.6666667, p 0.056
//	stats.ttest_rel(b, a, alternative='less')   -> p 0.028
//	stats.t.interval(0.95, 4, loc=mean(d), scale=sd(d)/sqrt(5))
//	                                            -> (-6.5317341, 0.1317341)
//	ld = log(b/a): exp(mean) 0.9685581, exp(interval) (0.9369618, 1.0012200),
//	stats.ttest_1samp(ld, 0).pvalue 0.0555523
//	stats.wilcoxon([-3.1,-1.2,0.4,-2.2,-0.7,-4.5,1.1,-1.9], method='exact')
//	                                            -> p 0.0546875 (alternative='less' 0.02734375)
//	stats.wilcoxon([-1..-11, 2.5], method="exact") -> p 0.00244140625
//	power: stats.nct.sf(stats.t.ppf(0.95, n-1), n-1, eff*sqrt(n)/sd)
//	(two-sided: sf at ppf(0.975) + cdf at -ppf(0.975))
//	multipletests([0.01,0.04,0.03,0.005], method='holm' / 'bonferroni')

func near(t *testing.T, what string, got, want, tol float64) {
	t.Helper()
	if math.Abs(got-want) > tol {
		t.Errorf("%s = %.10g, want %.10g (±%g)", what, got, want, tol)
	}
}

func TestPairedTTest(t *testing.T) {
	a := []float64{100, 104, 98, 110, 95}
	b := []float64{97, 101, 99, 104, 90}
	r, err := PairedTTest(a, b, 0.95)
	if err != nil {
		t.Fatal(err)
	}
	near(t, "t", r.T, -2.666666666666667, 1e-9)
	near(t, "p", r.P, 0.056, 1e-6)
	near(t, "one-sided p", r.PLess, 0.028, 1e-6)
	near(t, "low", r.Interval.Low(), -6.531734126237352, 1e-6)
	near(t, "high", r.Interval.High(), 0.13173412623735192, 1e-6)
	if r.DF != 4 {
		t.Errorf("df %d, want 4", r.DF)
	}
	if _, err := PairedTTest(a, b[:3], 0.95); !errors.Is(err, ErrUnpaired) {
		t.Errorf("unpaired: %v", err)
	}
}

func TestPairedRatioTest(t *testing.T) {
	a := []float64{100, 104, 98, 110, 95}
	b := []float64{97, 101, 99, 104, 90}
	r, err := PairedRatioTest(a, b, 0.95)
	if err != nil {
		t.Fatal(err)
	}
	near(t, "ratio", r.Ratio, 0.968558126161932, 1e-9)
	near(t, "low", r.Low, 0.93696177, 1e-6)
	near(t, "high", r.High, 1.00121998, 1e-6)
	near(t, "p", r.Log.P, 0.055552310201385555, 1e-6)
	if _, err := PairedRatioTest([]float64{1, 0}, []float64{1, 1}, 0.95); !errors.Is(err, ErrNotPositive) {
		t.Errorf("zero: %v", err)
	}
}

func TestPairedTTestConstant(t *testing.T) {
	for _, c := range []struct {
		name     string
		b        []float64
		p, pLess float64
		infinite bool
	}{
		{"identical", []float64{1, 2, 3}, 1, 0.5, false},
		{"all lower by 1", []float64{0, 1, 2}, 0, 0, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			r, err := PairedTTest([]float64{1, 2, 3}, c.b, 0.95)
			if err != nil {
				t.Fatal(err)
			}
			if r.P != c.p || r.PLess != c.pLess || math.IsInf(r.T, 0) != c.infinite {
				t.Errorf("got p %g, p less %g, t %g", r.P, r.PLess, r.T)
			}
		})
	}
}

func TestSignedRankTest(t *testing.T) {
	for _, c := range []struct {
		name     string
		d        []float64
		n        int
		w        float64
		p, pLess float64
	}{
		{"scipy 8 pairs", []float64{-3.1, -1.2, 0.4, -2.2, -0.7, -4.5, 1.1, -1.9}, 8, 4, 0.0546875, 0.02734375},
		{"scipy 12 pairs", []float64{-1, -2, -3, -4, -5, -6, -7, -8, -9, -10, -11, 2.5}, 12, 3, 0.00244140625, 0.001220703125},
		// a zero dropped, ties at |1| and |2| given ranks 1.5 and 3.5:
		// enumerated over the 2^6 sign assignments with itertools
		{"zero and ties", []float64{-1, -1, 2, -2, -3, 0, -4}, 6, 3.5, 0.1875, 0.09375},
		{"two pairs", []float64{-0.6, -0.65}, 2, 0, 0.5, 0.25},
		{"all zero", []float64{0, 0}, 0, 0, 1, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			r, err := SignedRankTest(c.d)
			if err != nil {
				t.Fatal(err)
			}
			if r.N != c.n || r.W != c.w {
				t.Errorf("n %d, W+ %g; want %d, %g", r.N, r.W, c.n, c.w)
			}
			near(t, "p", r.P, c.p, 1e-12)
			near(t, "p less", r.PLess, c.pLess, 1e-12)
		})
	}
}

func TestHolmBonferroni(t *testing.T) {
	p := []float64{0.01, 0.04, 0.03, 0.005}
	for _, c := range []struct {
		name string
		f    func([]float64) []float64
		p    []float64
		want []float64
	}{
		{"holm", Holm, p, []float64{0.03, 0.06, 0.06, 0.02}},
		{"holm ties", Holm, []float64{0.02, 0.02, 0.5}, []float64{0.06, 0.06, 0.5}},
		{"bonferroni", Bonferroni, p, []float64{0.04, 0.16, 0.12, 0.02}},
		{"bonferroni capped", Bonferroni, []float64{0.6, 0.01}, []float64{1, 0.02}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := c.f(c.p)
			for i := range got {
				near(t, "adjusted p", got[i], c.want[i], 1e-12)
			}
		})
	}
}

func TestPairedPower(t *testing.T) {
	for _, c := range []struct {
		effect, sd float64
		n, sides   int
		want       float64
	}{
		{0.1, 0.08, 3, 1, 0.4230496837911406},
		{0.1, 0.08, 5, 1, 0.7414619802408222},
		{0.05, 0.08, 10, 2, 0.4231337572728389},
		{1, 1, 2, 1, 0.17956248755732773},
	} {
		near(t, "power", PairedPower(c.effect, c.sd, c.n, 0.05, c.sides), c.want, 1e-6)
	}
	if !math.IsNaN(PairedPower(1, 1, 1, 0.05, 1)) {
		t.Error("power of one pair is not NaN")
	}
}

// PairedPowerBeyond against scipy.stats.nct.sf(t.ppf(0.95, n-1), n-1,
// (effect-margin)*sqrt(n)/sd): identical sides (effect 0) fail less than
// alpha, and a margin of 0 is PairedPower's one-sided power.
func TestPairedPowerBeyond(t *testing.T) {
	for _, c := range []struct {
		effect, margin, sd float64
		n                  int
		want               float64
	}{
		{0, 0.025, 0.08, 4, 0.015598725287209188},
		{0.1, 0.025, 0.08, 4, 0.424111653902456},
		{0.02, 0.025, 0.4, 4, 0.04795598834808701},
		{0.1, 0, 0.08, 3, 0.4230496837911406},
	} {
		near(t, "power beyond the margin", PairedPowerBeyond(c.effect, c.margin, c.sd, c.n, 0.05), c.want, 1e-6)
	}
}

func TestMinDetectable(t *testing.T) {
	// the effect whose power is the one asked, and more rounds detect less
	prev := math.Inf(1)
	for _, n := range []int{2, 3, 5, 10} {
		m := MinDetectable(0.08, n, 0.05, 0.8, 1)
		near(t, "power at the detectable effect", PairedPower(m, 0.08, n, 0.05, 1), 0.8, 1e-6)
		if m >= prev {
			t.Errorf("%d rounds detect %g, not less than %g", n, m, prev)
		}
		prev = m
	}
}
