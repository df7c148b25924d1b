package postgres

import (
	"cmp"
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/rightsize/rightsize/tpcc"
)

// session is what both executors keep of a virtual user's connection once
// they took it over from pgconn: the wire, the parameters of the statement
// being built, and the context whose cancellation
// interrupts the connection.
type session struct {
	w    *wire
	buf  []byte // parameters
	ends []int  // end of each parameter in buf
	// binary: the parameters go in PostgreSQL's binary formats (int4,
	// bool, float8, int4[]; text as it is), which the statements'
	// parameter types must then be (procedures mode checks them when it
	// prepares its calls); else as text.
	binary bool

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

// unwatch stops watching the context watched. When its cancellation
// already interrupted the connection (a deadline in the past), the
// connection is closed: any later call would fail on it.
func (s *session) unwatch() {
	if s.stopWatch != nil && !s.stopWatch() && s.w.broken == nil {
		s.w.fail(context.Canceled, false)
	}
	s.stopWatch, s.watched = nil, nil
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

// rows runs the prepared statement name, which takes no parameters, and
// hands each result row to each as columns of binary values (views of the
// wire's buffer, valid during the call). It watches ctx for the call only,
// since the caller may cancel it right after. An error the server raised
// is returned as *pgconn.PgError, else the first error each left in its
// columns.
func (s *session) rows(ctx context.Context, name string, each func(c *columns)) error {
	if err := s.ready(ctx, name); err != nil {
		return err
	}
	defer s.unwatch() // the caller may cancel ctx right after
	s.reset()
	if err := s.w.send(name, s.buf, s.ends, s.binary); err != nil {
		return s.lost(ctx, name, err)
	}
	var pgErr, rowErr error
	for {
		typ, body, err := s.w.next()
		if err != nil {
			return s.lost(ctx, name, err)
		}
		switch typ {
		case 'D': // DataRow
			if pgErr == nil && rowErr == nil {
				if rowErr = s.w.dataRow(body); rowErr == nil {
					c := columns{vals: s.w.vals}
					each(&c)
					rowErr = c.err
				}
			}
		case 'E': // ErrorResponse: the server goes on to ReadyForQuery
			if pgErr == nil {
				pgErr = pgError(body)
			}
		case 'Z': // ReadyForQuery
			return cmp.Or(pgErr, rowErr)
		case '2', 'C', 'N', 'S', 'A': // BindComplete, CommandComplete, notice, parameter status, notification
		default:
			return s.lost(ctx, name, fmt.Errorf("protocol: unexpected message %q", typ))
		}
	}
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

// Parameters, appended to s.buf one at a time, as text or binary.
func (s *session) reset() { s.buf, s.ends = s.buf[:0], s.ends[:0] }
func (s *session) end()   { s.ends = append(s.ends, len(s.buf)) }
func (s *session) int(v int32) {
	if s.binary {
		s.buf = binary.BigEndian.AppendUint32(s.buf, uint32(v))
	} else {
		s.buf = strconv.AppendInt(s.buf, int64(v), 10)
	}
	s.end()
}
func (s *session) bool(v bool) {
	switch {
	case s.binary && v:
		s.buf = append(s.buf, 1)
	case s.binary:
		s.buf = append(s.buf, 0)
	case v:
		s.buf = append(s.buf, 't')
	default:
		s.buf = append(s.buf, 'f')
	}
	s.end()
}
func (s *session) text(v string) { s.buf = append(s.buf, v...); s.end() }
func (s *session) float(v float64) {
	if s.binary {
		s.buf = binary.BigEndian.AppendUint64(s.buf, math.Float64bits(v))
	} else {
		s.buf = strconv.AppendFloat(s.buf, v, 'g', -1, 64) // shortest text that reads back as v
	}
	s.end()
}

// intArray appends the int4 array of f(0), f(1), ...: in binary, a
// one-dimensional array's header and each element as its length and
// value; as text, the literal {f(0),f(1),...}.
func (s *session) intArray(lines []tpcc.OrderLineInput, f func(*tpcc.OrderLineInput) int32) {
	if s.binary {
		s.binaryIntArray(lines, f)
		return
	}
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

func (s *session) binaryIntArray(lines []tpcc.OrderLineInput, f func(*tpcc.OrderLineInput) int32) {
	be := binary.BigEndian
	if len(lines) == 0 { // no dimensions, no null, the element type
		s.buf = be.AppendUint32(be.AppendUint32(be.AppendUint32(s.buf, 0), 0), pgtype.Int4OID)
		s.end()
		return
	}
	s.buf = be.AppendUint32(be.AppendUint32(be.AppendUint32(s.buf, 1), 0), pgtype.Int4OID)
	s.buf = be.AppendUint32(be.AppendUint32(s.buf, uint32(len(lines))), 1) // size, lower bound
	for i := range lines {
		s.buf = be.AppendUint32(be.AppendUint32(s.buf, 4), uint32(f(&lines[i])))
	}
	s.end()
}
