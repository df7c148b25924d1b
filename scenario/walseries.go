package scenario

import (
	"context"
	"time"
)

// walPositioner is a database whose WAL insert position can be read at
// any time (PostgreSQL's pg_current_wal_insert_lsn()), in bytes, through
// a connection of its own (one of the run's own, ownConnections).
type walPositioner interface {
	WALPositions(ctx context.Context) (read func(context.Context) (int64, error), closeFn func(), err error)
}

// walInterval is how often a step's WAL position is read: a few readings
// a second, so that each second of the step gets its WAL bytes by
// interpolation however the reads fall against the driver's seconds.
const walInterval = 200 * time.Millisecond

// walReading is the WAL insert position at a moment.
type walReading struct {
	at  time.Time
	pos int64
}

// walSampler reads the WAL insert position every walInterval through a
// step, ramp-up included, for the WAL its transactions wrote second by
// second (Seconds of the step, store.Second.WALBytes). After a checkpoint
// the first change to each page logs the whole page, so the WAL a
// transaction writes falls as a step goes on; the capacity model reads
// that curve (capacity.Demands.WALCurve).
type walSampler struct {
	cancel context.CancelFunc
	done   chan struct{}
	reads  []walReading // appended by run alone, read once done is closed
}

// startWAL begins reading db's WAL position; nil when db cannot tell it
// (or its connection fails: the step then has no WAL per second).
func startWAL(ctx context.Context, db any) *walSampler {
	p, ok := db.(walPositioner)
	if !ok {
		return nil
	}
	read, closeFn, err := p.WALPositions(ctx)
	if err != nil {
		return nil
	}
	ctx, cancel := context.WithCancel(ctx)
	w := &walSampler{cancel: cancel, done: make(chan struct{})}
	go func() {
		defer closeFn()
		w.run(ctx, read)
	}()
	return w
}

func (w *walSampler) run(ctx context.Context, read func(context.Context) (int64, error)) {
	defer close(w.done)
	t := time.NewTicker(walInterval)
	defer t.Stop()
	for {
		if pos, err := read(ctx); err == nil {
			w.reads = append(w.reads, walReading{at: time.Now(), pos: pos})
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// stop ends the readings and returns the WAL bytes of each of n seconds
// from start (nil when the readings do not cover them: a database that
// failed to answer, or a step too short).
func (w *walSampler) stop(start time.Time, n int) []int64 {
	if w == nil {
		return nil
	}
	w.cancel()
	<-w.done
	return perSecondWAL(w.reads, start, n)
}

// perSecondWAL is the WAL written in each of n seconds from start, the
// position at each second's bounds interpolated between the readings
// around it (the last second, cut short where the step ended, up to the
// last reading); nil unless the readings began by start.
func perSecondWAL(reads []walReading, start time.Time, n int) []int64 {
	if n <= 0 || len(reads) < 2 || reads[0].at.After(start) {
		return nil
	}
	out := make([]int64, n)
	prev := positionAt(reads, start)
	for i := range out {
		next := positionAt(reads, start.Add(time.Duration(i+1)*time.Second))
		out[i] = max(0, next-prev)
		prev = next
	}
	return out
}

// positionAt interpolates the WAL position at t between the readings
// around it (reads in time order, spanning t).
func positionAt(reads []walReading, t time.Time) int64 {
	for i := 1; i < len(reads); i++ {
		a, b := reads[i-1], reads[i]
		if b.at.Before(t) {
			continue
		}
		span := b.at.Sub(a.at)
		if span <= 0 {
			return b.pos
		}
		f := float64(t.Sub(a.at)) / float64(span)
		return a.pos + int64(f*float64(b.pos-a.pos))
	}
	return reads[len(reads)-1].pos
}
