// Package sqlsession is the engine.ScriptSession of the engines reached
// through database/sql (engine/mysql, engine/sqlite): one dedicated
// connection, each script statement prepared once on it with ?
// placeholders (pgbench/script's QSQL), executed with the variables'
// values (integers in their canonical form bound as integers, the rest
// as text), the last row of a kept result read as text for \gset and
// \aset.
package sqlsession

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"time"
)

// Rules are an engine's answers about its errors.
type Rules struct {
	// Retry says whether an error is a deadlock or serialization failure
	// a new try of the script may not meet; Deadlock, when set, which of
	// them are deadlocks (the others count as serialization failures).
	Retry    func(error) bool
	Deadlock func(error) bool
	// NoTransaction says whether ROLLBACK's error only says no
	// transaction was open (SQLite's).
	NoTransaction func(error) bool
}

// Session runs pgbench scripts' statements on one database/sql connection.
type Session struct {
	conn  *sql.Conn
	rules Rules
	stmts map[string]*sql.Stmt
	args  []any
	cols  []string
	last  [][]byte
	vals  []any
	ptrs  []any
}

// New returns a session on conn, which it closes with itself.
func New(conn *sql.Conn, rules Rules) *Session {
	return &Session{conn: conn, rules: rules, stmts: map[string]*sql.Stmt{}}
}

// Open takes a dedicated connection from pool and returns a session on it.
func Open(ctx context.Context, pool *sql.DB, rules Rules) (*Session, error) {
	conn, err := pool.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("connect a script session: %w", err)
	}
	return New(conn, rules), nil
}

// QMark says the session takes statements with ? placeholders
// (pgbench/client prepares script.Command.QSQL).
func (s *Session) QMark() bool { return true }

// Prepare prepares q under name.
func (s *Session) Prepare(ctx context.Context, name, q string) error {
	st, err := s.conn.PrepareContext(ctx, q)
	if err != nil {
		return s.wrap(err)
	}
	if old := s.stmts[name]; old != nil {
		_ = old.Close()
	}
	s.stmts[name] = st
	return nil
}

// Exec executes the statement name with params (nil: NULL). With keep it
// reads the result and returns its row count, Last then has its columns
// and last row; without, the result is discarded and the count is 0.
func (s *Session) Exec(ctx context.Context, name string, params [][]byte, keep bool) (int64, error) {
	st := s.stmts[name]
	if st == nil {
		return 0, fmt.Errorf("statement %s is not prepared", name)
	}
	s.args = s.args[:0]
	for _, p := range params {
		s.args = append(s.args, bindValue(p))
	}
	if !keep {
		_, err := st.ExecContext(ctx, s.args...)
		return 0, s.wrap(err)
	}
	rows, err := st.QueryContext(ctx, s.args...)
	if err != nil {
		return 0, s.wrap(err)
	}
	n, err := s.read(rows)
	return n, s.wrap(err)
}

// bindValue is a parameter as the engine gets it: an integer written in
// its canonical form as an integer (so that LIMIT ? and arithmetic see a
// number), anything else as text.
func bindValue(p []byte) any {
	if p == nil {
		return nil
	}
	if len(p) > 0 && len(p) < 20 {
		if n, err := strconv.ParseInt(string(p), 10, 64); err == nil && strconv.FormatInt(n, 10) == string(p) {
			return n
		}
	}
	return string(p)
}

// read counts the rows and keeps the last one as text.
func (s *Session) read(rows *sql.Rows) (int64, error) {
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return 0, err
	}
	s.cols, s.last = append(s.cols[:0], cols...), s.last[:0]
	s.vals, s.ptrs = make([]any, len(cols)), make([]any, len(cols))
	for i := range s.vals {
		s.ptrs[i] = &s.vals[i]
	}
	var n int64
	for rows.Next() {
		n++
		if err := rows.Scan(s.ptrs...); err != nil {
			return n, err
		}
	}
	if err := rows.Err(); err != nil {
		return n, err
	}
	if n > 0 {
		for _, v := range s.vals {
			s.last = append(s.last, text(v))
		}
	}
	return n, nil
}

// text is a column's value as pgbench stores it in a variable (nil: NULL).
func text(v any) []byte {
	switch x := v.(type) {
	case nil:
		return nil
	case []byte:
		return append([]byte{}, x...)
	case string:
		return []byte(x)
	case int64:
		return strconv.AppendInt(nil, x, 10)
	case uint64:
		return strconv.AppendUint(nil, x, 10)
	case float64:
		return strconv.AppendFloat(nil, x, 'g', -1, 64)
	case float32:
		return strconv.AppendFloat(nil, float64(x), 'g', -1, 32)
	case bool:
		if x {
			return []byte("t")
		}
		return []byte("f")
	case time.Time:
		return []byte(x.Format("2006-01-02 15:04:05.999999"))
	}
	return fmt.Append(nil, v)
}

// Last is the columns and last row of the last Exec with keep.
func (s *Session) Last() ([]string, [][]byte) { return s.cols, s.last }

// InTransaction is always true: database/sql does not tell, so after an
// error the session always rolls back (a no-op without a transaction).
func (s *Session) InTransaction() bool { return true }

// Rollback ends the transaction block, if one is open.
func (s *Session) Rollback(ctx context.Context) error {
	_, err := s.conn.ExecContext(ctx, "ROLLBACK")
	if err != nil && s.rules.NoTransaction != nil && s.rules.NoTransaction(err) {
		return nil
	}
	return err
}

// Close closes the statements and the connection.
func (s *Session) Close(context.Context) error {
	for _, st := range s.stmts {
		_ = st.Close()
	}
	return s.conn.Close()
}

// wrap marks the errors the engine's rules say a new try may not meet.
func (s *Session) wrap(err error) error {
	if err != nil && s.rules.Retry != nil && s.rules.Retry(err) {
		return &RetryError{Err: err, deadlock: s.rules.Deadlock != nil && s.rules.Deadlock(err)}
	}
	return err
}

// RetryError is a deadlock or serialization failure: pgbench/client runs
// the script again (--max-tries).
type RetryError struct {
	Err      error
	deadlock bool
}

func (e *RetryError) Error() string { return e.Err.Error() }

// Unwrap is the engine's error.
func (e *RetryError) Unwrap() error { return e.Err }

// Retryable is true.
func (e *RetryError) Retryable() bool { return true }

// Deadlock says whether the engine's rules call it a deadlock.
func (e *RetryError) Deadlock() bool { return e.deadlock }
