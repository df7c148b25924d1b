// Package store is the results database of rightsize: runs, their steps
// with every raw measurement (per-transaction summaries and histograms,
// per-second throughput, latency windows, host samples) and probe results.
//
// The store is an embedded SQLite file by default (modernc.org/sqlite, no
// cgo; WAL mode, busy timeout, so a report can read while a run writes), or
// a PostgreSQL database when several machines share one store. Its schema is
// versioned (table schema_migrations): a newer binary upgrades an older
// store when it opens it, an older binary refuses a newer store.
//
// Every multi-row write happens in one transaction: a step is stored with
// all its children or not at all, so an interrupted or crashed writer never
// leaves a half-written step.
//
// In PostgreSQL the tables live in their own schema, "rightsize" unless the
// URL names another one with ?search_path=NAME; it is created if missing.
//
// The store persists and reads back; what is computed from what it holds
// (aggregates across repeats, intervals, verdicts, headline figures, the
// run document) is package analysis, above it.
package store

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// EnvStore is the environment variable naming the default store.
const EnvStore = "RIGHTSIZE_STORE"

// DefaultFile is the store used when neither a location nor EnvStore is given.
const DefaultFile = "./rightsize.db"

// DefaultPGSchema is the PostgreSQL schema of the store's tables unless the
// URL sets search_path.
const DefaultPGSchema = "rightsize"

var (
	// ErrNotFound is matched (errors.Is) by the errors of lookups that find
	// nothing: unknown run, label or probe.
	ErrNotFound = errors.New("not found")
	// ErrNoStore is matched by OpenExisting's error when the SQLite file
	// does not exist.
	ErrNoStore = errors.New("no results store")
	// ErrNewerStore is matched by Open's error when the store was written by
	// a newer rightsize (a schema version this binary does not know).
	ErrNewerStore = errors.New("results store is newer than this rightsize")
	// ErrNotAStore is matched by Open's error when the location is not a
	// rightsize store: not a SQLite file, corrupt, or a database holding
	// other tables.
	ErrNotAStore = errors.New("not a rightsize results store")
)

// notFound is an error message that matches ErrNotFound.
type notFound struct{ msg string }

// Error returns the message.
func (e *notFound) Error() string { return e.msg }

// Is makes errors.Is(err, ErrNotFound) true.
func (e *notFound) Is(target error) bool { return target == ErrNotFound }

func notFoundf(format string, args ...any) error {
	return &notFound{msg: fmt.Sprintf(format, args...)}
}

type dialect int

const (
	dialectSQLite dialect = iota
	dialectPostgres
)

// Store is an open results store. It is safe for concurrent use.
type Store struct {
	db       *sql.DB
	dialect  dialect
	location string // for messages; password redacted
	schema   string // PostgreSQL only
	// recovered are the runs and sweeps of dead processes that open marked
	// interrupted (owners.go)
	recovered []Orphan
}

// DefaultLocation returns $RIGHTSIZE_STORE when set, else ./rightsize.db.
func DefaultLocation() string {
	if v := strings.TrimSpace(os.Getenv(EnvStore)); v != "" {
		return v
	}
	return DefaultFile
}

// IsPostgres tells whether location names a PostgreSQL store.
func IsPostgres(location string) bool {
	l := strings.ToLower(location)
	return strings.HasPrefix(l, "postgres://") || strings.HasPrefix(l, "postgresql://")
}

// sqlitePath returns the file path of a SQLite location ("sqlite:" prefix
// optional, "sqlite://" too).
func sqlitePath(location string) string {
	p := location
	if strings.HasPrefix(p, "sqlite://") {
		p = strings.TrimPrefix(p, "sqlite://")
	} else {
		p = strings.TrimPrefix(p, "sqlite:")
	}
	return p
}

// Open opens (creating it if needed) the store at location and brings its
// schema up to date. An empty location means DefaultLocation(). A
// "postgres://" or "postgresql://" URL opens a PostgreSQL store; anything
// else is a SQLite file path, with an optional "sqlite:" prefix.
func Open(ctx context.Context, location string) (*Store, error) {
	return open(ctx, location, true)
}

