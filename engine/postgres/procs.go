package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// invalidItemCode is the SQLSTATE rs_new_order raises for the unused item of
// the 1 % rolled-back New-Orders; the whole call is rolled back.
const invalidItemCode = "RS001"

// procVersion is the version of the procedures below, returned by
// rs_procedures_version(). A database whose procedures are older (built by
// an older rightsize; those before version 2 have no version function) gets
// them installed again before its first procedures-mode run: they hold no
// data, so the schema format (engine.SchemaFormat) does not change.
//
//	1: outputs as one text per screen (chr(31)/chr(30) separated)
//	2: outputs as typed columns and arrays, one row, no set-returning functions
//	3: New-Order's lines in one statement (rs_new_order_lines for an item drawn twice)
//	4: Order-Status and Stock-Level STABLE (one snapshot), rs_new_order_lines reads the items once
const procVersion = 4

// stockTaken is the SET list of New-Order's stock update (2.4.2.2) for a
// line of quantity qty supplied by warehouse supply (SQL expressions), the
// home warehouse being p_w: S_QUANTITY down by qty, or up by 91 - qty when
// fewer than qty + 10 are left, S_YTD, S_ORDER_CNT and S_REMOTE_CNT.
func stockTaken(qty, supply string) string {
	return `s_quantity = CASE WHEN s_quantity >= ` + qty + ` + 10 THEN s_quantity - ` + qty + ` ELSE s_quantity - ` + qty + ` + 91 END,
        s_ytd = s_ytd + ` + qty + `, s_order_cnt = s_order_cnt + 1,
        s_remote_cnt = s_remote_cnt + CASE WHEN ` + supply + ` <> p_w THEN 1 ELSE 0 END`
}

// districtInfo is the stock row's S_DIST_xx of district p_d, an order
// line's OL_DIST_INFO.
const districtInfo = `CASE p_d WHEN 1 THEN s_dist_01 WHEN 2 THEN s_dist_02 WHEN 3 THEN s_dist_03 WHEN 4 THEN s_dist_04
        WHEN 5 THEN s_dist_05 WHEN 6 THEN s_dist_06 WHEN 7 THEN s_dist_07 WHEN 8 THEN s_dist_08 WHEN 9 THEN s_dist_09
        ELSE s_dist_10 END`

