// Package postgres is the PostgreSQL engine: DDL, COPY bulk load, PL/pgSQL
// procedures and pipelined client-side statements for the five
// transactions, and server counters from pg_stat_database.
package postgres

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/rightsize/rightsize/engine"
	"github.com/rightsize/rightsize/tpcc"
)

// DB is an open PostgreSQL benchmark database.
type DB struct {
	dsn      string
	pool     *pgxpool.Pool
	dbname   string
	poolSize int32
	// isolation is what executors opened from now on run at.
	isolation engine.Isolation

	procsMu    sync.Mutex
	procsReady bool // the procedures are procVersion (ensureProcedures)

	// scriptCfg is dsn parsed once for the script sessions (a user of
	// run --connect opens one per transaction), each given a copy.
	scriptCfg     *pgconn.Config
	scriptCfgErr  error
	scriptCfgOnce sync.Once
}

// Open connects to dsn with a pool of up to poolSize connections (loaders,
// index builds) and verifies the server answers.
func Open(ctx context.Context, dsn string, poolSize int) (*DB, error) {
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("parse PostgreSQL DSN: %w", err)
	}
	if poolSize < 2 {
		poolSize = 2
	}
	cfg.MaxConns = int32(poolSize)
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("connect to PostgreSQL: %w", err)
	}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("connect to PostgreSQL at %s:%d: %w", cfg.ConnConfig.Host, cfg.ConnConfig.Port, oneLine(err))
	}
	return &DB{dsn: dsn, pool: pool, dbname: cfg.ConnConfig.Database, poolSize: cfg.MaxConns}, nil
}

// EnsureDatabase connects to the server of dsn (via its "postgres"
// database) and creates dsn's database if it does not exist.
func EnsureDatabase(ctx context.Context, dsn string) error {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return fmt.Errorf("parse PostgreSQL DSN: %w", err)
	}
	name := cfg.Database
	cfg.Database = "postgres"
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return fmt.Errorf("connect to PostgreSQL at %s:%d: %w", cfg.Host, cfg.Port, oneLine(err))
	}
	defer conn.Close(ctx)
	var exists bool
	if err := conn.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)", name).Scan(&exists); err != nil {
		return fmt.Errorf("look up database %s: %w", name, err)
	}
	if !exists {
		if _, err := conn.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize()); err != nil {
			return fmt.Errorf("create database %s: %w", name, err)
		}
	}
	return nil
}

// Engine implements engine.DB.
func (db *DB) Engine() string { return "postgres" }

// Caps implements engine.DB.
func (db *DB) Caps() engine.Caps { return Caps }

// Caps are PostgreSQL's capabilities.
var Caps = engine.Caps{Procedures: true, Statements: true, Server: true}

// Pool exposes the connection pool (tests and probes).
func (db *DB) Pool() *pgxpool.Pool { return db.pool }

// Close implements engine.DB.
func (db *DB) Close() error { db.pool.Close(); return nil }

// Version implements engine.DB.
func (db *DB) Version(ctx context.Context) (string, error) {
	var v string
	err := db.pool.QueryRow(ctx, "SHOW server_version").Scan(&v)
	return "PostgreSQL " + v, err
}

var settingNames = []string{"server_version", "shared_buffers", "effective_cache_size", "work_mem", "maintenance_work_mem",
	"max_connections", "synchronous_commit", "fsync", "full_page_writes", "wal_level", "max_wal_size", "checkpoint_timeout",
	"default_transaction_isolation", "max_parallel_workers_per_gather", "huge_pages", "random_page_cost", "data_checksums",
	"wal_recycle", "wal_init_zero"}

// Settings implements engine.DB.
func (db *DB) Settings(ctx context.Context) (map[string]string, error) {
	rows, err := db.pool.Query(ctx, "SELECT name, current_setting(name) FROM pg_settings WHERE name = ANY($1)", settingNames)
	if err != nil {
		return nil, fmt.Errorf("read pg_settings: %w", err)
	}
	out := map[string]string{}
	if err := engine.ScanNamed(rows, func(k, v string) { out[k] = v }); err != nil {
		return nil, err
	}
	return out, nil
}

// QueryInt implements engine.DB.
func (db *DB) QueryInt(ctx context.Context, sql string) (int64, error) {
	var n int64
	err := db.pool.QueryRow(ctx, sql).Scan(&n)
	return n, err
}

// CheckSQL implements engine.DB: PostgreSQL runs the portable SQL as is.
func (db *DB) CheckSQL(c tpcc.Check) string { return c.SQL }

// WriteMeta implements engine.DB.
func (db *DB) WriteMeta(ctx context.Context, m engine.Meta) error {
	return engine.WriteMetaText(m, func(text string) error {
		_, err := db.pool.Exec(ctx, `INSERT INTO rightsize_meta (id, meta) VALUES (1, $1)
ON CONFLICT (id) DO UPDATE SET meta = EXCLUDED.meta`, text)
		return err
	})
}

// ReadMeta implements engine.DB.
func (db *DB) ReadMeta(ctx context.Context) (engine.Meta, error) {
	var s string
	err := db.pool.QueryRow(ctx, "SELECT meta FROM rightsize_meta WHERE id = 1").Scan(&s)
	return engine.ReadMetaText(s, err, isCode(err, "42P01") || errors.Is(err, pgx.ErrNoRows)) // undefined_table
}

