//go:build linux

package storage

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// linuxInterfaces are the asynchronous interfaces the builtin engine tries
// on Linux, best first.
var linuxInterfaces = []asyncInterface{
	{name: IOURing, open: func(f *os.File, j Job, _ bool, cfg builtinConfig) (asyncQueue, error) {
		if cfg.refuseURing {
			return nil, errURingRefused
		}
		u, err := newURing(int(f.Fd()), j.QueueDepth)
		if err != nil {
			return nil, err
		}
		return u, nil
	}},
	{name: IOLibaio, open: func(f *os.File, j Job, direct bool, _ builtinConfig) (asyncQueue, error) {
		if !direct {
			return nil, errors.New("Linux AIO is synchronous without O_DIRECT")
		}
		q, err := newAIOQueue(int(f.Fd()), j.QueueDepth)
		if err != nil {
			return nil, err
		}
		return q, nil
	}},
}

// openQueues opens one asynchronous queue per thread of j with the best
// interface cfg allows: io_uring, else Linux AIO. It returns nil queues when
// the job is to run on goroutines, the interface's name, and why better
// interfaces were not used.
func openQueues(f *os.File, j Job, direct bool, cfg builtinConfig) ([]asyncQueue, string, string, error) {
	return openQueuesWith(f, j, direct, cfg, linuxInterfaces)
}

// asyncThread is one thread of an asynchronous job: QueueDepth slots, each
// with its own buffer, kept full through the thread's queue.
type asyncThread struct {
	q      asyncQueue
	th     *thread
	rng    *rand.Rand
	bufs   [][]byte
	write  []bool
	off    []int64
	sent   []time.Time // submission time per slot
	t      *tally
	budget *ioBudget
	seq    writeSeq
}

// newAsyncThreads prepares one asyncThread per queue. Buffers are cut from
// one mapped arena on huge pages where the kernel gives them (see ioArena):
// the kernel may write into them until each I/O completes, whatever the Go
// garbage collector does. The caller frees the arena after the threads.
func newAsyncThreads(qs []asyncQueue, threads []*thread, j Job, seed uint64, cfg builtinConfig) ([]*asyncThread, *ioArena, error) {
	budget := &ioBudget{limited: cfg.maxIOs > 0}
	budget.left.Store(cfg.maxIOs)
	per := j.QueueDepth * j.BlockSize
	arena, err := mapArena(len(qs) * per)
	if err != nil {
		return nil, nil, err
	}
	ats := make([]*asyncThread, 0, len(qs))
	for i, q := range qs {
		mem := arena.mem[i*per : (i+1)*per : (i+1)*per]
		at := &asyncThread{q: q, th: threads[i], rng: rand.New(rand.NewPCG(seed, uint64(i)+1)), t: newTally(), budget: budget, seq: newWriteSeq(seed, i),
			write: make([]bool, j.QueueDepth), off: make([]int64, j.QueueDepth), sent: make([]time.Time, j.QueueDepth)}
		fillRandom(mem, at.rng)
		for s := 0; s < j.QueueDepth; s++ {
			at.bufs = append(at.bufs, mem[s*j.BlockSize:(s+1)*j.BlockSize:(s+1)*j.BlockSize])
		}
		ats = append(ats, at)
	}
	arena.settle()
	return ats, arena, nil
}

// run keeps the thread's QueueDepth I/Os in flight until the deadline, stop
// or the I/O budget, then waits for those in flight, yielding every
// yieldEvery. Each I/O is submitted on its own as soon as its slot is free,
// as fio does by default (iodepth_batch_submit=1), and the thread then waits
// for at least one completion (iodepth_batch_complete_min=1); measured
// side by side on mixed 64 KiB jobs, this was at least as fast as
// submitting the freed slots in one batch, with a lower p99 (four rounds
// out of four). Each I/O's latency runs from just before the system
// call that submits it to just after the one that reaps it. With
// FsyncEvery, after every FsyncEvery-th completed write the thread stops
// submitting, waits for its I/Os in flight and calls fsync (timed on its
// own), as fio does with Linux AIO.
func (at *asyncThread) run(j Job, fd int, totalBlocks int64, deadline time.Time, stop *atomic.Bool) error {
	if err := at.q.begin(at.bufs); err != nil {
		return err
	}
	depth := j.QueueDepth
	free := make([]int, 0, depth)
	for s := depth - 1; s >= 0; s-- {
		free = append(free, s)
	}
	done := make([]completion, 0, depth)
	inflight, writes, every := 0, int64(0), int64(j.FsyncEvery)
	syncDue, now := false, time.Now()
	yielded := now
	for {
		if now.Sub(yielded) >= yieldEvery {
			runtime.Gosched()
			now = time.Now()
			yielded = now
		}
		if !syncDue && !stop.Load() && now.Before(deadline) {
			for len(free) > 0 && at.budget.take() {
				s := free[len(free)-1]
				free = free[:len(free)-1]
				at.write[s], at.off[s] = at.th.next(j, at.rng, totalBlocks)
				if at.write[s] {
					at.seq.stamp(at.bufs[s], at.off[s])
				}
				at.q.prepare(s, at.write[s], at.bufs[s], at.off[s])
				at.sent[s] = time.Now()
				inflight++
				if err := at.q.submit(); err != nil {
					inflight--
					at.drain(inflight)
					return err
				}
			}
		}
		if inflight == 0 {
			return nil
		}
		var err error
		done, err = at.q.submitAndWait(1, done[:0])
		now = time.Now()
		if err != nil {
			return err
		}
		for _, c := range done {
			inflight--
			free = append(free, c.slot)
			if err := at.complete(c, now); err != nil {
				at.drain(inflight)
				return err
			}
			if at.write[c.slot] {
				writes++
				syncDue = syncDue || (every > 0 && writes%every == 0)
			}
		}
		if syncDue && inflight == 0 {
			if err := fsyncFd(fd); err != nil {
				return fmt.Errorf("fsync: %w", err)
			}
			end := time.Now()
			at.t.sync.record(end.Sub(now).Nanoseconds(), 0)
			syncDue, now = false, end
		}
	}
}

// complete records one completed I/O, or returns its error.
func (at *asyncThread) complete(c completion, now time.Time) error {
	s := c.slot
	size := len(at.bufs[s])
	if c.res < 0 {
		return ioError(at.write[s], size, at.off[s], syscall.Errno(-c.res))
	}
	if err := shortIO(at.write[s], int(c.res), size); err != nil {
		return ioError(at.write[s], size, at.off[s], err)
	}
	at.t.record(at.write[s], now.Sub(at.sent[s]).Nanoseconds(), size)
	return nil
}

// drain waits for the I/Os still in flight after an error, so that none
// outlives the job; it gives up if the queue fails.
func (at *asyncThread) drain(inflight int) {
	done := make([]completion, 0, inflight)
	for inflight > 0 {
		var err error
		if done, err = at.q.submitAndWait(1, done[:0]); err != nil {
			return
		}
		inflight -= len(done)
	}
}

// fsyncFd flushes fd to stable storage.
func fsyncFd(fd int) error {
	for {
		if err := unix.Fsync(fd); err != unix.EINTR {
			return err
		}
	}
}
