// Package mssql is the Microsoft SQL Server engine: T-SQL DDL with clustered
// primary keys, bulk copy (go-mssqldb CopyIn) for the load, T-SQL stored
// procedures and parameterised client-side statements for the five
// transactions, and server counters from sys.dm_os_performance_counters and
// sys.dm_io_virtual_file_stats.
//
// # Supported versions
//
// Everything this package sends is written for SQL Server 2008 (10.0) and
// later, at database compatibility level 100 (the 2008 level) or higher, so
// 2008 R2 and 2017 run byte-for-byte the same procedures and statements:
//
//   - New-Order's lines reach rs_new_order as a table-valued parameter
//     (dbo.rs_order_line_list, SQL Server 2008+), not as a string parsed with
//     STRING_SPLIT or OPENJSON (2016+, compatibility level 130+).
//   - Errors are re-raised from CATCH blocks with RAISERROR (THROW needs
//     2012+), carrying the original error number in the message
//     ("rs_error 1205 in rs_payment: ..."), which Classify reads back.
//   - Objects are dropped with IF OBJECT_ID(...) IS NOT NULL (DROP ... IF
//     EXISTS needs 2016+); no CREATE OR ALTER, OFFSET/FETCH, IIF, CONCAT or
//     TRY_CONVERT is used.
//
// The go-mssqldb driver itself needs SQL Server 2008 R2 SP2 (or 2008 SP3 with
// CU3) or later to log in with an encrypted login packet; older builds need
// encrypt=disable in the URL.
package mssql

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"strings"

	gomssql "github.com/microsoft/go-mssqldb"

	"github.com/rightsize/rightsize/engine"
	"github.com/rightsize/rightsize/tpcc"
)

// Caps are SQL Server's capabilities.
var Caps = engine.Caps{Procedures: true, Statements: true, Server: true}

// DB is an open SQL Server benchmark database.
type DB struct {
	// isolation is what executors opened from now on run at.
	isolation engine.Isolation

	url    string
	dbname string
	pool   *sql.DB // loaders, index builds, checks and counters (bounded)
	vu     *sql.DB // one dedicated connection per virtual user (unbounded, none idle)
}

var _ engine.DB = (*DB)(nil)

// systemDatabases must never receive a TPC-C schema.
var systemDatabases = map[string]bool{"master": true, "model": true, "msdb": true, "tempdb": true}

// databaseKeys are the URL query keys go-mssqldb reads the database name
// from (case-insensitive).
var databaseKeys = []string{"database", "initial catalog"}

// parseURL checks that raw is a go-mssqldb URL (sqlserver://user:pass@host:port?database=db)
// and returns it parsed with its database name.
func parseURL(raw string) (*url.URL, string, error) {
	u, err := url.Parse(raw)
	if err != nil {
		// url.Parse's error repeats the URL, password included.
		return nil, "", errors.New("parse SQL Server URL: not a valid URL (want sqlserver://user:pass@host:port?database=db)")
	}
	if u.Scheme != "sqlserver" {
		return nil, "", fmt.Errorf("parse SQL Server URL %s: scheme %q, want sqlserver://user:pass@host:port?database=db", Redact(raw), u.Scheme)
	}
	if u.Host == "" {
		return nil, "", fmt.Errorf("parse SQL Server URL %s: no host", Redact(raw))
	}
	q, err := url.ParseQuery(u.RawQuery)
	if err != nil {
		return nil, "", fmt.Errorf("parse SQL Server URL %s: bad query string (escape special characters)", Redact(raw))
	}
	var name string
	for k, v := range q {
		for _, dk := range databaseKeys {
			if strings.EqualFold(k, dk) && len(v) > 0 {
				name = v[0]
			}
		}
	}
	return u, name, nil
}

// withDatabase returns raw with its database set to name (any other
// database key removed).
func withDatabase(raw, name string) (string, error) {
	u, _, err := parseURL(raw)
	if err != nil {
		return "", err
	}
	q := u.Query()
	for k := range q {
		for _, dk := range databaseKeys {
			if strings.EqualFold(k, dk) {
				q.Del(k)
			}
		}
	}
	q.Set("database", name)
	u.RawQuery = q.Encode()
	return u.String(), nil
}

