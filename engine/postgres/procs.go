package postgres

import (
	"context"
	"fmt"
)

// invalidItemCode is the SQLSTATE rs_new_order raises for the unused item of
// the 1 % rolled-back New-Orders; the whole call is rolled back.
const invalidItemCode = "RS001"

// procedures are the five transactions in PL/pgSQL, one round trip each.
// They mirror the statements of stmt.go line for line.
var procedures = []string{
	`DROP FUNCTION IF EXISTS rs_new_order(int, int, int, int, int[], int[], int[])`,
	`DROP FUNCTION IF EXISTS rs_new_order(int, int, int, int, int[], int[], int[], int[])`,
	`DROP FUNCTION IF EXISTS rs_payment(int, int, int, int, int, bool, varchar, numeric)`,
	`DROP FUNCTION IF EXISTS rs_order_status(int, int, int, bool, varchar)`,
	`DROP FUNCTION IF EXISTS rs_delivery(int, int)`,

	// The lines come sorted by (supply warehouse, item) so concurrent orders
	// lock stock rows in one order; p_numbers keeps each line's OL_NUMBER as
	// drawn. An unused item raises RS001 after every valid item before it
	// was processed (2.4.2.3); the whole call is rolled back.
	`CREATE FUNCTION rs_new_order(p_w int, p_d int, p_c int, p_all_local int,
  p_items int[], p_supply int[], p_qty int[], p_numbers int[])
RETURNS TABLE (out_o_id int, out_total float8, out_screen text) LANGUAGE plpgsql AS $$
DECLARE
  v_w_tax numeric; v_d_tax numeric; v_o_id int; v_disc numeric; v_last varchar; v_credit char(2);
  v_price numeric; v_name varchar; v_idata varchar; v_sdata varchar; v_dist char(24); v_squant int;
  v_amount numeric; v_sum numeric := 0; n int := cardinality(p_items); v_lines text := '';
BEGIN
  SELECT w_tax INTO v_w_tax FROM warehouse WHERE w_id = p_w;
  UPDATE district SET d_next_o_id = d_next_o_id + 1 WHERE d_w_id = p_w AND d_id = p_d
    RETURNING d_tax, d_next_o_id - 1 INTO v_d_tax, v_o_id;
  SELECT c_discount, c_last, c_credit INTO v_disc, v_last, v_credit
    FROM customer WHERE c_w_id = p_w AND c_d_id = p_d AND c_id = p_c;
  INSERT INTO orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_carrier_id, o_ol_cnt, o_all_local)
    VALUES (v_o_id, p_d, p_w, p_c, localtimestamp, NULL, n, p_all_local);
  INSERT INTO new_order (no_o_id, no_d_id, no_w_id) VALUES (v_o_id, p_d, p_w);
  FOR i IN 1..n LOOP
    SELECT i_price, i_name, i_data INTO v_price, v_name, v_idata FROM item WHERE i_id = p_items[i];
    IF NOT FOUND THEN
      RAISE EXCEPTION 'item % not found (simulated user error)', p_items[i] USING ERRCODE = 'RS001';
    END IF;
    UPDATE stock SET
        s_quantity = CASE WHEN s_quantity >= p_qty[i] + 10 THEN s_quantity - p_qty[i] ELSE s_quantity - p_qty[i] + 91 END,
        s_ytd = s_ytd + p_qty[i], s_order_cnt = s_order_cnt + 1,
        s_remote_cnt = s_remote_cnt + CASE WHEN p_supply[i] <> p_w THEN 1 ELSE 0 END
      WHERE s_i_id = p_items[i] AND s_w_id = p_supply[i]
      RETURNING s_quantity, s_data, CASE p_d WHEN 1 THEN s_dist_01 WHEN 2 THEN s_dist_02 WHEN 3 THEN s_dist_03 WHEN 4 THEN s_dist_04
        WHEN 5 THEN s_dist_05 WHEN 6 THEN s_dist_06 WHEN 7 THEN s_dist_07 WHEN 8 THEN s_dist_08 WHEN 9 THEN s_dist_09
        ELSE s_dist_10 END INTO v_squant, v_sdata, v_dist;
    v_amount := p_qty[i] * v_price;
    v_sum := v_sum + v_amount;
    INSERT INTO order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id, ol_delivery_d, ol_quantity, ol_amount, ol_dist_info)
      VALUES (v_o_id, p_d, p_w, p_numbers[i], p_items[i], p_supply[i], NULL, p_qty[i], v_amount, v_dist);
    v_lines := v_lines || chr(30) || concat_ws(chr(31), v_name, v_squant,
      CASE WHEN strpos(v_idata, 'ORIGINAL') > 0 AND strpos(v_sdata, 'ORIGINAL') > 0 THEN 'B' ELSE 'G' END, v_price, v_amount);
  END LOOP;
  out_o_id := v_o_id;
  out_total := round(v_sum * (1 - v_disc) * (1 + v_w_tax + v_d_tax), 2);
  out_screen := concat_ws(chr(31), v_last, v_credit, v_disc, v_w_tax, v_d_tax) || v_lines;
  RETURN NEXT;
END $$`,

	`CREATE FUNCTION rs_payment(p_w int, p_d int, p_cw int, p_cd int, p_c int, p_by_name bool,
  p_last varchar, p_amount numeric)
RETURNS TABLE (out_c_id int, out_balance float8, out_screen text) LANGUAGE plpgsql AS $$
DECLARE v_w warehouse%ROWTYPE; v_d district%ROWTYPE; v_cu customer%ROWTYPE; v_c int := p_c;
BEGIN
  UPDATE warehouse SET w_ytd = w_ytd + p_amount WHERE w_id = p_w RETURNING * INTO v_w;
  UPDATE district SET d_ytd = d_ytd + p_amount WHERE d_w_id = p_w AND d_id = p_d RETURNING * INTO v_d;
  IF p_by_name THEN
    SELECT (array_agg(c_id ORDER BY c_first, c_id))[((count(*) + 1) / 2)::int] INTO v_c
      FROM customer WHERE c_w_id = p_cw AND c_d_id = p_cd AND c_last = p_last;
    IF v_c IS NULL THEN
      RAISE EXCEPTION 'no customer named % in district %/%', p_last, p_cw, p_cd USING ERRCODE = 'RS002';
    END IF;
  END IF;
  UPDATE customer SET c_balance = c_balance - p_amount, c_ytd_payment = c_ytd_payment + p_amount,
      c_payment_cnt = c_payment_cnt + 1,
      c_data = CASE WHEN c_credit = 'BC'
        THEN left(c_id || ' ' || c_d_id || ' ' || c_w_id || ' ' || p_d || ' ' || p_w || ' ' || p_amount || ' | ' || c_data, 500)
        ELSE c_data END
    WHERE c_w_id = p_cw AND c_d_id = p_cd AND c_id = v_c RETURNING * INTO v_cu;
  INSERT INTO history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, h_data)
    VALUES (v_c, p_cd, p_cw, p_d, p_w, localtimestamp, p_amount, v_w.w_name || '    ' || v_d.d_name);
  out_c_id := v_c; out_balance := v_cu.c_balance;
  out_screen := concat_ws(chr(31), v_w.w_street_1, v_w.w_street_2, v_w.w_city, v_w.w_state, v_w.w_zip,
    v_d.d_street_1, v_d.d_street_2, v_d.d_city, v_d.d_state, v_d.d_zip,
    v_cu.c_first, v_cu.c_middle, v_cu.c_last, v_cu.c_street_1, v_cu.c_street_2, v_cu.c_city, v_cu.c_state, v_cu.c_zip,
    v_cu.c_phone, v_cu.c_credit, v_cu.c_credit_lim, v_cu.c_discount,
    CASE WHEN v_cu.c_credit = 'BC' THEN left(v_cu.c_data, 200) ELSE '' END);
  RETURN NEXT;
END $$`,

	// Order-Status reads every column of every line (2.6.2.2).
	`CREATE FUNCTION rs_order_status(p_w int, p_d int, p_c int, p_by_name bool, p_last varchar)
RETURNS TABLE (out_c_id int, out_balance float8, out_o_id int, out_carrier int, out_screen text) LANGUAGE plpgsql AS $$
DECLARE v_c int := p_c; v_bal numeric; v_first varchar; v_middle char(2); v_last varchar;
  v_o int; v_entry timestamp; v_carrier int; v_lines text := ''; l record;
BEGIN
  IF p_by_name THEN
    SELECT (array_agg(c_id ORDER BY c_first, c_id))[((count(*) + 1) / 2)::int] INTO v_c
      FROM customer WHERE c_w_id = p_w AND c_d_id = p_d AND c_last = p_last;
    IF v_c IS NULL THEN
      RAISE EXCEPTION 'no customer named % in district %/%', p_last, p_w, p_d USING ERRCODE = 'RS002';
    END IF;
  END IF;
  SELECT c_balance, c_first, c_middle, c_last INTO v_bal, v_first, v_middle, v_last
    FROM customer WHERE c_w_id = p_w AND c_d_id = p_d AND c_id = v_c;
  SELECT o_id, o_entry_d, o_carrier_id INTO v_o, v_entry, v_carrier
    FROM orders WHERE o_w_id = p_w AND o_d_id = p_d AND o_c_id = v_c ORDER BY o_id DESC LIMIT 1;
  FOR l IN SELECT ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_delivery_d
      FROM order_line WHERE ol_w_id = p_w AND ol_d_id = p_d AND ol_o_id = v_o ORDER BY ol_number LOOP
    v_lines := v_lines || chr(30) || concat_ws(chr(31), l.ol_i_id, l.ol_supply_w_id, l.ol_quantity, l.ol_amount,
      COALESCE(l.ol_delivery_d::text, ''));
  END LOOP;
  out_c_id := v_c; out_balance := v_bal; out_o_id := v_o; out_carrier := COALESCE(v_carrier, 0);
  out_screen := concat_ws(chr(31), v_first, v_middle, v_last) || v_lines;
  RETURN NEXT;
END $$`,

	// Delivery locks the oldest NEW-ORDER row of each district before
	// deleting it. At read committed a row a concurrent Delivery deleted is
	// passed over for the next one; at repeatable read the conflict raises a
	// serialization failure, which the driver retries. A district is
	// skipped only when it has no undelivered order (2.7.4.2).
	`CREATE FUNCTION rs_delivery(p_w int, p_carrier int)
RETURNS TABLE (out_delivered int, out_skipped int) LANGUAGE plpgsql AS $$
DECLARE v_o int; v_c int; v_sum numeric; v_del int := 0; v_skip int := 0;
BEGIN
  FOR d IN 1..10 LOOP
    SELECT no_o_id INTO v_o FROM new_order WHERE no_w_id = p_w AND no_d_id = d ORDER BY no_o_id LIMIT 1 FOR UPDATE;
    IF NOT FOUND THEN
      v_skip := v_skip + 1;
      CONTINUE;
    END IF;
    DELETE FROM new_order WHERE no_w_id = p_w AND no_d_id = d AND no_o_id = v_o;
    UPDATE orders SET o_carrier_id = p_carrier WHERE o_w_id = p_w AND o_d_id = d AND o_id = v_o RETURNING o_c_id INTO v_c;
    WITH l AS (UPDATE order_line SET ol_delivery_d = localtimestamp
      WHERE ol_w_id = p_w AND ol_d_id = d AND ol_o_id = v_o RETURNING ol_amount)
    SELECT sum(ol_amount) INTO v_sum FROM l;
    UPDATE customer SET c_balance = c_balance + v_sum, c_delivery_cnt = c_delivery_cnt + 1
      WHERE c_w_id = p_w AND c_d_id = d AND c_id = v_c;
    v_del := v_del + 1;
  END LOOP;
  out_delivered := v_del; out_skipped := v_skip;
  RETURN NEXT;
END $$`,

	`CREATE OR REPLACE FUNCTION rs_stock_level(p_w int, p_d int, p_threshold int)
RETURNS int LANGUAGE plpgsql AS $$
DECLARE v_next int; v_cnt int;
BEGIN
  SELECT d_next_o_id INTO v_next FROM district WHERE d_w_id = p_w AND d_id = p_d;
  SELECT count(DISTINCT s_i_id) INTO v_cnt FROM order_line JOIN stock ON s_i_id = ol_i_id AND s_w_id = ol_w_id
    WHERE ol_w_id = p_w AND ol_d_id = p_d AND ol_o_id >= v_next - 20 AND ol_o_id < v_next AND s_quantity < p_threshold;
  RETURN v_cnt;
END $$`,
}

// InstallProcedures implements engine.DB.
func (db *DB) InstallProcedures(ctx context.Context) error {
	for _, p := range procedures {
		if _, err := db.pool.Exec(ctx, p); err != nil {
			return fmt.Errorf("install procedures: %w", err)
		}
	}
	return nil
}
