package postgres

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/rightsize/rightsize/internal/rawsock"
)

// ScriptSession runs pgbench scripts' statements (pgbench/client's
// Session) on a connection taken over from pgconn, as the TPC-C
// executors do: Parse and Sync when a statement is first prepared, then
// per execution one write of Bind (text parameters, text results),
// Describe when the row is kept, Execute and Sync, and the reply parsed
// in place. It is pgbench -M prepared's protocol without pgconn's
// per-call work; ExecUnnamed and SimpleQuery are -M extended's and
// simple's.
type ScriptSession struct {
	s    session
	tx   byte  // transaction status of the last ReadyForQuery
	rows int64 // rows of the statement being read
	cols []string
	last [][]byte
	row  []byte        // the kept row's bytes, last's values point into it
	loop *rawsock.Loop // the loop the socket waits in (Attach), or nil
	// syncs counts the synchronisation points queued in an open pipeline
	// (Queue, SyncPipeline); its messages wait in the wire's out buffer.
	syncs int
}

// NewScriptSession connects to dsn and takes the connection over.
func NewScriptSession(ctx context.Context, dsn string) (*ScriptSession, error) {
	cfg, err := pgconn.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("parse PostgreSQL DSN: %w", err)
	}
	return connectScriptSession(ctx, cfg)
}

// connectScriptSession connects by cfg, which it keeps, and takes the
// connection over.
func connectScriptSession(ctx context.Context, cfg *pgconn.Config) (*ScriptSession, error) {
	cfg.DialFunc = rawsock.WrapDial(cfg.DialFunc)
	pg, err := pgconn.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, err
	}
	s, err := takeOver(ctx, pg)
	if err != nil {
		pg.Close(ctx)
		return nil, err
	}
	return &ScriptSession{s: s, tx: 'I'}, nil
}

// Close ends the session.
func (ss *ScriptSession) Close(ctx context.Context) error { return ss.s.Close(ctx) }

// Attach moves the session's socket out of the runtime's network poller
// into l: its calls must then come from l's coroutines, and Sleep sleeps
// through l. On an error the session is unusable.
func (ss *ScriptSession) Attach(l *rawsock.Loop) error {
	if ss.s.w.broken != nil {
		return fmt.Errorf("attach: %w", errConnBroken)
	}
	ss.s.unwatch()
	fc, err := rawsock.Detach(ss.s.w.hc.Conn)
	if err != nil {
		return fmt.Errorf("attach to the driver's loop: %w", err)
	}
	ss.s.w.hc.Conn, ss.s.w.x = fc, fc
	if err := l.Add(fc); err != nil {
		ss.s.w.fail(err, false)
		return fmt.Errorf("attach to the driver's loop: %w", err)
	}
	ss.loop = l
	return nil
}

// Sleep pauses the session's user for d, or until ctx ends, through the
// loop the session is attached to (pgbench/client's Sleeper); without one
// it leaves the sleep to the client (false).
func (ss *ScriptSession) Sleep(ctx context.Context, d time.Duration) (bool, error) {
	if ss.loop == nil {
		return false, nil
	}
	return true, ss.loop.Sleep(ctx, d)
}

// Prepare parses sql as the statement name (parameter types inferred).
func (ss *ScriptSession) Prepare(ctx context.Context, name, sql string) error {
	if err := ss.s.ready(ctx, name); err != nil {
		return err
	}
	w := ss.s.w
	w.out = append(w.out[:0], 'P', 0, 0, 0, 0)
	w.out = append(append(w.out, name...), 0)
	w.out = append(append(w.out, sql...), 0)
	w.int16(0)
	binary.BigEndian.PutUint32(w.out[1:], uint32(len(w.out)-1))
	if err := w.flush(); err != nil {
		return ss.s.lost(ctx, name, err)
	}
	return ss.reply(ctx, name, false)
}

// Exec executes the statement name with text parameters (nil: NULL) and
// returns its row count; with keep, Last has its columns and last row.
func (ss *ScriptSession) Exec(ctx context.Context, name string, params [][]byte, keep bool) (int64, error) {
	if err := ss.s.ready(ctx, name); err != nil {
		return 0, err
	}
	ss.s.w.out = ss.s.w.out[:0]
	return ss.execute(ctx, name, name, params, keep)
}

