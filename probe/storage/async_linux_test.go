//go:build linux

package storage

import (
	"bytes"
	"context"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// countingQueue wraps a thread's queue and records what goes through it:
// the I/Os in flight (submitted and not yet reaped from the kernel), each
// staged I/O's offset, size and direction, and the submissions that left
// fewer than a full queue in flight.
type countingQueue struct {
	q        asyncQueue
	all      *atomic.Int64 // I/Os in flight over all threads
	allMax   *atomic.Int64
	staged   int
	inflight int
	maxIn    int
	short    int // waits begun with fewer than depth in flight
	depth    int
	ios      []stagedIO
}

type stagedIO struct {
	off   int64
	size  int
	write bool
	addr  uintptr
}

func (c *countingQueue) begin(bufs [][]byte) error { return c.q.begin(bufs) }

func (c *countingQueue) prepare(slot int, write bool, buf []byte, off int64) {
	c.ios = append(c.ios, stagedIO{off: off, size: len(buf), write: write, addr: uintptrOf(buf)})
	c.staged++
	c.q.prepare(slot, write, buf, off)
}

// send counts the staged I/Os as in flight.
func (c *countingQueue) send() {
	c.inflight += c.staged
	n := c.all.Add(int64(c.staged))
	for m := c.allMax.Load(); n > m && !c.allMax.CompareAndSwap(m, n); m = c.allMax.Load() {
	}
	c.staged = 0
	c.maxIn = max(c.maxIn, c.inflight)
}

func (c *countingQueue) submit() error {
	c.send()
	return c.q.submit()
}

func (c *countingQueue) submitAndWait(atLeast int, done []completion) ([]completion, error) {
	c.send()
	if atLeast > 0 && c.inflight != c.depth {
		c.short++
	}
	before := len(done)
	done, err := c.q.submitAndWait(atLeast, done)
	reaped := len(done) - before
	c.inflight -= reaped
	c.all.Add(-int64(reaped))
	return done, err
}

func (c *countingQueue) close() error { return c.q.close() }

// recordQueues returns a builtinConfig.wrap that counts through
// countingQueues, the queues it made (in thread order) and the maximum of
// I/Os in flight over all threads.
func recordQueues(depth int) (func(asyncQueue) asyncQueue, *[]*countingQueue, *atomic.Int64) {
	var qs []*countingQueue
	all, allMax := new(atomic.Int64), new(atomic.Int64)
	wrap := func(q asyncQueue) asyncQueue {
		c := &countingQueue{q: q, all: all, allMax: allMax, depth: depth}
		qs = append(qs, c)
		return c
	}
	return wrap, &qs, allMax
}

// laidOut lays out a test file of testSize bytes in a temporary directory.
func laidOut(t *testing.T) string {
	t.Helper()
	file := filepath.Join(t.TempDir(), TestFileName)
	direct, _, err := layout(context.Background(), file, testSize)
	if err != nil {
		t.Fatal(err)
	}
	if !direct {
		t.Skip("the file system of the temporary directory refuses O_DIRECT")
	}
	return file
}

// TestAsyncInterfaces runs each asynchronous interface on a real file and
// checks, over exactly 10,000 I/Os, what went to the kernel: Threads x
// QueueDepth I/Os in flight, a full queue at every submission but the
// final drain, block-aligned offsets inside the file (inside each thread's
// region, consecutive, for a sequential job), aligned buffers, and the read
// share within 2 %.
func TestAsyncInterfaces(t *testing.T) {
	file := laidOut(t)
	const total = 10000
	cases := []struct {
		name string
		job  Job
	}{
		{"random-mix", Job{Name: "mix", BlockSize: 8 << 10, ReadPct: 70, Random: true, Threads: 3, QueueDepth: 4, Direct: true, Duration: 20 * time.Second}},
		{"sequential-read", Job{Name: "seq", BlockSize: 64 << 10, ReadPct: 100, Threads: 2, QueueDepth: 3, Direct: true, Duration: 20 * time.Second}},
	}
	for _, iface := range []string{IOURing, IOLibaio} {
		for _, c := range cases {
			t.Run(iface+"/"+c.name, func(t *testing.T) {
				j := c.job
				wrap, qsp, allMax := recordQueues(j.QueueDepth)
				r, err := runBuiltin(context.Background(), file, testSize, j, true, builtinConfig{io: iface, maxIOs: total, wrap: wrap})
				if err != nil {
					t.Fatal(err)
				}
				if r.IOEngine != iface || r.Fallback != "" {
					t.Errorf("ran through %q (fallback %q), want %s", r.IOEngine, r.Fallback, iface)
				}
				if r.IOsDone() != total {
					t.Errorf("%d I/Os done, want the budget of %d", r.IOsDone(), total)
				}
				if r.CPUPerIOMicros <= 0 {
					t.Errorf("CPU per I/O %v", r.CPUPerIOMicros)
				}
				qs := *qsp
				if len(qs) != j.Threads {
					t.Fatalf("%d queues for %d threads", len(qs), j.Threads)
				}
				if got, want := allMax.Load(), int64(j.Threads*j.QueueDepth); got != want {
					t.Errorf("at most %d I/Os in flight over all threads, want %d", got, want)
				}
				var ios []stagedIO
				for i, q := range qs {
					if q.maxIn != j.QueueDepth || q.inflight != 0 {
						t.Errorf("thread %d: at most %d in flight (want %d), %d left at the end", i, q.maxIn, j.QueueDepth, q.inflight)
					}
					if q.short > j.QueueDepth {
						t.Errorf("thread %d: %d waits began with the queue short of %d (only the final drain may)", i, q.short, j.QueueDepth)
					}
					if !j.Random {
						checkSequential(t, i, q.ios, j, testSize)
					}
					ios = append(ios, q.ios...)
				}
				if len(ios) != total {
					t.Errorf("%d I/Os staged, want %d", len(ios), total)
				}
				reads := 0
				for _, io := range ios {
					if io.off%int64(j.BlockSize) != 0 || io.off < 0 || io.off+int64(io.size) > testSize || io.size != j.BlockSize || io.addr%4096 != 0 {
						t.Fatalf("I/O of %d bytes at offset %d (buffer %#x): not aligned or outside the %d-byte file", io.size, io.off, io.addr, testSize)
					}
					if !io.write {
						reads++
					}
				}
				share := float64(reads) / float64(len(ios))
				if want := float64(j.ReadPct) / 100; math.Abs(share-want) > 0.02 {
					t.Errorf("read share %.4f, want %.2f +- 0.02", share, want)
				}
				if r.Read.IOs != int64(reads) {
					t.Errorf("result counts %d reads, the kernel was sent %d", r.Read.IOs, reads)
				}
			})
		}
	}
}

// checkSequential verifies that a thread's I/Os walk its region block by
// block, wrapping at its end.
func checkSequential(t *testing.T, thread int, ios []stagedIO, j Job, size int64) {
	t.Helper()
	bs := int64(j.BlockSize)
	region := size / bs / int64(j.Threads)
	first := int64(thread) * region * bs
	for k, io := range ios {
		want := first + (int64(k)%region)*bs
		if io.off != want {
			t.Fatalf("thread %d: I/O %d at offset %d, want %d (its region starts at %d)", thread, k, io.off, want, first)
		}
	}
}

// TestAsyncFsync checks the fsync rule on every interface: after each
// FsyncEvery-th write one fsync, with several writes in flight too.
func TestAsyncFsync(t *testing.T) {
	file := laidOut(t)
	for _, iface := range BuiltinIONames() {
		for _, j := range []Job{
			{Name: "log", BlockSize: 8 << 10, Threads: 1, QueueDepth: 1, FsyncEvery: 1, Direct: true, Duration: 400 * time.Millisecond},
			{Name: "every3", BlockSize: 16 << 10, Threads: 2, QueueDepth: 2, FsyncEvery: 3, Direct: true, Duration: 400 * time.Millisecond},
		} {
			t.Run(iface+"/"+j.Name, func(t *testing.T) {
				r, err := runBuiltin(context.Background(), file, testSize, j, true, builtinConfig{io: iface})
				if err != nil {
					t.Fatal(err)
				}
				if r.Write.IOs < 3 {
					t.Fatalf("only %d writes", r.Write.IOs)
				}
				// Goroutines count writes per thread as they complete; the
				// asynchronous interfaces per thread too: each thread's
				// remainder (< FsyncEvery) goes without fsync.
				lo, hi := (r.Write.IOs-int64(j.Threads*(j.FsyncEvery-1)))/int64(j.FsyncEvery), r.Write.IOs/int64(j.FsyncEvery)
				if r.Sync.IOs < lo || r.Sync.IOs > hi {
					t.Errorf("%d writes, %d fsyncs: want %d..%d (one per %d writes of a thread)", r.Write.IOs, r.Sync.IOs, lo, hi, j.FsyncEvery)
				}
				checkLatency(t, "fsync", r.Sync)
			})
		}
	}
}

// TestFallback checks the choice of interface: io_uring where the kernel
// allows it, Linux AIO (reason stored) where io_uring is refused,
// goroutines where neither works, and an error when a refused interface is
// forced.
func TestFallback(t *testing.T) {
	dir := t.TempDir()
	job := []Job{{Name: "j", BlockSize: 4096, ReadPct: 50, Random: true, Threads: 2, QueueDepth: 2, Direct: true, Duration: 300 * time.Millisecond}}
	res, err := Run(context.Background(), Options{Path: dir, Size: testSize, Engine: EngineBuiltin}, job, nil)
	if err != nil {
		t.Fatal(err)
	}
	if r := res[0]; r.IOEngine != IOURing || r.Fallback != "" {
		t.Errorf("default: ran through %q, fallback %q; want io_uring (this kernel allows it)", r.IOEngine, r.Fallback)
	}

	res, err = Run(context.Background(), Options{Path: dir, Size: testSize, Engine: EngineBuiltin, RefuseIOUring: true}, job, nil)
	if err != nil {
		t.Fatal(err)
	}
	r := res[0]
	if r.IOEngine != IOLibaio || !strings.Contains(r.Fallback, "io_uring unavailable: io_uring_setup: operation not permitted") {
		t.Errorf("io_uring refused: ran through %q, fallback %q; want libaio and the reason", r.IOEngine, r.Fallback)
	}
	if !strings.Contains(strings.Join(r.Notes, ";"), r.Fallback) || r.IOsDone() == 0 {
		t.Errorf("fallback not noted or no I/O: notes %v, %d I/Os", r.Notes, r.IOsDone())
	}
	assertNoTestFile(t, dir)

	// Without O_DIRECT Linux AIO would block: goroutines, both reasons.
	file := laidOut(t)
	r, err = runBuiltin(context.Background(), file, testSize, job[0], false, builtinConfig{refuseURing: true})
	if err != nil {
		t.Fatal(err)
	}
	if r.IOEngine != IOGoroutines || !strings.Contains(r.Fallback, "io_uring unavailable") || !strings.Contains(r.Fallback, "libaio unavailable: Linux AIO is synchronous without O_DIRECT") {
		t.Errorf("buffered, io_uring refused: ran through %q, fallback %q", r.IOEngine, r.Fallback)
	}

	for _, c := range []struct {
		opt  Options
		want string
	}{
		{Options{Path: dir, Size: testSize, Engine: EngineBuiltin, BuiltinIO: IOURing, RefuseIOUring: true}, "builtin I/O interface io_uring is not available: io_uring_setup: operation not permitted"},
		{Options{Path: dir, Size: testSize, Engine: EngineBuiltin, BuiltinIO: "spdk"}, "unknown builtin I/O interface"},
	} {
		if _, err := Run(context.Background(), c.opt, job, nil); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want %q", c.opt, err, c.want)
		}
		assertNoTestFile(t, dir)
	}
}

