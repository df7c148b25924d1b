package mysql

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/rightsize/rightsize/tpcc"
)

// LoadMethod selects how Load sends rows.
type LoadMethod int

// Load methods.
const (
	// LoadData streams tab-separated text with LOAD DATA LOCAL INFILE from
	// a registered reader (no temporary file). The default: on MariaDB
	// 10.11 it loads 1 warehouse (2 loaders) 1.4 to 2 times faster than
	// LoadInsert with 35-40 % less server CPU (TestLoadMethods).
	LoadData LoadMethod = iota
	// LoadInsert sends multi-row INSERT statements of about 1 MiB,
	// generating the next while the server executes the current one. Load
	// falls back to it when the server refuses LOCAL INFILE (MySQL 8's
	// default local_infile=OFF).
	LoadInsert
)

// String names the method.
func (m LoadMethod) String() string {
	if m == LoadInsert {
		return "multi-row INSERT"
	}
	return "LOAD DATA LOCAL INFILE"
}

// SetLoadMethod chooses how Load sends rows (LoadData by default).
func (db *DB) SetLoadMethod(m LoadMethod) { db.loadMethod = m }

const (
	// loadChunkRows is the number of rows per LOAD DATA statement (and
	// transaction): big enough to amortise the statement, small enough to
	// keep the undo log and a failed statement's rollback short.
	loadChunkRows = 50_000
	// insertBatchBytes is the size of one multi-row INSERT statement.
	insertBatchBytes = 1 << 20
)

var readerSeq atomic.Int64

// Load implements engine.DB on one pooled connection with unique and
// foreign-key checks off (and the binary log off where the account may do
// that).
func (db *DB) Load(ctx context.Context, t tpcc.Table, rows tpcc.RowSource) (int64, error) {
	conn, err := db.pool.Conn(ctx)
	if err != nil {
		return 0, fmt.Errorf("load %s: %w", t, err)
	}
	defer conn.Close()
	for _, s := range []string{"SET SESSION unique_checks = 0", "SET SESSION foreign_key_checks = 0",
		"SET SESSION sql_mode = REPLACE(@@sql_mode, 'NO_BACKSLASH_ESCAPES', '')"} {
		if _, err := conn.ExecContext(ctx, s); err != nil {
			return 0, fmt.Errorf("load %s: %s: %w", t, s, err)
		}
	}
	binlogOff := false
	if _, err := conn.ExecContext(ctx, "SET SESSION sql_log_bin = 0"); err == nil { // needs SUPER / SYSTEM_VARIABLES_ADMIN
		binlogOff = true
	}
	defer func() { // the connection goes back to the pool
		rctx := context.WithoutCancel(ctx)
		_, _ = conn.ExecContext(rctx, "SET SESSION unique_checks = 1, foreign_key_checks = 1, sql_mode = DEFAULT")
		if binlogOff {
			_, _ = conn.ExecContext(rctx, "SET SESSION sql_log_bin = 1")
		}
	}()
	cols := tpcc.Columns[t]
	if db.loadMethod == LoadData && !db.noLocalInfile.Load() {
		n, err := loadData(ctx, conn, t, cols, rows)
		if n == 0 && err != nil && localInfileRefused(err) {
			db.noLocalInfile.Store(true) // nothing was read yet: use INSERT from now on
		} else {
			return n, err
		}
	}
	return loadInsert(ctx, conn, t, cols, rows)
}

// localInfileRefused recognises the errors of a server (or account) that
// does not accept LOAD DATA LOCAL.
func localInfileRefused(err error) bool {
	return isNumber(err, 1148) || isNumber(err, 3948) || isNumber(err, 2068) || isNumber(err, 1227) ||
		strings.Contains(err.Error(), "local infile") || strings.Contains(err.Error(), "LOCAL INFILE")
}

// rowReader is an io.Reader of up to limit rows of tab-separated text in
// LOAD DATA's default format (\t between fields, \n after rows, \ escapes,
// \N for NULL), generated on demand as the driver reads.
type rowReader struct {
	rows      tpcc.RowSource
	limit     int64
	n         int64 // rows produced
	exhausted bool
	buf       []byte
	off       int
	err       error
}

