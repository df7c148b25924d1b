package txnlog

import (
	"errors"
	"strconv"
	"time"

	"github.com/rightsize/rightsize/driver"
)

// An aggregated log (Options.Aggregate, pgbench --aggregate-interval) has
// a line per interval of the measured window, the 15 columns pgbench 15
// and later write, every one always there (0 where it does not apply):
//
//	interval_start num_transactions sum_latency sum_latency_2 min_latency max_latency
//	sum_lag sum_lag_2 min_lag max_lag skipped retried retries serialization_failures deadlock_failures
//
// Latencies and lags are in µs; interval_start is a Unix time in seconds.
// The intervals start at the window's start, and the last ends at or past
// its end.

// simpleStats is pgbench's SimpleStats: count, sum, sum of squares, min
// and max.
type simpleStats struct {
	n                   int64
	sum, sum2, min, max float64
}

func (s *simpleStats) add(v float64) {
	if s.n == 0 || v < s.min {
		s.min = v
	}
	if s.n == 0 || v > s.max {
		s.max = v
	}
	s.n++
	s.sum += v
	s.sum2 += v * v
}

// interval is one aggregated line's figures.
type interval struct {
	start                                                     time.Time
	cnt, skipped, retried, retries, serialization, deadlocked int64
	lat, lag                                                  simpleStats
}

// add counts e as pgbench's accumStats does: a skipped transaction only
// as skipped; retries whether it completed or failed; a completed one's
// latency (and, paced, its lag); a failure by its kind. A failure that is
// neither a serialization failure nor a deadlock (one pgbench would abort
// its client on) is in no column.
func (iv *interval) add(e driver.TxnEntry, lag bool) {
	if e.Status == driver.TxnSkipped {
		iv.skipped++
		return
	}
	if e.Tries > 1 {
		iv.retried++
		iv.retries += int64(e.Tries - 1)
	}
	switch {
	case e.Status == driver.TxnCompleted:
		iv.cnt++
		iv.lat.add(float64(us(e.Latency)))
		if lag {
			iv.lag.add(float64(us(e.Lag)))
		}
	case isDeadlock(e.Err):
		iv.deadlocked++
	case isRetryable(e.Err):
		iv.serialization++
	}
}

func isDeadlock(err error) bool {
	var d interface{ Deadlock() bool }
	return errors.As(err, &d) && d.Deadlock()
}

func isRetryable(err error) bool {
	var r interface{ Retryable() bool }
	return errors.As(err, &r) && r.Retryable()
}

// us is d in whole µs, rounded.
func us(d time.Duration) int64 { return (int64(d) + 500) / 1000 }

// appendInterval appends iv's line.
func appendInterval(b []byte, iv *interval) []byte {
	b = strconv.AppendInt(b, iv.start.Unix(), 10)
	b = append(b, ' ')
	b = strconv.AppendInt(b, iv.cnt, 10)
	for _, s := range []*simpleStats{&iv.lat, &iv.lag} {
		for _, v := range []float64{s.sum, s.sum2, s.min, s.max} {
			b = append(b, ' ')
			b = strconv.AppendFloat(b, v, 'f', 0, 64)
		}
	}
	for _, n := range []int64{iv.skipped, iv.retried, iv.retries, iv.serialization, iv.deadlocked} {
		b = append(b, ' ')
		b = strconv.AppendInt(b, n, 10)
	}
	return append(b, '\n')
}

// aggregator is an aggregated log's state, under File.mu.
type aggregator struct {
	every      time.Duration
	start, end time.Time // the measured window (File.Window)
	cur        *interval // nil until the first transaction
	buf        []byte
}

// add counts e into its interval, first writing every interval before it.
func (l *File) addAggregated(e driver.TxnEntry) {
	l.mu.Lock()
	defer l.mu.Unlock()
	a := l.agg
	if a.cur == nil {
		start := a.start
		if start.IsZero() || e.End.Before(start) {
			start = e.End
		}
		a.cur = &interval{start: start}
	}
	for !e.End.Before(a.cur.start.Add(a.every)) {
		a.next()
	}
	a.cur.add(e, l.opt.Lag)
	if len(a.buf) >= flushAt {
		l.writeLocked(a.buf)
		a.buf = a.buf[:0]
	}
}

// next closes the current interval: its line, and the next one begun.
func (a *aggregator) next() {
	a.buf = appendInterval(a.buf, a.cur)
	a.cur = &interval{start: a.cur.start.Add(a.every)}
}

// finish writes the intervals left at now: the current one and any after
// it up to the window's end, or to now when the step stopped before it
// (empty ones too, as pgbench writes an interval with no transaction).
func (a *aggregator) finish(now time.Time) {
	if a.cur == nil {
		if a.start.IsZero() {
			return
		}
		a.cur = &interval{start: a.start}
	}
	limit := a.end
	if limit.IsZero() || now.Before(limit) {
		limit = now
	}
	for {
		a.next()
		if !a.cur.start.Before(limit) {
			return
		}
	}
}
