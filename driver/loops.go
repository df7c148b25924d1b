package driver

import (
	"context"
	"errors"
	"runtime"
	"time"

	"github.com/rightsize/rightsize/internal/rawsock"
)

// LoopUser is a Workload's User whose connection can wait in a
// rawsock.Loop (StepConfig.Loops). Attach moves it there and says whether
// it could; after an error the user's connection is unusable (its next Run
// fails, and the driver reconnects).
type LoopUser interface {
	User
	Attach(l *rawsock.Loop) (bool, error)
}

// usersPerLoop is how many users a loop gets when StepConfig.Loops is 0.
const usersPerLoop = 16

// loopCount is how many loops the step runs for users users: cfg.Loops,
// or one per usersPerLoop, at most one per core.
func loopCount(loops, users int) int {
	switch {
	case loops < 0 || users == 0:
		return 0
	case loops > 0:
		return min(loops, users)
	}
	return min((users+usersPerLoop-1)/usersPerLoop, max(runtime.NumCPU(), 1))
}

// newLoops makes the step's loops; none (and the users each on a
// goroutine) when the kernel refuses one.
func newLoops(n int) []*rawsock.Loop {
	loops := make([]*rawsock.Loop, 0, n)
	for range n {
		l, err := rawsock.NewLoop()
		if err != nil {
			break
		}
		loops = append(loops, l)
	}
	if len(loops) < n {
		for _, l := range loops {
			_ = l.Close()
		}
		return nil
	}
	return loops
}

// errNotLoopable is a reconnected user's connection that cannot wait in
// the loop its user runs in.
var errNotLoopable = errors.New("the workload's new connection cannot run in the driver's loop")

// attach moves wu's connection into l; a User that cannot wait in a loop
// is an error here (a reconnected user must stay in its loop).
func attach(wu User, l *rawsock.Loop) error {
	lu, ok := wu.(LoopUser)
	if !ok {
		_ = wu.Close(context.Background())
		return errNotLoopable
	}
	attached, err := lu.Attach(l)
	if err == nil && !attached {
		err = errNotLoopable
	}
	if err != nil {
		_ = wu.Close(context.Background())
	}
	return err
}

// startWorkloadUsers starts a Workload's users: those whose connections
// can wait in a loop as the coroutines of the step's loops (round robin),
// the others each on a goroutine of its own. Each loop holds a P, so
// GOMAXPROCS is raised (procsFloor) before they start.
func (s *step) startWorkloadUsers(users []*user) {
	if s.cfg.Rate > 0 {
		pace := newPacer(s.cfg.rateShare(), time.Now(), s.cfg.Seed)
		for _, u := range users {
			u.pace = pace
		}
	}
	if s.cfg.TxnLog != nil {
		for _, u := range users {
			u.logTxn = s.cfg.TxnLog.User(u.userConfig().ID)
		}
	}
	loops := newLoops(loopCount(s.cfg.Loops, len(users)))
	used := make([]bool, len(loops))
	for i, u := range users {
		if len(loops) > 0 {
			k := i % len(loops)
			if lu, ok := u.wu.(LoopUser); ok {
				if attached, _ := lu.Attach(loops[k]); attached {
					// an error left the connection unusable: the user's
					// first transaction fails and it reconnects in the loop
					u.loop, used[k] = loops[k], true
					loops[k].Go(func() { u.runWorkload(s.runCtx) })
					continue
				}
			}
		}
		s.users.Go(func() { u.runWorkload(s.runCtx) })
	}
	run := loops[:0]
	for k, l := range loops {
		if used[k] {
			run = append(run, l)
		} else {
			_ = l.Close()
		}
	}
	if len(run) > 0 {
		s.procsFloor(len(run) + 1)
	}
	for _, l := range run {
		s.users.Go(func() {
			defer l.Close()
			l.Run(s.runCtx)
		})
	}
}

// loopSleep is sleep for a user in a loop: through the loop, looking at
// the step's stop every 50 ms.
func (u *user) loopSleep(ctx context.Context, d time.Duration) bool {
	end := time.Now().Add(d)
	for {
		left := time.Until(end)
		if left <= 0 {
			return true
		}
		if u.stopped() || u.loop.Sleep(ctx, min(left, 50*time.Millisecond)) != nil {
			return false
		}
	}
}