// TestAsyncLoopAllocations checks that the asynchronous interfaces'
// threads allocate nothing per I/O, so that no garbage collection (which
// stops the threads) runs during a job: ten times the I/Os, about the same
// number of allocations (those of the setup).
func TestAsyncLoopAllocations(t *testing.T) {
	file := laidOut(t)
	j := Job{Name: "allocs", BlockSize: 4096, ReadPct: 70, Random: true, Threads: 2, QueueDepth: 4, Direct: true, Duration: 20 * time.Second}
	for _, iface := range []string{IOURing, IOLibaio} {
		t.Run(iface, func(t *testing.T) {
			mallocs := func(ios int64) uint64 {
				var before, after runtime.MemStats
				runtime.ReadMemStats(&before)
				if _, err := runBuiltin(context.Background(), file, testSize, j, true, builtinConfig{io: iface, maxIOs: ios}); err != nil {
					t.Fatal(err)
				}
				runtime.ReadMemStats(&after)
				return after.Mallocs - before.Mallocs
			}
			mallocs(100) // warm up
			few, many := mallocs(1000), mallocs(10000)
			if many > few+500 {
				t.Errorf("%d allocations for 1,000 I/Os, %d for 10,000: the I/O loop allocates", few, many)
			}
		})
	}
}

// TestURingRegistered writes blocks through a ring with the file and
// buffers registered (fixed operations) and reads them back through a
// plain ring, and the other way round, comparing the bytes: both kinds of
// operation move the right data to the right offset.
func TestURingRegistered(t *testing.T) {
	file := laidOut(t)
	f, direct, err := openTestFile(file, false, true)
	if err != nil || !direct {
		t.Fatalf("opening the test file for direct I/O: %v (direct %v)", err, direct)
	}
	defer f.Close()
	const bs, depth = 8192, 2
	ring := func(register bool) (*uring, [][]byte) {
		u, err := newURing(int(f.Fd()), depth)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = u.close() })
		mem := alignedBuffer(bs * depth)
		bufs := [][]byte{mem[:bs:bs], mem[bs:]}
		var reg [][]byte
		if register {
			reg = bufs
		}
		if err := u.begin(reg); err != nil {
			t.Fatal(err)
		}
		if register && (!u.fixedFile || u.fixedBufs == nil) {
			t.Skipf("the kernel refused to register the file (%v) or the buffers (%v)", u.fixedFile, u.fixedBufs != nil)
		}
		return u, bufs
	}
	fixed, fixedBufs := ring(true)
	plain, plainBufs := ring(false)
	rng := rand.New(rand.NewPCG(1, 2))
	for _, c := range []struct {
		name              string
		writer, reader    *uring
		wbufs, rbufs      [][]byte
		writeOff, readOff int64
	}{
		{"fixed-write-plain-read", fixed, plain, fixedBufs, plainBufs, 5 * bs, 5 * bs},
		{"plain-write-fixed-read", plain, fixed, plainBufs, fixedBufs, 11 * bs, 11 * bs},
	} {
		t.Run(c.name, func(t *testing.T) {
			for s := range c.wbufs {
				fillRandom(c.wbufs[s], rng)
				c.writer.prepare(s, true, c.wbufs[s], c.writeOff+int64(s)*bs)
			}
			ioAll(t, c.writer, depth, bs)
			for s := range c.rbufs {
				clear(c.rbufs[s])
				c.reader.prepare(s, false, c.rbufs[s], c.readOff+int64(s)*bs)
			}
			ioAll(t, c.reader, depth, bs)
			for s := range c.rbufs {
				if !bytes.Equal(c.rbufs[s], c.wbufs[s]) {
					t.Errorf("slot %d: the block read back differs from the one written", s)
				}
			}
		})
	}
}

