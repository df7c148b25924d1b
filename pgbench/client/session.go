package client

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// Session is the connection a client runs its scripts on: statements
// prepared once by name, then executed with text parameters, the last
// row of their result kept for \gset and \aset. PgSession is PostgreSQL's;
// another engine plugs in with its own.
type Session interface {
	Prepare(ctx context.Context, name, sql string) error
	// Exec runs a prepared statement (a nil parameter is NULL) and
	// returns how many rows it returned; with keep, Last then has the
	// result's column names and its last row.
	Exec(ctx context.Context, name string, params [][]byte, keep bool) (rows int64, err error)
	// Last is the column names and last row (nil values are NULLs) of the
	// last Exec with keep, valid until the next call.
	Last() (columns []string, row [][]byte)
	// InTransaction says whether a transaction block is open (after an
	// error, to roll it back).
	InTransaction() bool
	Rollback(ctx context.Context) error
}

// Sleeper is a Session that may sleep for its client (\sleep): one whose
// connection waits in a loop shared with other clients must not block
// that loop's goroutine. It says whether it slept (false: the client
// sleeps itself).
type Sleeper interface {
	Sleep(ctx context.Context, d time.Duration) (bool, error)
}

// PgSession runs scripts on a pgconn connection, as pgbench -M prepared:
// text parameters and results, types inferred by the server.
type PgSession struct {
	Conn *pgconn.PgConn
	cols []string
	last [][]byte
}

// Prepare prepares sql under name.
func (s *PgSession) Prepare(ctx context.Context, name, sql string) error {
	_, err := s.Conn.Prepare(ctx, name, sql, nil)
	return err
}

// Exec executes the statement prepared as name.
func (s *PgSession) Exec(ctx context.Context, name string, params [][]byte, keep bool) (int64, error) {
	return s.read(s.Conn.ExecPrepared(ctx, name, params, nil, nil), keep)
}

// ExecUnnamed runs sql unnamed with params (ExtendedSession).
func (s *PgSession) ExecUnnamed(ctx context.Context, sql string, params [][]byte, keep bool) (int64, error) {
	return s.read(s.Conn.ExecParams(ctx, sql, params, nil, nil, nil), keep)
}

// SimpleQuery runs sql as one simple query (SimpleSession).
func (s *PgSession) SimpleQuery(ctx context.Context, sql []byte, keep bool) (int64, error) {
	mrr := s.Conn.Exec(ctx, string(sql))
	var rows int64
	for mrr.NextResult() {
		n, err := s.read(mrr.ResultReader(), keep)
		if rows += n; err != nil {
			_ = mrr.Close()
			return rows, err
		}
	}
	return rows, mrr.Close()
}

// read counts rr's rows, with keep keeping its columns and last row.
func (s *PgSession) read(rr *pgconn.ResultReader, keep bool) (int64, error) {
	var rows int64
	if keep {
		s.cols = s.cols[:0]
		for _, f := range rr.FieldDescriptions() {
			s.cols = append(s.cols, f.Name)
		}
	}
	for rr.NextRow() {
		rows++
		if keep {
			s.last = s.last[:0]
			for _, v := range rr.Values() {
				s.last = append(s.last, v) // copied below, after the loop
			}
			s.last = copyRow(s.last)
		}
	}
	_, err := rr.Close()
	return rows, err
}

// Last is the columns and last row of the last Exec with keep.
func (s *PgSession) Last() ([]string, [][]byte) { return s.cols, s.last }

// copyRow copies the values pgconn reuses for the next row.
func copyRow(row [][]byte) [][]byte {
	for i, v := range row {
		if v != nil {
			row[i] = append([]byte(nil), v...)
		}
	}
	return row
}

// InTransaction is true inside a transaction block, failed or not.
func (s *PgSession) InTransaction() bool {
	st := s.Conn.TxStatus()
	return st == 'T' || st == 'E'
}

// Rollback ends the transaction block.
func (s *PgSession) Rollback(ctx context.Context) error {
	return s.Conn.Exec(ctx, "ROLLBACK").Close()
}
