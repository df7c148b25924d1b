package telemetry

import (
	"context"
	"errors"
	"sort"
	"sync"
	"sync/atomic"
	"time"
)

// DefaultInterval is the sampling interval used when none is given.
const DefaultInterval = time.Second

// Sampler samples host counters every Interval until its context is done.
// Set the exported fields before the first Run; a Sampler runs at most once
// at a time.
// The zero value samples every DefaultInterval and watches no server.
type Sampler struct {
	// Interval is the time between samples; <= 0 means DefaultInterval.
	Interval time.Duration
	// ServerPID is the database server process to watch (0 = none). The
	// process and all its descendants (postmaster + backends + auxiliary
	// processes) are summed, re-enumerating children every tick since
	// backends come and go. On Linux the CPU of descendants that exited and
	// were reaped inside the tree is kept through their parent's cumulative
	// children times (cutime/cstime), so short-lived backends are not lost.
	ServerPID int
	// ServerCgroup, when set, is the cgroup directory the server runs in
	// (e.g. /sys/fs/cgroup/rightsize/pg1 on cgroup v2, or the cpuacct
	// directory on v1); its CPU counter then replaces the process-tree walk
	// (ServerPID is ignored): exact, exited processes included, one file
	// per tick. ServerProcs then counts the processes directly in it.
	// Linux only.
	ServerCgroup string
	// ServerIO, when set, is the cgroup directory whose block I/O
	// counters are the server's: on cgroup v2 the group's directory
	// (io.stat), on v1 the blkio controller's (blkio.throttle.io_serviced
	// and io_service_bytes). Each sample then has the server's read and
	// write IOPS and MB/s, summed over its devices (Sample.ServerReadIOPS
	// ...). On v1 the writes are the direct and fsync-driven ones only:
	// v1 charges buffered writeback to the root group (and those are the
	// writes a v1 write limit throttles). Independent of ServerCgroup: on
	// v1 the CPU and I/O controllers have directories of their own.
	// Linux only.
	ServerIO string

	host hostReader
	tree treeReader
	io   ioReader

	running atomic.Bool

	primed       bool
	prev, cur    hostCounters
	prevAt       time.Time
	prevSelf     time.Duration
	serverPrimed bool
	serverHigh   time.Duration // high-water mark of the tree's cumulative CPU

	ioPrimed      bool
	ioPrev, ioCur ioCounters // the server's cgroup's I/O
}

// NewSampler returns a Sampler taking a sample every interval (<= 0 means
// DefaultInterval) and watching the process tree rooted at serverPID
// (0 = no server).
func NewSampler(interval time.Duration, serverPID int) *Sampler {
	return &Sampler{Interval: interval, ServerPID: serverPID}
}

func (s *Sampler) interval() time.Duration {
	if s.Interval <= 0 {
		return DefaultInterval
	}
	return s.Interval
}

func (s *Sampler) init() {
	if s.host == nil {
		s.host = newHostReader()
	}
	if s.tree == nil {
		if s.ServerCgroup != "" {
			s.tree = newCgroupReader(s.ServerCgroup)
		} else {
			s.tree = newTreeReader()
		}
	}
	if s.io == nil && s.ServerIO != "" {
		s.io = newCgroupIO(s.ServerIO, "/sys")
	}
}

// closer is implemented by readers that keep files open between ticks.
type closer interface{ close() }

// closeReaders releases the files the readers keep open; they reopen them
// if used again.
func (s *Sampler) closeReaders() {
	if c, ok := s.host.(closer); ok {
		c.close()
	}
	if c, ok := s.tree.(closer); ok {
		c.close()
	}
	if c, ok := s.io.(closer); ok {
		c.close()
	}
}

func (s *Sampler) watchesServer() bool { return s.ServerPID > 0 || s.ServerCgroup != "" }

// reset forgets the previous observation so the next tick only primes.
func (s *Sampler) reset() {
	s.primed = false
	s.serverPrimed = false
	s.ioPrimed = false
}

// tick reads every counter once. The first tick after reset only records a
// baseline and returns ok=false; later ticks return the sample covering the
// time since the previous successful tick. On error the baseline is kept.
func (s *Sampler) tick() (smp Sample, ok bool, err error) {
	s.init()
	now := time.Now()
	if err := s.host.read(&s.cur); err != nil {
		return Sample{}, false, err
	}
	self := SelfCPU()
	var server time.Duration
	procs := 0
	serverOK := false
	if s.watchesServer() {
		var terr error
		server, procs, terr = s.tree.treeCPU(s.ServerPID)
		serverOK = terr == nil
	}
	ioOK := s.io != nil && s.io.readIO(&s.ioCur) == nil

	if s.primed {
		wall := now.Sub(s.prevAt)
		if wall > 0 {
			ok = true
			smp = Sample{At: now, Interval: wall}
			fillCPU(&smp, &s.prev.cpu, &s.cur.cpu)
			smp.Disks = diskSamples(s.prev.disks, s.cur.disks, wall.Seconds())
			sumDisks(&smp.Host, smp.Disks)
			smp.MemUsedBytes = s.cur.mem.used
			smp.MemCachedBytes = s.cur.mem.cached
			smp.MemTotalBytes = s.cur.mem.total
			smp.DriverCPUPct = pos(float64(self-s.prevSelf)) / float64(wall) * 100
			smp.MajorFaultsPerSec = float64(udelta(s.cur.vm.majorFaults, s.prev.vm.majorFaults)) / wall.Seconds()
			smp.ReclaimPagesPerSec = float64(udelta(s.cur.vm.reclaimed, s.prev.vm.reclaimed)) / wall.Seconds()
			if serverOK && s.serverPrimed && server > s.serverHigh {
				smp.ServerCPUPct = float64(server-s.serverHigh) / float64(wall) * 100
			}
			if serverOK {
				smp.ServerProcs = procs
			}
			if ioOK && s.ioPrimed {
				fillIO(&smp, &s.ioPrev, &s.ioCur, wall.Seconds())
			}
		}
	}
	if !ok && s.primed {
		// Clock did not advance: keep the old baseline.
		return Sample{}, false, nil
	}

	// The new observation becomes the baseline.
	s.prev, s.cur = s.cur, s.prev
	s.prevAt = now
	s.prevSelf = self
	s.ioPrev, s.ioPrimed = s.ioCur, ioOK
	switch {
	case !serverOK:
		s.serverPrimed = false
	case !s.serverPrimed:
		s.serverPrimed = true
		s.serverHigh = server
	case server > s.serverHigh:
		// A tree read can transiently miss a child that exited between
		// reading its parent and itself; keeping the high-water mark
		// avoids counting its CPU twice when it reappears in the parent's
		// cutime.
		s.serverHigh = server
	}
	s.primed = true
	return smp, ok, nil
}

