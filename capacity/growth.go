package capacity

import (
	"fmt"
	"math"
	"slices"
)

// CoreRatio is one measured change of the server's CPU per transaction
// between two whole-core counts on one host: the runs of one sweep or fit,
// minutes apart, alike but for their cores (Demands.CoreGrowth).
type CoreRatio struct {
	// From and To are the server's cores, From the more.
	From float64 `json:"from"`
	To   float64 `json:"to"`
	// Ratio is the CPU per transaction at To over that at From.
	Ratio float64 `json:"ratio"`
	// Source is the sweep or fit the two runs belong to.
	Source string `json:"source,omitempty"`
}

// MinCoreRatios is how many measured ratios of one change of cores the
// model needs before it takes their median instead of the contention
// term's: one pair's ratio ranged ×0.78-1.24 on one host (bench/PREDICT.md,
// "Five fresh rounds"), wider than the bias it replaces.
const MinCoreRatios = 2

// learnedGrowth is the median ratio of the CPU per transaction at c
// cores over c0's among rs (either way round), and how many there were;
// ok is false where fewer than MinCoreRatios were measured.
func learnedGrowth(rs []CoreRatio, c0, c float64) (ratio float64, n int, ok bool) {
	hi, lo := math.Max(c0, c), math.Min(c0, c)
	var xs []float64 // each as fewer cores over more
	for _, r := range rs {
		switch {
		case r.Ratio <= 0:
		case sameCores(r.From, hi) && sameCores(r.To, lo):
			xs = append(xs, r.Ratio)
		case sameCores(r.From, lo) && sameCores(r.To, hi):
			xs = append(xs, 1/r.Ratio)
		}
	}
	if len(xs) < MinCoreRatios {
		return 0, len(xs), false
	}
	slices.Sort(xs)
	m := len(xs) / 2
	ratio = xs[m]
	if len(xs)%2 == 0 {
		ratio = (xs[m-1] + xs[m]) / 2
	}
	if c > c0 {
		ratio = 1 / ratio
	}
	return ratio, len(xs), true
}

func sameCores(a, b float64) bool { return math.Abs(a-b) < 1e-6 }

// growthLearned is the part of the base-to-cfg change of cores the host's
// measured ratios answer (whole cores: both sides at one core or more,
// a quota below one counted from one), the ratio and how many were
// measured; ok false where they do not (too few, or nothing to learn).
func growthLearned(d Demands, cfg Config) (c0, c1, ratio float64, n int, ok bool) {
	c0, c := d.Config.Cores(), cfg.Cores()
	if c0 < 1 || c <= 0 || sameCores(c0, math.Max(c, 1)) {
		return 0, 0, 0, 0, false
	}
	c1 = math.Max(c, 1)
	ratio, n, ok = learnedGrowth(d.CoreGrowth, c0, c1)
	return c0, c1, ratio, n, ok
}

// growthNote says where the CPU per transaction on cfg's whole cores came
// from: the host's own history, or, where it has too little, the base's
// taken as it is ("" where the whole cores do not change).
func growthNote(d Demands, cfg Config) string {
	c0, c1, r, n, ok := growthLearned(d, cfg)
	switch {
	case ok:
		return fmt.Sprintf("CPU per transaction from %g to %g cores ×%.2f: the median of %d ratios this host measured in earlier sweeps and fits", c0, c1, r, n)
	case c1 == 0:
		return ""
	}
	return fmt.Sprintf("the server's CPU per transaction on %s taken as on %g: this host measured that change %d time(s), fewer than %d (hosts measured ×0.82-1.13; its own sweeps and fits teach the model its own)",
		coresText(c1), c0, n, MinCoreRatios)
}

// coresText is "1 core" or "N cores".
func coresText(c float64) string {
	if sameCores(c, 1) {
		return "1 core"
	}
	return fmt.Sprintf("%g cores", c)
}
