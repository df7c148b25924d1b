// Package changepoint finds the points where a series' distribution
// changes, by E-divisive means (Matteson & James 2014, "A Nonparametric
// Approach for Multiple Change Point Analysis of Multivariate Data"), as
// MongoDB's performance CI (signal-processing-algorithms) and Apache
// Otava (formerly Hunter) run it over nightly results: a divisive search
// over the energy statistic, each new change point kept only when a
// permutation test finds it significant. The permutations are seeded, so
// one series always gives the same answer.
package changepoint

import (
	"math/rand/v2"
	"slices"
)

// Options tune the search. The zero value means the reference's defaults.
type Options struct {
	// PValue is the largest permutation p-value a change point may have
	// (default 0.05).
	PValue float64
	// Permutations is the number of permutations of each test (default
	// 100).
	Permutations int
	// Seed seeds the permutations (default 2014).
	Seed uint64
}

// Defaults returns o with the defaults filled in.
func (o Options) Defaults() Options {
	if o.PValue <= 0 {
		o.PValue = 0.05
	}
	if o.Permutations <= 0 {
		o.Permutations = 100
	}
	if o.Seed == 0 {
		o.Seed = 2014
	}
	return o
}

// ChangePoint is a change point: Index is the first value of the new
// segment; Q is its energy statistic and PValue the share of
// permutations whose largest statistic reached it.
type ChangePoint struct {
	Index  int     `json:"index"`
	Q      float64 `json:"q"`
	PValue float64 `json:"p_value"`
}

// EDivisive returns the significant change points of series in the
// order found (the strongest first). It follows MongoDB's
// signal-processing-algorithms 2.1.6 (e_divisive) exactly: distances
// |x_i - x_j| (alpha 1), the statistic of Q below over each segment
// between the change points found so far with its end fixed at the
// segment's end, and the p-value count/(permutations+1) of permutations
// within each segment whose largest statistic, over all segments, is at
// least the best candidate's.
func EDivisive(series []float64, o Options) []ChangePoint {
	o = o.Defaults()
	n := len(series)
	if n < 2 {
		return nil
	}
	d := distances(series)
	rng := rand.New(rand.NewPCG(o.Seed, o.Seed^0x9e3779b97f4a7c15))
	var found []ChangePoint
	memo := map[[2]int]ChangePoint{}
	for {
		bounds := segments(found, n)
		best := ChangePoint{Index: -1}
		for _, b := range bounds {
			c, ok := memo[b]
			if !ok {
				c = bestSplit(d, identity(b[0], b[1]))
				c.Index += b[0]
				memo[b] = c
			}
			if best.Index < 0 || c.Q > best.Q {
				best = c
			}
		}
		best.PValue = permutationP(d, bounds, best.Q, o.Permutations, rng)
		if best.Index <= 0 || best.PValue > o.PValue {
			return found
		}
		found = append(found, best)
	}
}

// segments are the [start, end) bounds between the change points found.
func segments(found []ChangePoint, n int) [][2]int {
	cuts := []int{0, n}
	for _, c := range found {
		cuts = append(cuts, c.Index)
	}
	slices.Sort(cuts)
	out := make([][2]int, 0, len(cuts)-1)
	for i := 1; i < len(cuts); i++ {
		out = append(out, [2]int{cuts[i-1], cuts[i]})
	}
	return out
}

// permutationP is the share of permutations (each segment's values
// shuffled within it) whose largest statistic reaches q.
func permutationP(d [][]float64, bounds [][2]int, q float64, permutations int, rng *rand.Rand) float64 {
	reached := 0
	for range permutations {
		top := 0.0
		for _, b := range bounds {
			idx := identity(b[0], b[1])
			rng.Shuffle(len(idx), func(i, j int) { idx[i], idx[j] = idx[j], idx[i] })
			top = max(top, bestSplit(d, idx).Q)
		}
		if top >= q {
			reached++
		}
	}
	return float64(reached) / float64(permutations+1)
}

func identity(a, b int) []int {
	idx := make([]int, b-a)
	for i := range idx {
		idx[i] = a + i
	}
	return idx
}

func distances(x []float64) [][]float64 {
	d := make([][]float64, len(x))
	for i := range x {
		d[i] = make([]float64, len(x))
		for j := range x {
			d[i][j] = abs(x[i] - x[j])
		}
	}
	return d
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

// bestSplit is the split of the values idx names (in that order) with
// the largest Q, its Index relative to idx (the first largest).
func bestSplit(d [][]float64, idx []int) ChangePoint {
	qs := splitStats(d, idx)
	best := ChangePoint{}
	for i, q := range qs {
		if q > best.Q {
			best = ChangePoint{Index: i, Q: q}
		}
	}
	return best
}

// splitStats returns, for each split tau of the values idx names into X (before
// tau) and Y (from tau on), the scaled energy statistic
//
//	Q(tau) = m n/(m+n) · (2/(m n) Σ|X_i-Y_j| - 1/m² Σ|X_i-X_k| - 1/n² Σ|Y_j-Y_l|)
//
// with m = tau and n = len(idx)-tau, the sums over ordered pairs (the
// V-statistic form the reference uses; Matteson & James divide the
// within sums by the pairs' count instead). Each Q(tau) follows from the
// previous one by moving one value from Y to X.
func splitStats(d [][]float64, idx []int) []float64 {
	n := len(idx)
	qs := make([]float64, n)
	var cross, within, rest float64
	for r := range n {
		for c := r; c < n; c++ {
			rest += d[idx[r]][idx[c]]
		}
	}
	for tau := range n {
		qs[tau] = q(cross, 2*within, 2*rest, tau, n-tau)
		var col, row float64
		for r := range tau {
			col += d[idx[r]][idx[tau]]
		}
		for c := tau; c < n; c++ {
			row += d[idx[tau]][idx[c]]
		}
		cross += row - col
		within += col
		rest -= row
	}
	return qs
}

func q(cross, x, y float64, m, n int) float64 {
	if m < 1 || n < 1 {
		return 0
	}
	fm, fn := float64(m), float64(n)
	return fm * fn / (fm + fn) * (2*cross/(fm*fn) - x/(fm*fm) - y/(fn*fn))
}
