package driver

import (
	"sync"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// Statement names one command of a Workload's kind (a line of a pgbench
// script): where it starts in its file and its first line.
type Statement struct {
	Line int
	Text string
}

// StatementWorkload is a Workload whose transactions are made of
// commands its Users time one by one (pgbench scripts, as pgbench -r
// reports them): the step then keeps a latency histogram per command.
type StatementWorkload interface {
	Workload
	// Statements names the commands of kind, in their order.
	Statements(kind int) []Statement
}

// StatementTimer is a User that times the commands of its transactions.
type StatementTimer interface {
	// Statements returns each command's time in the transaction Run
	// last ran (0: not run), valid until the next Run.
	Statements() []time.Duration
}

// StatementStats is one command of a kind over a step's measured
// interval: the time it took in each completed transaction that ran it
// (retries' tries added up).
type StatementStats struct {
	Kind  int // the Workload's kind
	Index int // the command's place among its kind's Statements
	Statement
	Hist *hdrhistogram.Histogram // microseconds
}

// stmtRecorder collects the commands' latencies of a step's measured
// transactions, its users spread over stmtShards shards; a histogram
// (some 140 KB) is made when first recorded into.
type stmtRecorder struct {
	names  [][]Statement
	shards [stmtShards]stmtShard
}

// stmtShards is fewer than the recorder's shards: a shard holds one
// histogram per command of every script (tpcb-like has 11), and its lock
// is held for a transaction's commands only (some 11 recordings, well
// under a microsecond, against the tens of microseconds of driver CPU a
// transaction costs), so four keep contention low and the memory at
// 4 × commands histograms.
const stmtShards = 4

type stmtShard struct {
	mu    sync.Mutex
	hists [][]*hdrhistogram.Histogram // [kind][command]
	_     [64]byte
}

// newStmtRecorder returns the recorder of w's commands, or nil when w
// does not time them.
func newStmtRecorder(w Workload) *stmtRecorder {
	sw, ok := w.(StatementWorkload)
	if !ok {
		return nil
	}
	r := &stmtRecorder{}
	for k := range w.Kinds() {
		r.names = append(r.names, sw.Statements(k))
	}
	for i := range r.shards {
		s := &r.shards[i]
		s.hists = make([][]*hdrhistogram.Histogram, len(r.names))
		for k, n := range r.names {
			s.hists[k] = make([]*hdrhistogram.Histogram, len(n))
		}
	}
	return r
}

// record adds the command times of one measured transaction of kind.
func (r *stmtRecorder) record(user, kind int, times []time.Duration) {
	if r == nil || kind < 0 || kind >= len(r.names) {
		return
	}
	s := &r.shards[user%stmtShards]
	s.mu.Lock()
	hs := s.hists[kind]
	for i, d := range times {
		if d > 0 && i < len(hs) {
			_ = made(&hs[i]).RecordValue(clampUs(d))
		}
	}
	s.mu.Unlock()
}

// stats merges the shards: every command recorded at least once, by kind
// then place.
func (r *stmtRecorder) stats() []StatementStats {
	if r == nil {
		return nil
	}
	var out []StatementStats
	for k, names := range r.names {
		for i, n := range names {
			var h *hdrhistogram.Histogram
			for j := range r.shards {
				s := &r.shards[j]
				s.mu.Lock()
				if x := s.hists[k][i]; x != nil && x.TotalCount() > 0 {
					mergeInto(made(&h), x)
				}
				s.mu.Unlock()
			}
			if h != nil {
				out = append(out, StatementStats{Kind: k, Index: i, Statement: n, Hist: h})
			}
		}
	}
	return out
}
