// Package sqlite is the no-server engine: a TPC-C database in one SQLite
// file through modernc.org/sqlite (pure Go, no cgo), so rightsize works on a
// machine with nothing installed. The file runs in WAL mode with
// synchronous=NORMAL; write transactions begin IMMEDIATE and queue on an
// in-process writer lock (SQLite allows one writer), read-only ones
// (Order-Status) begin deferred. Only the statements mode exists: SQLite has
// no stored procedures.
package sqlite

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	msqlite "modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/rightsize/rightsize/engine"
	"github.com/rightsize/rightsize/tpcc"
)

// Caps are SQLite's capabilities: client-side statements only, no server.
var Caps = engine.Caps{Procedures: false, Statements: true, Server: false}

// BusyTimeout is how long (in milliseconds) a connection waits for a lock
// another connection holds before SQLite returns SQLITE_BUSY.
const BusyTimeout = 10000

// timeLayout is how timestamps are stored: TEXT in UTC, the format of
// SQLite's datetime('now'), which the transactions use.
const timeLayout = "2006-01-02 15:04:05"

// DB is an open SQLite benchmark database.
type DB struct {
	path string  // absolute file name
	sql  *sql.DB // loaders, index builds, checks; executors take dedicated conns from it

	// wlock serialises writers inside this process (load, DDL, and the
	// write transactions of the virtual users) so they queue in Go rather
	// than poll SQLite's busy handler.
	wlock chan struct{}
	// writeWaits and writeWaitNs count the waits for wlock and their time
	// (the wait profile, waits.go).
	writeWaits, writeWaitNs atomic.Int64

	commits, rollbacks atomic.Int64
	closed             atomic.Bool

	mu      sync.Mutex
	execs   map[*executor]struct{}
	retired [3]int64 // cache hit, miss, write of closed executors
}

var _ engine.DB = (*DB)(nil)

// DSN returns the modernc.org/sqlite data source name for path: WAL,
// synchronous=NORMAL, a busy timeout, and BEGIN IMMEDIATE for transactions
// begun through database/sql.
func DSN(path string) string {
	p := filepath.ToSlash(path)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p // Windows: file:/C:/dir/x.db
	}
	// Escape what a URI would misread; SQLite decodes %XX in the path.
	p = strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23").Replace(p)
	return "file:" + p + "?_pragma=busy_timeout(" + strconv.Itoa(BusyTimeout) + ")" +
		"&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)&_txlock=immediate"
}

// Open opens (creating it if missing) the SQLite database file path. It
// fails with a clear error when the directory does not exist, is not a
// directory or is not writable (SQLite needs to create the -wal and -shm
// files next to the database), or when path is not a SQLite database.
func Open(ctx context.Context, path string) (*DB, error) {
	if path == "" {
		return nil, errors.New("sqlite: empty database path (use sqlite:PATH)")
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("sqlite: database path %s: %w", path, err)
	}
	if fi, err := os.Stat(abs); err == nil && fi.IsDir() {
		return nil, fmt.Errorf("sqlite: %s is a directory, not a database file (name a file in it, e.g. sqlite:%s)", abs, filepath.Join(abs, "tpcc.db"))
	}
	dir := filepath.Dir(abs)
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil, fmt.Errorf("sqlite: cannot create database %s: directory %s does not exist (create it, or name a file in a directory that exists)", abs, dir)
	case err != nil:
		return nil, fmt.Errorf("sqlite: cannot use directory %s: %w", dir, err)
	case !fi.IsDir():
		return nil, fmt.Errorf("sqlite: cannot create database %s: %s is not a directory", abs, dir)
	}
	probe, err := os.CreateTemp(dir, ".rightsize-probe-*")
	if err != nil {
		return nil, fmt.Errorf("sqlite: directory %s is not writable (SQLite needs to create %s and its -wal and -shm files there): %w",
			dir, filepath.Base(abs), err)
	}
	probe.Close()
	os.Remove(probe.Name())

	sdb, err := sql.Open("sqlite", DSN(abs))
	if err != nil {
		return nil, fmt.Errorf("sqlite: open %s: %w", abs, err)
	}
	sdb.SetMaxIdleConns(4)
	// The DSN's PRAGMAs run on connect: journal_mode(WAL) reads the file
	// header, so a file that is not a database fails here.
	var mode string
	if err := sdb.QueryRowContext(ctx, "PRAGMA journal_mode").Scan(&mode); err != nil {
		sdb.Close()
		return nil, fmt.Errorf("sqlite: open %s: %w", abs, err)
	}
	if !strings.EqualFold(mode, "wal") {
		sdb.Close()
		return nil, fmt.Errorf("sqlite: open %s: journal mode is %q, could not switch to WAL", abs, mode)
	}
	return &DB{path: abs, sql: sdb, wlock: make(chan struct{}, 1), execs: map[*executor]struct{}{}}, nil
}

