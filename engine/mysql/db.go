// Package mysql is the MySQL 8 / MariaDB 10.11+ engine: InnoDB DDL with
// the primary keys in CREATE TABLE (InnoDB clusters rows on them), bulk load
// with LOAD DATA LOCAL INFILE streamed from the generators (multi-row INSERT
// where the server refuses local infile), stored procedures in the MySQL
// dialect and client-side prepared statements for the five transactions,
// and server counters from SHOW GLOBAL STATUS.
//
// # Isolation
//
// Virtual users run at InnoDB's REPEATABLE READ (set per connection), which
// meets level 3 of clause 3.4: plain reads come from one snapshot per
// transaction (no dirty reads, no non-repeatable reads), and the reads that
// decide what a transaction writes are locking reads or updates (the
// district's next order id, stock rows FOR UPDATE, Delivery's oldest
// NEW-ORDER row FOR UPDATE), which act on the latest committed version and
// take next-key locks, so no phantom and no lost update. Deadlocks and lock
// wait timeouts are retried by the driver. --isolation read-committed runs
// READ COMMITTED, as HammerDB does (not spec-compliant). Stock-Level would
// need only READ COMMITTED (clause 2.8.2.3) and runs at the session's level.
//
// # Server requirements
//
// The account needs CREATE, DROP, INDEX, ALTER, CREATE ROUTINE, EXECUTE and
// the usual DML privileges on the database. Bulk load uses LOAD DATA LOCAL
// (server variable local_infile=ON) and falls back to multi-row INSERT
// when the server refuses it. Statements mode prepares up to 33 statements
// per virtual user (procedures mode 5), so max_prepared_stmt_count (16382
// by default) bounds the number of statement-mode users to about 490.
package mysql

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/rightsize/rightsize/engine"
	"github.com/rightsize/rightsize/internal/rawsock"
	"github.com/rightsize/rightsize/tpcc"
)

// Caps are MySQL's capabilities.
var Caps = engine.Caps{Procedures: true, Statements: true, Server: true}

// DB is an open MySQL or MariaDB benchmark database.
type DB struct {
	// isolation is what executors opened from now on run at.
	isolation engine.Isolation

	cfg     *mysql.Config // pool connections
	pool    *sql.DB       // loaders, index builds, checks, counters
	users   *sql.DB       // one dedicated connection per executor
	dbname  string
	mariadb bool

	loadMethod    LoadMethod
	noLocalInfile atomic.Bool // the server refused LOAD DATA LOCAL
}

var _ engine.DB = (*DB)(nil)

// ParseURL converts mysql://user:pass@host:port/db?param=value into a
// go-sql-driver configuration. Query parameters are go-sql-driver DSN
// parameters (tls, timeout, ...) or session variables; "socket=/path"
// connects over a unix socket instead of TCP. The port defaults to 3306.
// A URL without a password takes MYSQL_PWD's, as the mysql client does, so
// that no password need stand on a command line.
func ParseURL(rawURL string) (*mysql.Config, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, fmt.Errorf("parse MySQL URL: %w", err)
	}
	if u.Scheme != "mysql" && u.Scheme != "mariadb" {
		return nil, fmt.Errorf("parse MySQL URL: scheme %q, want mysql://user:pass@host:port/db", u.Scheme)
	}
	q := u.Query()
	socket := q.Get("socket")
	q.Del("socket")
	base := mysql.NewConfig()
	if len(q) > 0 {
		// let the driver interpret its own parameters
		if base, err = mysql.ParseDSN("/?" + q.Encode()); err != nil {
			return nil, fmt.Errorf("parse MySQL URL parameters: %w", err)
		}
	}
	cfg := base
	if u.User != nil {
		cfg.User = u.User.Username()
		cfg.Passwd, _ = u.User.Password()
	}
	if cfg.Passwd == "" {
		cfg.Passwd = os.Getenv("MYSQL_PWD")
	}
	if socket != "" {
		cfg.Net, cfg.Addr = "unix", socket
	} else {
		host, port := u.Hostname(), u.Port()
		if host == "" {
			host = "127.0.0.1"
		}
		if port == "" {
			port = "3306"
		}
		cfg.Net, cfg.Addr = "tcp", net.JoinHostPort(host, port)
	}
	cfg.DBName = strings.TrimPrefix(u.Path, "/")
	cfg.ParseTime = true
	cfg.InterpolateParams = false
	if cfg.Timeout == 0 {
		cfg.Timeout = 10 * time.Second
	}
	return cfg, nil
}

