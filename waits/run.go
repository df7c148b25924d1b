package waits

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// DefaultInterval is the sampling interval of --wait-interval.
const DefaultInterval = 100 * time.Millisecond

// Recording is a Sampler running over one measured interval.
type Recording struct {
	s        Sampler
	interval time.Duration
	start    time.Time
	stop     chan struct{}
	done     sync.WaitGroup

	// written by the sampling goroutine, read after done
	ticks, skipped, failed int64
	firstErr               error
}

// Start takes the sampler's baseline and samples every interval on a
// goroutine of its own until Stop. A sample still running when the next
// tick is due makes that tick skipped and counted, never queued: the
// virtual users are never waited for.
func Start(ctx context.Context, s Sampler, interval time.Duration) (*Recording, error) {
	if interval <= 0 {
		interval = DefaultInterval
	}
	if err := s.Start(ctx); err != nil {
		return nil, fmt.Errorf("start wait sampling: %w", err)
	}
	r := &Recording{s: s, interval: interval, start: time.Now(), stop: make(chan struct{})}
	r.done.Add(1)
	go r.loop(context.WithoutCancel(ctx))
	return r, nil
}

func (r *Recording) loop(ctx context.Context) {
	defer r.done.Done()
	t := time.NewTicker(r.interval)
	defer t.Stop()
	last := time.Now()
	for {
		select {
		case <-r.stop:
			return
		case now := <-t.C:
			// A ticker drops the ticks its reader missed: the gap tells how
			// many were skipped while the previous sample ran.
			if missed := int64((now.Sub(last) + r.interval/2) / r.interval); missed > 1 {
				r.skipped += missed - 1
			}
			last = now
			sctx, cancel := context.WithTimeout(ctx, 10*r.interval+time.Second)
			err := r.s.Sample(sctx)
			cancel()
			r.ticks++
			if err != nil {
				r.failed++
				if r.firstErr == nil {
					r.firstErr = err
				}
			}
		}
	}
}

// Stop ends the sampling and returns the step's profile, with Ticks,
// Skipped and Seconds filled in. A failing sample is recorded in Missing,
// not returned as an error.
func (r *Recording) Stop(ctx context.Context) (*Profile, error) {
	close(r.stop)
	r.done.Wait()
	elapsed := time.Since(r.start)
	p, err := r.s.Profile(ctx)
	if err != nil {
		return nil, fmt.Errorf("read the wait profile: %w", err)
	}
	p.Ticks, p.Skipped, p.Seconds = r.ticks, r.skipped, elapsed.Seconds()
	if r.failed > 0 {
		p.Missing = append(p.Missing, fmt.Sprintf("%d of %d samples failed, first: %v", r.failed, r.ticks, r.firstErr))
	}
	p.Normalize()
	return p, nil
}