// procedures are the five transactions in PL/pgSQL, one round trip each.
// They mirror the statements of stmt.go line for line. Each returns its
// output screen as typed OUT parameters (one row, not a set, so no
// tuplestore per call), the order lines as arrays: the driver reads them in
// binary and decodes them in place (proc.go). Decimal outputs travel as
// float8, the nearest double of the numeric, as the statements read them.
var procedures = []string{
	`DROP FUNCTION IF EXISTS rs_new_order(int, int, int, int, int[], int[], int[])`,
	`DROP FUNCTION IF EXISTS rs_new_order(int, int, int, int, int[], int[], int[], int[])`,
	`DROP FUNCTION IF EXISTS rs_payment(int, int, int, int, int, bool, varchar, numeric)`,
	`DROP FUNCTION IF EXISTS rs_order_status(int, int, int, bool, varchar)`,
	`DROP FUNCTION IF EXISTS rs_delivery(int, int)`,
	`DROP FUNCTION IF EXISTS rs_new_order_lines(int, int, int, int[], int[], int[], int[])`,

	// New-Order (2.4.2.2), output screen 2.4.3.3: the lines come sorted by
	// (supply warehouse, item) so concurrent orders lock stock rows in one
	// order; p_numbers keeps each line's OL_NUMBER as drawn. out_brands
	// holds one letter per line, B or G. The lines are processed by one
	// statement (item read, stock update, order line insert for all of
	// them, in the sorted order), not three per line: a third less server
	// CPU per call. An item drawn twice (adjacent once sorted) takes the
	// line-by-line loop instead, so the second line sees the first line's
	// stock update. An unused item raises RS001 after every valid item was
	// processed (2.4.2.3); the whole call is rolled back.
	`CREATE FUNCTION rs_new_order(p_w int, p_d int, p_c int, p_all_local int,
  p_items int[], p_supply int[], p_qty int[], p_numbers int[],
  OUT out_o_id int, OUT out_total float8, OUT out_c_last text, OUT out_c_credit text,
  OUT out_c_discount float8, OUT out_w_tax float8, OUT out_d_tax float8,
  OUT out_i_names text[], OUT out_s_quantities int[], OUT out_brands text,
  OUT out_i_prices float8[], OUT out_ol_amounts float8[]) LANGUAGE plpgsql AS $$
DECLARE
  v_w_tax numeric; v_d_tax numeric; v_disc numeric; v_sum numeric; v_found int;
  n int := cardinality(p_items); v_twice bool := false;
BEGIN
  SELECT w_tax INTO v_w_tax FROM warehouse WHERE w_id = p_w;
  UPDATE district SET d_next_o_id = d_next_o_id + 1 WHERE d_w_id = p_w AND d_id = p_d
    RETURNING d_tax, d_next_o_id - 1 INTO v_d_tax, out_o_id;
  SELECT c_discount, c_last, c_credit INTO v_disc, out_c_last, out_c_credit
    FROM customer WHERE c_w_id = p_w AND c_d_id = p_d AND c_id = p_c;
  INSERT INTO orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_carrier_id, o_ol_cnt, o_all_local)
    VALUES (out_o_id, p_d, p_w, p_c, localtimestamp, NULL, n, p_all_local);
  INSERT INTO new_order (no_o_id, no_d_id, no_w_id) VALUES (out_o_id, p_d, p_w);
  FOR i IN 2..n LOOP
    v_twice := v_twice OR (p_items[i] = p_items[i-1] AND p_supply[i] = p_supply[i-1]);
  END LOOP;
  IF v_twice THEN
    SELECT * INTO v_found, v_sum, out_i_names, out_s_quantities, out_brands, out_i_prices, out_ol_amounts
      FROM rs_new_order_lines(p_w, p_d, out_o_id, p_items, p_supply, p_qty, p_numbers);
  ELSE
    WITH l AS (
      SELECT u.ord, u.num, u.item, u.supply, u.qty, i.i_price, i.i_name, i.i_data
      FROM unnest(p_numbers, p_items, p_supply, p_qty) WITH ORDINALITY AS u(num, item, supply, qty, ord)
      JOIN item i ON i.i_id = u.item
    ), s AS (
      UPDATE stock SET ` + stockTaken("l.qty", "l.supply") + `
        FROM l WHERE s_i_id = l.item AND s_w_id = l.supply
        RETURNING l.ord, l.num, l.item, l.supply, l.qty, l.i_price, l.i_name, l.qty * l.i_price AS amount, s_quantity,
          strpos(l.i_data, 'ORIGINAL') > 0 AND strpos(s_data, 'ORIGINAL') > 0 AS brand,
          ` + districtInfo + ` AS dist
    ), o AS (
      INSERT INTO order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id, ol_delivery_d, ol_quantity, ol_amount, ol_dist_info)
        SELECT out_o_id, p_d, p_w, num, item, supply, NULL, qty, amount, dist FROM s
    )
    SELECT count(*), sum(amount), array_agg(i_name), array_agg(s_quantity),
        string_agg(CASE WHEN brand THEN 'B' ELSE 'G' END, ''), array_agg(i_price), array_agg(amount)
      INTO v_found, v_sum, out_i_names, out_s_quantities, out_brands, out_i_prices, out_ol_amounts
      FROM (SELECT * FROM s ORDER BY ord) x;
  END IF;
  IF v_found < n THEN
    RAISE EXCEPTION 'item % not found (simulated user error)',
      (SELECT u.item FROM unnest(p_items) AS u(item) WHERE NOT EXISTS (SELECT 1 FROM item WHERE i_id = u.item) LIMIT 1)
      USING ERRCODE = 'RS001';
  END IF;
  out_total := round(v_sum * (1 - v_disc) * (1 + v_w_tax + v_d_tax), 2);
  out_c_discount := v_disc; out_w_tax := v_w_tax; out_d_tax := v_d_tax;
END $$`,

	// New-Order's lines one by one, for an order that has an item twice:
	// each line's stock update sees the one before it. The items are read
	// once, in one statement, before the first line, so both lines of an
	// item see one I_PRICE even at read committed (Isolation Test 7). Every
	// valid line is processed; l_found counts them (fewer than the lines:
	// an unused item).
	`CREATE FUNCTION rs_new_order_lines(p_w int, p_d int, p_o int,
  p_items int[], p_supply int[], p_qty int[], p_numbers int[],
  OUT l_found int, OUT l_total numeric, OUT l_names text[], OUT l_quantities int[], OUT l_brands text,
  OUT l_prices float8[], OUT l_amounts float8[]) LANGUAGE plpgsql AS $$
DECLARE
  v_prices numeric[]; v_inames text[]; v_idata text[]; v_sdata varchar; v_dist char(24); v_squant int;
  v_amount numeric; k int := 0;
BEGIN
  SELECT array_agg(i_price ORDER BY u.ord), array_agg(i_name ORDER BY u.ord), array_agg(i_data ORDER BY u.ord)
    INTO v_prices, v_inames, v_idata
    FROM unnest(p_items) WITH ORDINALITY AS u(item, ord) LEFT JOIN item ON i_id = u.item;
  l_total := 0; l_names := '{}'; l_quantities := '{}'; l_brands := ''; l_prices := '{}'; l_amounts := '{}';
  FOR i IN 1..cardinality(p_items) LOOP
    CONTINUE WHEN v_prices[i] IS NULL;
    UPDATE stock SET ` + stockTaken("p_qty[i]", "p_supply[i]") + `
      WHERE s_i_id = p_items[i] AND s_w_id = p_supply[i]
      RETURNING s_quantity, s_data, ` + districtInfo + ` INTO v_squant, v_sdata, v_dist;
    v_amount := p_qty[i] * v_prices[i];
    l_total := l_total + v_amount;
    INSERT INTO order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id, ol_delivery_d, ol_quantity, ol_amount, ol_dist_info)
      VALUES (p_o, p_d, p_w, p_numbers[i], p_items[i], p_supply[i], NULL, p_qty[i], v_amount, v_dist);
    k := k + 1;
    l_names[k] := v_inames[i];
    l_quantities[k] := v_squant;
    l_brands := l_brands ||
      CASE WHEN strpos(v_idata[i], 'ORIGINAL') > 0 AND strpos(v_sdata, 'ORIGINAL') > 0 THEN 'B' ELSE 'G' END;
    l_prices[k] := v_prices[i];
    l_amounts[k] := v_amount;
  END LOOP;
  l_found := k;
END $$`,

	// Payment (2.5.2.2), output screen 2.5.3.3: the warehouse's, the
	// district's and the customer's address (street 1, street 2, city,
	// state, zip: arrays keep the row within the 16 columns pgconn
	// describes without allocating), the customer, and the first 200
	// characters of C_DATA when BC.
	`CREATE FUNCTION rs_payment(p_w int, p_d int, p_cw int, p_cd int, p_c int, p_by_name bool,
  p_last varchar, p_amount numeric,
  OUT out_c_id int, OUT out_balance float8, OUT out_w_address text[], OUT out_d_address text[],
  OUT out_c_first text, OUT out_c_middle text, OUT out_c_last text, OUT out_c_address text[],
  OUT out_c_phone text, OUT out_c_credit text, OUT out_c_credit_lim float8, OUT out_c_discount float8,
  OUT out_c_data text) LANGUAGE plpgsql AS $$
DECLARE v_wname varchar; v_dname varchar; v_data varchar;
BEGIN
  out_c_id := p_c;
  UPDATE warehouse SET w_ytd = w_ytd + p_amount WHERE w_id = p_w
    RETURNING w_name, ARRAY[w_street_1, w_street_2, w_city, w_state, w_zip] INTO v_wname, out_w_address;
  UPDATE district SET d_ytd = d_ytd + p_amount WHERE d_w_id = p_w AND d_id = p_d
    RETURNING d_name, ARRAY[d_street_1, d_street_2, d_city, d_state, d_zip] INTO v_dname, out_d_address;
  IF p_by_name THEN
    SELECT (array_agg(c_id ORDER BY c_first, c_id))[((count(*) + 1) / 2)::int] INTO out_c_id
      FROM customer WHERE c_w_id = p_cw AND c_d_id = p_cd AND c_last = p_last;
    IF out_c_id IS NULL THEN
      RAISE EXCEPTION 'no customer named % in district %/%', p_last, p_cw, p_cd USING ERRCODE = 'RS002';
    END IF;
  END IF;
  UPDATE customer SET c_balance = c_balance - p_amount, c_ytd_payment = c_ytd_payment + p_amount,
      c_payment_cnt = c_payment_cnt + 1,
      c_data = CASE WHEN c_credit = 'BC'
        THEN left(c_id || ' ' || c_d_id || ' ' || c_w_id || ' ' || p_d || ' ' || p_w || ' ' || p_amount || ' | ' || c_data, 500)
        ELSE c_data END
    WHERE c_w_id = p_cw AND c_d_id = p_cd AND c_id = out_c_id
    RETURNING c_balance, c_first, c_middle, c_last, ARRAY[c_street_1, c_street_2, c_city, c_state, c_zip],
      c_phone, c_credit, c_credit_lim, c_discount, c_data
    INTO out_balance, out_c_first, out_c_middle, out_c_last, out_c_address,
      out_c_phone, out_c_credit, out_c_credit_lim, out_c_discount, v_data;
  INSERT INTO history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, h_data)
    VALUES (out_c_id, p_cd, p_cw, p_d, p_w, localtimestamp, p_amount, v_wname || '    ' || v_dname);
  out_c_data := CASE WHEN out_c_credit = 'BC' THEN left(v_data, 200) ELSE '' END;
END $$`,

	// Order-Status (2.6.2.2) reads every column of every line; output
	// screen 2.6.3.3, each line's OL_DELIVERY_D as whether it is set. The
	// aggregates read the lines in the sorted subquery's order, one sort
	// (or an index scan) for all five: an ORDER BY in each aggregate
	// sorted five times, 26 % more server time per call. STABLE: every
	// read of it comes from one snapshot, the calling statement's, at any
	// isolation level (a VOLATILE function takes one per statement at read
	// committed), so the customer, the order and its lines are as one
	// moment left them (clause 3.4).
	`CREATE FUNCTION rs_order_status(p_w int, p_d int, p_c int, p_by_name bool, p_last varchar,
  OUT out_c_id int, OUT out_balance float8, OUT out_o_id int, OUT out_carrier int,
  OUT out_c_first text, OUT out_c_middle text, OUT out_c_last text,
  OUT out_ol_i_ids int[], OUT out_ol_supply_w_ids int[], OUT out_ol_quantities int[],
  OUT out_ol_amounts float8[], OUT out_ol_delivered bool[]) STABLE LANGUAGE plpgsql AS $$
DECLARE v_entry timestamp; v_carrier int;
BEGIN
  out_c_id := p_c;
  IF p_by_name THEN
    SELECT (array_agg(c_id ORDER BY c_first, c_id))[((count(*) + 1) / 2)::int] INTO out_c_id
      FROM customer WHERE c_w_id = p_w AND c_d_id = p_d AND c_last = p_last;
    IF out_c_id IS NULL THEN
      RAISE EXCEPTION 'no customer named % in district %/%', p_last, p_w, p_d USING ERRCODE = 'RS002';
    END IF;
  END IF;
  SELECT c_balance, c_first, c_middle, c_last INTO out_balance, out_c_first, out_c_middle, out_c_last
    FROM customer WHERE c_w_id = p_w AND c_d_id = p_d AND c_id = out_c_id;
  SELECT o_id, o_entry_d, o_carrier_id INTO out_o_id, v_entry, v_carrier
    FROM orders WHERE o_w_id = p_w AND o_d_id = p_d AND o_c_id = out_c_id ORDER BY o_id DESC LIMIT 1;
  SELECT coalesce(array_agg(ol_i_id), '{}'), coalesce(array_agg(ol_supply_w_id), '{}'),
      coalesce(array_agg(ol_quantity), '{}'), coalesce(array_agg(ol_amount), '{}'),
      coalesce(array_agg(ol_delivery_d IS NOT NULL), '{}')
    INTO out_ol_i_ids, out_ol_supply_w_ids, out_ol_quantities, out_ol_amounts, out_ol_delivered
    FROM (SELECT ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_delivery_d FROM order_line
      WHERE ol_w_id = p_w AND ol_d_id = p_d AND ol_o_id = out_o_id ORDER BY ol_number) l;
  out_carrier := coalesce(v_carrier, 0);
END $$`,

	// Delivery (2.7.4.2) locks the oldest NEW-ORDER row of each district
	// before deleting it. At read committed (procedures mode's level, see
	// isolationLevel) a row a concurrent Delivery deleted is passed over for
	// the next one; at repeatable read the conflict raises a serialization
	// failure, which the driver retries. A district is skipped only when it
	// has no undelivered order.
	`CREATE FUNCTION rs_delivery(p_w int, p_carrier int, OUT out_delivered int, OUT out_skipped int) LANGUAGE plpgsql AS $$
DECLARE v_o int; v_c int; v_sum numeric;
BEGIN
  out_delivered := 0; out_skipped := 0;
  FOR d IN 1..10 LOOP
    SELECT no_o_id INTO v_o FROM new_order WHERE no_w_id = p_w AND no_d_id = d ORDER BY no_o_id LIMIT 1 FOR UPDATE;
    IF NOT FOUND THEN
      out_skipped := out_skipped + 1;
      CONTINUE;
    END IF;
    DELETE FROM new_order WHERE no_w_id = p_w AND no_d_id = d AND no_o_id = v_o;
    UPDATE orders SET o_carrier_id = p_carrier WHERE o_w_id = p_w AND o_d_id = d AND o_id = v_o RETURNING o_c_id INTO v_c;
    WITH l AS (UPDATE order_line SET ol_delivery_d = localtimestamp
      WHERE ol_w_id = p_w AND ol_d_id = d AND ol_o_id = v_o RETURNING ol_amount)
    SELECT sum(ol_amount) INTO v_sum FROM l;
    UPDATE customer SET c_balance = c_balance + v_sum, c_delivery_cnt = c_delivery_cnt + 1
      WHERE c_w_id = p_w AND c_d_id = d AND c_id = v_c;
    out_delivered := out_delivered + 1;
  END LOOP;
END $$`,

	// Stock-Level (2.8.2.2); level 1 would do (2.8.2.3), STABLE reads from
	// one snapshot anyway.
	`CREATE OR REPLACE FUNCTION rs_stock_level(p_w int, p_d int, p_threshold int)
RETURNS int STABLE LANGUAGE plpgsql AS $$
DECLARE v_next int; v_cnt int;
BEGIN
  SELECT d_next_o_id INTO v_next FROM district WHERE d_w_id = p_w AND d_id = p_d;
  SELECT count(DISTINCT s_i_id) INTO v_cnt FROM order_line JOIN stock ON s_i_id = ol_i_id AND s_w_id = ol_w_id
    WHERE ol_w_id = p_w AND ol_d_id = p_d AND ol_o_id >= v_next - 20 AND ol_o_id < v_next AND s_quantity < p_threshold;
  RETURN v_cnt;
END $$`,

	// Last, so that it names the version only once all of it is there.
	fmt.Sprintf(`CREATE OR REPLACE FUNCTION rs_procedures_version() RETURNS int LANGUAGE sql IMMUTABLE AS 'SELECT %d'`, procVersion),
}

