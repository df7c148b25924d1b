package steady

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// Paired statistics: A and B measured in pairs (an interleaved round
// measures both), judged on the pairs' differences, so that what moves
// both alike between rounds (the machine's speed, a neighbour, the
// database's growth) cancels.

// PairedT is the paired t test of the differences d = b − a.
type PairedT struct {
	// N is the number of pairs; DF = N − 1.
	N, DF int
	// Mean and SD are the differences' mean and standard deviation.
	Mean, SD float64
	// Interval is the two-sided t interval of the mean difference.
	Interval Interval
	// T is the statistic Mean/(SD/√N); ±Inf when SD is 0 and Mean is not,
	// 0 when both are.
	T float64
	// P is the two-sided p of "the mean difference is 0"; PLess the
	// one-sided p of "it is not below 0" (small when b is lower than a).
	P, PLess float64
}

// PLessThan is the one-sided p of "the mean difference is not below x":
// small when the differences lie below x. PLess is PLessThan(0).
func (r PairedT) PLessThan(x float64) float64 {
	if r.N < 2 {
		return 1
	}
	return distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(r.DF)}.CDF(r.tAgainst(x))
}

// tAgainst is the statistic (Mean − x)/(SD/√N): ±Inf when SD is 0 and
// Mean is not x, 0 when it is.
func (r PairedT) tAgainst(x float64) float64 {
	se := r.SD / math.Sqrt(float64(r.N))
	switch d := r.Mean - x; {
	case se > 0:
		return d / se
	case d > 0:
		return math.Inf(1)
	case d < 0:
		return math.Inf(-1)
	}
	return 0
}

// ErrUnpaired is returned when a and b are not pairs of one length.
var ErrUnpaired = errors.New("paired samples of different lengths")

// PairedTTest is the paired t test and interval at confidence conf of the
// differences b[i] − a[i].
func PairedTTest(a, b []float64, conf float64) (PairedT, error) {
	if len(a) != len(b) {
		return PairedT{}, fmt.Errorf("%w: %d and %d", ErrUnpaired, len(a), len(b))
	}
	d := make([]float64, len(a))
	for i := range a {
		d[i] = b[i] - a[i]
	}
	return tTestOf(d, conf)
}

// tTestOf is the one-sample t test of d against 0.
func tTestOf(d []float64, conf float64) (PairedT, error) {
	iv, err := MeanInterval(d, conf)
	if err != nil {
		return PairedT{}, err
	}
	n := len(d)
	r := PairedT{N: n, DF: n - 1, Mean: iv.Mean, SD: stat.StdDev(d, nil), Interval: iv}
	r.T, r.PLess = r.tAgainst(0), r.PLessThan(0)
	r.P = math.Min(1, 2*math.Min(r.PLess, 1-r.PLess))
	return r, nil
}

// PairedRatio is the ratio B/A judged on the pairs' log ratios
// ln(b/a): a paired t test of their mean, with the geometric mean ratio
// and its interval exp(mean ± t·s/√n).
type PairedRatio struct {
	// Ratio is the geometric mean of the pairs' ratios b/a; Low and High
	// its interval's ends.
	Ratio, Low, High float64
	// Log is the t test of the log ratios (its P and PLess are the
	// ratio's).
	Log PairedT
}

// ErrNotPositive is returned for a ratio of values that are not all
// above 0.
var ErrNotPositive = errors.New("a ratio needs values above 0")

// PairedRatioTest is PairedRatio of b against a at confidence conf.
func PairedRatioTest(a, b []float64, conf float64) (PairedRatio, error) {
	if len(a) != len(b) {
		return PairedRatio{}, fmt.Errorf("%w: %d and %d", ErrUnpaired, len(a), len(b))
	}
	d := make([]float64, len(a))
	for i := range a {
		if !(a[i] > 0 && b[i] > 0) {
			return PairedRatio{}, fmt.Errorf("%w: pair %d is %g and %g", ErrNotPositive, i+1, a[i], b[i])
		}
		d[i] = math.Log(b[i] / a[i])
	}
	t, err := tTestOf(d, conf)
	if err != nil {
		return PairedRatio{}, err
	}
	return PairedRatio{Ratio: math.Exp(t.Mean), Low: math.Exp(t.Interval.Low()), High: math.Exp(t.Interval.High()), Log: t}, nil
}

