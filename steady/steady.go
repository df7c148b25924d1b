// Package steady is the output analysis of a measured step: where the
// warm-up of a per-second throughput series ends (MSER-5 truncation with a
// slope check), the confidence interval of its mean that accounts for
// autocorrelation (batch means), the interval across repeats, and the
// comparison of two intervals. It knows nothing of databases: it works on
// series of numbers.
package steady

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// Interval is a two-sided confidence interval of a mean.
type Interval struct {
	Mean float64 `json:"mean"`
	// Half is the half-width: the interval is Mean ± Half.
	Half float64 `json:"half"`
	// Confidence is the level, 0.95 for 95 %.
	Confidence float64 `json:"confidence"`
	// N is the number of independent observations behind it (batches, or
	// repeats).
	N int `json:"n"`
	// BatchSize is the observations per batch (1 for repeats).
	BatchSize int `json:"batch_size"`
}

// Low and High are the interval's ends.
func (iv Interval) Low() float64 { return iv.Mean - iv.Half }

// High is the interval's upper end.
func (iv Interval) High() float64 { return iv.Mean + iv.Half }

// Rel is the half-width relative to the mean (0.02 for ±2 %); +Inf when the
// mean is 0.
func (iv Interval) Rel() float64 {
	if iv.Mean == 0 {
		return math.Inf(1)
	}
	return iv.Half / math.Abs(iv.Mean)
}

// Contains reports whether x lies in the interval.
func (iv Interval) Contains(x float64) bool { return x >= iv.Low() && x <= iv.High() }

// ErrTooShort is returned when a series has too few observations for an
// interval.
var ErrTooShort = errors.New("series too short for a confidence interval")

// tQuantile is Student's t quantile for a two-sided interval at conf with
// df degrees of freedom.
func tQuantile(conf float64, df int) float64 {
	return distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(df)}.Quantile(1 - (1-conf)/2)
}

// MeanInterval is the t interval of the mean of independent observations
// (the repeats of a step): mean ± t(conf, n−1)·s/√n.
func MeanInterval(x []float64, conf float64) (Interval, error) {
	if len(x) < 2 {
		return Interval{}, fmt.Errorf("%w: %d observations, need 2", ErrTooShort, len(x))
	}
	m, s := stat.MeanStdDev(x, nil)
	return Interval{Mean: m, Half: tQuantile(conf, len(x)-1) * s / math.Sqrt(float64(len(x))), Confidence: conf, N: len(x), BatchSize: 1}, nil
}

// Batch-means settings: at least MinBatches batches; the batch size
// doubles (from 1) while the lag-1 autocorrelation of the batch means is
// at least MaxLag1 and the doubling still leaves MinBatches batches.
const (
	MinBatches = 10
	MaxLag1    = 0.1
)

// BatchMeans is the confidence interval of the mean of a stationary,
// possibly autocorrelated series by the method of batch means: the series
// is cut into k batches of b consecutive observations (the oldest
// n − k·b observations are left out), b doubling from 1 until the batch
// means' lag-1 autocorrelation is below MaxLag1 (or fewer than 2·MinBatches
// batches would remain); the interval is the t interval of the k batch
// means. ok is false when the autocorrelation threshold was not reached
// (the interval is then the one of the largest batches, likely too narrow).
// Only positive autocorrelation narrows the interval: a negative estimate
// widens it and is accepted. The estimate of independent batches lies
// about −1/k ± 1/√k, so a two-sided test (|r| < MaxLag1) failed most short
// independent series, and a quiet step's measurement ran to its cap.
func BatchMeans(x []float64, conf float64) (iv Interval, ok bool, err error) {
	n := len(x)
	if n < MinBatches {
		return Interval{}, false, fmt.Errorf("%w: %d observations, need %d", ErrTooShort, n, MinBatches)
	}
	b := 1
	var means []float64
	for {
		means = batchMeans(x, b)
		r := lag1(means)
		ok = r < MaxLag1
		if ok || n/(2*b) < MinBatches {
			break
		}
		b *= 2
	}
	iv, err = MeanInterval(means, conf)
	iv.BatchSize = b
	return iv, ok, err
}

// batchMeans returns the means of the n/b batches of size b, the batches
// aligned on the end of the series.
func batchMeans(x []float64, b int) []float64 {
	k := len(x) / b
	x = x[len(x)-k*b:]
	out := make([]float64, k)
	for i := range out {
		out[i] = stat.Mean(x[i*b:(i+1)*b], nil)
	}
	return out
}

// lag1 is the lag-1 autocorrelation estimate of x (0 for a constant series).
func lag1(x []float64) float64 {
	m := stat.Mean(x, nil)
	var num, den float64
	for i, v := range x {
		d := v - m
		den += d * d
		if i > 0 {
			num += d * (x[i-1] - m)
		}
	}
	if den == 0 {
		return 0
	}
	return num / den
}

// MSERBatch is the batch size of MSER-5.
const MSERBatch = 5

// MSER5 returns the MSER-5 truncation point of x (White 1997; Franklin and
// White 2008): x is averaged in batches of 5, and the truncation d (in
// batches, 0 ≤ d ≤ k/2) minimising the squared standard error of the mean
// of the kept batches, Σ(z−z̄)²/(k−d)², is chosen. It returns the number of
// observations to drop and whether the minimum lies inside the first half
// (on its edge the series has not settled yet: the warm-up is not over).
func MSER5(x []float64) (trunc int, settled bool) {
	z := batchMeans(x[:len(x)/MSERBatch*MSERBatch], MSERBatch)
	k := len(z)
	if k < 2 {
		return 0, false
	}
	// suffix sums from the end give each candidate's statistic in O(k)
	best, bestD := math.Inf(1), 0
	var s, s2 float64
	stats := make([]float64, k)
	for d := k - 1; d >= 0; d-- {
		s += z[d]
		s2 += z[d] * z[d]
		m := float64(k - d)
		ss := s2 - s*s/m
		stats[d] = max(ss, 0) / (m * m)
	}
	// only the first half is searched (the statistic is erratic when few
	// batches are kept); a minimum on its edge means still changing
	half := k / 2
	for d := 0; d <= half; d++ {
		if stats[d] < best {
			best, bestD = stats[d], d
		}
	}
	return bestD * MSERBatch, bestD < half
}

// Trend is the least-squares slope of x per observation and its change
// over the whole series relative to the mean (0.03: the fitted line rises
// 3 % of the mean from the first to the last observation).
func Trend(x []float64) (slope, rel float64) {
	if len(x) < 2 {
		return 0, 0
	}
	t := make([]float64, len(x))
	for i := range t {
		t[i] = float64(i)
	}
	_, slope = stat.LinearRegression(t, x, nil, false)
	if m := stat.Mean(x, nil); m != 0 {
		rel = slope * float64(len(x)-1) / math.Abs(m)
	}
	return slope, rel
}
