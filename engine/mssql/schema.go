package mssql

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"math"
	"strconv"
	"time"

	gomssql "github.com/microsoft/go-mssqldb"

	"github.com/rightsize/rightsize/engine"
	"github.com/rightsize/rightsize/tpcc"
)

// tableDDL creates the nine tables (the columns and types of the PostgreSQL
// engine) and rightsize_meta. As is usual on SQL Server, each table is
// created with its primary key as the clustered index, so bulk copy loads
// straight into the final structure; HISTORY has no key and stays a heap.
// Timestamps are datetime (2008-compatible, as HammerDB's schema).
var tableDDL = []string{
	`CREATE TABLE dbo.warehouse (w_id int NOT NULL, w_name varchar(10), w_street_1 varchar(20), w_street_2 varchar(20),
 w_city varchar(20), w_state char(2), w_zip char(9), w_tax numeric(4,4), w_ytd numeric(12,2),
 CONSTRAINT pk_warehouse PRIMARY KEY CLUSTERED (w_id))`,
	`CREATE TABLE dbo.district (d_id int NOT NULL, d_w_id int NOT NULL, d_name varchar(10), d_street_1 varchar(20), d_street_2 varchar(20),
 d_city varchar(20), d_state char(2), d_zip char(9), d_tax numeric(4,4), d_ytd numeric(12,2), d_next_o_id int,
 CONSTRAINT pk_district PRIMARY KEY CLUSTERED (d_w_id, d_id))`,
	`CREATE TABLE dbo.customer (c_id int NOT NULL, c_d_id int NOT NULL, c_w_id int NOT NULL, c_first varchar(16), c_middle char(2),
 c_last varchar(16), c_street_1 varchar(20), c_street_2 varchar(20), c_city varchar(20), c_state char(2), c_zip char(9),
 c_phone char(16), c_since datetime, c_credit char(2), c_credit_lim numeric(12,2), c_discount numeric(4,4),
 c_balance numeric(12,2), c_ytd_payment numeric(12,2), c_payment_cnt int, c_delivery_cnt int, c_data varchar(500),
 CONSTRAINT pk_customer PRIMARY KEY CLUSTERED (c_w_id, c_d_id, c_id))`,
	`CREATE TABLE dbo.history (h_c_id int, h_c_d_id int, h_c_w_id int, h_d_id int, h_w_id int, h_date datetime,
 h_amount numeric(6,2), h_data varchar(24))`,
	`CREATE TABLE dbo.orders (o_id int NOT NULL, o_d_id int NOT NULL, o_w_id int NOT NULL, o_c_id int, o_entry_d datetime,
 o_carrier_id int, o_ol_cnt int, o_all_local int,
 CONSTRAINT pk_orders PRIMARY KEY CLUSTERED (o_w_id, o_d_id, o_id))`,
	`CREATE TABLE dbo.new_order (no_o_id int NOT NULL, no_d_id int NOT NULL, no_w_id int NOT NULL,
 CONSTRAINT pk_new_order PRIMARY KEY CLUSTERED (no_w_id, no_d_id, no_o_id))`,
	`CREATE TABLE dbo.order_line (ol_o_id int NOT NULL, ol_d_id int NOT NULL, ol_w_id int NOT NULL, ol_number int NOT NULL,
 ol_i_id int, ol_supply_w_id int, ol_delivery_d datetime, ol_quantity int, ol_amount numeric(6,2), ol_dist_info char(24),
 CONSTRAINT pk_order_line PRIMARY KEY CLUSTERED (ol_w_id, ol_d_id, ol_o_id, ol_number))`,
	`CREATE TABLE dbo.stock (s_i_id int NOT NULL, s_w_id int NOT NULL, s_quantity int, s_dist_01 char(24), s_dist_02 char(24),
 s_dist_03 char(24), s_dist_04 char(24), s_dist_05 char(24), s_dist_06 char(24), s_dist_07 char(24), s_dist_08 char(24),
 s_dist_09 char(24), s_dist_10 char(24), s_ytd int, s_order_cnt int, s_remote_cnt int, s_data varchar(50),
 CONSTRAINT pk_stock PRIMARY KEY CLUSTERED (s_w_id, s_i_id))`,
	`CREATE TABLE dbo.item (i_id int NOT NULL, i_im_id int, i_name varchar(24), i_price numeric(5,2), i_data varchar(50),
 CONSTRAINT pk_item PRIMARY KEY CLUSTERED (i_id))`,
	`CREATE TABLE dbo.rightsize_meta (id int NOT NULL, meta nvarchar(max) NOT NULL,
 CONSTRAINT pk_rightsize_meta PRIMARY KEY CLUSTERED (id))`,
}

