// Package engine defines what a database engine provides to rightsize: DDL
// and bulk load for build, transaction executors for run, SQL for check,
// and version/settings/counters for the record. Each engine lives in its own
// subpackage (engine/postgres, engine/sqlite, ...) and implements DB.
package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/rightsize/rightsize/tpcc"
)

// Mode selects how the five transactions are executed.
type Mode string

// Execution modes.
const (
	// Procedures runs each transaction as one call of a stored procedure.
	Procedures Mode = "procedures"
	// Statements runs each transaction as client-side prepared statements
	// in an explicit transaction.
	Statements Mode = "statements"
)

// ParseMode validates a --mode value.
func ParseMode(s string) (Mode, error) {
	switch Mode(s) {
	case Procedures, Statements:
		return Mode(s), nil
	}
	return "", fmt.Errorf("unknown mode %q: use procedures or statements", s)
}

// Caps describes what an engine can do.
type Caps struct {
	Procedures bool // has stored procedures
	Statements bool
	Server     bool // a separate server process (false for SQLite)
}

// Modes lists the modes an engine supports, default first.
func (c Caps) Modes() []Mode {
	var m []Mode
	if c.Procedures {
		m = append(m, Procedures)
	}
	if c.Statements {
		m = append(m, Statements)
	}
	return m
}

// DefaultMode is procedures where the engine has them, statements otherwise.
func (c Caps) DefaultMode() Mode { return c.Modes()[0] }

// Meta is what build records inside the benchmark database.
type Meta struct {
	// Format is the schema format the build wrote (SchemaFormat then); an
	// older one must be built again.
	Format     int            `json:"format"`
	Warehouses int            `json:"warehouses"`
	Seed       uint64         `json:"seed"`
	Constants  tpcc.Constants `json:"constants"`
	BuiltAt    time.Time      `json:"built_at"`
	Complete   bool           `json:"complete"` // false while loading or after an interrupted build
	Runs       int            `json:"runs"`     // runs since build (3.3.2.11 only holds at 0)
	Version    string         `json:"rightsize_version"`
}

// SchemaFormat is the format of the schema and procedures a build writes
// now: 2 since the procedures return the full TPC-C outputs at isolation
// level 3 (builds before it have no format, read as 0).
const SchemaFormat = 2

// ErrNoSchema is returned by ReadMeta when the database holds no rightsize schema.
var ErrNoSchema = errors.New("no rightsize TPC-C schema in this database")

// ErrClass classifies an error raised by a transaction.
type ErrClass int

// Error classes.
const (
	// ErrOther is counted and the virtual user goes on.
	ErrOther ErrClass = iota
	// ErrRetry (serialization failure, deadlock) retries the same transaction.
	ErrRetry
	// ErrConnection means the connection is gone: reconnect, then go on.
	ErrConnection
)

// Step is one named piece of post-load work (an index, the procedures,
// statistics). Steps of one phase are independent and may run in parallel.
type Step struct {
	Name string
	Run  func(ctx context.Context) error
}

// Counters are server-side cumulative counters; a step's figures are the
// difference of two snapshots.
type Counters struct {
	Commits, Rollbacks int64 // of the benchmark database only
	BlocksRead         int64 // read from disk (or OS cache)
	BlocksHit          int64 // found in the buffer pool
	WALBytes           int64
	Checkpoints        int64
	Extra              map[string]int64 // engine-specific
}

// DB is an open benchmark database of one engine.
type DB interface {
	// Engine names the engine ("postgres", "sqlite", ...).
	Engine() string
	Caps() Caps
	// Version is the server's version string.
	Version(ctx context.Context) (string, error)
	// Settings returns the server settings that matter for a benchmark.
	Settings(ctx context.Context) (map[string]string, error)

	// CreateSchema drops any existing rightsize schema and creates the
	// tables (with no secondary indexes) and the metadata table.
	CreateSchema(ctx context.Context) error
	// Load streams rows into table t and returns the number of rows loaded.
	// It may be called concurrently (one call per loader).
	Load(ctx context.Context, t tpcc.Table, rows tpcc.RowSource) (int64, error)
	// IndexSteps creates primary keys and secondary indexes.
	IndexSteps() []Step
	// InstallProcedures creates the stored procedures (no-op without them).
	InstallProcedures(ctx context.Context) error
	// Analyze refreshes optimizer statistics.
	Analyze(ctx context.Context) error
	// WriteMeta and ReadMeta store the build metadata. ReadMeta returns
	// ErrNoSchema when there is none.
	WriteMeta(ctx context.Context, m Meta) error
	ReadMeta(ctx context.Context) (Meta, error)
	// TableSizes reports rows and bytes per table.
	TableSizes(ctx context.Context) ([]TableSize, error)

	// NewExecutor opens a connection for one virtual user.
	NewExecutor(ctx context.Context, mode Mode) (tpcc.Executor, error)
	// Classify tells the driver what to do with a transaction error.
	Classify(err error) ErrClass

	// QueryInt runs a query returning one integer (consistency checks).
	QueryInt(ctx context.Context, sql string) (int64, error)
	// CheckSQL returns the engine's SQL for a consistency condition.
	CheckSQL(c tpcc.Check) string

	// Counters snapshots server-side counters (zero values where unknown).
	Counters(ctx context.Context) (Counters, error)

	Close() error
}

// TableSize is the size of one table.
type TableSize struct {
	Table      tpcc.Table `json:"table"`
	Rows       int64      `json:"rows"`
	DataBytes  int64      `json:"data_bytes"`
	IndexBytes int64      `json:"index_bytes"`
}

// MetaTable is the table in which every engine keeps its build metadata:
// EncodeMeta's text in the row of id 1.
const MetaTable = "rightsize_meta"

// SchemaTables are the tables an engine's CreateSchema creates: the TPC-C
// tables, then MetaTable.
func SchemaTables() []string {
	out := make([]string, 0, len(tpcc.Tables)+1)
	for _, t := range tpcc.Tables {
		out = append(out, string(t))
	}
	return append(out, MetaTable)
}

// WriteMetaText is the body of every engine's WriteMeta: it encodes m and
// has write store the text in MetaTable.
func WriteMetaText(m Meta, write func(text string) error) error {
	s, err := EncodeMeta(m)
	if err != nil {
		return err
	}
	if err := write(s); err != nil {
		return fmt.Errorf("write rightsize_meta: %w", err)
	}
	return nil
}

// ReadMetaText is the end of every engine's ReadMeta, given what its query
// of MetaTable returned: the text s, the error err, and missing, whether
// err says there is no such table or row. It returns ErrNoSchema where
// missing, else the metadata s holds.
func ReadMetaText(s string, err error, missing bool) (Meta, error) {
	if missing {
		return Meta{}, ErrNoSchema
	}
	if err != nil {
		return Meta{}, fmt.Errorf("read rightsize_meta: %w", err)
	}
	return DecodeMeta(s)
}

// EncodeMeta is the text every engine stores in its rightsize_meta table.
func EncodeMeta(m Meta) (string, error) {
	b, err := json.Marshal(m)
	if err != nil {
		return "", fmt.Errorf("encode rightsize_meta: %w", err)
	}
	return string(b), nil
}

// DecodeMeta reads what EncodeMeta wrote.
func DecodeMeta(s string) (Meta, error) {
	var m Meta
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		return m, fmt.Errorf("decode rightsize_meta: %w", err)
	}
	return m, nil
}
