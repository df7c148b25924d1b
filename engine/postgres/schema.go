package postgres

import (
	"context"
	"fmt"

	"github.com/rightsize/rightsize/engine"
	"github.com/rightsize/rightsize/tpcc"
)

var ddl = []string{
	`CREATE TABLE warehouse (w_id int NOT NULL, w_name varchar(10), w_street_1 varchar(20), w_street_2 varchar(20),
 w_city varchar(20), w_state char(2), w_zip char(9), w_tax numeric(4,4), w_ytd numeric(12,2)) WITH (fillfactor = 50)`,
	`CREATE TABLE district (d_id int NOT NULL, d_w_id int NOT NULL, d_name varchar(10), d_street_1 varchar(20), d_street_2 varchar(20),
 d_city varchar(20), d_state char(2), d_zip char(9), d_tax numeric(4,4), d_ytd numeric(12,2), d_next_o_id int) WITH (fillfactor = 50)`,
	`CREATE TABLE customer (c_id int NOT NULL, c_d_id int NOT NULL, c_w_id int NOT NULL, c_first varchar(16), c_middle char(2),
 c_last varchar(16), c_street_1 varchar(20), c_street_2 varchar(20), c_city varchar(20), c_state char(2), c_zip char(9),
 c_phone char(16), c_since timestamp, c_credit char(2), c_credit_lim numeric(12,2), c_discount numeric(4,4),
 c_balance numeric(12,2), c_ytd_payment numeric(12,2), c_payment_cnt int, c_delivery_cnt int, c_data varchar(500))`,
	`CREATE TABLE history (h_c_id int, h_c_d_id int, h_c_w_id int, h_d_id int, h_w_id int, h_date timestamp,
 h_amount numeric(6,2), h_data varchar(24))`,
	`CREATE TABLE orders (o_id int NOT NULL, o_d_id int NOT NULL, o_w_id int NOT NULL, o_c_id int, o_entry_d timestamp,
 o_carrier_id int, o_ol_cnt int, o_all_local int)`,
	`CREATE TABLE new_order (no_o_id int NOT NULL, no_d_id int NOT NULL, no_w_id int NOT NULL)`,
	`CREATE TABLE order_line (ol_o_id int NOT NULL, ol_d_id int NOT NULL, ol_w_id int NOT NULL, ol_number int NOT NULL,
 ol_i_id int, ol_supply_w_id int, ol_delivery_d timestamp, ol_quantity int, ol_amount numeric(6,2), ol_dist_info char(24))`,
	`CREATE TABLE stock (s_i_id int NOT NULL, s_w_id int NOT NULL, s_quantity int, s_dist_01 char(24), s_dist_02 char(24),
 s_dist_03 char(24), s_dist_04 char(24), s_dist_05 char(24), s_dist_06 char(24), s_dist_07 char(24), s_dist_08 char(24),
 s_dist_09 char(24), s_dist_10 char(24), s_ytd int, s_order_cnt int, s_remote_cnt int, s_data varchar(50))`,
	`CREATE TABLE item (i_id int NOT NULL, i_im_id int, i_name varchar(24), i_price numeric(5,2), i_data varchar(50))`,
	`CREATE TABLE rightsize_meta (id int PRIMARY KEY, meta text NOT NULL)`,
}

// CreateSchema implements engine.DB.
func (db *DB) CreateSchema(ctx context.Context) error {
	tx, err := db.pool.Begin(ctx)
	if err != nil {
		return fmt.Errorf("create schema: %w", err)
	}
	defer tx.Rollback(ctx)
	for _, t := range append(append([]tpcc.Table{}, tpcc.Tables...), "rightsize_meta") {
		if _, err := tx.Exec(ctx, "DROP TABLE IF EXISTS "+string(t)+" CASCADE"); err != nil {
			return fmt.Errorf("drop table %s: %w", t, err)
		}
	}
	for _, s := range ddl {
		if _, err := tx.Exec(ctx, s); err != nil {
			return fmt.Errorf("create schema: %w", err)
		}
	}
	return tx.Commit(ctx)
}

// DropSchema removes every rightsize table and procedure.
func (db *DB) DropSchema(ctx context.Context) error {
	for _, t := range append(append([]tpcc.Table{}, tpcc.Tables...), "rightsize_meta") {
		if _, err := db.pool.Exec(ctx, "DROP TABLE IF EXISTS "+string(t)+" CASCADE"); err != nil {
			return fmt.Errorf("drop table %s: %w", t, err)
		}
	}
	return nil
}