// Open connects to url (mysql://user:pass@host:port/db) with a pool of up
// to poolSize connections for loaders and index builds, and verifies that
// the server answers. Executors get connections of their own.
func Open(ctx context.Context, rawURL string, poolSize int) (*DB, error) {
	cfg, err := ParseURL(rawURL)
	if err != nil {
		return nil, err
	}
	if cfg.DBName == "" {
		return nil, errors.New("MySQL URL names no database: use mysql://user:pass@host:port/db")
	}
	if poolSize < 2 {
		poolSize = 2
	}
	pc, err := mysql.NewConnector(cfg)
	if err != nil {
		return nil, fmt.Errorf("MySQL URL: %w", err)
	}
	ucfg := cfg.Clone()
	ucfg.MultiStatements = true // "SET TRANSACTION ...; START TRANSACTION" in one round trip
	// A virtual user waits on its socket all the time: raw reads and
	// writes spare the runtime a sysmon wake-up per round trip.
	ucfg.DialFunc = rawsock.WrapDial((&net.Dialer{KeepAlive: 30 * time.Second}).DialContext)
	uc, err := mysql.NewConnector(ucfg)
	if err != nil {
		return nil, fmt.Errorf("MySQL URL: %w", err)
	}
	db := &DB{cfg: cfg, pool: sql.OpenDB(pc), users: sql.OpenDB(uc), dbname: cfg.DBName}
	db.pool.SetMaxOpenConns(poolSize)
	db.pool.SetMaxIdleConns(poolSize)
	db.users.SetMaxIdleConns(0) // an executor's connection is closed with it
	var version string
	if err := db.pool.QueryRowContext(ctx, "SELECT VERSION()").Scan(&version); err != nil {
		db.Close()
		return nil, fmt.Errorf("connect to MySQL at %s: %w", cfg.Addr, err)
	}
	db.mariadb = strings.Contains(strings.ToLower(version), "mariadb")
	return db, nil
}

// EnsureDatabase creates the database named in url if it does not exist.
func EnsureDatabase(ctx context.Context, rawURL string) error {
	return onServer(rawURL, func(db *sql.DB, name, addr string) error {
		if name == "" {
			return errors.New("MySQL URL names no database")
		}
		if _, err := db.ExecContext(ctx, "CREATE DATABASE IF NOT EXISTS "+quoteIdent(name)); err != nil {
			return fmt.Errorf("create database %s on %s: %w", name, addr, err)
		}
		return nil
	})
}

// DropDatabase drops the database named in url if it exists (tests).
func DropDatabase(ctx context.Context, rawURL string) error {
	return onServer(rawURL, func(db *sql.DB, name, _ string) error {
		_, err := db.ExecContext(ctx, "DROP DATABASE IF EXISTS "+quoteIdent(name))
		return err
	})
}

// onServer calls f with a handle on the server of rawURL with no database
// selected, the name of the database rawURL names and the server's address.
func onServer(rawURL string, f func(db *sql.DB, name, addr string) error) error {
	cfg, err := ParseURL(rawURL)
	if err != nil {
		return err
	}
	name := cfg.DBName
	cfg.DBName = ""
	c, err := mysql.NewConnector(cfg)
	if err != nil {
		return err
	}
	db := sql.OpenDB(c)
	defer db.Close()
	return f(db, name, cfg.Addr)
}

func quoteIdent(s string) string { return "`" + strings.ReplaceAll(s, "`", "``") + "`" }

// Engine implements engine.DB.
func (db *DB) Engine() string { return "mysql" }

// Caps implements engine.DB.
func (db *DB) Caps() engine.Caps { return Caps }

// MariaDB reports whether the server is MariaDB rather than MySQL.
func (db *DB) MariaDB() bool { return db.mariadb }

// Pool exposes the connection pool (tests and probes).
func (db *DB) Pool() *sql.DB { return db.pool }

// Close implements engine.DB.
func (db *DB) Close() error {
	err := db.pool.Close()
	if uerr := db.users.Close(); err == nil {
		err = uerr
	}
	return err
}

// Version implements engine.DB: "MariaDB 10.11.6-MariaDB-..." or "MySQL 8.0.36".
func (db *DB) Version(ctx context.Context) (string, error) {
	var v string
	if err := db.pool.QueryRowContext(ctx, "SELECT VERSION()").Scan(&v); err != nil {
		return "", err
	}
	if db.mariadb {
		return "MariaDB " + v, nil
	}
	return "MySQL " + v, nil
}

var settingNames = []string{"version", "version_comment", "innodb_buffer_pool_size", "innodb_buffer_pool_instances",
	"innodb_flush_log_at_trx_commit", "innodb_flush_method", "innodb_log_file_size", "innodb_log_files_in_group",
	"innodb_redo_log_capacity", "innodb_log_buffer_size", "innodb_doublewrite", "innodb_io_capacity", "innodb_io_capacity_max",
	"innodb_adaptive_hash_index", "innodb_change_buffering", "innodb_flush_neighbors", "innodb_page_size",
	"innodb_read_io_threads", "innodb_write_io_threads", "innodb_lock_wait_timeout", "innodb_deadlock_detect",
	"sync_binlog", "log_bin", "binlog_format", "max_connections", "max_prepared_stmt_count", "transaction_isolation",
	"tx_isolation", "thread_handling", "table_open_cache", "performance_schema", "character_set_server",
	"collation_server", "local_infile"}

