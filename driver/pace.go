package driver

import (
	"context"
	"math"
	"math/rand/v2"
	"sync"
	"time"
)

// pacer schedules a Workload's transactions at Spec.Rate, as pgbench -R
// does: one Poisson process the step's users share (gaps drawn from the
// exponential distribution of mean 1/Rate), each user taking the next
// scheduled start when it is free. A transaction starts at its schedule,
// or late when every user was busy then: how late is its schedule lag.
type pacer struct {
	mu   sync.Mutex
	next time.Time
	mean float64 // the mean gap, in ns
	rng  *rand.Rand
}

// rateShare is this process's share of Spec.Rate: all of it, or, when
// workers drive the step (AllUsers), its users' share, as pgbench -R
// splits its rate among its threads: the workers' schedules, independent
// Poisson processes (each worker's seed its own), add up to one of the
// whole rate.
func (c *StepConfig) rateShare() float64 {
	if c.AllUsers > 0 && c.Users < c.AllUsers {
		return c.Rate * float64(c.Users) / float64(c.AllUsers)
	}
	return c.Rate
}

// newPacer is the schedule of rate transactions per second from start.
func newPacer(rate float64, start time.Time, seed uint64) *pacer {
	return &pacer{next: start, mean: float64(time.Second) / rate, rng: rand.New(rand.NewPCG(seed, 0x5ca1ab1e))}
}

// take is the next transaction's scheduled start (pgbench's
// getPoissonRand: −ln(u)·mean, u uniform in (0, 1]).
func (p *pacer) take() time.Time {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.next = p.next.Add(time.Duration(-math.Log(1-p.rng.Float64())*p.mean + 0.5))
	return p.next
}

// paced waits for the user's next scheduled start when the step is paced
// (zero time when not); false when the step stopped meanwhile.
func (u *user) paced(ctx context.Context) (time.Time, bool) {
	if u.pace == nil {
		return time.Time{}, true
	}
	at := u.pace.take()
	return at, u.sleep(ctx, time.Until(at))
}

// tooLate reports whether a paced transaction is already further behind
// its schedule than Spec.LatencyLimit, and if so counts it skipped: as
// pgbench -L with -R, it is not sent, since it cannot meet the limit.
func (u *user) tooLate(sched time.Time) bool {
	lim := u.cfg.LatencyLimit
	if sched.IsZero() || lim <= 0 || time.Since(sched) <= lim {
		return false
	}
	if u.measured(sched) {
		u.stats.dropped++
	}
	return true
}

// lagged counts a paced transaction's schedule lag (start − schedule).
func (u *user) lagged(lag time.Duration, measured bool) {
	if !measured {
		return
	}
	lag = max(lag, 0)
	u.stats.lagSum += lag
	u.stats.lagMax = max(u.stats.lagMax, lag)
	u.stats.lagN++
}
