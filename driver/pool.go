package driver

import (
	"context"
	"slices"
	"time"

	"github.com/rightsize/rightsize/tpcc"
)

// Connections is how many connections a step of users opens when they
// share shared of them (StepConfig.Connections; 0: one per user).
func Connections(users, shared int) int {
	if shared > 0 && shared < users {
		return shared
	}
	return users
}

// PeakConnections is the connections the largest step of a users sequence
// opens (Connections of its users; 0 for no step): what a server's
// connection slots must hold for the run's users.
func PeakConnections(users []int, shared int) int {
	if len(users) == 0 {
		return 0
	}
	return Connections(slices.Max(users), shared)
}

// connPool lends a step's connections to its users when they share fewer
// connections than there are users (StepConfig.Connections). A slot whose
// connection was lost holds nil: the user who takes it reconnects. It has
// room for every connection, so giving one back never blocks.
type connPool chan tpcc.Executor

func newConnPool(execs []tpcc.Executor) connPool {
	p := make(connPool, len(execs))
	for _, e := range execs {
		p <- e
	}
	return p
}

// close closes the connections in the pool; the users have given theirs
// back (they have all stopped).
func (p connPool) close() {
	for len(p) > 0 {
		if e := <-p; e != nil {
			_ = e.Close(context.Background())
		}
	}
}

// connection gets the user a connection for its next transaction and
// returns when the transaction's response time starts: with a pool, before
// the wait for a connection (it counts, as a TP monitor's queue does);
// without, after the reconnect a lost connection needed. It reports false
// when the step ends first.
func (u *user) connection(ctx context.Context) (time.Time, bool) {
	begin := time.Now()
	if u.pool != nil {
		select {
		case u.exec = <-u.pool:
			u.held = true
		case <-u.stop:
			return begin, false
		case <-ctx.Done():
			return begin, false
		}
	}
	if u.exec == nil {
		if !u.reconnect(ctx) {
			return begin, false
		}
		if u.pool == nil {
			begin = time.Now()
		}
	}
	return begin, true
}

// giveBack returns a lent connection to the pool (nil if it was lost).
func (u *user) giveBack() {
	if u.held {
		u.pool <- u.exec
		u.exec, u.held = nil, false
	}
}
