// Package txnlog writes a step's per-transaction log in pgbench -l's
// format (PostgreSQL 17's pgbench documentation, "Per-Transaction
// Logging"), one line per measured transaction of a pgbench workload:
//
//	client_id transaction_no time script_no time_epoch time_us [schedule_lag] [retries]
//
// time is the latency in µs, or "failed" / "skipped"; time_epoch and
// time_us are when the line was logged; schedule_lag (µs) is there when
// the run is paced (--rate), retries when a transaction may be tried
// more than once (--max-tries other than 1). A failed or skipped line's
// lag is 0, as pgbench's. With Options.Aggregate a line per interval
// instead, pgbench --aggregate-interval's (aggregate.go).
package txnlog

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/rightsize/rightsize/driver"
	"github.com/rightsize/rightsize/pgbench/prng"
)

// Options say which columns a log has and which lines it keeps.
type Options struct {
	Lag     bool // the schedule_lag column (a paced run's)
	Retries bool // the retries column (max tries other than 1)
	// SamplingRate, in (0, 1], is the share of transactions logged, each
	// drawn (pgbench --sampling-rate); 0 logs every one.
	SamplingRate float64
	// Seed seeds the sampling's draws (each user's its own stream).
	Seed uint64
	// Aggregate, when above 0, writes a line per interval of this length
	// instead of one per transaction (pgbench --aggregate-interval; see
	// aggregate.go); not with SamplingRate.
	Aggregate time.Duration
}

// flushAt is how much a user's buffer holds before it is written.
const flushAt = 32 << 10

// File is one step's log. Its users' lines are buffered each on its own
// and written whole under one lock, so lines never interleave.
type File struct {
	path  string
	opt   Options
	mu    sync.Mutex
	f     *os.File
	err   error // the first write's error
	users []*userLog
	agg   *aggregator // with Options.Aggregate
}

// Create makes the log at path, which must not exist yet (a log of an
// earlier run is never overwritten, nor a link followed).
func Create(path string, opt Options) (*File, error) {
	if opt.SamplingRate < 0 || opt.SamplingRate > 1 {
		return nil, fmt.Errorf("sampling rate %g: give a share above 0 and at most 1", opt.SamplingRate)
	}
	if opt.Aggregate < 0 || (opt.Aggregate > 0 && opt.SamplingRate > 0) {
		return nil, fmt.Errorf("aggregate interval %s with sampling rate %g: aggregate every transaction, or sample a log of each", opt.Aggregate, opt.SamplingRate)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, fs.ErrExist) {
		return nil, fmt.Errorf("transaction log %s exists (an earlier run's?): move it away or give another --log-prefix", path)
	}
	if err != nil {
		return nil, fmt.Errorf("create the transaction log: %w", err)
	}
	l := &File{path: path, opt: opt, f: f}
	if opt.Aggregate > 0 {
		l.agg = &aggregator{every: opt.Aggregate}
	}
	return l, nil
}

// Window implements driver.TxnLog: an aggregated log's intervals start
// at the window's start and end with its end.
func (l *File) Window(start, end time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.agg != nil && l.agg.cur == nil {
		l.agg.start = start
	}
	if l.agg != nil {
		l.agg.end = end
	}
}

// Path is the log's file name.
func (l *File) Path() string { return l.path }

// userLog is one user's buffered lines.
type userLog struct {
	l      *File
	id     int
	n      int64 // transactions seen, logged or not (transaction_no)
	sample *prng.State
	buf    []byte
}

// User implements driver.TxnLog.
func (l *File) User(id int) func(driver.TxnEntry) {
	if l.agg != nil {
		return l.addAggregated
	}
	u := &userLog{l: l, id: id, buf: make([]byte, 0, flushAt+256)}
	if l.opt.SamplingRate > 0 {
		u.sample = prng.New(l.opt.Seed ^ uint64(id+1)*0x9e3779b97f4a7c15)
	}
	l.mu.Lock()
	l.users = append(l.users, u)
	l.mu.Unlock()
	return u.add
}

// add logs one transaction.
func (u *userLog) add(e driver.TxnEntry) {
	u.n++
	if u.sample != nil && u.sample.Float64() > u.l.opt.SamplingRate {
		return
	}
	u.buf = appendLine(u.buf, u.id, u.n, e, u.l.opt)
	if len(u.buf) >= flushAt {
		u.l.write(u.buf)
		u.buf = u.buf[:0]
	}
}

// appendLine appends e's line, pgbench's columns.
func appendLine(b []byte, id int, n int64, e driver.TxnEntry, opt Options) []byte {
	b = strconv.AppendInt(b, int64(id), 10)
	b = append(b, ' ')
	b = strconv.AppendInt(b, n, 10)
	b = append(b, ' ')
	switch e.Status {
	case driver.TxnFailed:
		b = append(b, "failed"...)
	case driver.TxnSkipped:
		b = append(b, "skipped"...)
	default:
		b = appendUs(b, e.Latency)
	}
	b = append(b, ' ')
	b = strconv.AppendInt(b, int64(e.Kind), 10)
	us := e.End.UnixMicro()
	b = append(b, ' ')
	b = strconv.AppendInt(b, us/1e6, 10)
	b = append(b, ' ')
	b = strconv.AppendInt(b, us%1e6, 10)
	if opt.Lag {
		b = append(b, ' ')
		b = appendUs(b, e.Lag)
	}
	if opt.Retries {
		b = append(b, ' ')
		b = strconv.AppendInt(b, int64(max(e.Tries-1, 0)), 10)
	}
	return append(b, '\n')
}

// appendUs appends d in whole µs, rounded as pgbench's "%.0f".
func appendUs(b []byte, d time.Duration) []byte {
	return strconv.AppendInt(b, us(d), 10)
}

// write writes b whole, keeping the first error.
func (l *File) write(b []byte) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.writeLocked(b)
}

// writeLocked is write with l.mu held.
func (l *File) writeLocked(b []byte) {
	if l.err != nil {
		return
	}
	if _, err := l.f.Write(b); err != nil {
		l.err = fmt.Errorf("write the transaction log %s: %w", l.path, err)
	}
}

// Close writes what the users' buffers hold and closes the file; called
// once the step's users are done. Its error is the first write's.
func (l *File) Close() error {
	if l.agg != nil {
		l.agg.finish(time.Now())
		l.write(l.agg.buf)
	}
	for _, u := range l.users {
		if len(u.buf) > 0 {
			l.write(u.buf)
			u.buf = nil
		}
	}
	err := l.f.Close()
	if l.err != nil {
		return l.err
	}
	if err != nil {
		return fmt.Errorf("close the transaction log %s: %w", l.path, err)
	}
	return nil
}