// withAppName adds "app name=rightsize" (shown in sys.dm_exec_sessions)
// unless the URL names an application already.
func withAppName(raw string) (string, error) {
	u, _, err := parseURL(raw)
	if err != nil {
		return "", err
	}
	q := u.Query()
	for k := range q {
		if strings.EqualFold(k, "app name") {
			return raw, nil
		}
	}
	q.Set("app name", "rightsize")
	u.RawQuery = q.Encode()
	return u.String(), nil
}

// Redact returns a SQL Server URL with its password replaced by xxxxx, both
// in the user information and in a password= query parameter, for logs and
// reports.
func Redact(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "sqlserver://(unparsable URL)"
	}
	if u.User != nil {
		if _, ok := u.User.Password(); ok {
			u.User = url.UserPassword(u.User.Username(), "xxxxx")
		}
	}
	// Pair by pair on the raw query, so a badly escaped pair is redacted too.
	pairs := strings.Split(u.RawQuery, "&")
	for i, p := range pairs {
		k, _, _ := strings.Cut(p, "=")
		if uk, err := url.QueryUnescape(k); err == nil {
			k = uk
		}
		if strings.EqualFold(k, "password") || strings.EqualFold(k, "pwd") {
			pairs[i] = k + "=xxxxx"
		}
	}
	u.RawQuery = strings.Join(pairs, "&")
	return u.String()
}

func openPool(raw string) (*sql.DB, error) {
	c, err := gomssql.NewConnector(raw)
	if err != nil {
		return nil, fmt.Errorf("SQL Server URL %s: %w", Redact(raw), err)
	}
	return sql.OpenDB(c), nil
}

// Open connects to the database of url (go-mssqldb's form
// sqlserver://user:pass@host:port?database=db) with a pool of up to poolSize
// connections for loaders and index builds, and verifies the server answers.
// Virtual users get dedicated connections of their own (NewExecutor).
func Open(ctx context.Context, url string, poolSize int) (*DB, error) {
	_, name, err := parseURL(url)
	if err != nil {
		return nil, err
	}
	if name == "" {
		return nil, fmt.Errorf("SQL Server URL %s names no database: add ?database=NAME", Redact(url))
	}
	if systemDatabases[strings.ToLower(name)] {
		return nil, fmt.Errorf("SQL Server URL %s: refusing to use system database %s for a TPC-C schema", Redact(url), name)
	}
	full, err := withAppName(url)
	if err != nil {
		return nil, err
	}
	pool, err := openPool(full)
	if err != nil {
		return nil, err
	}
	if poolSize < 2 {
		poolSize = 2
	}
	pool.SetMaxOpenConns(poolSize)
	pool.SetMaxIdleConns(poolSize)
	if err := pool.PingContext(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("connect to SQL Server at %s: %w", Redact(url), err)
	}
	vu, err := openPool(full)
	if err != nil {
		pool.Close()
		return nil, err
	}
	vu.SetMaxIdleConns(0) // an executor's Close really closes its connection
	return &DB{url: full, dbname: name, pool: pool, vu: vu}, nil
}

// sqlCreateDatabase creates database @name unless it exists (CREATE
// DATABASE takes no parameters, hence the QUOTENAME'd dynamic SQL).
const sqlCreateDatabase = `IF DB_ID(@name) IS NULL
BEGIN
  DECLARE @sql nvarchar(max);
  SET @sql = N'CREATE DATABASE ' + QUOTENAME(@name);
  EXEC (@sql);
END`

// openMaster opens a pool on the master database of the server of url;
// the caller closes it.
func openMaster(url string) (*sql.DB, error) {
	master, err := withDatabase(url, "master")
	if err != nil {
		return nil, err
	}
	return openPool(master)
}

// EnsureDatabase connects to the server of url (via its master database) and
// creates url's database if it does not exist, with the server's defaults
// (model database: recovery model, file sizes).
func EnsureDatabase(ctx context.Context, url string) error {
	_, name, err := parseURL(url)
	if err != nil {
		return err
	}
	if name == "" {
		return fmt.Errorf("SQL Server URL %s names no database: add ?database=NAME", Redact(url))
	}
	db, err := openMaster(url)
	if err != nil {
		return err
	}
	defer db.Close()
	if _, err := db.ExecContext(ctx, sqlCreateDatabase, sql.Named("name", name)); err != nil {
		return fmt.Errorf("create database %s on %s: %w", name, Redact(url), err)
	}
	return nil
}