// OpenExisting is Open for readers: a SQLite store that does not exist is
// not created, the error then matches ErrNoStore.
func OpenExisting(ctx context.Context, location string) (*Store, error) {
	return open(ctx, location, false)
}

func open(ctx context.Context, location string, create bool) (*Store, error) {
	if location == "" {
		location = DefaultLocation()
	}
	var s *Store
	var err error
	if IsPostgres(location) {
		s, err = openPostgres(location)
	} else {
		s, err = openSQLite(sqlitePath(location), create)
	}
	if err != nil {
		return nil, err
	}
	if err := s.db.PingContext(ctx); err != nil {
		s.db.Close()
		return nil, s.openError(err)
	}
	if s.dialect == dialectSQLite {
		if err := setWAL(ctx, s.db); err != nil {
			s.db.Close()
			return nil, s.openError(err)
		}
	}
	if err := s.migrate(ctx); err != nil {
		s.db.Close()
		if errors.Is(err, ErrNewerStore) || errors.Is(err, ErrNotAStore) {
			return nil, err
		}
		return nil, s.openError(err)
	}
	if s.recovered, err = s.recoverOrphans(ctx); err != nil {
		s.db.Close()
		return nil, s.openError(err)
	}
	return s, nil
}

func openSQLite(path string, create bool) (*Store, error) {
	if path == "" {
		return nil, fmt.Errorf("results store: empty SQLite path")
	}
	if strings.ContainsAny(path, "?#") {
		return nil, fmt.Errorf("results store %s: a SQLite store path may not contain '?' or '#'", path)
	}
	fi, err := os.Stat(path)
	switch {
	case err == nil && fi.IsDir():
		return nil, fmt.Errorf("results store %s is a directory; give a file path (e.g. %s)", path, filepath.Join(path, "rightsize.db"))
	case errors.Is(err, os.ErrNotExist):
		if !create {
			return nil, fmt.Errorf("%w at %s: it is created by the first run (or pass --store, or set %s)", ErrNoStore, path, EnvStore)
		}
		dir := filepath.Dir(path)
		if di, err := os.Stat(dir); err != nil || !di.IsDir() {
			return nil, fmt.Errorf("results store %s: directory %s does not exist", path, dir)
		}
	case err != nil:
		return nil, fmt.Errorf("results store %s: %w", path, err)
	}
	q := url.Values{}
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", sqliteBusyTimeout.Milliseconds()))
	q.Add("_pragma", "synchronous(NORMAL)")
	q.Add("_pragma", "foreign_keys(1)")
	q.Set("_txlock", "immediate") // writers take the lock at BEGIN: no busy deadlocks
	db, err := sql.Open("sqlite", path+"?"+q.Encode())
	if err != nil {
		return nil, fmt.Errorf("results store %s: %w", path, err)
	}
	db.SetMaxIdleConns(2)
	return &Store{db: db, dialect: dialectSQLite, location: path}, nil
}

// sqliteBusyTimeout is how long a SQLite store waits for another
// connection's lock.
const sqliteBusyTimeout = 15 * time.Second

// setWAL switches a SQLite store to write-ahead logging (the mode is kept
// in the file: on a store already in WAL it changes nothing). Switching
// needs the file to itself, and SQLite answers SQLITE_BUSY at once,
// without its busy handler, while other connections are opening the same
// new file; so retry, as the busy handler would, for sqliteBusyTimeout.
func setWAL(ctx context.Context, db *sql.DB) error {
	deadline := time.Now().Add(sqliteBusyTimeout)
	for wait := time.Millisecond; ; wait = min(2*wait, 100*time.Millisecond) {
		var mode string
		err := db.QueryRowContext(ctx, "PRAGMA journal_mode=WAL").Scan(&mode)
		if err == nil {
			return nil
		}
		var se *sqlite.Error
		if !errors.As(err, &se) || se.Code()&0xff != sqlite3.SQLITE_BUSY || time.Now().After(deadline) {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(wait):
		}
	}
}