// procsLockKey is the advisory lock that serialises installing the
// procedures (several worker processes may find them old at once).
const procsLockKey = 0x72735f70726f6373 // "rs_procs"

// InstallProcedures implements engine.DB: it (re)creates every procedure in
// one transaction.
func (db *DB) InstallProcedures(ctx context.Context) error {
	return db.installProcedures(ctx, false)
}

// installProcedures creates the procedures in one transaction under
// procsLockKey; with onlyIfOlder it does nothing when the database's are
// already procVersion (another process may have just installed them).
func (db *DB) installProcedures(ctx context.Context, onlyIfOlder bool) error {
	tx, err := db.pool.Begin(ctx)
	if err != nil {
		return fmt.Errorf("install procedures: %w", err)
	}
	defer func() { _ = tx.Rollback(ctx) }()
	if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", int64(procsLockKey)); err != nil {
		return fmt.Errorf("install procedures: lock: %w", err)
	}
	if onlyIfOlder {
		v, err := proceduresVersion(ctx, tx)
		if err != nil || v >= procVersion {
			return err
		}
	}
	for _, p := range procedures {
		if _, err := tx.Exec(ctx, p); err != nil {
			return fmt.Errorf("install procedures: %w", err)
		}
	}
	if err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("install procedures: commit: %w", err)
	}
	return nil
}