// Engine implements engine.DB.
func (db *DB) Engine() string { return "mssql" }

// Caps implements engine.DB.
func (db *DB) Caps() engine.Caps { return Caps }

// SQL exposes the bounded connection pool (tests and probes).
func (db *DB) SQL() *sql.DB { return db.pool }

// Database is the name of the benchmark database.
func (db *DB) Database() string { return db.dbname }

// Close implements engine.DB.
func (db *DB) Close() error {
	err := db.pool.Close()
	if verr := db.vu.Close(); err == nil {
		err = verr
	}
	return err
}

// Version implements engine.DB: the first line of @@VERSION, such as
// "Microsoft SQL Server 2017 (RTM-CU31) (KB5016884) - 14.0.3456.2 (X64)".
func (db *DB) Version(ctx context.Context) (string, error) {
	var v string
	if err := db.pool.QueryRowContext(ctx, "SELECT @@VERSION").Scan(&v); err != nil {
		return "", fmt.Errorf("read @@VERSION: %w", err)
	}
	return firstLine(v), nil
}

func firstLine(s string) string {
	if i := strings.IndexAny(s, "\r\n"); i >= 0 {
		s = s[:i]
	}
	return strings.TrimSpace(s)
}

// sqlServerSettings reads the instance-wide settings that matter for a
// benchmark from sys.configurations.
const sqlServerSettings = `SELECT name, CONVERT(nvarchar(64), value_in_use) FROM sys.configurations
WHERE name IN (N'max degree of parallelism', N'max server memory (MB)', N'min server memory (MB)',
  N'cost threshold for parallelism', N'optimize for ad hoc workloads', N'max worker threads', N'lightweight pooling',
  N'priority boost')`

// sqlDatabaseSettings reads the benchmark database's own settings and the
// server's version, level and edition.
const sqlDatabaseSettings = `SELECT CONVERT(nvarchar(16), d.[compatibility_level]), d.recovery_model_desc,
  CASE d.is_read_committed_snapshot_on WHEN 1 THEN N'ON' ELSE N'OFF' END, d.snapshot_isolation_state_desc,
  CONVERT(nvarchar(128), d.collation_name), CONVERT(nvarchar(128), SERVERPROPERTY('ProductVersion')),
  CONVERT(nvarchar(128), SERVERPROPERTY('ProductLevel')), CONVERT(nvarchar(128), SERVERPROPERTY('Edition'))
FROM sys.databases AS d WHERE d.name = DB_NAME()`