var indexes = []struct{ name, sql string }{
	{"order_line primary key", `ALTER TABLE order_line ADD PRIMARY KEY (ol_w_id, ol_d_id, ol_o_id, ol_number)`},
	{"stock primary key", `ALTER TABLE stock ADD PRIMARY KEY (s_w_id, s_i_id)`},
	{"customer primary key", `ALTER TABLE customer ADD PRIMARY KEY (c_w_id, c_d_id, c_id)`},
	{"customer (w, d, last, first)", `CREATE INDEX customer_last ON customer (c_w_id, c_d_id, c_last, c_first)`},
	{"orders primary key", `ALTER TABLE orders ADD PRIMARY KEY (o_w_id, o_d_id, o_id)`},
	{"orders (w, d, c, id)", `CREATE UNIQUE INDEX orders_customer ON orders (o_w_id, o_d_id, o_c_id, o_id)`},
	{"new_order primary key", `ALTER TABLE new_order ADD PRIMARY KEY (no_w_id, no_d_id, no_o_id)`},
	{"item primary key", `ALTER TABLE item ADD PRIMARY KEY (i_id)`},
	{"district primary key", `ALTER TABLE district ADD PRIMARY KEY (d_w_id, d_id)`},
	{"warehouse primary key", `ALTER TABLE warehouse ADD PRIMARY KEY (w_id)`},
}

// IndexSteps implements engine.DB. The largest indexes come first so
// parallel builders finish together.
func (db *DB) IndexSteps() []engine.Step {
	steps := make([]engine.Step, len(indexes))
	for i, ix := range indexes {
		steps[i] = engine.Step{Name: ix.name, Run: func(ctx context.Context) error {
			conn, err := db.pool.Acquire(ctx)
			if err != nil {
				return err
			}
			defer conn.Release()
			if _, err := conn.Exec(ctx, "SET maintenance_work_mem = '256MB'"); err != nil {
				return err
			}
			if _, err := conn.Exec(ctx, ix.sql); err != nil {
				return fmt.Errorf("%s: %w", ix.name, err)
			}
			return nil
		}}
	}
	return steps
}

// Checkpoint implements loader.Checkpointer: a CHECKPOINT after the load
// frees the load's WAL before the index builds write theirs. A role that
// may not checkpoint (neither superuser nor pg_checkpoint) builds without.
func (db *DB) Checkpoint(ctx context.Context) error {
	_, err := db.pool.Exec(ctx, "CHECKPOINT")
	if err != nil && !isCode(err, "42501") { // insufficient_privilege
		return fmt.Errorf("checkpoint the load: %w", err)
	}
	return nil
}

// Analyze implements engine.DB: the tables are analyzed in parallel, as
// many at once as the pool has connections.
func (db *DB) Analyze(ctx context.Context) error {
	tables := append([]tpcc.Table{}, tpcc.Tables...)
	errs := make(chan error, len(tables))
	sem := make(chan struct{}, max(1, int(db.poolSize)-1))
	for _, t := range tables {
		go func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			if _, err := db.pool.Exec(ctx, "ANALYZE "+string(t)); err != nil {
				errs <- fmt.Errorf("analyze %s: %w", t, err)
				return
			}
			errs <- nil
		}()
	}
	var first error
	for range tables {
		if err := <-errs; err != nil && first == nil {
			first = err
		}
	}
	return first
}

// Load implements engine.DB with COPY (binary) on one pooled connection:
// the typed rows are encoded straight into the COPY stream (copyReader).
func (db *DB) Load(ctx context.Context, t tpcc.Table, rows tpcc.RowSource) (int64, error) {
	conn, err := db.pool.Acquire(ctx)
	if err != nil {
		return 0, fmt.Errorf("load %s: %w", t, err)
	}
	defer conn.Release()
	// Losing the last loaded rows on a crash is harmless: the build is
	// only marked complete after everything is durable.
	if _, err := conn.Exec(ctx, "SET synchronous_commit = off"); err != nil {
		return 0, fmt.Errorf("load %s: %w", t, err)
	}
	tag, err := conn.Conn().PgConn().CopyFrom(ctx, newCopyReader(rows), copySQL(string(t), tpcc.Columns[t]))
	if err != nil {
		return tag.RowsAffected(), fmt.Errorf("copy into %s: %w", t, err)
	}
	return tag.RowsAffected(), nil
}

var _ engine.DB = (*DB)(nil)