// Path returns the database file's absolute name.
func (db *DB) Path() string { return db.path }

// SQL exposes the connection pool (tests and tools).
func (db *DB) SQL() *sql.DB { return db.sql }

// Engine implements engine.DB.
func (db *DB) Engine() string { return "sqlite" }

// Caps implements engine.DB.
func (db *DB) Caps() engine.Caps { return Caps }

// ErrClosed is returned by the transactions of executors whose DB was
// closed; Classify reports it as ErrConnection.
var ErrClosed = errors.New("sqlite: database is closed")

// Close implements engine.DB. Executors still open fail afterwards with
// ErrClosed.
func (db *DB) Close() error {
	db.closed.Store(true)
	return db.sql.Close()
}

// lockWriter takes the in-process writer lock, or gives up with ctx.
func (db *DB) lockWriter(ctx context.Context) error {
	select {
	case db.wlock <- struct{}{}:
		return nil
	default: // held: the wait is timed
	}
	defer db.timeWriteWait()()
	select {
	case db.wlock <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (db *DB) unlockWriter() { <-db.wlock }

// Version implements engine.DB.
func (db *DB) Version(ctx context.Context) (string, error) {
	var v string
	if err := db.sql.QueryRowContext(ctx, "SELECT sqlite_version()").Scan(&v); err != nil {
		return "", fmt.Errorf("sqlite version: %w", err)
	}
	return "SQLite " + v, nil
}

var settingNames = []string{"journal_mode", "synchronous", "cache_size", "page_size", "busy_timeout",
	"wal_autocheckpoint", "mmap_size", "temp_store", "locking_mode", "auto_vacuum"}

var synchronousNames = map[string]string{"0": "OFF", "1": "NORMAL", "2": "FULL", "3": "EXTRA"}

// Settings implements engine.DB: the PRAGMAs of a pooled connection (every
// connection gets the same ones from the DSN) and the driver's version.
func (db *DB) Settings(ctx context.Context) (map[string]string, error) {
	conn, err := db.sql.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("sqlite settings: %w", err)
	}
	defer conn.Close()
	out := map[string]string{}
	for _, name := range settingNames {
		var v string
		if err := conn.QueryRowContext(ctx, "PRAGMA "+name).Scan(&v); err != nil {
			return nil, fmt.Errorf("sqlite settings: PRAGMA %s: %w", name, err)
		}
		if name == "synchronous" && synchronousNames[v] != "" {
			v = synchronousNames[v]
		}
		out[name] = v
	}
	var v string
	if err := conn.QueryRowContext(ctx, "SELECT sqlite_version()").Scan(&v); err == nil {
		out["sqlite_version"] = v
	}
	out["driver"] = "modernc.org/sqlite"
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, m := range bi.Deps {
			if m.Path == "modernc.org/sqlite" {
				out["driver"] += " " + m.Version
			}
		}
	}
	out["transactions"] = "writes BEGIN IMMEDIATE, reads deferred"
	return out, nil
}

// QueryInt implements engine.DB.
func (db *DB) QueryInt(ctx context.Context, q string) (int64, error) {
	var n int64
	err := db.sql.QueryRowContext(ctx, q).Scan(&n)
	return n, err
}

// CheckSQL implements engine.DB: SQLite runs the portable SQL as is (it
// has correlated subqueries, abs, COALESCE and boolean comparisons).
func (db *DB) CheckSQL(c tpcc.Check) string { return c.SQL }

// WriteMeta implements engine.DB.
func (db *DB) WriteMeta(ctx context.Context, m engine.Meta) error {
	if err := db.lockWriter(ctx); err != nil {
		return err
	}
	defer db.unlockWriter()
	return engine.WriteMetaText(m, func(text string) error {
		_, err := db.sql.ExecContext(ctx, `INSERT INTO rightsize_meta (id, meta) VALUES (1, ?)
ON CONFLICT (id) DO UPDATE SET meta = excluded.meta`, text)
		return err
	})
}