// Settings implements engine.DB: max degree of parallelism, max server
// memory (MB), cost threshold for parallelism and a few more instance
// settings (value in use), plus the database's compatibility level,
// recovery model, READ_COMMITTED_SNAPSHOT and snapshot isolation state.
func (db *DB) Settings(ctx context.Context) (map[string]string, error) {
	out := map[string]string{}
	rows, err := db.pool.QueryContext(ctx, sqlServerSettings)
	if err != nil {
		return nil, fmt.Errorf("read sys.configurations: %w", err)
	}
	for rows.Next() {
		var k string
		var v sql.NullString
		if err := rows.Scan(&k, &v); err != nil {
			rows.Close()
			return nil, err
		}
		out[k] = v.String
	}
	if err := rows.Close(); err != nil {
		return nil, err
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	var compat, recovery, rcsi, snapshot, collation, version, level, edition sql.NullString
	err = db.pool.QueryRowContext(ctx, sqlDatabaseSettings).Scan(&compat, &recovery, &rcsi, &snapshot, &collation, &version, &level, &edition)
	if err != nil {
		return nil, fmt.Errorf("read sys.databases: %w", err)
	}
	out["compatibility_level"] = compat.String
	out["recovery_model"] = recovery.String
	out["read_committed_snapshot"] = rcsi.String
	out["snapshot_isolation"] = snapshot.String
	out["collation"] = collation.String
	out["product_version"] = version.String
	out["product_level"] = level.String
	out["edition"] = edition.String
	return out, nil
}

// QueryInt implements engine.DB. The portable SQL that engine-neutral code
// sends (consistency checks, the conformance suite) is translated to T-SQL
// first: length(x) becomes LEN(x), a one-argument round(x) becomes
// round(x, 0), and sum(x) sums decimal(38,4) so that int columns do not
// overflow. The result may be any integer or integral decimal.
func (db *DB) QueryInt(ctx context.Context, query string) (int64, error) {
	var v any
	if err := db.pool.QueryRowContext(ctx, tsql(query)).Scan(&v); err != nil {
		return 0, err
	}
	return toInt64(v)
}

// CheckSQL implements engine.DB: T-SQL has no boolean expressions, so the
// checks comparing two conditions compare CASE expressions instead.
func (db *DB) CheckSQL(c tpcc.Check) string { return checkSQL(c) }

// checkOverrides are the T-SQL texts of the checks whose portable SQL T-SQL
// cannot run.
var checkOverrides = map[string]string{
	"3.3.2.5": `SELECT count(*) FROM orders o
WHERE CASE WHEN o.o_carrier_id IS NULL THEN 1 ELSE 0 END
   <> CASE WHEN EXISTS (SELECT 1 FROM new_order n WHERE n.no_w_id = o.o_w_id AND n.no_d_id = o.o_d_id AND n.no_o_id = o.o_id) THEN 1 ELSE 0 END`,
}

func checkSQL(c tpcc.Check) string {
	if s, ok := checkOverrides[c.ID]; ok {
		return s
	}
	return c.SQL
}

// sqlWriteMeta upserts the single metadata row (MERGE would do, but this
// form reads the same on every version).
const sqlWriteMeta = `UPDATE dbo.rightsize_meta SET meta = @meta WHERE id = 1;
IF @@ROWCOUNT = 0 INSERT INTO dbo.rightsize_meta (id, meta) VALUES (1, @meta);`

const sqlReadMeta = `SELECT meta FROM dbo.rightsize_meta WHERE id = 1`

// errInvalidObject is "Invalid object name": the table does not exist.
const errInvalidObject = 208

// WriteMeta implements engine.DB.
func (db *DB) WriteMeta(ctx context.Context, m engine.Meta) error {
	return engine.WriteMetaText(m, func(text string) error {
		_, err := db.pool.ExecContext(ctx, sqlWriteMeta, sql.Named("meta", text))
		return err
	})
}

// ReadMeta implements engine.DB.
func (db *DB) ReadMeta(ctx context.Context) (engine.Meta, error) {
	var s string
	err := db.pool.QueryRowContext(ctx, sqlReadMeta).Scan(&s)
	return engine.ReadMetaText(s, err, errors.Is(err, sql.ErrNoRows) || hasNumber(err, errInvalidObject))
}

// sqlTableSize reports rows (heap or clustered index) and the bytes used by
// the table's data and by its nonclustered indexes.
const sqlTableSize = `SELECT
  CAST(COALESCE(SUM(CASE WHEN p.index_id IN (0, 1) THEN p.row_count ELSE 0 END), 0) AS bigint),
  CAST(COALESCE(SUM(CASE WHEN p.index_id IN (0, 1) THEN p.used_page_count ELSE 0 END), 0) AS bigint) * 8192,
  CAST(COALESCE(SUM(CASE WHEN p.index_id > 1 THEN p.used_page_count ELSE 0 END), 0) AS bigint) * 8192
FROM sys.dm_db_partition_stats AS p WHERE p.object_id = OBJECT_ID(@name)`

// TableSizes implements engine.DB from sys.dm_db_partition_stats (needs
// VIEW DATABASE STATE); row counts are the storage engine's.
func (db *DB) TableSizes(ctx context.Context) ([]engine.TableSize, error) {
	var out []engine.TableSize
	for _, t := range tpcc.Tables {
		s := engine.TableSize{Table: t}
		err := db.pool.QueryRowContext(ctx, sqlTableSize, sql.Named("name", "dbo."+string(t))).Scan(&s.Rows, &s.DataBytes, &s.IndexBytes)
		if err != nil {
			return nil, fmt.Errorf("size of %s: %w", t, err)
		}
		out = append(out, s)
	}
	return out, nil
}