// metaTable is the table holding the build metadata.
const metaTable = "rightsize_meta"

// dropTable returns the 2008-compatible statement dropping a table if it exists.
func dropTable(name string) string {
	return fmt.Sprintf("IF OBJECT_ID(N'dbo.%s', N'U') IS NOT NULL DROP TABLE dbo.%s", name, name)
}

// dropProcedure returns the statement dropping a procedure if it exists.
func dropProcedure(name string) string {
	return fmt.Sprintf("IF OBJECT_ID(N'dbo.%s', N'P') IS NOT NULL DROP PROCEDURE dbo.%s", name, name)
}

// dropType returns the statement dropping a user-defined type if it exists.
func dropType(name string) string {
	return fmt.Sprintf("IF TYPE_ID(N'dbo.%s') IS NOT NULL DROP TYPE dbo.%s", name, name)
}

// dropObjects drops the procedures, then the table type they use, then the
// tables.
func dropObjects() []string {
	var out []string
	for _, p := range procedures {
		out = append(out, dropProcedure(p.name))
	}
	out = append(out, dropType(orderLineType))
	for _, t := range tpcc.Tables {
		out = append(out, dropTable(string(t)))
	}
	return append(out, dropTable(metaTable))
}

// schemaStatements are what CreateSchema runs, in order.
func schemaStatements() []string { return append(dropObjects(), tableDDL...) }

// CreateSchema implements engine.DB: in one transaction, it drops any
// rightsize procedures, table type and tables, then creates the tables with
// their clustered primary keys.
func (db *DB) CreateSchema(ctx context.Context) error {
	tx, err := db.pool.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("create schema: %w", err)
	}
	defer tx.Rollback()
	for _, s := range schemaStatements() {
		if _, err := tx.ExecContext(ctx, s); err != nil {
			return fmt.Errorf("create schema: %s: %w", firstLine(s), err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("create schema: %w", err)
	}
	return nil
}

// DropSchema removes every rightsize table, procedure and type.
func (db *DB) DropSchema(ctx context.Context) error {
	for _, s := range dropObjects() {
		if _, err := db.pool.ExecContext(ctx, s); err != nil {
			return fmt.Errorf("drop schema: %s: %w", s, err)
		}
	}
	return nil
}

// secondaryIndexes are the two nonclustered indexes the transactions need
// beyond the clustered primary keys (clause 2.5.2.2 and 2.6.2.2 lookups).
var secondaryIndexes = []struct{ name, sql string }{
	{"customer (w, d, last, first)", `CREATE NONCLUSTERED INDEX customer_last ON dbo.customer (c_w_id, c_d_id, c_last, c_first)`},
	{"orders (w, d, c, id)", `CREATE UNIQUE NONCLUSTERED INDEX orders_customer ON dbo.orders (o_w_id, o_d_id, o_c_id, o_id)`},
}

// IndexSteps implements engine.DB: the primary keys exist from the start
// (clustered), so only the two secondary indexes remain.
func (db *DB) IndexSteps() []engine.Step {
	steps := make([]engine.Step, len(secondaryIndexes))
	for i, ix := range secondaryIndexes {
		steps[i] = engine.Step{Name: ix.name, Run: func(ctx context.Context) error {
			if _, err := db.pool.ExecContext(ctx, ix.sql); err != nil {
				return fmt.Errorf("%s: %w", ix.name, err)
			}
			return nil
		}}
	}
	return steps
}

// analyzeStatements refresh the optimizer statistics of every table.
func analyzeStatements() []string {
	var out []string
	for _, t := range tpcc.Tables {
		out = append(out, "UPDATE STATISTICS dbo."+string(t))
	}
	return out
}

// Analyze implements engine.DB with UPDATE STATISTICS (default sampling).
func (db *DB) Analyze(ctx context.Context) error {
	for _, s := range analyzeStatements() {
		if _, err := db.pool.ExecContext(ctx, s); err != nil {
			return fmt.Errorf("analyze: %s: %w", s, err)
		}
	}
	return nil
}

// bulkOptions are the bulk copy options of the load: NULLs stay NULL, no
// TABLOCK (several loaders fill the same table at once, each its own
// warehouses, and TABLOCK on a clustered index would serialise them).
var bulkOptions = gomssql.BulkOptions{KeepNulls: true}

// copyInSQL is the go-mssqldb bulk-copy pseudo statement for table t.
func copyInSQL(t tpcc.Table) string {
	return gomssql.CopyIn("dbo."+string(t), bulkOptions, tpcc.Columns[t]...)
}

// Load implements engine.DB with bulk copy (go-mssqldb CopyIn, TDS bulk
// load) on one pooled connection, in one transaction per call. After a
// failure the connection is discarded: a bulk load stopped half-way leaves
// its stream in an unknown state.
func (db *DB) Load(ctx context.Context, t tpcc.Table, rows tpcc.RowSource) (n int64, err error) {
	cols := tpcc.Columns[t]
	if cols == nil {
		return 0, fmt.Errorf("load: unknown table %q", t)
	}
	conn, err := db.pool.Conn(ctx)
	if err != nil {
		return 0, fmt.Errorf("load %s: %w", t, err)
	}
	defer conn.Close()
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return 0, fmt.Errorf("load %s: %w", t, err)
	}
	if n, err = bulkCopy(ctx, tx, t, cols, rows); err == nil {
		if err = tx.Commit(); err != nil {
			err = fmt.Errorf("bulk copy into %s: commit: %w", t, err)
		}
	}
	if err != nil {
		_ = tx.Rollback()
		_ = conn.Raw(func(any) error { return driver.ErrBadConn }) // discard the connection
	}
	return n, err
}

