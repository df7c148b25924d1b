package driver

import (
	"sync"
	"sync/atomic"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/rightsize/rightsize/tpcc"
)

// Latencies are recorded in microseconds, 1 µs .. 60 s, 3 significant digits.
const (
	histMin     = 1
	histMax     = 60_000_000
	histSigFigs = 3
	// WindowLength is the span of one latency window of the time series.
	WindowLength = 10 * time.Second
	shards       = 16
)

func newHist() *hdrhistogram.Histogram { return hdrhistogram.New(histMin, histMax, histSigFigs) }

// recorder collects latencies of one step from many virtual users. Users
// are spread over shards so they rarely contend for a lock.
type recorder struct {
	shards [shards]shard
	// per-second completed transactions and New-Orders since step start
	perSecTxn, perSecNO []atomic.Int64
	stepStart           time.Time
	// errors counts failed transactions since the step started (read
	// live by progress; incremented only on the error path).
	errors atomic.Int64
	// retries counts retried attempts since the step started (live, error
	// path only).
	retries atomic.Int64
	// kinds is the number of transaction kinds; figure the kind counted
	// in perSecNO (tpcc.NewOrderTxn for TPC-C), every kind with anyKind.
	kinds   int
	figure  tpcc.TxnType
	anyKind bool
	// stmts, for a StatementWorkload, records its commands' latencies
	// (nil otherwise).
	stmts *stmtRecorder
}

// A transaction is recorded once, into the current window's measured or
// unmeasured histogram; rotating the window adds the measured one into
// step. (Recording into a window and the step's histograms both was two
// cold cache lines per transaction, each in its own 216 KB of counters.)
// A histogram is made when first recorded into: with few users most
// shards stay empty.
type shard struct {
	mu sync.Mutex
	// step: the measured interval's closed windows; winM, winU: the
	// current 10 s window's measured and unmeasured transactions (nil
	// until used)
	step, winM, winU []*hdrhistogram.Histogram
	_                [64]byte
}

// newRecorder is TPC-C's recorder: its five types, New-Orders per second.
func newRecorder(stepStart time.Time, seconds int) *recorder {
	return newKindRecorder(stepStart, seconds, int(tpcc.NumTxnTypes), int(tpcc.NewOrderTxn))
}

// newKindRecorder records kinds transaction kinds, counting figure's (or,
// when figure is negative, every kind's) completions per second beside
// the total.
func newKindRecorder(stepStart time.Time, seconds, kinds int, figure int) *recorder {
	r := &recorder{stepStart: stepStart, perSecTxn: make([]atomic.Int64, seconds+1), perSecNO: make([]atomic.Int64, seconds+1),
		kinds: kinds, figure: tpcc.TxnType(max(figure, 0)), anyKind: figure < 0}
	for i := range r.shards {
		h := make([]*hdrhistogram.Histogram, 3*kinds)
		s := &r.shards[i]
		s.step, s.winM, s.winU = h[:kinds:kinds], h[kinds:2*kinds:2*kinds], h[2*kinds:]
	}
	return r
}

func clampUs(d time.Duration) int64 {
	us := d.Microseconds()
	if us < histMin {
		return histMin
	}
	if us > histMax {
		return histMax
	}
	return us
}

// record adds one completed transaction of kind t (a tpcc.TxnType for
// TPC-C, a Workload's kind index otherwise) that ended at end.
func (r *recorder) record(user int, t tpcc.TxnType, lat time.Duration, end time.Time, measured bool) {
	if sec := int(end.Sub(r.stepStart) / time.Second); sec >= 0 && sec < len(r.perSecTxn) {
		r.perSecTxn[sec].Add(1)
		if t == r.figure || r.anyKind {
			r.perSecNO[sec].Add(1)
		}
	}
	us := clampUs(lat)
	s := &r.shards[user%shards]
	h := &s.winU[t]
	if measured {
		h = &s.winM[t]
	}
	s.mu.Lock()
	_ = made(h).RecordValue(us)
	s.mu.Unlock()
}

// rotate closes the current window and returns its merged histograms.
func (r *recorder) rotate() []*hdrhistogram.Histogram { return r.merge(true) }

// merged returns the measured-interval histograms of every type.
func (r *recorder) merged() []*hdrhistogram.Histogram { return r.merge(false) }

// merge adds up the shards' histograms of each type: the current window's
// (measured and not), which it empties, adding the measured ones into the
// step's; or the measured interval's (the step's and the current window's
// measured ones). A histogram has some 27,000 counters, which Merge walks
// and Reset clears: the histograms no user recorded into (most of them,
// with few users, not even made) are skipped.
func (r *recorder) merge(window bool) []*hdrhistogram.Histogram {
	out := make([]*hdrhistogram.Histogram, r.kinds)
	for t := range out {
		out[t] = newHist()
	}
	for i := range r.shards {
		s := &r.shards[i]
		s.mu.Lock()
		for t := range out {
			if window {
				s.closeWindow(t, out[t])
			} else {
				mergeInto(out[t], s.step[t])
				mergeInto(out[t], s.winM[t])
			}
		}
		s.mu.Unlock()
	}
	return out
}

// closeWindow adds type t's current window into w and its measured part
// into the step's, and empties the window.
func (s *shard) closeWindow(t int, w *hdrhistogram.Histogram) {
	if mergeInto(w, s.winU[t]) {
		s.winU[t].Reset()
	}
	if mergeInto(w, s.winM[t]) {
		made(&s.step[t]).Merge(s.winM[t])
		s.winM[t].Reset()
	}
}

// made returns *h, making it first if it is nil.
func made(h **hdrhistogram.Histogram) *hdrhistogram.Histogram {
	if *h == nil {
		*h = newHist()
	}
	return *h
}

// mergeInto adds h into dst unless h is nil or empty; it reports whether
// it did.
func mergeInto(dst, h *hdrhistogram.Histogram) bool {
	if h == nil || h.TotalCount() == 0 {
		return false
	}
	dst.Merge(h)
	return true
}

// progress computes the live figures of a step at now from the per-second
// counters; p95 is the last finished window's.
func (r *recorder) progress(now time.Time, cfg StepConfig, measureStart time.Time, p95 time.Duration) Progress {
	p := Progress{Users: cfg.Users, Errors: r.errors.Load(), Retries: r.retries.Load(), P95: p95}
	if now.Before(measureStart) {
		p.Elapsed, p.Phase = now.Sub(r.stepStart), cfg.Rampup
	} else {
		p.Measuring, p.Elapsed, p.Phase = true, min(now.Sub(measureStart), cfg.Duration), cfg.Duration
	}
	// the last up to 10 whole seconds before now
	cur := int(now.Sub(r.stepStart) / time.Second)
	first := max(cur-10, 0)
	var txn, no int64
	for i := 0; i < cur && i < len(r.perSecTxn); i++ {
		t, n := r.perSecTxn[i].Load(), r.perSecNO[i].Load()
		p.Txn += t
		p.NewOrders += n
		if i >= first {
			txn += t
			no += n
		}
	}
	if n := cur - first; n > 0 {
		p.TPM = float64(txn) * 60 / float64(n)
		p.NOPM = float64(no) * 60 / float64(n)
	}
	return p
}

// p95 is the 95th percentile over every transaction type of the window.
func (w Window) p95() time.Duration {
	all := newHist()
	for _, h := range append(w.Hists[:], w.Kinds...) {
		if h != nil {
			all.Merge(h)
		}
	}
	if all.TotalCount() == 0 {
		return 0
	}
	return time.Duration(all.ValueAtQuantile(95)) * time.Microsecond
}
