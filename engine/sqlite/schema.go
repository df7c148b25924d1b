package sqlite

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/rightsize/rightsize/engine"
	"github.com/rightsize/rightsize/tpcc"
)

// The tables of engine/postgres with SQLite types: INTEGER, REAL for the
// decimals (money is kept rounded to cents), TEXT for strings and for
// timestamps (UTC, "YYYY-MM-DD HH:MM:SS"). SQLite cannot add a primary key
// later, so each table is created with it. Small rows live in WITHOUT
// ROWID tables (the table is its primary-key b-tree); CUSTOMER and STOCK,
// whose rows are far larger than 1/20 of a page, stay rowid tables with the
// primary key as an index; ITEM and WAREHOUSE use their integer key as the
// rowid. STRICT makes a type slip in the loader an error.
var ddl = []string{
	`CREATE TABLE warehouse (w_id INTEGER NOT NULL PRIMARY KEY, w_name TEXT, w_street_1 TEXT, w_street_2 TEXT,
 w_city TEXT, w_state TEXT, w_zip TEXT, w_tax REAL, w_ytd REAL) STRICT`,
	`CREATE TABLE district (d_id INTEGER NOT NULL, d_w_id INTEGER NOT NULL, d_name TEXT, d_street_1 TEXT, d_street_2 TEXT,
 d_city TEXT, d_state TEXT, d_zip TEXT, d_tax REAL, d_ytd REAL, d_next_o_id INTEGER,
 PRIMARY KEY (d_w_id, d_id)) WITHOUT ROWID, STRICT`,
	`CREATE TABLE customer (c_id INTEGER NOT NULL, c_d_id INTEGER NOT NULL, c_w_id INTEGER NOT NULL, c_first TEXT, c_middle TEXT,
 c_last TEXT, c_street_1 TEXT, c_street_2 TEXT, c_city TEXT, c_state TEXT, c_zip TEXT,
 c_phone TEXT, c_since TEXT, c_credit TEXT, c_credit_lim REAL, c_discount REAL,
 c_balance REAL, c_ytd_payment REAL, c_payment_cnt INTEGER, c_delivery_cnt INTEGER, c_data TEXT,
 PRIMARY KEY (c_w_id, c_d_id, c_id)) STRICT`,
	`CREATE TABLE history (h_c_id INTEGER, h_c_d_id INTEGER, h_c_w_id INTEGER, h_d_id INTEGER, h_w_id INTEGER, h_date TEXT,
 h_amount REAL, h_data TEXT) STRICT`,
	`CREATE TABLE orders (o_id INTEGER NOT NULL, o_d_id INTEGER NOT NULL, o_w_id INTEGER NOT NULL, o_c_id INTEGER, o_entry_d TEXT,
 o_carrier_id INTEGER, o_ol_cnt INTEGER, o_all_local INTEGER,
 PRIMARY KEY (o_w_id, o_d_id, o_id)) WITHOUT ROWID, STRICT`,
	`CREATE TABLE new_order (no_o_id INTEGER NOT NULL, no_d_id INTEGER NOT NULL, no_w_id INTEGER NOT NULL,
 PRIMARY KEY (no_w_id, no_d_id, no_o_id)) WITHOUT ROWID, STRICT`,
	`CREATE TABLE order_line (ol_o_id INTEGER NOT NULL, ol_d_id INTEGER NOT NULL, ol_w_id INTEGER NOT NULL, ol_number INTEGER NOT NULL,
 ol_i_id INTEGER, ol_supply_w_id INTEGER, ol_delivery_d TEXT, ol_quantity INTEGER, ol_amount REAL, ol_dist_info TEXT,
 PRIMARY KEY (ol_w_id, ol_d_id, ol_o_id, ol_number)) WITHOUT ROWID, STRICT`,
	`CREATE TABLE stock (s_i_id INTEGER NOT NULL, s_w_id INTEGER NOT NULL, s_quantity INTEGER, s_dist_01 TEXT, s_dist_02 TEXT,
 s_dist_03 TEXT, s_dist_04 TEXT, s_dist_05 TEXT, s_dist_06 TEXT, s_dist_07 TEXT, s_dist_08 TEXT,
 s_dist_09 TEXT, s_dist_10 TEXT, s_ytd INTEGER, s_order_cnt INTEGER, s_remote_cnt INTEGER, s_data TEXT,
 PRIMARY KEY (s_w_id, s_i_id)) STRICT`,
	`CREATE TABLE item (i_id INTEGER NOT NULL PRIMARY KEY, i_im_id INTEGER, i_name TEXT, i_price REAL, i_data TEXT) STRICT`,
	`CREATE TABLE rightsize_meta (id INTEGER PRIMARY KEY, meta TEXT NOT NULL)`,
}

