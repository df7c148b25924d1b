package steady

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

// series is a warm-up ramp from start·mean to mean over ramp seconds, then
// a stationary AR(1) process x = mean + phi·(x₋₁ − mean) + e with
// e ~ N(0, sd²), n observations in all.
func series(seed uint64, n, ramp int, start, mean, phi, sd float64) []float64 {
	r := rand.New(rand.NewPCG(seed, 42))
	x := make([]float64, n)
	dev := 0.0
	for i := range x {
		dev = phi*dev + r.NormFloat64()*sd
		level := mean
		if i < ramp {
			level = mean * (start + (1-start)*float64(i)/float64(ramp))
		}
		x[i] = level + dev
	}
	return x
}

// TestMSER5Truncation checks MSER-5 on warm-up ramps: it never keeps a
// ramp's early part (that would bias the mean), and in most series it
// truncates close after the ramp's end (later is only wasted data).
func TestMSER5Truncation(t *testing.T) {
	for _, tc := range []struct {
		name       string
		n, ramp    int
		phi        float64
		minT, maxT int // the truncation point expected in most series
		settled    bool
	}{
		{"60 s ramp then steady", 400, 60, 0.5, 40, 100, true},
		{"no warm-up", 300, 0, 0.5, 0, 40, true},
		{"short ramp, autocorrelated", 300, 20, 0.8, 5, 60, true},
		{"still rising", 120, 120, 0.5, 60, 120, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const seeds = 100
			ok := 0
			for seed := range uint64(seeds) {
				x := series(seed, tc.n, tc.ramp, 0.3, 1000, tc.phi, 20)
				trunc, settled := MSER5(x)
				if tc.settled && settled && trunc < tc.minT {
					t.Errorf("seed %d: truncation at %d s keeps the ramp (want at least %d s)", seed, trunc, tc.minT)
				}
				if settled == tc.settled && trunc <= tc.maxT {
					ok++
				}
			}
			if ok < seeds*9/10 {
				t.Errorf("%d of %d series settled=%v with truncation in [%d, %d] s, want at least 90 %%", ok, seeds, tc.settled, tc.minT, tc.maxT)
			}
		})
	}
}

func TestWarmup(t *testing.T) {
	for _, tc := range []struct {
		name string
		x    []float64
		done bool
		why  string
	}{
		{"steady after the ramp", series(1, 90, 30, 0.3, 1000, 0.5, 20), true, "steady"},
		{"ramp still going", series(2, 90, 200, 0.3, 1000, 0.5, 20), false, "not settled"},
		{"too short after truncation", series(3, 18, 0, 1, 1000, 0, 1), false, "only"},
		// a slow cache warm-up: +10 % over 200 s, MSER-5 alone may settle
		{"slow drift", series(4, 80, 200, 0.9, 1000, 0.3, 5)[:80], false, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			done, _, why := Warmup(tc.x)
			if done != tc.done || !strings.Contains(why, tc.why) {
				t.Errorf("Warmup = %v, %q; want %v, %q", done, why, tc.done, tc.why)
			}
		})
	}
}

// TestBatchMeansCoverage checks that the 95 % interval of an AR(1) series
// covers its true mean in about 95 % of 200 seeded series.
func TestBatchMeansCoverage(t *testing.T) {
	for _, tc := range []struct {
		name string
		n    int
		phi  float64
	}{
		{"independent", 300, 0},
		{"phi 0.5", 600, 0.5},
		{"phi 0.8", 900, 0.8},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const runs, mean = 200, 1000.0
			covered, thresholdMet := 0, 0
			for seed := range uint64(runs) {
				x := series(seed+1000, tc.n, 0, 1, mean, tc.phi, 30)
				iv, ok, err := BatchMeans(x, 0.95)
				if err != nil {
					t.Fatal(err)
				}
				if iv.Contains(mean) {
					covered++
				}
				if ok {
					thresholdMet++
				}
			}
			c := float64(covered) / runs
			t.Logf("coverage %.1f %%, lag-1 threshold met in %d of %d", c*100, thresholdMet, runs)
			if c < 0.90 || c > 0.99 {
				t.Errorf("coverage %.1f %%, want 90-99 %%", c*100)
			}
		})
	}
}

func TestBatchMeansBatchGrowsWithAutocorrelation(t *testing.T) {
	ind, _, _ := BatchMeans(series(7, 900, 0, 1, 1000, 0, 30), 0.95)
	cor, _, _ := BatchMeans(series(7, 900, 0, 1, 1000, 0.9, 30), 0.95)
	if ind.BatchSize >= cor.BatchSize {
		t.Errorf("batch size %d (independent) vs %d (phi 0.9): want larger batches for autocorrelated data", ind.BatchSize, cor.BatchSize)
	}
	if _, _, err := BatchMeans(make([]float64, MinBatches-1), 0.95); err == nil {
		t.Error("a series shorter than MinBatches gave an interval")
	}
}

