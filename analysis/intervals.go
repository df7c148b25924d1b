package analysis

import (
	"github.com/rightsize/rightsize/steady"
	"github.com/rightsize/rightsize/store"
	"github.com/rightsize/rightsize/tpcc"
)

// singleRepeat returns, for a group of one step, that step's batch-means
// intervals of TPM and NOPM as it stored them (zero half-widths when it
// has none); zero intervals for several repeats, where the interval
// across repeats is the one to use. N stays 0: the batch count is not
// stored.
func singleRepeat(group []*store.Step) (tpm, nopm steady.Interval) {
	if len(group) != 1 {
		return tpm, nopm
	}
	st := group[0]
	conf := st.Confidence
	if conf <= 0 {
		conf = 0.95
	}
	tpm = steady.Interval{Mean: st.TPM, Half: st.TPMCIHalf, Confidence: conf}
	nopm = steady.Interval{Mean: st.NOPM, Half: st.NOPMCIHalf, Confidence: conf}
	return tpm, nopm
}

// newOrderP90AcrossRepeats is the t interval of the mean of the steps'
// New-Order p90 latencies (zero unless at least two steps measured it).
func newOrderP90AcrossRepeats(group []*store.Step) steady.Interval {
	conf := 0.95
	var p90 []float64
	for _, st := range group {
		if t := tpcc.Merit.Counted(st.Txn); t != nil {
			p90 = append(p90, t.P90Ms)
		}
		if st.Confidence > 0 {
			conf = st.Confidence
		}
	}
	iv, err := steady.MeanInterval(p90, conf)
	if err != nil {
		return steady.Interval{}
	}
	return iv
}