// ioAll submits the staged I/Os and waits for n completions, each of size
// bytes.
func ioAll(t *testing.T, u *uring, n, size int) {
	t.Helper()
	var done []completion
	for len(done) < n {
		var err error
		if done, err = u.submitAndWait(n-len(done), done); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range done {
		if c.res != int64(size) {
			t.Fatalf("slot %d: result %d, want %d bytes", c.slot, c.res, size)
		}
	}
}

// TestArenaHugePages checks the builtin engine's buffer arena: aligned to a
// huge page, whole huge pages long, and on huge pages where transparent huge
// pages are enabled (else the reason is kept); a job's result says which.
func TestArenaHugePages(t *testing.T) {
	a, err := mapArena(3*131072 + 1)
	if err != nil {
		t.Fatal(err)
	}
	defer a.free()
	if uintptrOf(a.mem)%hugePageSize != 0 || len(a.mem) != hugePageSize {
		t.Fatalf("arena at %#x, %d bytes: want a huge page's alignment and length", uintptrOf(a.mem), len(a.mem))
	}
	fillRandom(a.mem, rand.New(rand.NewPCG(1, 2)))
	a.settle()
	mode := thpMode()
	if want := mode == "always" || mode == "madvise"; a.huge != want || (!a.huge && a.why == "") {
		t.Errorf("transparent_hugepage %s: huge %v (%s)", mode, a.huge, a.why)
	}
	job := []Job{{Name: "j", BlockSize: 65536, ReadPct: 50, Random: true, Threads: 2, QueueDepth: 2, Direct: true, Duration: 200 * time.Millisecond}}
	res, err := Run(context.Background(), Options{Path: t.TempDir(), Size: testSize, Engine: EngineBuiltin}, job, nil)
	if err != nil {
		t.Fatal(err)
	}
	r := res[0]
	if noted := strings.Contains(strings.Join(r.Notes, ";"), "not huge pages"); r.HugePages == noted {
		t.Errorf("result: HugePages %v, notes %v: want huge pages or a note why not", r.HugePages, r.Notes)
	}
}

// sectorQueue wraps a thread's queue and keeps a hash of every 512-byte
// sector of every write it is asked to stage.
type sectorQueue struct {
	asyncQueue
	mu      *sync.Mutex
	sectors map[uint64]int
	writes  *int
}

func (s sectorQueue) prepare(slot int, write bool, buf []byte, off int64) {
	if write {
		s.mu.Lock()
		*s.writes++
		for i := 0; i < len(buf); i += stampSector {
			h := fnv.New64a()
			h.Write(buf[i : i+stampSector])
			s.sectors[h.Sum64()]++
		}
		s.mu.Unlock()
	}
	s.asyncQueue.prepare(slot, write, buf, off)
}

// TestAsyncWritesUnique checks, through each asynchronous interface on a
// real file, that no two written sectors carry the same data: a slot's
// buffer holds what its last read brought in, and without stampWrite a
// write would copy another block of the file (deduplicating storage would
// absorb it).
func TestAsyncWritesUnique(t *testing.T) {
	file := laidOut(t)
	j := Job{Name: "mix", BlockSize: 8 << 10, ReadPct: 50, Random: true, Threads: 2, QueueDepth: 4, Direct: true, Duration: 20 * time.Second}
	for _, iface := range []string{IOURing, IOLibaio} {
		t.Run(iface, func(t *testing.T) {
			var mu sync.Mutex
			sectors, writes := map[uint64]int{}, 0
			wrap := func(q asyncQueue) asyncQueue {
				return sectorQueue{asyncQueue: q, mu: &mu, sectors: sectors, writes: &writes}
			}
			if _, err := runBuiltin(context.Background(), file, testSize, j, true, builtinConfig{io: iface, maxIOs: 4000, wrap: wrap}); err != nil {
				t.Fatal(err)
			}
			if writes < 1000 {
				t.Fatalf("%d writes of 4,000 I/Os at 50 %% reads", writes)
			}
			for h, n := range sectors {
				if n > 1 {
					t.Fatalf("sector data %x written %d times (of %d writes)", h, n, writes)
				}
			}
		})
	}
}
