package driver

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/rightsize/rightsize/tpcc"
)

// Workload is a workload other than TPC-C that a step runs
// (StepConfig.Workload): its transaction kinds are named by it (pgbench
// scripts: one per script), and each virtual user is a User on a
// connection of its own. The driver keeps what it keeps for TPC-C: the
// windows, the recorder and counters (sized by the kinds), reconnection
// after a lost connection and the step's control.
type Workload interface {
	// Kinds names the transaction kinds; a User's Run returns an index.
	Kinds() []string
	// Figure is the kind whose completions per second the step counts
	// beside the total (StepResult.PerSecondNewOrder), or -1 for every
	// kind.
	Figure() int
	// NewUser connects one virtual user to db, the step's target (the
	// workload asks it for the connection it needs).
	NewUser(ctx context.Context, db Target, cfg UserConfig) (User, error)
}

// UserConfig is one virtual user of a Workload in a step.
type UserConfig struct {
	ID, Users int    // this user (0-based) of the step's Users (of every worker's: StepConfig.AllUsers)
	Seed      uint64 // the step's seed
	// MaxTries is how many times a transaction may run when it fails
	// with a serialization failure or a deadlock (StepConfig.MaxRetries
	// + 1).
	MaxTries int
}

// User is one virtual user of a Workload. It is used by one goroutine.
type User interface {
	// Run runs the user's next transaction, again while it fails with a
	// serialization failure or a deadlock and fewer than MaxTries tries
	// were made, and returns its kind, the tries made and its error.
	Run(ctx context.Context) (kind, tries int, err error)
	Close(ctx context.Context) error
}

// checkWorkload refuses TPC-C's options with a Workload.
func checkWorkload(cfg *StepConfig) error {
	if cfg.Workload == nil {
		switch {
		case cfg.Rate > 0:
			return errors.New("--rate paces a pgbench workload: TPC-C's users are paced by its keying and think times (--keying-thinking)")
		case cfg.LatencyLimit > 0:
			return errors.New("--latency-limit is a pgbench workload's (pgbench -L): TPC-C's response times are judged by its own limits (New-Order p90, the validity verdict)")
		}
		return nil
	}
	switch {
	case len(cfg.Workload.Kinds()) == 0:
		return errors.New("the workload has no transaction kind")
	case cfg.KeyingThinking:
		return errors.New("keying and think times are TPC-C's: drop --keying-thinking with this workload")
	case cfg.Connections > 0 && cfg.Connections < cfg.Users:
		return errors.New("shared connections are TPC-C's: drop --connections with this workload")
	case cfg.Delivery.Deferred():
		return errors.New("deferred Delivery is TPC-C's: drop --delivery deferred with this workload")
	}
	return nil
}

// connectWorkload connects the Workload's users, 16 at a time, before the
// step starts; then it waits for StartAt.
func (s *step) connectWorkload(ctx context.Context) error {
	cfg := &s.cfg
	users := make([]User, cfg.Users)
	err := parallelN(len(users), 16, func(i int) error {
		u, err := cfg.Workload.NewUser(ctx, s.tgt, userConfig(cfg, i))
		users[i] = u
		return err
	})
	if err == nil && cfg.StartAt != nil {
		if err = waitStart(ctx, cfg.StartAt); err != nil {
			err = fmt.Errorf("agree on the step's start: %w", err)
		}
	}
	if err != nil {
		for _, u := range users {
			if u != nil {
				_ = u.Close(context.Background())
			}
		}
		return fmt.Errorf("connect %d virtual users: %w", cfg.Users, err)
	}
	s.wusers = users
	return nil
}

// parallelN runs f(0..n-1), at most par at a time, and returns the first
// error.
func parallelN(n, par int, f func(i int) error) error {
	errs := make(chan error, n)
	sem := make(chan struct{}, par)
	for i := range n {
		sem <- struct{}{}
		go func() {
			defer func() { <-sem }()
			errs <- f(i)
		}()
	}
	var first error
	for range n {
		if err := <-errs; err != nil && first == nil {
			first = err
		}
	}
	return first
}

func userConfig(cfg *StepConfig, id int) UserConfig {
	if cfg.AllUsers > 0 {
		return UserConfig{ID: cfg.FirstUser + id, Users: cfg.AllUsers, Seed: cfg.Seed, MaxTries: cfg.MaxRetries + 1}
	}
	return UserConfig{ID: id, Users: cfg.Users, Seed: cfg.Seed, MaxTries: cfg.MaxRetries + 1}
}

