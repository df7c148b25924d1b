package storage

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// Histogram range of the builtin engine: microseconds, 1 µs .. 60 s, 3
// significant figures.
const (
	histMinUs   = 1
	histMaxUs   = 60_000_000
	histSigFigs = 3
)

// recorder accumulates one direction's latencies for one worker: an
// HdrHistogram in microseconds for the percentiles, plus exact nanosecond
// count, sum, sum of squares, min and max for the mean, standard deviation
// and extremes.
type recorder struct {
	hist     *hdrhistogram.Histogram
	n, bytes int64
	sum, sq  float64
	min, max int64
}

func newRecorder() *recorder {
	return &recorder{hist: hdrhistogram.New(histMinUs, histMaxUs, histSigFigs), min: math.MaxInt64}
}

// record adds one I/O of the given size that took ns nanoseconds.
func (r *recorder) record(ns int64, size int) {
	us := (ns + 500) / 1000
	if us < histMinUs {
		us = histMinUs
	} else if us > histMaxUs {
		us = histMaxUs
	}
	_ = r.hist.RecordValue(us) // in range by construction
	r.n++
	r.bytes += int64(size)
	f := float64(ns)
	r.sum += f
	r.sq += f * f
	if ns < r.min {
		r.min = ns
	}
	if ns > r.max {
		r.max = ns
	}
}

// merge adds o into r.
func (r *recorder) merge(o *recorder) {
	if o.n == 0 {
		return
	}
	r.hist.Merge(o.hist)
	r.n += o.n
	r.bytes += o.bytes
	r.sum += o.sum
	r.sq += o.sq
	r.min = min(r.min, o.min)
	r.max = max(r.max, o.max)
}

// side turns the recorder into a Side over elapsed.
func (r *recorder) side(elapsed time.Duration) Side {
	s := Side{Bytes: r.bytes, IOs: r.n}
	if r.n == 0 {
		return s
	}
	if sec := elapsed.Seconds(); sec > 0 {
		s.IOPS = float64(r.n) / sec
		s.MBps = float64(r.bytes) / sec / (1 << 20)
	}
	mean := r.sum / float64(r.n)
	variance := r.sq/float64(r.n) - mean*mean
	if variance < 0 {
		variance = 0
	}
	q := func(p float64) float64 { return float64(r.hist.ValueAtQuantile(p)) / 1e3 }
	s.Latency = Latency{
		MinMs: float64(r.min) / 1e6, MaxMs: float64(r.max) / 1e6,
		P25Ms: q(25), P50Ms: q(50), P75Ms: q(75), P90Ms: q(90), P95Ms: q(95), P99Ms: q(99), P999Ms: q(99.9),
		MeanMs: mean / 1e6, StdDevMs: math.Sqrt(variance) / 1e6,
	}
	s.Latency.clamp()
	return s
}

// clamp keeps the percentiles ordered and within [min, max]: histogram
// buckets report a bucket's upper edge, which can lie a little beyond the
// exact extremes.
func (l *Latency) clamp() {
	p := []*float64{&l.P25Ms, &l.P50Ms, &l.P75Ms, &l.P90Ms, &l.P95Ms, &l.P99Ms, &l.P999Ms}
	lo := l.MinMs
	for _, v := range p {
		*v = min(max(*v, lo), l.MaxMs)
		lo = *v
	}
}

// thread is the state the QueueDepth goroutines of one thread share.
type thread struct {
	// cursor is the next block of the thread's region (sequential jobs).
	cursor atomic.Int64
	// writes counts the thread's writes, for FsyncEvery.
	writes atomic.Int64
	// first block and number of blocks of the thread's region.
	first, blocks int64
}

// worker is one outstanding I/O: a goroutine issuing one I/O at a time.
type worker struct {
	th                *thread
	buf               []byte
	rng               *rand.Rand
	read, write, sync *recorder
}

