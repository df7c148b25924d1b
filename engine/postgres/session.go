package postgres

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/rightsize/rightsize/tpcc"
)

// session is what both executors keep of a virtual user's connection once
// they took it over from pgconn: the wire, the text of the parameters of
// the statement being built, and the context whose cancellation
// interrupts the connection.
type session struct {
	w    *wire
	buf  []byte // parameter text
	ends []int  // end of each parameter in buf

	// watched is the context whose cancellation interrupts the connection
	// (stopWatch undoes that): registered once per context rather than
	// once per call, as pgconn would, since a virtual user passes the same
	// one every time.
	watched   context.Context
	stopWatch func() bool
}

// takeOver hijacks pg, whose statements are prepared, for a session.
func takeOver(ctx context.Context, pg *pgconn.PgConn) (session, error) {
	if err := pg.SyncConn(ctx); err != nil {
		return session{}, fmt.Errorf("take over the connection: %w", err)
	}
	hc, err := pg.Hijack()
	if err != nil {
		return session{}, fmt.Errorf("take over the connection: %w", err)
	}
	return session{w: newWire(hc)}, nil
}

// Close ends the session.
func (s *session) Close(ctx context.Context) error {
	s.unwatch()
	return s.w.close()
}

// watch makes ctx's cancellation end whatever the connection is waiting
// for, as pgconn's default handler does: a deadline in the past returns the
// call at once, and lost then closes the connection, sending the server a
// cancel request first.
func (s *session) watch(ctx context.Context) {
	if ctx == s.watched {
		return
	}
	s.unwatch()
	s.watched = ctx
	if ctx.Done() != nil {
		netConn := s.w.hc.Conn
		s.stopWatch = context.AfterFunc(ctx, func() { _ = netConn.SetDeadline(time.Unix(1, 0)) })
	}
}

func (s *session) unwatch() {
	if s.stopWatch != nil {
		s.stopWatch()
		s.stopWatch = nil
	}
	s.watched = nil
}

// ready checks that a call named what may start on the connection and
// watches ctx.
func (s *session) ready(ctx context.Context, what string) error {
	if s.w.broken != nil {
		return fmt.Errorf("%s: %w", what, errConnBroken)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	s.watch(ctx)
	return nil
}

// lost ends the connection after err broke the call named what, naming
// ctx's error when its cancellation was the cause.
func (s *session) lost(ctx context.Context, what string, err error) error {
	ctxErr := ctx.Err()
	s.w.fail(err, ctxErr != nil)
	if ctxErr != nil {
		return fmt.Errorf("%s: %w (%v)", what, ctxErr, err)
	}
	return fmt.Errorf("%s: %w", what, err)
}

// Parameter text, appended to s.buf one parameter at a time.
func (s *session) reset() { s.buf, s.ends = s.buf[:0], s.ends[:0] }
func (s *session) end()   { s.ends = append(s.ends, len(s.buf)) }
func (s *session) int(v int32) {
	s.buf = strconv.AppendInt(s.buf, int64(v), 10)
	s.end()
}
func (s *session) bool(v bool) {
	if v {
		s.buf = append(s.buf, 't')
	} else {
		s.buf = append(s.buf, 'f')
	}
	s.end()
}
func (s *session) text(v string) { s.buf = append(s.buf, v...); s.end() }
func (s *session) float(v float64) {
	s.buf = strconv.AppendFloat(s.buf, v, 'g', -1, 64) // shortest text that reads back as v
	s.end()
}

// intArray appends the array literal {f(0),f(1),...}.
func (s *session) intArray(lines []tpcc.OrderLineInput, f func(*tpcc.OrderLineInput) int32) {
	s.buf = append(s.buf, '{')
	for i := range lines {
		if i > 0 {
			s.buf = append(s.buf, ',')
		}
		s.buf = strconv.AppendInt(s.buf, int64(f(&lines[i])), 10)
	}
	s.buf = append(s.buf, '}')
	s.end()
}