func (u *user) userConfig() UserConfig { return userConfig(u.cfg, u.id) }

// Timed is a User that times its own transactions: the driver reads the
// last one's start and end from it rather than read the clock again
// around Run.
type Timed interface {
	Span() (start, end time.Time)
}

// runTimed runs the user's next transaction and says when it started and
// ended.
func (u *user) runTimed(ctx context.Context) (start, end time.Time, kind, tries int, err error) {
	if t, ok := u.wu.(Timed); ok {
		kind, tries, err = u.wu.Run(ctx)
		start, end = t.Span()
		return start, end, kind, tries, err
	}
	start = time.Now()
	kind, tries, err = u.wu.Run(ctx)
	return start, time.Now(), kind, tries, err
}

// runWorkload is a Workload's user: transactions back to back (or each at
// its scheduled start when Spec.Rate paces the step) until the step
// stops, each counted by its kind.
func (u *user) runWorkload(ctx context.Context) {
	defer func() {
		if u.wu != nil {
			_ = u.wu.Close(context.Background())
		}
	}()
	for !u.stopped() && ctx.Err() == nil {
		sched, ok := u.paced(ctx)
		if !ok {
			return
		}
		if u.tooLate(sched) {
			if u.logTxn != nil && u.measured(sched) {
				u.logSkipped()
			}
			continue
		}
		start, end, kind, tries, err := u.runTimed(ctx)
		if ctx.Err() != nil {
			return
		}
		t, measured := tpcc.TxnType(kind), u.measured(end)
		if measured && u.logTxn != nil {
			u.logDone(kind, sched, start, end, tries, err)
		}
		if !sched.IsZero() {
			u.lagged(start.Sub(sched), measured)
			start = sched // the latency counts from the schedule, as pgbench -R's
		}
		if tries > 1 {
			if measured {
				u.stats.retries[t] += int64(tries - 1)
			}
			u.rec.retries.Add(int64(tries - 1))
		}
		if err != nil {
			if !u.failed(ctx, t, err, measured) {
				return
			}
			continue
		}
		u.rec.record(u.id, t, end.Sub(start), end, measured)
		if measured {
			u.stats.count[t]++
			if lim := u.cfg.LatencyLimit; lim > 0 && end.Sub(start) > lim {
				u.stats.late++
			}
			if st, ok := u.wu.(StatementTimer); ok && u.rec.stmts != nil {
				u.rec.stmts.record(u.id, kind, st.Statements())
			}
		}
	}
}

// newRecorder is the step's recorder: TPC-C's, or sized by its Workload's
// kinds.
func (s *step) newRecorder(stepStart time.Time) *recorder {
	if w := s.cfg.Workload; w != nil {
		r := newKindRecorder(stepStart, s.seconds, len(w.Kinds()), w.Figure())
		r.stmts = newStmtRecorder(w)
		return r
	}
	return newRecorder(stepStart, s.seconds)
}

// newUserStats returns the users' counters of kinds kinds, each user's in
// one allocation padded so that two users' counters share no cache line.
func newUserStats(users, kinds int) []userStats {
	stats := make([]userStats, users)
	for i := range stats {
		c := make([]int64, 3*kinds+8)
		st := &stats[i]
		st.count, st.retries, st.errors = c[:kinds:kinds], c[kinds:2*kinds:2*kinds], c[2*kinds:3*kinds:3*kinds]
		st.firstErr = make([]error, kinds)
	}
	return stats
}

// window closes the current latency window.
func (s *step) window() Window {
	w := Window{Start: s.winStart}
	hists := s.rec.rotate()
	if s.cfg.Workload != nil {
		w.Kinds = hists
	} else {
		copy(w.Hists[:], hists)
	}
	return w
}

// kindStats adds up the users' counters and the recorder's histograms per
// kind.
func (s *step) kindStats() []TxnStats {
	hists := s.rec.merged()
	txn := make([]TxnStats, len(hists))
	for t := range txn {
		txn[t].Hist = hists[t]
	}
	for i := range s.stats {
		u := &s.stats[i]
		for t := range txn {
			if txn[t].FirstError == "" && u.firstErr[t] != nil {
				txn[t].FirstError = u.firstErr[t].Error()
			}
			txn[t].Count += u.count[t]
			txn[t].Retries += u.retries[t]
			txn[t].Errors += u.errors[t]
		}
	}
	return txn
}