// SignedRank is Wilcoxon's signed-rank test of differences with its exact
// p. Zero differences are dropped before ranking (Wilcoxon's own rule,
// scipy's zero_method="wilcox"); tied absolute differences get their
// average rank, and the exact distribution is that of the sums of those
// ranks over all 2^N sign assignments (the permutation distribution), so
// ties need no normal approximation.
type SignedRank struct {
	// N is the number of nonzero differences.
	N int
	// W is the sum of the ranks of the positive differences (W+).
	W float64
	// P is the two-sided p, 2·min(P(W+ ≤ W), P(W+ ≥ W)) capped at 1;
	// PLess is P(W+ ≤ W), small when the differences are mostly negative.
	P, PLess float64
}

// MaxSignedRankN is the most nonzero differences SignedRankTest takes
// (its exact distribution is counted over doubled rank sums).
const MaxSignedRankN = 1000

// SignedRankTest is the signed-rank test of the differences d.
func SignedRankTest(d []float64) (SignedRank, error) {
	var nz []float64
	for _, x := range d {
		if x != 0 {
			nz = append(nz, x)
		}
	}
	n := len(nz)
	if n == 0 {
		return SignedRank{P: 1, PLess: 1}, nil
	}
	if n > MaxSignedRankN {
		return SignedRank{}, fmt.Errorf("signed-rank test of %d differences: at most %d", n, MaxSignedRankN)
	}
	ranks := midRanks(nz) // doubled: integers
	w2 := 0
	for i, x := range nz {
		if x > 0 {
			w2 += ranks[i]
		}
	}
	counts := rankSumCounts(ranks)
	total := math.Ldexp(1, n)
	var le, ge float64
	for s, c := range counts {
		if s <= w2 {
			le += c
		}
		if s >= w2 {
			ge += c
		}
	}
	r := SignedRank{N: n, W: float64(w2) / 2, PLess: le / total}
	r.P = math.Min(1, 2*math.Min(le, ge)/total)
	return r, nil
}

// midRanks are twice the average ranks of |x| (ties share the mean of
// their ranks), so that they are integers.
func midRanks(x []float64) []int {
	idx := make([]int, len(x))
	for i := range idx {
		idx[i] = i
	}
	sort.Slice(idx, func(i, j int) bool { return math.Abs(x[idx[i]]) < math.Abs(x[idx[j]]) })
	out := make([]int, len(x))
	for i := 0; i < len(idx); {
		j := i
		for j+1 < len(idx) && math.Abs(x[idx[j+1]]) == math.Abs(x[idx[i]]) {
			j++
		}
		for k := i; k <= j; k++ {
			out[idx[k]] = i + j + 2 // (i+1 + j+1), twice the mean rank
		}
		i = j + 1
	}
	return out
}

// rankSumCounts[s] is how many of the 2^n sign assignments give the
// positive ranks the (doubled) sum s.
func rankSumCounts(ranks []int) []float64 {
	sum := 0
	for _, r := range ranks {
		sum += r
	}
	c := make([]float64, sum+1)
	c[0] = 1
	top := 0
	for _, r := range ranks {
		for s := top; s >= 0; s-- {
			c[s+r] += c[s]
		}
		top += r
	}
	return c
}

// Bonferroni adjusts the p values of a family of tests: each times the
// family's size, capped at 1. A test is significant at level α over the
// family when its adjusted p is below α.
func Bonferroni(p []float64) []float64 {
	out := make([]float64, len(p))
	for i, x := range p {
		out[i] = math.Min(1, x*float64(len(p)))
	}
	return out
}

// Holm adjusts the p values of a family of tests by Holm's step-down
// method (1979): sorted ascending, the k-th smallest (from 0) is
// multiplied by m − k, and the adjusted values made non-decreasing in that
// order, capped at 1. It controls the family-wise error as Bonferroni does
// and rejects at least as much.
func Holm(p []float64) []float64 {
	m := len(p)
	idx := make([]int, m)
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(i, j int) int {
		switch {
		case p[i] < p[j]:
			return -1
		case p[i] > p[j]:
			return 1
		}
		return 0
	})
	out := make([]float64, m)
	run := 0.0
	for k, i := range idx {
		run = math.Max(run, math.Min(1, p[i]*float64(m-k)))
		out[i] = run
	}
	return out
}