// ExecUnnamed parses sql as the unnamed statement and executes it, in one
// message with Exec's (pgbench -M extended; pgbench/client's
// ExtendedSession).
func (ss *ScriptSession) ExecUnnamed(ctx context.Context, sql string, params [][]byte, keep bool) (int64, error) {
	if err := ss.s.ready(ctx, "statement"); err != nil {
		return 0, err
	}
	w := ss.s.w
	w.out = append(w.out[:0], 'P', 0, 0, 0, 0, 0) // length, unnamed statement
	w.out = append(append(w.out, sql...), 0)
	w.int16(0) // parameter types: inferred
	binary.BigEndian.PutUint32(w.out[1:], uint32(len(w.out)-1))
	return ss.execute(ctx, "statement", "", params, keep)
}

// SimpleQuery sends sql as one simple Query, its values in its text
// (pgbench -M simple; pgbench/client's SimpleSession); keep is Exec's.
func (ss *ScriptSession) SimpleQuery(ctx context.Context, sql []byte, keep bool) (int64, error) {
	if err := ss.s.ready(ctx, "query"); err != nil {
		return 0, err
	}
	w := ss.s.w
	w.out = append(w.out[:0], 'Q', 0, 0, 0, 0)
	w.out = append(append(w.out, sql...), 0)
	binary.BigEndian.PutUint32(w.out[1:], uint32(len(w.out)-1))
	if keep {
		ss.cols, ss.last = ss.cols[:0], ss.last[:0]
	}
	if err := w.exchange(); err != nil {
		return 0, ss.s.lost(ctx, "query", err)
	}
	ss.rows = 0
	err := ss.reply(ctx, "query", keep)
	return ss.rows, err
}

// execute appends Bind of statement stmt (text parameters, nil: NULL;
// text results), Describe when the row is kept, Execute and Sync to the
// messages to send, sends them and reads the reply; what names the call
// in errors.
func (ss *ScriptSession) execute(ctx context.Context, what, stmt string, params [][]byte, keep bool) (int64, error) {
	ss.bindExecute(stmt, params, keep)
	if err := ss.s.w.flush(); err != nil {
		return 0, ss.s.lost(ctx, what, err)
	}
	ss.rows = 0
	err := ss.reply(ctx, what, keep)
	return ss.rows, err
}

// bindExecute appends Bind of statement stmt (text parameters, nil:
// NULL; text results), Describe when the row is kept, and Execute to the
// messages to send.
func (ss *ScriptSession) bindExecute(stmt string, params [][]byte, keep bool) {
	w := ss.s.w
	at := len(w.out)
	w.out = append(w.out, 'B', 0, 0, 0, 0, 0) // length, unnamed portal
	w.out = append(append(w.out, stmt...), 0)
	w.int16(0) // parameter formats: all text
	w.int16(len(params))
	for _, p := range params {
		if p == nil {
			w.int32(-1)
			continue
		}
		w.int32(len(p))
		w.out = append(w.out, p...)
	}
	w.int16(0) // result formats: all text
	binary.BigEndian.PutUint32(w.out[at+1:], uint32(len(w.out)-at-1))
	if keep {
		w.out = append(w.out, 'D', 0, 0, 0, 6, 'P', 0) // describe the unnamed portal
		ss.cols, ss.last = ss.cols[:0], ss.last[:0]
	}
	w.out = append(w.out, 'E', 0, 0, 0, 9, 0, 0, 0, 0, 0) // unnamed portal, all rows
}

// reply reads the server's messages up to ReadyForQuery: rows counted,
// with keep the column names and the last row kept; an ErrorResponse is
// returned as *pgconn.PgError once the server is ready again.
func (ss *ScriptSession) reply(ctx context.Context, name string, keep bool) error {
	var pgErr error
	for {
		typ, body, err := ss.s.w.next()
		if err != nil {
			return ss.s.lost(ctx, name, err)
		}
		switch typ {
		case 'D': // DataRow
			ss.rows++
			if keep && pgErr == nil {
				pgErr = ss.keepRow(body)
			}
		case 'T': // RowDescription: a simple query's comes unasked
			if !keep {
				continue
			}
			if err := ss.columns(body); err != nil {
				return ss.s.lost(ctx, name, err)
			}
		case 'E':
			if pgErr == nil {
				pgErr = pgError(body)
			}
		case 'Z':
			if len(body) > 0 {
				ss.tx = body[0]
			}
			return pgErr
		case '1', '2', 'C', 'n', 'I', 'N', 'S', 'A': // parse and bind complete, command complete, no data, empty query, notice, parameter status, notification
		default:
			return ss.s.lost(ctx, name, fmt.Errorf("protocol: unexpected message %q", typ))
		}
	}
}

