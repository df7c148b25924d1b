package cost

import (
	"math"

	"github.com/rightsize/rightsize/analysis"
	"github.com/rightsize/rightsize/steady"
	"github.com/rightsize/rightsize/store"
)

// averageIntervals are the confidence intervals of a run's average TPM
// and NOPM over all steps (each users count once, as Figures.AvgTPM): a
// step's interval is the one across its repeats, or with one repeat the
// batch-means interval stored with the step; the average of k
// independent means has the half-width √(Σ half²)/k. The half-width is 0
// (unknown) when a step has no interval.
func averageIntervals(steps []store.Step) (tpm, nopm steady.Interval) {
	aggs := analysis.Aggregate(steps)
	single := map[int]*store.Step{} // a step index's one complete repeat
	for i := range steps {
		if s := &steps[i]; !s.Partial {
			single[s.Index] = s
		}
	}
	var sumT, sumN, ssT, ssN float64
	known := len(aggs) > 0
	conf := 0.95
	for _, a := range aggs {
		ht, hn := a.TPMCI.Half, a.NOPMCI.Half
		if a.TPMCI.N < 2 {
			ht, hn = 0, 0
			if s := single[a.Index]; s != nil && a.Repeats == 1 {
				ht, hn = s.TPMCIHalf, s.NOPMCIHalf
				if s.Confidence > 0 {
					conf = s.Confidence
				}
			}
		} else {
			conf = a.TPMCI.Confidence
		}
		known = known && ht > 0 && hn > 0
		sumT, sumN = sumT+a.TPM.Mean, sumN+a.NOPM.Mean
		ssT, ssN = ssT+ht*ht, ssN+hn*hn
	}
	k := float64(len(aggs))
	if k == 0 {
		return tpm, nopm
	}
	tpm = steady.Interval{Mean: sumT / k, Confidence: conf, N: len(aggs)}
	nopm = steady.Interval{Mean: sumN / k, Confidence: conf, N: len(aggs)}
	if known {
		tpm.Half, nopm.Half = math.Sqrt(ssT)/k, math.Sqrt(ssN)/k
	}
	return tpm, nopm
}

// withHalf is "10,200 ± 300", or "10,200" without a half-width.
func withHalf(iv steady.Interval) string {
	if iv.Half <= 0 {
		return fmtInt(iv.Mean)
	}
	return fmtInt(iv.Mean) + " ± " + fmtInt(iv.Half)
}
