package storage

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
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
	buckets  []int64 // I/Os per range of LatencyEdgesMs
	n, bytes int64
	sum, sq  float64
	min, max int64
}

func newRecorder() *recorder {
	return &recorder{hist: hdrhistogram.New(histMinUs, histMaxUs, histSigFigs), buckets: make([]int64, len(LatencyEdgesMs)), min: math.MaxInt64}
}

// edgesNs are LatencyEdgesMs in nanoseconds.
var edgesNs = func() []int64 {
	e := make([]int64, len(LatencyEdgesMs))
	for i, ms := range LatencyEdgesMs {
		e[i] = int64(math.Round(ms * 1e6))
	}
	return e
}()

// bucketOf returns the range of LatencyEdgesMs that ns falls in.
func bucketOf(ns int64) int {
	i, _ := slices.BinarySearch(edgesNs, ns+1) // first edge above ns
	return max(i-1, 0)
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
	r.buckets[bucketOf(ns)]++
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
	for i, c := range o.buckets {
		r.buckets[i] += c
	}
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

// tally is one worker's recorders: reads, writes and (jobs that fsync)
// fsync calls.
type tally struct{ read, write, sync *recorder }

func newTally() *tally { return &tally{read: newRecorder(), write: newRecorder(), sync: newRecorder()} }

// record adds one completed I/O.
func (t *tally) record(write bool, ns int64, size int) {
	if write {
		t.write.record(ns, size)
	} else {
		t.read.record(ns, size)
	}
}

// thread is the state of one of a job's threads, shared by its workers
// (the goroutine interface runs one worker per outstanding I/O).
type thread struct {
	// cursor is the next block of the thread's region (sequential jobs).
	cursor atomic.Int64
	// writes counts the thread's writes, for FsyncEvery.
	writes atomic.Int64
	// first block and number of blocks of the thread's region.
	first, blocks int64
}

// next picks a thread's next I/O: a read or a write at random with the
// job's read share, at a random block of the file or at the next block of
// the thread's region; it returns the byte offset.
func (th *thread) next(j Job, rng *rand.Rand, totalBlocks int64) (write bool, off int64) {
	write = j.ReadPct <= 0 || (j.ReadPct < 100 && rng.IntN(100) >= j.ReadPct)
	var block int64
	if j.Random {
		block = rng.Int64N(totalBlocks)
	} else {
		block = th.first + (th.cursor.Add(1)-1)%th.blocks
	}
	return write, block * int64(j.BlockSize)
}

// newThreads splits the file's blocks into one region per thread.
func newThreads(j Job, totalBlocks int64) []*thread {
	threads := make([]*thread, j.Threads)
	regionBlocks := totalBlocks / int64(j.Threads)
	for i := range threads {
		threads[i] = &thread{first: int64(i) * regionBlocks, blocks: regionBlocks}
	}
	return threads
}

// fillRandom fills b with random bytes, so that nothing compresses writes.
func fillRandom(b []byte, rng *rand.Rand) {
	for i := range b {
		b[i] = byte(rng.Uint32())
	}
}

// stampSector is the granularity at which stampWrite makes a write's data
// unique: the smallest block a device or a deduplicating layer compares.
const stampSector = 512

// stampWrite makes the data of one write unique, as fio's scramble_buffers
// (on by default) does: each 512-byte sector of buf gets 8 bytes derived
// from its file offset and the writer's sequence number. A slot's buffer
// otherwise holds what its last read brought in, so writing it would copy
// another block of the file byte for byte, which storage that deduplicates
// (hyper-converged systems, thin-provisioned arrays) or compresses can
// absorb without writing, and the figures would flatter the engine. seq
// must differ between the writes of one writer (a counter mixed with the
// writer's identity).
func stampWrite(buf []byte, off int64, seq uint64) {
	v := seq * 0x9e3779b97f4a7c15
	for i := 0; i+8 <= len(buf); i += stampSector {
		binary.LittleEndian.PutUint64(buf[i:], v^uint64(off+int64(i)))
	}
}

// writeSeq numbers one writer's writes for stampWrite. It starts from the
// job's seed plus a value unique to the writer (newWriteSeq), so that no
// two writes of any job share a number.
type writeSeq uint64

// newWriteSeq is writer i's sequence in a job with the given seed.
func newWriteSeq(seed uint64, i int) writeSeq { return writeSeq(seed + uint64(i)<<40) }

// stamp makes buf, about to be written at off, unique (stampWrite).
func (s *writeSeq) stamp(buf []byte, off int64) {
	*s++
	stampWrite(buf, off, uint64(*s))
}

// worker is one outstanding I/O of the goroutine interface: a goroutine
// issuing one blocking I/O at a time.
type worker struct {
	th  *thread
	buf []byte
	rng *rand.Rand
	t   *tally
	seq writeSeq
}

// runBuiltin runs one job with the Go engine on the laid-out test file,
// through the best I/O interface cfg allows (see openQueues).
func runBuiltin(ctx context.Context, path string, size int64, j Job, direct bool, cfg builtinConfig) (JobResult, error) {
	f, gotDirect, err := openTestFile(path, false, direct)
	if err != nil {
		return JobResult{}, err
	}
	defer f.Close()
	if direct && !gotDirect {
		return JobResult{}, errors.New("the file system refused O_DIRECT on the second open")
	}
	queues, iface, fallback, err := openQueues(f, j, direct, cfg)
	if err != nil {
		return JobResult{}, err
	}
	defer closeQueues(queues)

	totalBlocks := size / int64(j.BlockSize)
	threads := newThreads(j, totalBlocks)
	seed := uint64(time.Now().UnixNano())
	var tallies []*tally
	var body func(i int, deadline time.Time, stop *atomic.Bool) error
	var arena *ioArena
	if queues != nil {
		ats, a, err := newAsyncThreads(queues, threads, j, seed, cfg)
		if err != nil {
			return JobResult{}, err
		}
		arena = a
		defer arena.free()
		for _, at := range ats {
			tallies = append(tallies, at.t)
		}
		fd := int(f.Fd())
		body = func(i int, deadline time.Time, stop *atomic.Bool) error {
			return ats[i].run(j, fd, totalBlocks, deadline, stop)
		}
	} else {
		rf := newRawFile(f)
		workers := newWorkers(threads, j, seed)
		for _, w := range workers {
			tallies = append(tallies, w.t)
		}
		body = func(i int, deadline time.Time, stop *atomic.Bool) error {
			return workers[i].loop(rf, j, totalBlocks, deadline, stop)
		}
	}
	// Collect the setup's garbage (the histograms of the previous job) now:
	// a collection triggered while the job runs would stop its threads.
	runtime.GC()
	elapsed, cpu, cpuOK, runErr := runConcurrently(ctx, len(tallies), j.Duration, body)
	r := tallyResult(tallies, elapsed)
	r.IOEngine, r.Fallback = iface, fallback
	if fallback != "" {
		r.Notes = append(r.Notes, "I/O through "+iface+": "+fallback)
	}
	if arena != nil {
		r.HugePages = arena.huge
		if !arena.huge {
			r.Notes = append(r.Notes, "I/O buffers on base pages, not huge pages: "+arena.why)
		}
	}
	if n := r.IOsDone(); cpuOK && n > 0 {
		r.CPUPerIOMicros = float64(cpu.Nanoseconds()) / 1e3 / float64(n)
	}
	if runErr != nil {
		return r, runErr
	}
	return r, ctx.Err()
}

// newWorkers makes the goroutine interface's QueueDepth workers per thread.
func newWorkers(threads []*thread, j Job, seed uint64) []*worker {
	workers := make([]*worker, 0, j.Threads*j.QueueDepth)
	for _, th := range threads {
		for q := 0; q < j.QueueDepth; q++ {
			w := &worker{th: th, buf: alignedBuffer(j.BlockSize), rng: rand.New(rand.NewPCG(seed, uint64(len(workers))+1)), t: newTally(),
				seq: newWriteSeq(seed, len(workers))}
			fillRandom(w.buf, w.rng)
			workers = append(workers, w)
		}
	}
	return workers
}

// runConcurrently runs body(i) for i in 0..n-1 in n goroutines started
// together, until the duration has passed (each body checks deadline),
// ctx is cancelled or a body fails (stop is then set); it returns the
// elapsed time, the process's CPU time over it, and the first error.
func runConcurrently(ctx context.Context, n int, d time.Duration, body func(i int, deadline time.Time, stop *atomic.Bool) error) (elapsed, cpu time.Duration, cpuOK bool, err error) {
	var (
		stop    atomic.Bool
		errOnce sync.Once
		wg      sync.WaitGroup
		start   = make(chan struct{})
	)
	stopWatch := context.AfterFunc(ctx, func() { stop.Store(true) })
	defer stopWatch()
	defer raiseProcs(n + 1)()
	var deadline time.Time
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			if e := body(i, deadline, &stop); e != nil {
				errOnce.Do(func() { err = e })
				stop.Store(true)
			}
		}()
	}
	cpu0, ok0 := processCPU()
	t0 := time.Now()
	deadline = t0.Add(d)
	close(start)
	wg.Wait()
	elapsed = time.Since(t0)
	cpu1, ok1 := processCPU()
	return elapsed, cpu1 - cpu0, ok0 && ok1, err
}