// querier is what proceduresVersion needs of a pool, connection or
// transaction.
type querier interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// proceduresVersion is the version of the procedures installed in the
// database: 0 when there are none, 1 for those before rs_procedures_version.
func proceduresVersion(ctx context.Context, q querier) (int, error) {
	var hasVersion, hasProcs bool
	err := q.QueryRow(ctx, `SELECT to_regprocedure('rs_procedures_version()') IS NOT NULL,
  to_regproc('rs_new_order') IS NOT NULL`).Scan(&hasVersion, &hasProcs)
	switch {
	case err != nil:
		return 0, fmt.Errorf("read the procedures' version: %w", err)
	case !hasProcs:
		return 0, nil
	case !hasVersion:
		return 1, nil
	}
	var v int
	if err := q.QueryRow(ctx, "SELECT rs_procedures_version()").Scan(&v); err != nil {
		return 0, fmt.Errorf("read the procedures' version: %w", err)
	}
	return v, nil
}

// ensureProcedures installs the procedures again, once per DB, when the
// database's are older than procVersion (built by an older rightsize), and
// refuses those of a newer rightsize, whose outputs this one cannot read.
func (db *DB) ensureProcedures(ctx context.Context) error {
	db.procsMu.Lock()
	defer db.procsMu.Unlock()
	if db.procsReady {
		return nil
	}
	v, err := proceduresVersion(ctx, db.pool)
	if err != nil {
		return err
	}
	switch {
	case v > procVersion:
		return fmt.Errorf("the procedures in database %s are version %d, from a newer rightsize (this one reads version %d): run this with the newer rightsize, or build again", db.dbname, v, procVersion)
	case v < procVersion:
		if err := db.installProcedures(ctx, true); err != nil {
			return fmt.Errorf("replace the procedures (version %d) of an older rightsize: %w", v, err)
		}
	}
	db.procsReady = true
	return nil
}