func TestMeanInterval(t *testing.T) {
	// mean 2, s = 1, n = 3: t(0.975, 2) = 4.302653
	iv, err := MeanInterval([]float64{1, 2, 3}, 0.95)
	if err != nil {
		t.Fatal(err)
	}
	if want := 4.302653 / math.Sqrt(3); iv.Mean != 2 || math.Abs(iv.Half-want) > 1e-5 {
		t.Errorf("interval %+v, want 2 ± %.6f", iv, want)
	}
	if _, err := MeanInterval([]float64{1}, 0.95); err == nil {
		t.Error("one observation gave an interval")
	}
}

func TestCompare(t *testing.T) {
	for _, tc := range []struct {
		a, b Interval
		want Verdict
	}{
		{Interval{Mean: 100, Half: 2}, Interval{Mean: 90, Half: 2}, FirstBetter},
		{Interval{Mean: 90, Half: 2}, Interval{Mean: 100, Half: 2}, SecondBetter},
		{Interval{Mean: 100, Half: 6}, Interval{Mean: 90, Half: 5}, Indistinguishable},
		{Interval{Mean: 100, Half: 0}, Interval{Mean: 100, Half: 0}, Indistinguishable},
	} {
		if got := Compare(tc.a, tc.b); got != tc.want {
			t.Errorf("Compare(%+v, %+v) = %s, want %s", tc.a, tc.b, got, tc.want)
		}
	}
	if s := Indistinguishable.String(); s != "not distinguishable at this precision" {
		t.Errorf("Indistinguishable prints %q", s)
	}
}

func TestPlanValidate(t *testing.T) {
	ok := Plan{RampupAuto: true, RampupMin: 10 * time.Second, RampupMax: time.Minute, DurationAuto: true,
		DurationMin: 30 * time.Second, DurationMax: 5 * time.Minute, Precision: 0.02, Confidence: 0.95}
	for _, tc := range []struct {
		name string
		edit func(*Plan)
		want string // "" for valid
	}{
		{"valid", func(*Plan) {}, ""},
		{"precision 0", func(p *Plan) { p.Precision = 0 }, "--precision"},
		{"precision negative", func(p *Plan) { p.Precision = -0.01 }, "--precision"},
		{"rampup min above max", func(p *Plan) { p.RampupMin = 2 * time.Minute }, "--rampup-min"},
		{"duration min above max", func(p *Plan) { p.DurationMin = 10 * time.Minute }, "--duration-min"},
		{"duration min too short", func(p *Plan) { p.DurationMin = time.Second }, "--duration-min"},
		{"confidence 100 %", func(p *Plan) { p.Confidence = 1 }, "--confidence"},
		{"fixed ignores precision", func(p *Plan) { p.DurationAuto, p.Precision = false, 0 }, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := ok
			tc.edit(&p)
			err := p.Validate()
			if (err == nil) != (tc.want == "") || err != nil && !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Validate = %v, want %q", err, tc.want)
			}
		})
	}
}

func TestControllerEndsMeasureWhenPrecise(t *testing.T) {
	p := Plan{DurationAuto: true, DurationMin: 20 * time.Second, DurationMax: time.Hour, Precision: 0.02, Confidence: 0.95}
	quiet := series(11, 120, 0, 1, 500, 0.3, 10) // per-second counts: CV 2 %
	noisy := series(12, 120, 0, 1, 500, 0.3, 150)
	ints := func(x []float64) []int64 {
		out := make([]int64, len(x))
		for i, v := range x {
			out[i] = int64(max(v, 0))
		}
		return out
	}
	for _, tc := range []struct {
		name string
		x    []int64
		want bool
	}{{"quiet", ints(quiet), true}, {"noisy", ints(noisy), false}, {"before the minimum", ints(quiet[:15]), false}} {
		c := NewController(p)
		if got := c.EndMeasure(tc.x, tc.x); got != tc.want {
			t.Errorf("%s: EndMeasure = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestBatchMeansShortIndependentSeries: a short series of independent
// seconds (what a quiet database gives in its first 10-60 s of
// measurement) must mostly pass the autocorrelation check, or the
// measurement of a quiet database runs to its cap for nothing. A two-sided
// check (|r| < MaxLag1) passed only about a third of them.
func TestBatchMeansShortIndependentSeries(t *testing.T) {
	for _, n := range []int{15, 20, 30, 60} {
		const runs = 200
		met := 0
		for seed := range uint64(runs) {
			if _, ok, _ := BatchMeans(series(seed+5000, n, 0, 1, 1000, 0, 30), 0.95); ok {
				met++
			}
		}
		t.Logf("n %d: threshold met in %d of %d", n, met, runs)
		if met < runs*6/10 {
			t.Errorf("n %d: lag-1 threshold met in %d of %d independent series, want at least 60 %%", n, met, runs)
		}
	}
}