// Settings implements engine.DB (global values; MySQL-only or
// MariaDB-only names are simply absent on the other server).
func (db *DB) Settings(ctx context.Context) (map[string]string, error) {
	q := "SHOW GLOBAL VARIABLES WHERE Variable_name IN ('" + strings.Join(settingNames, "','") + "')"
	rows, err := db.pool.QueryContext(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("read server variables: %w", err)
	}
	defer rows.Close()
	out := map[string]string{}
	if err := engine.ScanNamed(rows, func(k, v string) { out[k] = v }); err != nil {
		return nil, err
	}
	return out, nil
}

// castBigint matches CAST(... AS bigint), PostgreSQL's spelling, which
// MySQL and MariaDB write CAST(... AS SIGNED).
var castBigint = regexp.MustCompile(`(?i)\bAS\s+bigint\s*\)`)

// QueryInt implements engine.DB. The portable CAST(x AS bigint) is
// rewritten to CAST(x AS SIGNED). SUM over integers returns DECIMAL in
// MySQL; integral decimals ("123" or "123.00") are accepted.
func (db *DB) QueryInt(ctx context.Context, q string) (int64, error) {
	q = castBigint.ReplaceAllString(q, "AS SIGNED)")
	var s sql.NullString
	if err := db.pool.QueryRowContext(ctx, q).Scan(&s); err != nil {
		return 0, err
	}
	if !s.Valid {
		return 0, fmt.Errorf("query returned NULL: %s", q)
	}
	return parseInt(s.String)
}

func parseInt(s string) (int64, error) {
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return n, nil
	}
	if i := strings.IndexByte(s, '.'); i >= 0 && strings.Trim(s[i+1:], "0") == "" {
		return strconv.ParseInt(s[:i], 10, 64)
	}
	return 0, fmt.Errorf("not an integer: %q", s)
}

// CheckSQL implements engine.DB. The portable conditions run unchanged on
// MySQL 8 and MariaDB (boolean comparisons such as (x IS NULL) <> EXISTS
// (...) are integer comparisons there, and no condition needs FULL JOIN);
// the conformance suite runs every one of them.
func (db *DB) CheckSQL(c tpcc.Check) string { return c.SQL }

// WriteMeta implements engine.DB.
func (db *DB) WriteMeta(ctx context.Context, m engine.Meta) error {
	return engine.WriteMetaText(m, func(text string) error {
		_, err := db.pool.ExecContext(ctx, "REPLACE INTO rightsize_meta (id, meta) VALUES (1, ?)", text)
		return err
	})
}

// ReadMeta implements engine.DB.
func (db *DB) ReadMeta(ctx context.Context) (engine.Meta, error) {
	var s string
	err := db.pool.QueryRowContext(ctx, "SELECT meta FROM rightsize_meta WHERE id = 1").Scan(&s)
	return engine.ReadMetaText(s, err, isNumber(err, 1146) || errors.Is(err, sql.ErrNoRows)) // ER_NO_SUCH_TABLE
}