func (r *rowReader) Read(p []byte) (int, error) {
	for r.off == len(r.buf) {
		if r.err != nil {
			return 0, r.err
		}
		if r.exhausted || r.n == r.limit {
			return 0, io.EOF
		}
		r.buf, r.off = r.buf[:0], 0
		for len(r.buf) < 64<<10 && r.n < r.limit {
			if !r.rows.Next() {
				r.exhausted = true
				r.err = r.rows.Err()
				break
			}
			vals, err := r.rows.Values()
			if err != nil {
				r.err = err
				break
			}
			for i, v := range vals {
				if i > 0 {
					r.buf = append(r.buf, '\t')
				}
				r.buf = appendText(r.buf, v)
			}
			r.buf = append(r.buf, '\n')
			r.n++
		}
	}
	n := copy(p, r.buf[r.off:])
	r.off += n
	return n, nil
}

func loadData(ctx context.Context, conn *sql.Conn, t tpcc.Table, cols []string, rows tpcc.RowSource) (int64, error) {
	name := "rightsize-" + strconv.FormatInt(readerSeq.Add(1), 10)
	r := &rowReader{rows: rows}
	mysql.RegisterReaderHandler(name, func() io.Reader { return r })
	defer mysql.DeregisterReaderHandler(name)
	stmt := "LOAD DATA LOCAL INFILE 'Reader::" + name + "' INTO TABLE " + string(t) +
		` FIELDS TERMINATED BY '\t' ESCAPED BY '\\' LINES TERMINATED BY '\n' (` + strings.Join(cols, ", ") + ")"
	var total int64
	for !r.exhausted {
		r.limit, r.n = loadChunkRows, 0
		if _, err := conn.ExecContext(ctx, stmt); err != nil {
			return total, fmt.Errorf("load data into %s: %w", t, err)
		}
		total += r.n
		// LOCAL turns conversion errors into warnings: make them errors.
		var warnings int
		if err := conn.QueryRowContext(ctx, "SELECT @@warning_count").Scan(&warnings); err != nil {
			return total, err
		}
		if warnings > 0 {
			var level, msg string
			var code int
			_ = conn.QueryRowContext(ctx, "SHOW WARNINGS LIMIT 1").Scan(&level, &code, &msg)
			return total, fmt.Errorf("load data into %s: %d warnings, first: %s %d %s", t, warnings, level, code, msg)
		}
	}
	return total, nil
}

// insertBatch is one INSERT statement and its row count.
type insertBatch struct {
	sql  []byte
	rows int64
}

func loadInsert(ctx context.Context, conn *sql.Conn, t tpcc.Table, cols []string, rows tpcc.RowSource) (int64, error) {
	head := "INSERT INTO " + string(t) + " (" + strings.Join(cols, ", ") + ") VALUES "
	ctx, cancel := context.WithCancel(ctx)
	batches := make(chan insertBatch, 1)
	done := make(chan struct{})
	defer func() { cancel(); <-done }() // rows is not touched after Load returns
	free := make(chan []byte, 2)
	free <- nil
	free <- nil
	var genErr error
	go func() { // generate the next statement while the server runs this one
		defer close(done)
		defer close(batches)
		for exhausted := false; !exhausted; {
			var buf []byte
			select {
			case buf = <-free:
			case <-ctx.Done():
				return
			}
			b := insertBatch{sql: append(buf[:0], head...)}
			for len(b.sql) < insertBatchBytes {
				if !rows.Next() { // never call Next again after false
					exhausted = true
					genErr = rows.Err()
					break
				}
				vals, err := rows.Values()
				if err != nil {
					genErr = err
					return
				}
				if b.rows > 0 {
					b.sql = append(b.sql, ',')
				}
				b.sql = append(b.sql, '(')
				for i, v := range vals {
					if i > 0 {
						b.sql = append(b.sql, ',')
					}
					b.sql = appendLiteral(b.sql, v)
				}
				b.sql = append(b.sql, ')')
				b.rows++
			}
			if genErr != nil || b.rows == 0 {
				return
			}
			select {
			case batches <- b:
			case <-ctx.Done():
				return
			}
		}
	}()
	var total int64
	for b := range batches {
		if _, err := conn.ExecContext(ctx, string(b.sql)); err != nil {
			return total, fmt.Errorf("insert into %s: %w", t, err)
		}
		total += b.rows
		free <- b.sql
	}
	if genErr != nil {
		return total, genErr
	}
	return total, ctx.Err()
}