// columns reads the column names of a RowDescription.
func (ss *ScriptSession) columns(body []byte) error {
	if len(body) < 2 {
		return errors.New("protocol: short RowDescription")
	}
	n := int(binary.BigEndian.Uint16(body))
	body = body[2:]
	for range n {
		end := 0
		for end < len(body) && body[end] != 0 {
			end++
		}
		if end+19 > len(body) { // the name's NUL and 18 bytes of attributes
			return errors.New("protocol: short RowDescription")
		}
		ss.cols = append(ss.cols, string(body[:end]))
		body = body[end+19:]
	}
	return nil
}

// keepRow copies a DataRow's values, which the wire's buffer holds only
// until the next message.
func (ss *ScriptSession) keepRow(body []byte) error {
	if err := ss.s.w.dataRow(body); err != nil {
		return err
	}
	ss.row, ss.last = ss.row[:0], ss.last[:0]
	for _, v := range ss.s.w.vals {
		ss.row = append(ss.row, v...)
	}
	at := 0
	for _, v := range ss.s.w.vals {
		if v == nil {
			ss.last = append(ss.last, nil)
			continue
		}
		ss.last = append(ss.last, ss.row[at:at+len(v):at+len(v)])
		at += len(v)
	}
	return nil
}

// Last is the columns and last row of the last Exec with keep.
func (ss *ScriptSession) Last() ([]string, [][]byte) { return ss.cols, ss.last }

// InTransaction is true inside a transaction block, failed or not.
func (ss *ScriptSession) InTransaction() bool { return ss.tx == 'T' || ss.tx == 'E' }

// Rollback ends the transaction block.
func (ss *ScriptSession) Rollback(ctx context.Context) error {
	if err := ss.s.ready(ctx, "rollback"); err != nil {
		return err
	}
	if err := ss.s.w.query("ROLLBACK"); err != nil {
		return ss.s.lost(ctx, "rollback", err)
	}
	return ss.reply(ctx, "rollback", false)
}

// Queue appends the execution of statement name (or, with sql, of the
// unnamed statement parsed from it) to the open pipeline: nothing is
// sent until EndPipeline (pgbench/client's PipelineSession).
func (ss *ScriptSession) Queue(name, sql string, params [][]byte) {
	w := ss.s.w
	if sql != "" {
		at := len(w.out)
		w.out = append(w.out, 'P', 0, 0, 0, 0, 0) // length, unnamed statement
		w.out = append(append(w.out, sql...), 0)
		w.int16(0) // parameter types: inferred
		binary.BigEndian.PutUint32(w.out[at+1:], uint32(len(w.out)-at-1))
		name = ""
	}
	ss.bindExecute(name, params, false)
}

// SyncPipeline appends a Sync to the open pipeline (\syncpipeline): the
// statements before it are committed or failed apart from those after.
func (ss *ScriptSession) SyncPipeline() {
	ss.s.w.out = append(ss.s.w.out, 'S', 0, 0, 0, 4)
	ss.syncs++
}

// EndPipeline sends the pipeline's messages with a last Sync, in one
// write, and reads every reply up to the last ReadyForQuery; it returns
// the first error the server raised (after one, the server skips the
// statements up to the next Sync).
func (ss *ScriptSession) EndPipeline(ctx context.Context) error {
	n := ss.syncs + 1
	ss.syncs = 0
	if err := ss.s.ready(ctx, "pipeline"); err != nil {
		ss.s.w.out = ss.s.w.out[:0]
		return err
	}
	if err := ss.s.w.flush(); err != nil {
		return ss.s.lost(ctx, "pipeline", err)
	}
	var first error
	for range n {
		err := ss.reply(ctx, "pipeline", false)
		if ss.s.w.broken != nil {
			return err
		}
		if first == nil {
			first = err
		}
	}
	return first
}

// DropPipeline forgets the open pipeline's messages, none of them sent.
func (ss *ScriptSession) DropPipeline() {
	ss.s.w.out = ss.s.w.out[:0]
	ss.syncs = 0
}