// TableSizes implements engine.DB: exact row counts, and data and index
// bytes from information_schema (InnoDB's page-level estimates).
func (db *DB) TableSizes(ctx context.Context) ([]engine.TableSize, error) {
	conn, err := db.pool.Conn(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	// MySQL 8 caches information_schema statistics for a day by default.
	_, _ = conn.ExecContext(ctx, "SET SESSION information_schema_stats_expiry = 0")
	var out []engine.TableSize
	for _, t := range tpcc.Tables {
		s := engine.TableSize{Table: t}
		if err := conn.QueryRowContext(ctx, "SELECT count(*) FROM "+string(t)).Scan(&s.Rows); err != nil {
			return nil, fmt.Errorf("size of %s: %w", t, err)
		}
		err := conn.QueryRowContext(ctx, `SELECT COALESCE(data_length, 0), COALESCE(index_length, 0) FROM information_schema.tables
 WHERE table_schema = DATABASE() AND table_name = ?`, string(t)).Scan(&s.DataBytes, &s.IndexBytes)
		if err != nil {
			return nil, fmt.Errorf("size of %s: %w", t, err)
		}
		out = append(out, s)
	}
	return out, nil
}

// counterNames are the SHOW GLOBAL STATUS counters Counters reads; all of
// them are server-wide (MySQL keeps no per-database transaction counters).
var counterNames = []string{"Com_commit", "Com_rollback", "Handler_commit", "Handler_rollback",
	"Innodb_buffer_pool_reads", "Innodb_buffer_pool_read_requests", "Innodb_os_log_written",
	"Innodb_data_reads", "Innodb_data_writes", "Innodb_data_fsyncs", "Innodb_log_waits", "Innodb_row_lock_waits",
	"Innodb_row_lock_time", "Innodb_rows_read", "Innodb_rows_inserted", "Innodb_rows_updated", "Innodb_rows_deleted",
	"Innodb_buffer_pool_pages_flushed", "Innodb_deadlocks", "Questions", "Bytes_received", "Bytes_sent"}

// Counters implements engine.DB: Commits and Rollbacks are Com_commit and
// Com_rollback (the COMMIT and ROLLBACK statements executed, also inside
// stored procedures: HammerDB's TPM for MySQL), BlocksRead is
// Innodb_buffer_pool_reads, BlocksHit Innodb_buffer_pool_read_requests
// minus the reads, WALBytes Innodb_os_log_written. Extra holds every
// counter read, under its server name.
func (db *DB) Counters(ctx context.Context) (engine.Counters, error) {
	var c engine.Counters
	q := "SHOW GLOBAL STATUS WHERE Variable_name IN ('" + strings.Join(counterNames, "','") + "')"
	rows, err := db.pool.QueryContext(ctx, q)
	if err != nil {
		return c, fmt.Errorf("read server status: %w", err)
	}
	defer rows.Close()
	c.Extra = map[string]int64{}
	if err := engine.ScanNamed(rows, func(k, v string) {
		if n, err := strconv.ParseInt(v, 10, 64); err == nil {
			c.Extra[k] = n
		}
	}); err != nil {
		return c, err
	}
	x := c.Extra
	c.Commits, c.Rollbacks = x["Com_commit"], x["Com_rollback"]
	c.BlocksRead = x["Innodb_buffer_pool_reads"]
	c.BlocksHit = max(0, x["Innodb_buffer_pool_read_requests"]-c.BlocksRead)
	c.WALBytes = x["Innodb_os_log_written"]
	return c, nil
}

// Classify implements engine.DB.
func (db *DB) Classify(err error) engine.ErrClass { return classify(err) }

// Server error numbers.
const (
	erLockWaitTimeout = 1205
	erLockDeadlock    = 1213
)

func classify(err error) engine.ErrClass {
	if err == nil {
		return engine.ErrOther
	}
	var me *mysql.MySQLError
	if errors.As(err, &me) {
		switch me.Number {
		case erLockDeadlock, erLockWaitTimeout:
			return engine.ErrRetry
		case 1053, // ER_SERVER_SHUTDOWN
			1077, 1078, 1079, 1080, // shutdown in progress / forcing close
			1152, 1153, 1154, 1155, 1156, 1157, 1158, 1159, 1160, 1161, // aborted connection, net errors
			1927,       // ER_CONNECTION_KILLED (MariaDB)
			2006, 2013, // client: server gone away / lost connection
			4031: // ER_CLIENT_INTERACTION_TIMEOUT (MySQL 8)
			return engine.ErrConnection
		}
		return engine.ErrOther
	}
	if errors.Is(err, driver.ErrBadConn) || errors.Is(err, mysql.ErrInvalidConn) || errors.Is(err, sql.ErrConnDone) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNREFUSED) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) {
		return engine.ErrConnection
	}
	var netErr net.Error
	if errors.As(err, &netErr) {
		return engine.ErrConnection
	}
	s := err.Error()
	if strings.Contains(s, "connection refused") || strings.Contains(s, "broken pipe") || strings.Contains(s, "connection reset") ||
		strings.Contains(s, "invalid connection") || strings.Contains(s, "bad connection") {
		return engine.ErrConnection
	}
	return engine.ErrOther
}

func isNumber(err error, n uint16) bool {
	var me *mysql.MySQLError
	return errors.As(err, &me) && me.Number == n
}

// ConnectionSlots tells how many connections the benchmark's user may
// still open: max_connections less the threads connected (the one slot
// over max_connections the server keeps for administrators is not
// counted). A max_user_connections limit is not read.
func (db *DB) ConnectionSlots(ctx context.Context) (engine.Slots, error) {
	s := engine.Slots{Setting: "max_connections"}
	if err := db.pool.QueryRowContext(ctx, "SELECT @@max_connections").Scan(&s.Max); err != nil {
		return s, fmt.Errorf("read max_connections: %w", err)
	}
	var name string
	if err := db.pool.QueryRowContext(ctx, "SHOW GLOBAL STATUS LIKE 'Threads_connected'").Scan(&name, &s.InUse); err != nil {
		return s, fmt.Errorf("read Threads_connected: %w", err)
	}
	return s, nil
}