// ReadMeta implements engine.DB.
func (db *DB) ReadMeta(ctx context.Context) (engine.Meta, error) {
	var m engine.Meta
	var n int
	if err := db.sql.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = 'rightsize_meta'`).Scan(&n); err != nil {
		return m, fmt.Errorf("read rightsize_meta: %w", err)
	}
	if n == 0 {
		return m, engine.ErrNoSchema
	}
	var s string
	err := db.sql.QueryRowContext(ctx, "SELECT meta FROM rightsize_meta WHERE id = 1").Scan(&s)
	return engine.ReadMetaText(s, err, errors.Is(err, sql.ErrNoRows))
}

// TableSizes implements engine.DB: row counts, and bytes from the dbstat
// virtual table (index bytes are the secondary indexes and, for rowid
// tables, the primary key's index; a WITHOUT ROWID table is its primary
// key). Without dbstat the bytes are 0.
func (db *DB) TableSizes(ctx context.Context) ([]engine.TableSize, error) {
	out := make([]engine.TableSize, 0, len(tpcc.Tables))
	idx := map[tpcc.Table]int{}
	for _, t := range tpcc.Tables {
		s := engine.TableSize{Table: t}
		if err := db.sql.QueryRowContext(ctx, "SELECT count(*) FROM "+string(t)).Scan(&s.Rows); err != nil {
			return nil, fmt.Errorf("size of %s: %w", t, err)
		}
		idx[t] = len(out)
		out = append(out, s)
	}
	rows, err := db.sql.QueryContext(ctx, `SELECT m.tbl_name, m.type, d.pgsize FROM dbstat AS d
 JOIN sqlite_schema AS m ON m.name = d.name WHERE d.aggregate = TRUE`)
	if err != nil {
		return out, nil // dbstat not compiled in: rows only
	}
	defer rows.Close()
	for rows.Next() {
		var tbl, typ string
		var bytes int64
		if err := rows.Scan(&tbl, &typ, &bytes); err != nil {
			return nil, err
		}
		i, ok := idx[tpcc.Table(tbl)]
		if !ok {
			continue
		}
		if typ == "table" {
			out[i].DataBytes += bytes
		} else {
			out[i].IndexBytes += bytes
		}
	}
	return out, rows.Err()
}

// Counters implements engine.DB. SQLite keeps no server-wide statistics:
// commits and rollbacks are those of this DB's executors; BlocksHit,
// BlocksRead and Extra["cache_write"] sum sqlite3_db_status's page-cache
// hits, misses and writes over the executors' connections (closed ones
// included); WALBytes estimates the WAL written as pages written times
// (page size + 24-byte frame header). Checkpoints stays 0.
func (db *DB) Counters(ctx context.Context) (engine.Counters, error) {
	c := engine.Counters{Commits: db.commits.Load(), Rollbacks: db.rollbacks.Load()}
	db.mu.Lock() // executors cannot close (and move to retired) meanwhile
	tot := db.retired
	for e := range db.execs {
		if s, err := cacheStatus(e.conn); err == nil {
			for i := range tot {
				tot[i] += s[i]
			}
		}
	}
	db.mu.Unlock()
	c.BlocksHit, c.BlocksRead = tot[0], tot[1]
	var pageSize int64
	if err := db.sql.QueryRowContext(ctx, "PRAGMA page_size").Scan(&pageSize); err != nil {
		return c, fmt.Errorf("sqlite counters: %w", err)
	}
	c.WALBytes = tot[2] * (pageSize + 24)
	c.Extra = map[string]int64{"cache_write": tot[2]}
	return c, nil
}

// cacheStatus reads a connection's page-cache hits, misses and writes.
func cacheStatus(conn *sql.Conn) (s [3]int64, err error) {
	err = conn.Raw(func(dc any) error {
		st, ok := dc.(msqlite.DBStatus)
		if !ok {
			return errors.New("sqlite: driver connection has no DBStatus")
		}
		for i, op := range [3]msqlite.DBStatusOp{msqlite.DBStatusCacheHit, msqlite.DBStatusCacheMiss, msqlite.DBStatusCacheWrite} {
			cur, _, err := st.Status(op, false)
			if err != nil {
				return err
			}
			s[i] = int64(cur)
		}
		return nil
	})
	return s, err
}

// Classify implements engine.DB: SQLITE_BUSY and SQLITE_LOCKED (a lock
// wait that outlived busy_timeout) are retried, a closed database or
// connection means reconnect, anything else is counted.
func (db *DB) Classify(err error) engine.ErrClass { return classify(err) }

func classify(err error) engine.ErrClass {
	var se *msqlite.Error
	if errors.As(err, &se) {
		switch se.Code() & 0xff {
		case sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED:
			return engine.ErrRetry
		case sqlite3.SQLITE_MISUSE:
			return engine.ErrConnection // a statement on a closed handle
		}
		return engine.ErrOther
	}
	if errors.Is(err, ErrClosed) || errors.Is(err, sql.ErrConnDone) || errors.Is(err, driver.ErrBadConn) ||
		strings.Contains(err.Error(), "sql: database is closed") || strings.Contains(err.Error(), "sql: statement is closed") {
		return engine.ErrConnection
	}
	return engine.ErrOther
}