// bulkCopy streams rows into table t inside tx and returns the number of
// rows sent.
func bulkCopy(ctx context.Context, tx *sql.Tx, t tpcc.Table, cols []string, rows tpcc.RowSource) (int64, error) {
	stmt, err := tx.PrepareContext(ctx, copyInSQL(t))
	if err != nil {
		return 0, fmt.Errorf("bulk copy into %s: %w", t, err)
	}
	defer stmt.Close()
	args := make([]any, len(cols))
	var n int64
	for rows.Next() {
		vals, err := rows.Values()
		if err != nil {
			return n, fmt.Errorf("generate %s: %w", t, err)
		}
		if len(vals) != len(cols) {
			return n, fmt.Errorf("generate %s: %d values for %d columns", t, len(vals), len(cols))
		}
		for i, v := range vals {
			if args[i], err = bulkValue(v); err != nil {
				return n, fmt.Errorf("bulk copy into %s, column %s: %w", t, cols[i], err)
			}
		}
		if _, err := stmt.ExecContext(ctx, args...); err != nil {
			return n, fmt.Errorf("bulk copy into %s: %w", t, err)
		}
		n++
	}
	if err := rows.Err(); err != nil {
		return n, fmt.Errorf("generate %s: %w", t, err)
	}
	res, err := stmt.ExecContext(ctx) // no arguments: finish the bulk copy
	if err != nil {
		return n, fmt.Errorf("bulk copy into %s: %w", t, err)
	}
	// The row count of the final DONE token (absent under SET NOCOUNT ON).
	if sent, err := res.RowsAffected(); err == nil && sent != 0 && sent != n {
		return n, fmt.Errorf("bulk copy into %s: server took %d of %d rows", t, sent, n)
	}
	return n, nil
}

// bulkValue converts a generator value for bulk copy. Integers, strings,
// times and NULL pass as they are. Decimal columns come as float64 with at
// most four decimals; go-mssqldb converts a float64 into a decimal column
// by truncating float64(x)*10^scale, which turns 0.29 into 0.28, so they go
// as their shortest exact decimal text ("0.29"), which it parses exactly.
func bulkValue(v any) (any, error) {
	switch x := v.(type) {
	case nil, int32, int64, int, string, time.Time, []byte:
		return v, nil
	case int16:
		return int32(x), nil
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, fmt.Errorf("cannot store %v in a decimal column", x)
		}
		return strconv.FormatFloat(math.Round(x*1e4)/1e4, 'f', -1, 64), nil
	case float32:
		return bulkValue(float64(x))
	case bool:
		if x {
			return int32(1), nil
		}
		return int32(0), nil
	}
	return nil, fmt.Errorf("unsupported generator value of type %T", v)
}

// execAll runs statements in order on db.
func execAll(ctx context.Context, db *sql.DB, stmts []string) error {
	for _, s := range stmts {
		if _, err := db.ExecContext(ctx, s); err != nil {
			return fmt.Errorf("%s: %w", firstLine(s), err)
		}
	}
	return nil
}