// fillIO sets smp's server I/O rates from two readings secs apart.
func fillIO(smp *Sample, prev, cur *ioCounters, secs float64) {
	smp.ServerReadIOPS = float64(udelta(cur.reads, prev.reads)) / secs
	smp.ServerWriteIOPS = float64(udelta(cur.writes, prev.writes)) / secs
	smp.ServerReadMBps = float64(udelta(cur.readBytes, prev.readBytes)) / 1e6 / secs
	smp.ServerWriteMBps = float64(udelta(cur.writeBytes, prev.writeBytes)) / 1e6 / secs
}

// ErrRunning is returned by Run when the Sampler is already running.
var ErrRunning = errors.New("telemetry: sampler already running")

// Run samples until ctx is cancelled; each sample is passed to emit (called
// from the sampling goroutine, so emit should be quick). The first sample
// arrives one Interval after Run starts. Run returns nil when ctx is done,
// or an error if the host counters cannot be read at all at start. A tick
// whose counters cannot be read is skipped; the next sample then covers the
// longer interval.
func (s *Sampler) Run(ctx context.Context, emit func(Sample)) error {
	if !s.running.CompareAndSwap(false, true) {
		return ErrRunning
	}
	defer s.running.Store(false)
	defer s.closeReaders()
	s.reset()
	if _, _, err := s.tick(); err != nil {
		return err
	}
	t := time.NewTicker(s.interval())
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
			smp, ok, err := s.tick()
			if err == nil && ok && emit != nil {
				emit(smp)
			}
		}
	}
}

// Recording collects the samples of a running Sampler into memory.
type Recording struct {
	cancel context.CancelFunc
	done   chan struct{}

	mu      sync.Mutex
	samples []Sample
	err     error
}

// Start runs the sampler in a new goroutine, recording every sample, until
// ctx is done or Stop is called.
func (s *Sampler) Start(ctx context.Context) *Recording {
	ctx, cancel := context.WithCancel(ctx)
	r := &Recording{cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(r.done)
		err := s.Run(ctx, r.add)
		r.mu.Lock()
		r.err = err
		r.mu.Unlock()
	}()
	return r
}

// Start is a shorthand for NewSampler(interval, serverPID).Start(ctx).
func Start(ctx context.Context, interval time.Duration, serverPID int) *Recording {
	return NewSampler(interval, serverPID).Start(ctx)
}

func (r *Recording) add(s Sample) {
	r.mu.Lock()
	r.samples = append(r.samples, s)
	r.mu.Unlock()
}

// Stop stops sampling, waits for the sampler to finish and returns every
// sample recorded. Calling it again returns the same samples.
func (r *Recording) Stop() []Sample {
	r.cancel()
	<-r.done
	return r.Samples()
}

// Err returns the error that ended sampling early (nil while running and
// after a normal stop).
func (r *Recording) Err() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.err
}

// Samples returns a copy of the samples recorded so far, oldest first.
func (r *Recording) Samples() []Sample {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Sample(nil), r.samples...)
}

// Since returns a copy of the samples recorded so far that belong to the
// time from t on (see Window for the rule).
func (r *Recording) Since(t time.Time) []Sample {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Sample(nil), since(r.samples, t)...)
}

// Window returns a copy of the recorded samples belonging to [from, to)
// (see the package function Window for the rule).
func (r *Recording) Window(from, to time.Time) []Sample {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Sample(nil), Window(r.samples, from, to)...)
}

// Window returns the sub-slice of samples (ordered by At, as recorded) that
// belong to the step [from, to): a sample belongs to the window holding the
// middle of its interval, At − Interval/2. Adjacent windows thus share no
// sample and lose none. The result aliases samples.
func Window(samples []Sample, from, to time.Time) []Sample {
	lo := sort.Search(len(samples), func(i int) bool { return !mid(&samples[i]).Before(from) })
	hi := sort.Search(len(samples), func(i int) bool { return !mid(&samples[i]).Before(to) })
	if hi < lo {
		hi = lo
	}
	return samples[lo:hi]
}

func since(samples []Sample, t time.Time) []Sample {
	lo := sort.Search(len(samples), func(i int) bool { return !mid(&samples[i]).Before(t) })
	return samples[lo:]
}

func mid(s *Sample) time.Time { return s.At.Add(-s.Interval / 2) }
