package storage

import (
	"fmt"
	"os"
	"strings"
	"sync/atomic"
)

// I/O interfaces of the builtin engine, best first, reported in
// JobResult.IOEngine and accepted in Options.BuiltinIO.
const (
	// IOURing submits and reaps each thread's I/Os through its own io_uring
	// (Linux 5.1 and later, where the kernel allows it).
	IOURing = "io_uring"
	// IOLibaio uses Linux native AIO (io_submit, io_getevents), as fio's
	// libaio engine does; asynchronous only with O_DIRECT.
	IOLibaio = "libaio"
	// IOGoroutines runs one goroutine per outstanding I/O, each issuing
	// blocking pread/pwrite calls: every platform.
	IOGoroutines = "goroutines"
)

// BuiltinIONames lists the values Options.BuiltinIO accepts besides "auto".
func BuiltinIONames() []string { return []string{IOURing, IOLibaio, IOGoroutines} }

// builtinConfig is how the builtin engine chooses its I/O interface, plus
// hooks for tests.
type builtinConfig struct {
	// io forces one interface (IOURing, IOLibaio, IOGoroutines); "" picks
	// the best available.
	io string
	// refuseURing makes io_uring's setup fail as on a kernel that refuses
	// it (Options.RefuseIOUring).
	refuseURing bool
	// maxIOs, when positive, ends an asynchronous job after that many I/Os
	// (tests).
	maxIOs int64
	// wrap, when set, wraps each thread's queue (tests observe the I/Os).
	wrap func(asyncQueue) asyncQueue
}

// checkBuiltinIO validates an Options.BuiltinIO value and returns it
// normalised ("" for auto).
func checkBuiltinIO(v string) (string, error) {
	v = strings.ToLower(strings.TrimSpace(v))
	switch v {
	case "", EngineAuto:
		return "", nil
	case IOURing, IOLibaio, IOGoroutines:
		return v, nil
	}
	return "", fmt.Errorf("unknown builtin I/O interface %q (valid: auto, %s)", v, strings.Join(BuiltinIONames(), ", "))
}

// completion is one finished I/O a queue reports: the slot it was prepared
// in and the kernel's result (bytes moved or -errno).
type completion struct {
	slot int
	res  int64
}

// asyncQueue is one thread's queue of outstanding I/Os in an asynchronous
// kernel interface, QueueDepth slots deep.
type asyncQueue interface {
	// begin is called by the goroutine that uses the queue before any
	// other method, with the slots' buffers (bufs[s] is the only buffer
	// slot s is prepared with), which the queue may register with the
	// kernel.
	begin(bufs [][]byte) error
	// prepare stages a read (or write) of buf at off in slot; the next
	// submit or submitAndWait sends it.
	prepare(slot int, write bool, buf []byte, off int64)
	// submit sends the staged I/Os without waiting for any.
	submit() error
	// submitAndWait sends the staged I/Os and waits until at least atLeast
	// have completed, appending every available completion to done.
	submitAndWait(atLeast int, done []completion) ([]completion, error)
	// close releases the queue; no I/O may be in flight.
	close() error
}

// closeQueues closes the queues that were opened.
func closeQueues(qs []asyncQueue) {
	for _, q := range qs {
		if q != nil {
			_ = q.close() // nothing in flight: closing cannot lose data
		}
	}
}

// ioBudget is the number of I/Os a job may still issue (builtinConfig.maxIOs).
type ioBudget struct {
	limited bool
	left    atomic.Int64
}

// take reports whether one more I/O may be issued.
func (b *ioBudget) take() bool { return !b.limited || b.left.Add(-1) >= 0 }

// openQueuesWith opens one queue per thread through the first interface of
// the list that works (only cfg.io when it is set); it returns nil queues,
// IOGoroutines and the reasons when none does and none was forced.
func openQueuesWith(f *os.File, j Job, direct bool, cfg builtinConfig, ifaces []asyncInterface) ([]asyncQueue, string, string, error) {
	if cfg.io == IOGoroutines {
		return nil, IOGoroutines, "", nil
	}
	var reasons []string
	for _, iface := range ifaces {
		if cfg.io != "" && cfg.io != iface.name {
			continue
		}
		qs, err := openEach(f, j, direct, cfg, iface)
		if err == nil {
			return qs, iface.name, strings.Join(reasons, "; "), nil
		}
		if cfg.io != "" {
			return nil, "", "", fmt.Errorf("builtin I/O interface %s is not available: %w", cfg.io, err)
		}
		reasons = append(reasons, iface.name+" unavailable: "+err.Error())
	}
	if cfg.io != "" {
		return nil, "", "", fmt.Errorf("builtin I/O interface %s is not available on this system", cfg.io)
	}
	return nil, IOGoroutines, strings.Join(reasons, "; "), nil
}

// asyncInterface is one asynchronous kernel interface: its name and how to
// open a queue of a job's thread on the test file.
type asyncInterface struct {
	name string
	open func(f *os.File, j Job, direct bool, cfg builtinConfig) (asyncQueue, error)
}

// openEach opens one queue per thread, wrapped by cfg.wrap.
func openEach(f *os.File, j Job, direct bool, cfg builtinConfig, iface asyncInterface) ([]asyncQueue, error) {
	qs := make([]asyncQueue, 0, j.Threads)
	for range j.Threads {
		q, err := iface.open(f, j, direct, cfg)
		if err != nil {
			closeQueues(qs)
			return nil, err
		}
		if cfg.wrap != nil {
			q = cfg.wrap(q)
		}
		qs = append(qs, q)
	}
	return qs, nil
}
