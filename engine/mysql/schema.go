package mysql

import (
	"context"
	"fmt"
	"strings"

	"github.com/rightsize/rightsize/engine"
	"github.com/rightsize/rightsize/tpcc"
)

// ddl creates the nine tables with their primary keys: InnoDB stores rows in
// primary-key order (the clustered index), so the key must exist before the
// rows arrive; the generators emit rows in key order, which makes loading
// an append. HISTORY has no key (InnoDB adds a hidden row id), as in the
// specification. The columns and types are the PostgreSQL engine's.
var ddl = []string{
	`CREATE TABLE warehouse (w_id int NOT NULL, w_name varchar(10), w_street_1 varchar(20), w_street_2 varchar(20),
 w_city varchar(20), w_state char(2), w_zip char(9), w_tax decimal(4,4), w_ytd decimal(12,2),
 PRIMARY KEY (w_id)) ENGINE=InnoDB`,
	`CREATE TABLE district (d_id int NOT NULL, d_w_id int NOT NULL, d_name varchar(10), d_street_1 varchar(20), d_street_2 varchar(20),
 d_city varchar(20), d_state char(2), d_zip char(9), d_tax decimal(4,4), d_ytd decimal(12,2), d_next_o_id int,
 PRIMARY KEY (d_w_id, d_id)) ENGINE=InnoDB`,
	`CREATE TABLE customer (c_id int NOT NULL, c_d_id int NOT NULL, c_w_id int NOT NULL, c_first varchar(16), c_middle char(2),
 c_last varchar(16), c_street_1 varchar(20), c_street_2 varchar(20), c_city varchar(20), c_state char(2), c_zip char(9),
 c_phone char(16), c_since datetime, c_credit char(2), c_credit_lim decimal(12,2), c_discount decimal(4,4),
 c_balance decimal(12,2), c_ytd_payment decimal(12,2), c_payment_cnt int, c_delivery_cnt int, c_data varchar(500),
 PRIMARY KEY (c_w_id, c_d_id, c_id)) ENGINE=InnoDB`,
	`CREATE TABLE history (h_c_id int, h_c_d_id int, h_c_w_id int, h_d_id int, h_w_id int, h_date datetime,
 h_amount decimal(6,2), h_data varchar(24)) ENGINE=InnoDB`,
	`CREATE TABLE orders (o_id int NOT NULL, o_d_id int NOT NULL, o_w_id int NOT NULL, o_c_id int, o_entry_d datetime,
 o_carrier_id int, o_ol_cnt int, o_all_local int,
 PRIMARY KEY (o_w_id, o_d_id, o_id)) ENGINE=InnoDB`,
	`CREATE TABLE new_order (no_o_id int NOT NULL, no_d_id int NOT NULL, no_w_id int NOT NULL,
 PRIMARY KEY (no_w_id, no_d_id, no_o_id)) ENGINE=InnoDB`,
	`CREATE TABLE order_line (ol_o_id int NOT NULL, ol_d_id int NOT NULL, ol_w_id int NOT NULL, ol_number int NOT NULL,
 ol_i_id int, ol_supply_w_id int, ol_delivery_d datetime, ol_quantity int, ol_amount decimal(6,2), ol_dist_info char(24),
 PRIMARY KEY (ol_w_id, ol_d_id, ol_o_id, ol_number)) ENGINE=InnoDB`,
	`CREATE TABLE stock (s_i_id int NOT NULL, s_w_id int NOT NULL, s_quantity int, s_dist_01 char(24), s_dist_02 char(24),
 s_dist_03 char(24), s_dist_04 char(24), s_dist_05 char(24), s_dist_06 char(24), s_dist_07 char(24), s_dist_08 char(24),
 s_dist_09 char(24), s_dist_10 char(24), s_ytd int, s_order_cnt int, s_remote_cnt int, s_data varchar(50),
 PRIMARY KEY (s_w_id, s_i_id)) ENGINE=InnoDB`,
	`CREATE TABLE item (i_id int NOT NULL, i_im_id int, i_name varchar(24), i_price decimal(5,2), i_data varchar(50),
 PRIMARY KEY (i_id)) ENGINE=InnoDB`,
	`CREATE TABLE rightsize_meta (id int NOT NULL PRIMARY KEY, meta text NOT NULL) ENGINE=InnoDB`,
}

// CreateSchema implements engine.DB: it drops the rightsize tables and
// procedures and creates the tables (DDL commits implicitly in MySQL, so
// this is not atomic; an interrupted build leaves Complete=false metadata).
func (db *DB) CreateSchema(ctx context.Context) error {
	if err := db.DropSchema(ctx); err != nil {
		return err
	}
	for _, s := range ddl {
		if _, err := db.pool.ExecContext(ctx, s); err != nil {
			return fmt.Errorf("create schema: %w", err)
		}
	}
	return nil
}

// DropSchema removes every rightsize table and procedure.
func (db *DB) DropSchema(ctx context.Context) error {
	if _, err := db.pool.ExecContext(ctx, "DROP TABLE IF EXISTS "+strings.Join(engine.SchemaTables(), ", ")); err != nil {
		return fmt.Errorf("drop tables: %w", err)
	}
	for _, p := range procedureNames {
		if _, err := db.pool.ExecContext(ctx, "DROP PROCEDURE IF EXISTS "+p); err != nil {
			return fmt.Errorf("drop procedure %s: %w", p, err)
		}
	}
	return nil
}

// indexes are the two secondary indexes (the primary keys come with the
// tables). InnoDB appends the primary key to every secondary index entry,
// so customer_last also serves ORDER BY c_first, c_id.
var indexes = []struct{ name, sql string }{
	{"customer (w, d, last, first)", `ALTER TABLE customer ADD INDEX customer_last (c_w_id, c_d_id, c_last, c_first)`},
	{"orders (w, d, c, id)", `ALTER TABLE orders ADD UNIQUE INDEX orders_customer (o_w_id, o_d_id, o_c_id, o_id)`},
}

// IndexSteps implements engine.DB.
func (db *DB) IndexSteps() []engine.Step {
	steps := make([]engine.Step, len(indexes))
	for i, ix := range indexes {
		steps[i] = engine.Step{Name: ix.name, Run: func(ctx context.Context) error {
			if _, err := db.pool.ExecContext(ctx, ix.sql); err != nil {
				return fmt.Errorf("%s: %w", ix.name, err)
			}
			return nil
		}}
	}
	return steps
}

// Analyze implements engine.DB.
func (db *DB) Analyze(ctx context.Context) error {
	rows, err := db.pool.QueryContext(ctx, "ANALYZE TABLE "+strings.Join(engine.SchemaTables()[:len(tpcc.Tables)], ", "))
	if err != nil {
		return fmt.Errorf("analyze: %w", err)
	}
	defer rows.Close()
	for rows.Next() { // one status row per table
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("analyze: %w", err)
	}
	return nil
}