// tallyResult merges the workers' tallies into a result over elapsed.
func tallyResult(tallies []*tally, elapsed time.Duration) JobResult {
	read, write, syncs := newRecorder(), newRecorder(), newRecorder()
	for _, t := range tallies {
		read.merge(t.read)
		write.merge(t.write)
		syncs.merge(t.sync)
	}
	total := newRecorder()
	total.merge(read)
	total.merge(write)
	r := JobResult{
		Read: read.side(elapsed), Write: write.side(elapsed), Total: total.side(elapsed), Sync: syncs.side(elapsed),
		Elapsed: elapsed,
	}
	r.Sync.Bytes, r.Sync.MBps = 0, 0
	if total.n > 0 {
		r.Buckets = newLatencyBuckets()
		for i, c := range total.buckets {
			r.Buckets[i].Pct = 100 * float64(c) / float64(total.n)
		}
	}
	return r
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

// yieldEvery is how often a thread of an asynchronous job, or a worker of
// the goroutine interface, passes through the Go scheduler. The runtime's
// monitor (sysmon) preempts a goroutine that has not been rescheduled for
// 10 ms, and since Go 1.26 a goroutine in a system call counts as running:
// a thread that only submitted and waited lost its P at the end of an
// io_uring_enter, and the idle P it took instead was just as overdue, so
// from then on the monitor woke up every 20-200 µs to take Ps back and
// start threads to run them (measured on a 256 KiB job: 2.3 context
// switches per I/O against fio's 1.05, 20-50 % more CPU per I/O). A yield
// every 5 ms, well inside the 10 ms, keeps the monitor asleep. The
// goroutines are not locked to their OS threads: a locked goroutine's
// yield hands its P to another thread and back (four thread switches,
// measured 10-50 % longer p99 at 4-16 KiB); an unlocked one normally
// resumes at once on the same thread.
const yieldEvery = 5 * time.Millisecond

// loop issues I/Os one at a time until the deadline or stop, yielding
// every yieldEvery.
func (w *worker) loop(rf rawFile, j Job, totalBlocks int64, deadline time.Time, stop *atomic.Bool) error {
	th := w.th
	every := int64(j.FsyncEvery)
	yielded := time.Now()
	for !stop.Load() {
		isWrite, off := th.next(j, w.rng, totalBlocks)
		t0 := time.Now()
		var n int
		var err error
		if isWrite {
			w.seq.stamp(w.buf, off)
			n, err = rf.pwrite(w.buf, off)
		} else {
			n, err = rf.pread(w.buf, off)
		}
		t1 := time.Now()
		if err == nil {
			err = shortIO(isWrite, n, len(w.buf))
		}
		if err != nil {
			return ioError(isWrite, len(w.buf), off, err)
		}
		w.t.record(isWrite, t1.Sub(t0).Nanoseconds(), len(w.buf))
		if isWrite && every > 0 && th.writes.Add(1)%every == 0 {
			if err := rf.fsync(); err != nil {
				return fmt.Errorf("fsync: %w", err)
			}
			t2 := time.Now()
			w.t.sync.record(t2.Sub(t1).Nanoseconds(), 0)
			t1 = t2
		}
		if t1.After(deadline) {
			return nil
		}
		if t1.Sub(yielded) >= yieldEvery {
			runtime.Gosched()
			yielded = time.Now()
		}
	}
	return nil
}

// shortIO is the error of an I/O that moved n of want bytes (nil if all).
func shortIO(write bool, n, want int) error {
	switch {
	case n == want:
		return nil
	case write:
		return io.ErrShortWrite
	}
	return io.ErrUnexpectedEOF
}

// ioError names a failed read or write.
func ioError(write bool, size int, off int64, err error) error {
	op := "read"
	if write {
		op = "write"
	}
	return fmt.Errorf("%s of %d bytes at offset %d: %w", op, size, off, err)
}
