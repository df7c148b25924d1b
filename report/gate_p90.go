package report

import (
	"slices"
	"time"

	"github.com/rightsize/rightsize/steady"
	"github.com/rightsize/rightsize/store"
)

// windowSlack is how far a window may reach past the measured interval
// and still count as inside it: the recorder's windows start on whole
// seconds from the step's start.
const windowSlack = time.Second

// WindowPercentile is the interval of a single repeat's latency
// percentile q (90 for p90) of transaction type typ, ms: the mean of the
// percentiles of the windows that lie inside the measured interval with
// the t interval of that mean (batch means, a window one batch). ok is
// false with fewer than two such windows (or undecodable histograms).
func WindowPercentile(s store.Step, typ string, q, conf float64) (iv steady.Interval, ok bool) {
	var offs []time.Duration
	for _, w := range s.Windows {
		if w.Type == typ {
			offs = append(offs, w.Offset)
		}
	}
	slices.Sort(offs)
	length := 10 * time.Second // the recorder's window, when one window tells nothing
	if len(offs) > 1 {
		length = offs[1] - offs[0]
	}
	from, to := s.MeasureStart.Sub(s.Start)-windowSlack, s.MeasureEnd.Sub(s.Start)+windowSlack
	var ps []float64
	for _, w := range s.Windows {
		if w.Type != typ || w.Offset < from || w.Offset+length > to {
			continue
		}
		h, err := decodeHist(w.Hist)
		if err != nil || h == nil || h.TotalCount() == 0 {
			continue
		}
		ps = append(ps, float64(h.ValueAtQuantile(q))/1000)
	}
	iv, err := steady.MeanInterval(ps, conf)
	return iv, err == nil
}

// onlyRepeat is a run's one complete step at users, nil when it has none
// or several repeats (then the interval across repeats is used).
func onlyRepeat(steps []store.Step, users int) *store.Step {
	var one *store.Step
	for i := range steps {
		s := &steps[i]
		if s.Users != users || s.Partial {
			continue
		}
		if one != nil {
			return nil
		}
		one = s
	}
	return one
}

// windowP90 is the New-Order p90 interval of a run's single repeat at
// users from its windows (WindowPercentile); nil when there is none.
func windowP90(steps []store.Step, users int, typ string) *steady.Interval {
	s := onlyRepeat(steps, users)
	if s == nil {
		return nil
	}
	conf := s.Confidence
	if conf <= 0 {
		conf = 0.95
	}
	iv, ok := WindowPercentile(*s, typ, 90, conf)
	if !ok {
		return nil
	}
	return &iv
}

// newOrderP99 is a run's New-Order p99 at users as judged: with two or
// more complete repeats the mean of their p99 with its t interval, with
// one the mean of its measured windows' p99 (WindowPercentile), else its
// p99 without an interval; nil when it has no New-Order latency there.
func newOrderP99(steps []store.Step, users int, m store.Merit, typ string) *Estimate {
	var ps []float64
	var one *store.Step
	for i := range steps {
		if s := &steps[i]; s.Users == users && !s.Partial {
			if t := m.Counted(s.Txn); t != nil {
				ps, one = append(ps, t.P99Ms), s
			}
		}
	}
	switch {
	case len(ps) >= 2:
		iv, _ := steady.MeanInterval(ps, 0.95)
		return &Estimate{Value: iv.Mean, Half: iv.Half, Interval: FromRepeats}
	case len(ps) == 0:
		return nil
	}
	if iv, ok := WindowPercentile(*one, typ, 99, 0.95); ok {
		return &Estimate{Value: iv.Mean, Half: iv.Half, Interval: FromWindows}
	}
	return &Estimate{Value: ps[0], Interval: NoInterval}
}