const dateTimeLayout = "2006-01-02 15:04:05"

// appendText formats v as a LOAD DATA field.
func appendText(b []byte, v any) []byte {
	switch x := v.(type) {
	case nil:
		return append(b, '\\', 'N')
	case string:
		if !needsEscape(x) {
			return append(b, x...)
		}
		for i := 0; i < len(x); i++ {
			switch c := x[i]; c {
			case '\\', '\t', '\n':
				b = append(b, '\\', c)
			case 0:
				b = append(b, '\\', '0')
			default:
				b = append(b, c)
			}
		}
		return b
	case time.Time:
		return appendTime(b, x)
	case []byte:
		return appendText(b, string(x))
	}
	if b, ok := appendNumber(b, v); ok {
		return b
	}
	return appendText(b, fmt.Sprint(v))
}

// needsEscape reports whether s holds a byte LOAD DATA or a string literal
// must escape (generated data never does).
func needsEscape(s string) bool {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\', '\t', '\n', '\r', '\'', 0:
			return true
		}
	}
	return false
}

// appendTime formats a DATETIME; the generators repeat one load time, so
// the last formatted value is kept.
func appendTime(b []byte, t time.Time) []byte {
	c := lastTime.Load()
	if c == nil || !c.t.Equal(t) || c.t.Location() != t.Location() {
		c = &timeText{t: t, s: t.AppendFormat(nil, dateTimeLayout)}
		lastTime.Store(c)
	}
	return append(b, c.s...)
}

type timeText struct {
	t time.Time
	s []byte
}

var lastTime atomic.Pointer[timeText]

// appendLiteral formats v as an SQL literal.
func appendLiteral(b []byte, v any) []byte {
	switch x := v.(type) {
	case nil:
		return append(b, "NULL"...)
	case string:
		b = append(b, '\'')
		if !needsEscape(x) {
			b = append(b, x...)
			return append(b, '\'')
		}
		for i := 0; i < len(x); i++ {
			switch c := x[i]; c {
			case '\'':
				b = append(b, '\'', '\'')
			case '\\':
				b = append(b, '\\', '\\')
			case 0:
				b = append(b, '\\', '0')
			default:
				b = append(b, c)
			}
		}
		return append(b, '\'')
	case time.Time:
		b = append(b, '\'')
		b = appendTime(b, x)
		return append(b, '\'')
	case []byte:
		return appendLiteral(b, string(x))
	}
	if b, ok := appendNumber(b, v); ok {
		return b
	}
	return appendLiteral(b, fmt.Sprint(v))
}

// appendNumber formats the numeric and boolean types; ok is false for others.
func appendNumber(b []byte, v any) (_ []byte, ok bool) {
	switch x := v.(type) {
	case int32:
		return strconv.AppendInt(b, int64(x), 10), true
	case int64:
		return strconv.AppendInt(b, x, 10), true
	case int:
		return strconv.AppendInt(b, int64(x), 10), true
	case int16:
		return strconv.AppendInt(b, int64(x), 10), true
	case int8:
		return strconv.AppendInt(b, int64(x), 10), true
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return b, false
		}
		return appendFloat(b, x), true
	case float32:
		return strconv.AppendFloat(b, float64(x), 'f', -1, 32), true
	case bool:
		if x {
			return append(b, '1'), true
		}
		return append(b, '0'), true
	}
	return b, false
}

// appendFloat formats x in the fewest decimals that represent it exactly;
// the generators' amounts (2 decimals) and rates (4) take a fast path.
func appendFloat(b []byte, x float64) []byte {
	for _, scale := range [...]float64{100, 10000} {
		u := math.Round(x * scale)
		if u/scale != x || math.Abs(u) >= 1<<53 {
			continue
		}
		n := int64(u)
		if n < 0 {
			b = append(b, '-')
			n = -n
		}
		div := int64(scale)
		b = strconv.AppendInt(b, n/div, 10)
		if frac := n % div; frac != 0 {
			b = append(b, '.')
			for d := div / 10; frac != 0; d /= 10 { // no trailing zeros
				b = append(b, byte('0'+frac/d))
				frac %= d
			}
		}
		return b
	}
	return strconv.AppendFloat(b, x, 'f', -1, 64)
}