// runBuiltin runs one job with the Go engine on the laid-out test file.
func runBuiltin(ctx context.Context, path string, size int64, j Job, direct bool) (JobResult, error) {
	f, gotDirect, err := openTestFile(path, false, direct)
	if err != nil {
		return JobResult{}, err
	}
	defer f.Close()
	if direct && !gotDirect {
		return JobResult{}, errors.New("the file system refused O_DIRECT on the second open")
	}
	rf := newRawFile(f)

	bs := int64(j.BlockSize)
	totalBlocks := size / bs
	threads := make([]*thread, j.Threads)
	regionBlocks := totalBlocks / int64(j.Threads)
	for i := range threads {
		threads[i] = &thread{first: int64(i) * regionBlocks, blocks: regionBlocks}
	}
	seed := uint64(time.Now().UnixNano())
	workers := make([]*worker, 0, j.Threads*j.QueueDepth)
	for t := 0; t < j.Threads; t++ {
		for q := 0; q < j.QueueDepth; q++ {
			w := &worker{
				th:    threads[t],
				buf:   alignedBuffer(j.BlockSize),
				rng:   rand.New(rand.NewPCG(seed, uint64(len(workers))+1)),
				read:  newRecorder(),
				write: newRecorder(),
			}
			if j.FsyncEvery > 0 {
				w.sync = newRecorder()
			}
			for i := range w.buf {
				w.buf[i] = byte(w.rng.Uint32())
			}
			workers = append(workers, w)
		}
	}

	var (
		stop     atomic.Bool
		errOnce  sync.Once
		firstErr error
		wg       sync.WaitGroup
		start    = make(chan struct{})
		deadline time.Time
	)
	fail := func(err error) {
		errOnce.Do(func() { firstErr = err })
		stop.Store(true)
	}
	stopWatch := context.AfterFunc(ctx, func() { stop.Store(true) })
	defer stopWatch()
	defer raiseProcs(len(workers) + 1)()

	for _, w := range workers {
		wg.Add(1)
		go func(w *worker) {
			defer wg.Done()
			<-start
			if err := w.loop(rf, j, totalBlocks, deadline, &stop); err != nil {
				fail(err)
			}
		}(w)
	}
	t0 := time.Now()
	deadline = t0.Add(j.Duration)
	close(start)
	wg.Wait()
	elapsed := time.Since(t0)

	read, write, syncs := newRecorder(), newRecorder(), newRecorder()
	for _, w := range workers {
		read.merge(w.read)
		write.merge(w.write)
		if w.sync != nil {
			syncs.merge(w.sync)
		}
	}
	total := newRecorder()
	total.merge(read)
	total.merge(write)
	r := JobResult{
		Read: read.side(elapsed), Write: write.side(elapsed), Total: total.side(elapsed), Sync: syncs.side(elapsed),
		Elapsed: elapsed,
	}
	r.Sync.Bytes, r.Sync.MBps = 0, 0
	if firstErr != nil {
		return r, firstErr
	}
	if err := ctx.Err(); err != nil {
		return r, err
	}
	return r, nil
}

// GOMAXPROCS management. A worker spends nearly all its time blocked in
// pread/pwrite. With fewer Ps than blocked workers, a worker whose I/O
// completes has to wait for the runtime's monitor to take a P back from a
// thread still blocked in its system call (one sysmon tick, 20 µs or more),
// which throttles I/O submission and inflates latencies: measured here at
// about 78 % of fio's IOPS with GOMAXPROCS=2. With a P per worker the
// runtime never has to hand Ps around, and a completed I/O is followed by
// the next one at once. The workers do not compute, so the extra Ps add no
// CPU contention; the previous value is restored when the job ends.
var (
	procsMu    sync.Mutex
	procsUsers int
	procsSaved int
)

// raiseProcs raises GOMAXPROCS to at least n until the returned function is
// called; concurrent callers nest.
func raiseProcs(n int) (restore func()) {
	procsMu.Lock()
	defer procsMu.Unlock()
	if procsUsers == 0 {
		procsSaved = runtime.GOMAXPROCS(0)
	}
	procsUsers++
	if runtime.GOMAXPROCS(0) < n {
		runtime.GOMAXPROCS(n)
	}
	return func() {
		procsMu.Lock()
		defer procsMu.Unlock()
		procsUsers--
		if procsUsers == 0 && runtime.GOMAXPROCS(0) != procsSaved {
			runtime.GOMAXPROCS(procsSaved)
		}
	}
}

// loop issues I/Os one at a time until the deadline or stop.
func (w *worker) loop(rf rawFile, j Job, totalBlocks int64, deadline time.Time, stop *atomic.Bool) error {
	bs := int64(j.BlockSize)
	th := w.th
	every := int64(j.FsyncEvery)
	for !stop.Load() {
		isRead := j.ReadPct >= 100 || (j.ReadPct > 0 && w.rng.IntN(100) < j.ReadPct)
		var block int64
		if j.Random {
			block = w.rng.Int64N(totalBlocks)
		} else {
			block = th.first + (th.cursor.Add(1)-1)%th.blocks
		}
		off := block * bs
		t0 := time.Now()
		var n int
		var err error
		if isRead {
			n, err = rf.pread(w.buf, off)
		} else {
			n, err = rf.pwrite(w.buf, off)
		}
		t1 := time.Now()
		if err == nil && n != len(w.buf) {
			err = io.ErrShortWrite
			if isRead {
				err = io.ErrUnexpectedEOF
			}
		}
		if err != nil {
			op := "write"
			if isRead {
				op = "read"
			}
			return fmt.Errorf("%s of %d bytes at offset %d: %w", op, len(w.buf), off, err)
		}
		ns := t1.Sub(t0).Nanoseconds()
		if isRead {
			w.read.record(ns, len(w.buf))
		} else {
			w.write.record(ns, len(w.buf))
			if every > 0 && th.writes.Add(1)%every == 0 {
				if err := rf.fsync(); err != nil {
					return fmt.Errorf("fsync: %w", err)
				}
				t2 := time.Now()
				w.sync.record(t2.Sub(t1).Nanoseconds(), 0)
				t1 = t2
			}
		}
		if t1.After(deadline) {
			return nil
		}
	}
	return nil
}