// TableSizes implements engine.DB.
func (db *DB) TableSizes(ctx context.Context) ([]engine.TableSize, error) {
	var out []engine.TableSize
	for _, t := range tpcc.Tables {
		s := engine.TableSize{Table: t}
		err := db.pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM `+string(t)+`),
 pg_table_size($1::regclass), pg_indexes_size($1::regclass)`, string(t)).Scan(&s.Rows, &s.DataBytes, &s.IndexBytes)
		if err != nil {
			return nil, fmt.Errorf("size of %s: %w", t, err)
		}
		out = append(out, s)
	}
	return out, nil
}

// Counters implements engine.DB.
func (db *DB) Counters(ctx context.Context) (engine.Counters, error) {
	var c engine.Counters
	err := db.pool.QueryRow(ctx, `SELECT xact_commit, xact_rollback, blks_read, blks_hit FROM pg_stat_database WHERE datname = current_database()`).
		Scan(&c.Commits, &c.Rollbacks, &c.BlocksRead, &c.BlocksHit)
	if err != nil {
		return c, fmt.Errorf("read pg_stat_database: %w", err)
	}
	// WAL position and checkpoints: best effort (columns moved between versions).
	_ = db.pool.QueryRow(ctx, `SELECT pg_current_wal_lsn() - '0/0'::pg_lsn`).Scan(&c.WALBytes)
	_ = db.pool.QueryRow(ctx, `SELECT checkpoints_timed + checkpoints_req FROM pg_stat_bgwriter`).Scan(&c.Checkpoints)
	return c, nil
}

// WALPositions opens a connection of its own that reads the server's WAL
// insert position in bytes (pg_current_wal_insert_lsn(): the WAL
// generated so far, whether or not it has reached the disk yet), for a
// step's WAL second by second; closeFn closes it. Its own
// (samplerConn), so that its reads never make the pool open a connection
// the run's slot count did not foresee.
func (db *DB) WALPositions(ctx context.Context) (read func(context.Context) (int64, error), closeFn func(), err error) {
	conn, err := db.samplerConn(ctx, "WAL position reader")
	if err != nil {
		return nil, nil, err
	}
	read = func(ctx context.Context) (int64, error) {
		var pos int64
		if err := conn.QueryRow(ctx, `SELECT pg_current_wal_insert_lsn() - '0/0'::pg_lsn`).Scan(&pos); err != nil {
			return 0, fmt.Errorf("read the WAL insert position: %w", err)
		}
		return pos, nil
	}
	return read, func() { _ = conn.Close(context.Background()) }, nil
}

// Classify implements engine.DB.
func (db *DB) Classify(err error) engine.ErrClass { return classify(err) }

func classify(err error) engine.ErrClass {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		switch {
		case pgErr.Code == "40001" || pgErr.Code == "40P01":
			return engine.ErrRetry
		case strings.HasPrefix(pgErr.Code, "08"), strings.HasPrefix(pgErr.Code, "57P"):
			return engine.ErrConnection
		}
		return engine.ErrOther
	}
	var netErr net.Error
	if errors.As(err, &netErr) || pgconn.SafeToRetry(err) || pgconn.Timeout(err) {
		return engine.ErrConnection
	}
	var connErr *pgconn.ConnectError
	if errors.As(err, &connErr) || strings.Contains(err.Error(), "conn closed") || strings.Contains(err.Error(), "unexpected EOF") ||
		strings.Contains(err.Error(), "connection reset") || strings.Contains(err.Error(), "broken pipe") {
		return engine.ErrConnection
	}
	return engine.ErrOther
}

// lineError keeps the wrapped error but prints on one line.
type lineError struct {
	msg string
	err error
}

func (e *lineError) Error() string { return e.msg }
func (e *lineError) Unwrap() error { return e.err }

// oneLine flattens pgx's multi-line connect errors (one line per address
// tried) into one line without repeats, keeping the wrapped error.
func oneLine(err error) error {
	var parts []string
	seen := map[string]bool{}
	for _, l := range strings.Split(err.Error(), "\n") {
		l = strings.TrimSpace(l)
		if l != "" && !seen[l] {
			seen[l] = true
			parts = append(parts, l)
		}
	}
	return &lineError{msg: strings.Join(parts, " "), err: err}
}

// ConnectionSlots tells how many connections the benchmark's role may
// still open: max_connections less the slots kept for superusers
// (superuser_reserved_connections, and reserved_connections from
// PostgreSQL 16) unless the role is one, less the client connections open
// (pg_stat_activity lists every backend to every role).
func (db *DB) ConnectionSlots(ctx context.Context) (engine.Slots, error) {
	s := engine.Slots{Setting: "max_connections"}
	err := db.pool.QueryRow(ctx, `SELECT current_setting('max_connections')::int,
	CASE WHEN (SELECT rolsuper FROM pg_roles WHERE rolname = current_user) THEN 0
		ELSE current_setting('superuser_reserved_connections')::int
			+ coalesce(current_setting('reserved_connections', true)::int, 0) END,
	(SELECT count(*)::int FROM pg_stat_activity WHERE backend_type = 'client backend')`).Scan(&s.Max, &s.Reserved, &s.InUse)
	if err != nil {
		return s, fmt.Errorf("read the connection slots: %w", err)
	}
	return s, nil
}