// CreateSchema implements engine.DB.
func (db *DB) CreateSchema(ctx context.Context) error {
	if err := db.lockWriter(ctx); err != nil {
		return err
	}
	defer db.unlockWriter()
	tx, err := db.sql.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("create schema: %w", err)
	}
	defer tx.Rollback()
	for _, t := range engine.SchemaTables() {
		if _, err := tx.ExecContext(ctx, "DROP TABLE IF EXISTS "+t); err != nil {
			return fmt.Errorf("drop table %s: %w", t, err)
		}
	}
	for _, s := range ddl {
		if _, err := tx.ExecContext(ctx, s); err != nil {
			return fmt.Errorf("create schema: %w", err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("create schema: %w", err)
	}
	return nil
}

// DropSchema removes every rightsize table.
func (db *DB) DropSchema(ctx context.Context) error {
	if err := db.lockWriter(ctx); err != nil {
		return err
	}
	defer db.unlockWriter()
	for _, t := range engine.SchemaTables() {
		if _, err := db.sql.ExecContext(ctx, "DROP TABLE IF EXISTS "+t); err != nil {
			return fmt.Errorf("drop table %s: %w", t, err)
		}
	}
	return nil
}

var indexes = []struct{ name, sql string }{
	{"customer (w, d, last, first)", `CREATE INDEX customer_last ON customer (c_w_id, c_d_id, c_last, c_first)`},
	{"orders (w, d, c, id)", `CREATE UNIQUE INDEX orders_customer ON orders (o_w_id, o_d_id, o_c_id, o_id)`},
}

// IndexSteps implements engine.DB: the two secondary indexes (primary keys
// exist from the start). SQLite builds one at a time; the steps take the
// writer lock so parallel callers queue rather than time out.
func (db *DB) IndexSteps() []engine.Step {
	steps := make([]engine.Step, len(indexes))
	for i, ix := range indexes {
		steps[i] = engine.Step{Name: ix.name, Run: func(ctx context.Context) error {
			if err := db.lockWriter(ctx); err != nil {
				return err
			}
			defer db.unlockWriter()
			conn, err := db.sql.Conn(ctx)
			if err != nil {
				return fmt.Errorf("%s: %w", ix.name, err)
			}
			defer conn.Close()
			if _, err := conn.ExecContext(ctx, "PRAGMA cache_size = -131072"); err != nil { // 128 MiB for the sort
				return fmt.Errorf("%s: %w", ix.name, err)
			}
			_, err = conn.ExecContext(ctx, ix.sql)
			if _, rerr := conn.ExecContext(context.Background(), "PRAGMA cache_size = -2000"); err == nil && rerr != nil {
				err = rerr
			}
			if err != nil {
				return fmt.Errorf("%s: %w", ix.name, err)
			}
			return nil
		}}
	}
	return steps
}

// InstallProcedures implements engine.DB: SQLite has none.
func (db *DB) InstallProcedures(ctx context.Context) error { return nil }

// Analyze implements engine.DB: ANALYZE, then a checkpoint that empties
// the WAL the load filled.
func (db *DB) Analyze(ctx context.Context) error {
	if err := db.lockWriter(ctx); err != nil {
		return err
	}
	defer db.unlockWriter()
	if _, err := db.sql.ExecContext(ctx, "ANALYZE"); err != nil {
		return fmt.Errorf("analyze: %w", err)
	}
	if _, err := db.sql.ExecContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)"); err != nil {
		return fmt.Errorf("checkpoint after analyze: %w", err)
	}
	return nil
}

// maxVars is SQLite's default limit on host parameters per statement.
const maxVars = 32766

// rowsPerInsert is how many rows one multi-row INSERT carries.
func rowsPerInsert(cols int) int { return min(100, maxVars/cols) }

func insertSQL(t tpcc.Table, rows int) string {
	cols := tpcc.Columns[t]
	var b strings.Builder
	b.WriteString("INSERT INTO ")
	b.WriteString(string(t))
	b.WriteString(" (")
	b.WriteString(strings.Join(cols, ", "))
	b.WriteString(") VALUES ")
	tuple := "(" + strings.TrimSuffix(strings.Repeat("?, ", len(cols)), ", ") + ")"
	for i := range rows {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(tuple)
	}
	return b.String()
}

// batch is rows converted to driver values, ready to bind.
type batch struct {
	vals []driver.NamedValue
	rows int
}

