package store

import (
	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// Merit names the figure a workload is judged by: the transaction type
// whose per-minute rate is its throughput figure and whose latency its
// gates and fits read (TPC-C's is New-Order and NOPM, tpcc.Merit). A
// workload supplies its own value; code that judges a step reads the
// figure through it rather than by a type's name. An empty Txn means
// every transaction (a pgbench workload's overall TPS).
type Merit struct {
	// Txn is the transaction type judged, as stored in TxnSummary.Type;
	// "" is all of them.
	Txn string
	// PerMinute is the heading of its per-minute rate ("NOPM").
	PerMinute string
}

// All reports whether m judges every transaction together.
func (m Merit) All() bool { return m.Txn == "" }

// FigureEveryScript is Name of a pgbench workload's merit when every
// script's transactions count (then it is the TPM itself).
const FigureEveryScript = "TPM" + ofEveryScript

const ofEveryScript = " of every script"

// Name names a pgbench workload's figure of merit (Run.WorkloadMerit) the
// same in every view: FigureEveryScript, or "TPM of SCRIPT".
func (m Merit) Name() string {
	if m.All() {
		return m.PerMinute + ofEveryScript
	}
	return m.PerMinute + " of " + m.Txn
}

// Of is the summary of m's transaction among txns, nil when absent. For
// every transaction (All) it is their sum: counts added, latencies from
// the merged histograms (the largest of each when a histogram is
// missing); nil when txns is empty.
func (m Merit) Of(txns []TxnSummary) *TxnSummary {
	if m.All() {
		return allOf(txns)
	}
	for i := range txns {
		if txns[i].Type == m.Txn {
			return &txns[i]
		}
	}
	return nil
}

// Counted is Of when the transaction completed at least once, else nil.
func (m Merit) Counted(txns []TxnSummary) *TxnSummary {
	if t := m.Of(txns); t != nil && t.Count > 0 {
		return t
	}
	return nil
}

// allOf sums txns into one summary of type "".
func allOf(txns []TxnSummary) *TxnSummary {
	if len(txns) == 0 {
		return nil
	}
	var sum TxnSummary
	var merged *hdrhistogram.Histogram
	whole := true
	for _, t := range txns {
		sum.Count += t.Count
		sum.Rollbacks += t.Rollbacks
		sum.Retries += t.Retries
		sum.Errors += t.Errors
		sum.P50Ms, sum.P90Ms, sum.P95Ms = max(sum.P50Ms, t.P50Ms), max(sum.P90Ms, t.P90Ms), max(sum.P95Ms, t.P95Ms)
		sum.P99Ms, sum.MaxMs = max(sum.P99Ms, t.P99Ms), max(sum.MaxMs, t.MaxMs)
		if sum.FirstError == "" {
			sum.FirstError = t.FirstError
		}
		h, err := decodeHist(t.Hist)
		if h == nil || err != nil {
			whole = whole && t.Count == 0
			continue
		}
		if merged == nil {
			merged = h
		} else {
			merged.Merge(h)
		}
	}
	if whole && merged != nil && merged.TotalCount() > 0 {
		ms := func(q float64) float64 { return float64(merged.ValueAtQuantile(q)) / 1000 }
		sum.P50Ms, sum.P90Ms, sum.P95Ms, sum.P99Ms = ms(50), ms(90), ms(95), ms(99)
		sum.MaxMs, sum.MeanMs = float64(merged.Max())/1000, merged.Mean()/1000
		if b, err := merged.Encode(hdrhistogram.V2CompressedEncodingCookieBase); err == nil {
			sum.Hist = b
		}
	}
	return &sum
}

// decodeHist decodes a stored histogram (nil for none).
func decodeHist(b HdrHist) (*hdrhistogram.Histogram, error) {
	if len(b) == 0 {
		return nil, nil
	}
	return hdrhistogram.Decode(b)
}
