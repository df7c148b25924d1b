package analysis

import (
	"slices"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/rightsize/rightsize/store"
)

// StatementFigures returns s with the figures of hist (microseconds):
// its count, percentiles, maximum, mean and the encoded histogram.
func StatementFigures(s store.StatementSummary, hist *hdrhistogram.Histogram) store.StatementSummary {
	if hist == nil || hist.TotalCount() == 0 {
		return s
	}
	ms := func(us int64) float64 { return float64(us) / 1000 }
	s.Count = hist.TotalCount()
	s.P50Ms, s.P90Ms, s.P95Ms = ms(hist.ValueAtQuantile(50)), ms(hist.ValueAtQuantile(90)), ms(hist.ValueAtQuantile(95))
	s.P99Ms, s.MaxMs, s.MeanMs = ms(hist.ValueAtQuantile(99)), ms(hist.Max()), hist.Mean()/1000
	if b, err := hist.Encode(hdrhistogram.V2CompressedEncodingCookieBase); err == nil {
		s.Hist = b
	}
	return s
}

// MergeStatements merges the statement summaries of steps (the workers'
// parts of one step, or one number of users' repeats): one per script and
// command, in the order they first appear, with the figures of the merged
// histograms (exact). A summary without a histogram adds its count only.
func MergeStatements(steps []*store.Step) []store.StatementSummary {
	type key struct {
		typ   string
		index int
	}
	var keys []key
	sums := map[key]*store.StatementSummary{}
	hists := map[key]*hdrhistogram.Histogram{}
	for _, st := range steps {
		for _, x := range st.Statements {
			k := key{x.Type, x.Index}
			m, ok := sums[k]
			if !ok {
				keys = append(keys, k)
				m = &store.StatementSummary{Type: x.Type, Index: x.Index, Line: x.Line, Text: x.Text}
				sums[k] = m
			}
			h, err := decodeHist(x.Hist)
			if err != nil || h == nil {
				m.Count += x.Count
				continue
			}
			if hists[k] == nil {
				hists[k] = h
			} else {
				hists[k].Merge(h)
			}
		}
	}
	if len(keys) == 0 {
		return nil // TPC-C
	}
	out := make([]store.StatementSummary, 0, len(keys))
	for _, k := range keys {
		s := *sums[k]
		if h := hists[k]; h != nil {
			n := s.Count
			s = StatementFigures(s, h)
			s.Count += n
		}
		out = append(out, s)
	}
	return out
}

// StatementStep is the statements of a workload's scripts at one number
// of users, merged over its repeats (MergeStatements).
type StatementStep struct {
	Users      int                      `json:"users"`
	Statements []store.StatementSummary `json:"statements"`
}

// WorkloadStatements is each users step's statements, fewest users first
// (none when no step has any: TPC-C).
func WorkloadStatements(steps []store.Step) []StatementStep {
	byUsers := map[int][]*store.Step{}
	var users []int
	for i := range steps {
		s := &steps[i]
		if len(s.Statements) == 0 {
			continue
		}
		if _, ok := byUsers[s.Users]; !ok {
			users = append(users, s.Users)
		}
		byUsers[s.Users] = append(byUsers[s.Users], s)
	}
	slices.Sort(users)
	out := make([]StatementStep, 0, len(users))
	for _, u := range users {
		out = append(out, StatementStep{Users: u, Statements: MergeStatements(byUsers[u])})
	}
	return out
}