var identRE = regexp.MustCompile(`^[a-z_][a-z0-9_]*$`)

func openPostgres(location string) (*Store, error) {
	shown := location
	if u, err := url.Parse(location); err == nil {
		shown = u.Redacted()
	}
	cfg, err := pgx.ParseConfig(location)
	if err != nil {
		return nil, fmt.Errorf("results store %s: %w", shown, err)
	}
	schema := cfg.RuntimeParams["search_path"]
	if schema == "" {
		schema = DefaultPGSchema
	}
	if !identRE.MatchString(schema) {
		return nil, fmt.Errorf("results store %s: search_path must be one lower-case schema name (got %q)", shown, schema)
	}
	cfg.RuntimeParams["search_path"] = schema
	if cfg.RuntimeParams["application_name"] == "" {
		cfg.RuntimeParams["application_name"] = "rightsize-store"
	}
	db := stdlib.OpenDB(*cfg)
	db.SetMaxIdleConns(2)
	db.SetConnMaxIdleTime(5 * time.Minute)
	return &Store{db: db, dialect: dialectPostgres, location: shown, schema: schema}, nil
}

// openError turns a driver error met while opening into a clear message.
func (s *Store) openError(err error) error {
	var se *sqlite.Error
	if errors.As(err, &se) {
		switch se.Code() & 0xff {
		case sqlite3.SQLITE_NOTADB:
			return fmt.Errorf("results store %s: %w (the file is not a SQLite database)", s.location, ErrNotAStore)
		case sqlite3.SQLITE_CORRUPT:
			return fmt.Errorf("results store %s: %w (the SQLite file is corrupt)", s.location, ErrNotAStore)
		case sqlite3.SQLITE_CANTOPEN:
			return fmt.Errorf("results store %s: cannot open the file (permissions? directory exists?)", s.location)
		case sqlite3.SQLITE_READONLY, sqlite3.SQLITE_PERM:
			return fmt.Errorf("results store %s: the file is read-only", s.location)
		}
	}
	return fmt.Errorf("results store %s: %w", s.location, err)
}

// Location returns the store's location as it should be shown (a
// PostgreSQL password is redacted).
func (s *Store) Location() string { return s.location }

// Close closes the store.
func (s *Store) Close() error { return s.db.Close() }

// rebind turns the '?' placeholders of q into $n for PostgreSQL. The
// store's SQL never has '?' elsewhere.
func (s *Store) rebind(q string) string {
	if s.dialect != dialectPostgres || !strings.Contains(q, "?") {
		return q
	}
	var b strings.Builder
	b.Grow(len(q) + 16)
	n := 0
	for i := 0; i < len(q); i++ {
		if q[i] == '?' {
			n++
			fmt.Fprintf(&b, "$%d", n)
			continue
		}
		b.WriteByte(q[i])
	}
	return b.String()
}

// newID returns "YYYYMMDD-HHMMSS-xxxxxx" for t.
func newID(t time.Time) string {
	var b [3]byte
	_, _ = rand.Read(b[:])
	return t.UTC().Format("20060102-150405") + "-" + hex.EncodeToString(b[:])
}

// ns converts a time to Unix nanoseconds, 0 for the zero time.
func ns(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}

// fromNS is the inverse of ns, in UTC.
func fromNS(v int64) time.Time {
	if v == 0 {
		return time.Time{}
	}
	return time.Unix(0, v).UTC()
}

// nullNS is ns with NULL for the zero time.
func nullNS(t time.Time) sql.NullInt64 {
	if t.IsZero() {
		return sql.NullInt64{}
	}
	return sql.NullInt64{Int64: t.UnixNano(), Valid: true}
}

// fin replaces a non-finite float by 0: SQLite stores NaN as NULL and JSON
// has no NaN.
func fin(f float64) float64 {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return 0
	}
	return f
}

// u64 converts an unsigned counter for the database (which has no unsigned
// 64-bit integers); values above MaxInt64 are clamped.
func u64(v uint64) int64 {
	if v > math.MaxInt64 {
		return math.MaxInt64
	}
	return int64(v)
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
