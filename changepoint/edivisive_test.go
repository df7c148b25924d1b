package changepoint

import (
	"math"
	"slices"
	"testing"
)

// The series and the reference values were computed once with MongoDB's
// signal-processing-algorithms 2.1.6 (pip install
// signal-processing-algorithms; Python 3.11, numpy 2): the series are
// numpy.random.default_rng(2014) draws rounded to 0.1 (one: 20 of
// N(100, 2) then 20 of N(90, 2); two: 15 of N(100, 3), 15 of N(80, 3),
// 15 of N(95, 3); flat: 40 of N(100, 3); drift: 25 of N(100, 4) then 25 of
// N(94, 4), a 6 % step inside 4 % noise); q is
// energy_statistics._calculate_t_stats on _get_distance_matrix(series)
// (its C extension; the pure-Python path agrees to 1e-13), and the change
// points are energy_statistics.e_divisive(series, pvalue=0.05,
// permutations=100), the same for numpy.random.seed 0 to 19.
var refSeries = []struct {
	name           string
	x              []float64
	argmax         int
	qMax, q5, qEnd float64 // the largest Q, Q(5) and Q(len-3)
	changes        []int
}{
	{"one shift", []float64{98.7, 102.6, 100.3, 99.3, 101.7, 97.6, 100.9, 99.7, 101.4, 100.7, 101.4, 103.2, 95.2, 104.8, 101.4, 103.6, 102.7, 98.8, 102.8, 98.0, 91.0, 88.7, 89.8, 91.7, 89.4, 89.5, 88.3, 89.1, 91.0, 87.6, 89.7, 90.5, 90.6, 90.1, 88.7, 91.6, 91.2, 92.2, 91.0, 89.4},
		20, 174.38500000000008, 26.820714285714292, 12.308693693694291, []int{20}},
	{"two shifts", []float64{104.8, 105.1, 101.8, 102.0, 101.3, 104.7, 98.6, 101.6, 94.1, 105.5, 99.3, 97.8, 97.5, 101.4, 97.3, 81.7, 85.1, 85.4, 79.0, 77.9, 83.0, 83.7, 75.0, 79.5, 77.6, 82.6, 81.0, 80.5, 78.8, 81.6, 92.1, 97.9, 93.5, 90.9, 99.2, 97.4, 95.7, 92.4, 96.1, 91.4, 98.5, 87.7, 95.4, 94.7, 99.3},
		15, 140.52888888888884, 59.49222222222221, 12.098412698412487, []int{15, 30}},
	{"flat", []float64{102.2, 101.0, 100.6, 103.2, 100.9, 99.7, 102.7, 92.9, 98.2, 103.1, 99.9, 101.7, 101.0, 103.9, 102.7, 98.1, 98.2, 95.8, 96.0, 94.5, 103.3, 100.9, 100.5, 101.9, 99.8, 94.5, 97.8, 96.6, 96.4, 101.4, 103.1, 103.6, 102.2, 101.6, 102.7, 99.3, 95.4, 103.1, 105.0, 98.5},
		15, 6.627666666666654, 5.1564285714285685, 3.6653603603599842, nil},
	{"small step in noise", []float64{102.2, 97.0, 101.2, 93.3, 101.7, 93.4, 95.3, 95.5, 100.5, 101.2, 104.2, 107.4, 104.0, 103.4, 101.1, 104.8, 94.3, 100.2, 106.2, 96.6, 95.8, 105.9, 105.2, 101.7, 99.0, 87.9, 95.9, 97.1, 92.6, 92.8, 94.1, 94.5, 96.2, 91.1, 91.8, 95.4, 93.4, 96.9, 91.8, 99.4, 93.6, 100.6, 100.2, 97.9, 89.0, 96.4, 101.5, 91.3, 88.5, 90.6},
		25, 59.311999999999934, 5.166222222222226, 25.833645390069456, []int{25}},
}

func TestSplitStatsReference(t *testing.T) {
	close := func(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }
	for _, c := range refSeries {
		n := len(c.x)
		qs := splitStats(distances(c.x), identity(0, n))
		best := bestSplit(distances(c.x), identity(0, n))
		if best.Index != c.argmax || !close(best.Q, c.qMax) || !close(qs[5], c.q5) || !close(qs[n-3], c.qEnd) {
			t.Errorf("%s: best %d (Q %v), Q(5) %v, Q(n-3) %v; reference %d (%v), %v, %v", c.name, best.Index, best.Q, qs[5], qs[n-3],
				c.argmax, c.qMax, c.q5, c.qEnd)
		}
	}
}

func TestEDivisiveReference(t *testing.T) {
	for _, c := range refSeries {
		for _, seed := range []uint64{0, 1, 7, 44} {
			var got []int
			for _, cp := range EDivisive(c.x, Options{Seed: seed}) {
				got = append(got, cp.Index)
				if cp.PValue > 0.05 {
					t.Errorf("%s: change point %+v kept above p 0.05", c.name, cp)
				}
			}
			if !slices.Equal(got, c.changes) {
				t.Errorf("%s, seed %d: change points %v, reference %v", c.name, seed, got, c.changes)
			}
		}
	}
}

// TestEDivisiveDeterministic: one seed, one answer, p-values included.
func TestEDivisiveDeterministic(t *testing.T) {
	x := refSeries[3].x
	a, b := EDivisive(x, Options{}), EDivisive(x, Options{})
	if !slices.Equal(a, b) {
		t.Fatalf("two searches of one series: %+v and %+v", a, b)
	}
}

func TestEDivisiveShort(t *testing.T) {
	for _, x := range [][]float64{nil, {1}, {5, 5, 5, 5, 5, 5}} {
		if cps := EDivisive(x, Options{}); len(cps) != 0 {
			t.Errorf("%v: change points %+v", x, cps)
		}
	}
}
