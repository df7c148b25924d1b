package sqlite

import (
	"context"
	"time"

	"github.com/rightsize/rightsize/waits"
)

// Wait profile (waits.Source): SQLite has one writer, and the write
// transactions of the virtual users queue for it on the in-process writer
// lock, which times every wait. The profile is the waits' count and time
// over the measured interval; the engine's own CPU is the driver's (it runs
// inside it).

var _ waits.Source = (*DB)(nil)

// timeWriteWait starts timing a wait for the writer lock; call what it
// returns when the wait ends.
func (db *DB) timeWriteWait() func() {
	t0 := time.Now()
	return func() {
		db.writeWaits.Add(1)
		db.writeWaitNs.Add(int64(time.Since(t0)))
	}
}

// WaitSampler implements waits.Source.
func (db *DB) WaitSampler(context.Context, time.Duration) (waits.Sampler, error) {
	return &liteWaits{db: db}, nil
}

type liteWaits struct {
	db        *DB
	n0, wait0 int64
}

// Start implements waits.Sampler.
func (s *liteWaits) Start(context.Context) error {
	s.n0, s.wait0 = s.db.writeWaits.Load(), s.db.writeWaitNs.Load()
	return nil
}

// Sample implements waits.Sampler: the lock times itself.
func (s *liteWaits) Sample(context.Context) error { return nil }

// Profile implements waits.Sampler.
func (s *liteWaits) Profile(context.Context) (*waits.Profile, error) {
	n, ns := s.db.writeWaits.Load()-s.n0, s.db.writeWaitNs.Load()-s.wait0
	p := &waits.Profile{Source: "sqlite writer lock", Counters: map[string]float64{"write_lock_waits": float64(n), "write_lock_wait_ms": float64(ns) / 1e6}}
	if n > 0 {
		p.Events = []waits.Event{{Class: waits.Lock, Name: "writer lock", Seconds: float64(ns) / 1e9, Count: float64(n)}}
	}
	return p, nil
}

// Close implements waits.Sampler.
func (s *liteWaits) Close() error { return nil }
