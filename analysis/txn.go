package analysis

import (
	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/rightsize/rightsize/store"
)

// mergeTxn merges transaction summaries of the same type across steps, in
// the order the types first appear.
func mergeTxn(group []*store.Step) []store.TxnSummary {
	var types []string
	byType := map[string][]*store.TxnSummary{}
	for _, st := range group {
		for i := range st.Txn {
			t := &st.Txn[i]
			if _, ok := byType[t.Type]; !ok {
				types = append(types, t.Type)
			}
			byType[t.Type] = append(byType[t.Type], t)
		}
	}
	out := make([]store.TxnSummary, 0, len(types))
	for _, typ := range types {
		out = append(out, mergeOne(typ, byType[typ]))
	}
	return out
}

func mergeOne(typ string, ts []*store.TxnSummary) store.TxnSummary {
	m := store.TxnSummary{Type: typ}
	var merged *hdrhistogram.Histogram
	exact := true
	var weighted float64
	for _, t := range ts {
		m.Count += t.Count
		m.Rollbacks += t.Rollbacks
		m.Retries += t.Retries
		m.Errors += t.Errors
		if m.FirstError == "" {
			m.FirstError = t.FirstError
		}
		m.MaxMs = max(m.MaxMs, t.MaxMs)
		weighted += t.MeanMs * float64(t.Count)
		n := float64(len(ts))
		m.P50Ms += t.P50Ms / n
		m.P90Ms += t.P90Ms / n
		m.P95Ms += t.P95Ms / n
		m.P99Ms += t.P99Ms / n
		if !exact {
			continue
		}
		h, err := decodeHist(t.Hist)
		if err != nil || h == nil {
			exact = false
			continue
		}
		if merged == nil {
			merged = h
		} else {
			merged.Merge(h)
		}
	}
	if m.Count > 0 {
		m.MeanMs = weighted / float64(m.Count)
	}
	if exact && merged != nil {
		ms := func(v int64) float64 { return float64(v) / 1000 }
		m.P50Ms = ms(merged.ValueAtQuantile(50))
		m.P90Ms = ms(merged.ValueAtQuantile(90))
		m.P95Ms = ms(merged.ValueAtQuantile(95))
		m.P99Ms = ms(merged.ValueAtQuantile(99))
		m.MaxMs = ms(merged.Max())
		if merged.TotalCount() > 0 {
			m.MeanMs = merged.Mean() / 1000
		}
		if b, err := merged.Encode(hdrhistogram.V2CompressedEncodingCookieBase); err == nil {
			m.Hist = b
		}
	}
	return m
}

// decodeHist decodes a stored histogram (nil for none).
func decodeHist(b store.HdrHist) (*hdrhistogram.Histogram, error) {
	if len(b) == 0 {
		return nil, nil
	}
	return hdrhistogram.Decode(b)
}