// Load implements engine.DB. SQLite has one writer, so concurrent calls
// queue on the writer lock; each call is one transaction of multi-row
// INSERTs prepared once and bound through the driver directly. The
// caller's rows are generated and converted by a goroutine that runs ahead
// of the inserts (and of the lock), so generation overlaps writing.
func (db *DB) Load(ctx context.Context, t tpcc.Table, rows tpcc.RowSource) (int64, error) {
	ncol := len(tpcc.Columns[t])
	if ncol == 0 {
		return 0, fmt.Errorf("load: unknown table %q", t)
	}
	per := rowsPerInsert(ncol)
	const depth = 64
	full := make(chan *batch, depth)
	free := make(chan *batch, depth+2)
	stop := make(chan struct{})
	var genErr error
	go func() {
		defer close(full)
		var tc timeCache
		newBatch := func() *batch {
			select {
			case b := <-free:
				b.rows = 0
				return b
			default:
			}
			b := &batch{vals: make([]driver.NamedValue, per*ncol)}
			for i := range b.vals {
				b.vals[i].Ordinal = i + 1
			}
			return b
		}
		b := newBatch()
		for rows.Next() {
			vals, err := rows.Values()
			if err != nil {
				genErr = err
				return
			}
			dst := b.vals[b.rows*ncol : (b.rows+1)*ncol]
			for i, v := range vals {
				if dst[i].Value, err = tc.convert(v); err != nil {
					genErr = fmt.Errorf("column %s: %w", tpcc.Columns[t][i], err)
					return
				}
			}
			if b.rows++; b.rows == per {
				select {
				case full <- b:
				case <-stop:
					return
				}
				b = newBatch()
			}
		}
		if genErr = rows.Err(); genErr == nil && b.rows > 0 {
			select {
			case full <- b:
			case <-stop:
			}
		}
	}()
	n, err := db.insertAll(ctx, t, per, full, free)
	close(stop)
	for range full { // let the generator finish
	}
	if err == nil && genErr != nil {
		err = fmt.Errorf("generate %s: %w", t, genErr)
	}
	return n, err
}

func (db *DB) insertAll(ctx context.Context, t tpcc.Table, per int, full <-chan *batch, free chan<- *batch) (int64, error) {
	if err := db.lockWriter(ctx); err != nil {
		return 0, err
	}
	defer db.unlockWriter()
	conn, err := db.sql.Conn(ctx)
	if err != nil {
		return 0, fmt.Errorf("load %s: %w", t, err)
	}
	defer conn.Close()
	var n int64
	err = conn.Raw(func(dc any) error {
		ex, ok1 := dc.(driver.ExecerContext)
		pr, ok2 := dc.(driver.ConnPrepareContext)
		if !ok1 || !ok2 {
			return errors.New("sqlite driver lacks ExecerContext or ConnPrepareContext")
		}
		exec := func(q string) error { _, err := ex.ExecContext(ctx, q, nil); return err }
		// Losing the last rows on a crash is harmless: the build is only
		// marked complete after everything is durable.
		if err := exec("PRAGMA synchronous = OFF"); err != nil {
			return err
		}
		defer ex.ExecContext(context.Background(), "PRAGMA synchronous = NORMAL", nil)
		if err := exec("PRAGMA cache_size = -65536"); err != nil {
			return err
		}
		defer ex.ExecContext(context.Background(), "PRAGMA cache_size = -2000", nil)
		if err := exec("BEGIN IMMEDIATE"); err != nil {
			return err
		}
		committed := false
		defer func() {
			if !committed {
				ex.ExecContext(context.Background(), "ROLLBACK", nil)
			}
		}()
		st, err := pr.PrepareContext(ctx, insertSQL(t, per))
		if err != nil {
			return err
		}
		defer st.Close()
		se, ok := st.(driver.StmtExecContext)
		if !ok {
			return errors.New("sqlite driver statement lacks ExecContext")
		}
		ncol := len(tpcc.Columns[t])
		for b := range full {
			if err := insertBatch(ctx, se, pr, t, per, ncol, b); err != nil {
				return err
			}
			n += int64(b.rows)
			recycle(b, ncol, free)
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := exec("COMMIT"); err != nil {
			return err
		}
		committed = true
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("load %s: %w", t, err)
	}
	return n, nil
}

// insertBatch inserts batch b with the prepared statement for per rows, or,
// for the last, partial batch, with one prepared for its rows.
func insertBatch(ctx context.Context, se driver.StmtExecContext, pr driver.ConnPrepareContext, t tpcc.Table, per, ncol int, b *batch) error {
	if b.rows == per {
		_, err := se.ExecContext(ctx, b.vals)
		return err
	}
	st2, err := pr.PrepareContext(ctx, insertSQL(t, b.rows))
	if err != nil {
		return err
	}
	_, err = st2.(driver.StmtExecContext).ExecContext(ctx, b.vals[:b.rows*ncol])
	st2.Close()
	return err
}

// recycle clears batch b's values, dropping references to strings, and
// hands it back to the generator when it has room.
func recycle(b *batch, ncol int, free chan<- *batch) {
	clear(b.vals[:b.rows*ncol])
	for i := range b.vals[:b.rows*ncol] {
		b.vals[i].Ordinal = i + 1
	}
	select {
	case free <- b:
	default:
	}
}

// timeCache converts generator values to the types the table columns
// hold, formatting each distinct time once.
type timeCache struct {
	t time.Time
	s string
}

func (c *timeCache) convert(v any) (driver.Value, error) {
	switch x := v.(type) {
	case nil, int64, float64, string:
		return x, nil
	case int32:
		return int64(x), nil
	case int:
		return int64(x), nil
	case time.Time:
		if !x.Equal(c.t) || c.s == "" {
			c.t, c.s = x, x.UTC().Format(timeLayout)
		}
		return c.s, nil
	case []byte:
		return string(x), nil
	}
	return nil, fmt.Errorf("unsupported value %T", v)
}
