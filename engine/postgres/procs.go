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
	`CREATE OR REPLACE FUNCTION rs_new_order(p_w int, p_d int, p_c int, p_all_local int,
  p_items int[], p_supply int[], p_qty int[])
RETURNS TABLE (out_o_id int, out_total numeric) LANGUAGE plpgsql AS $$
DECLARE
  v_w_tax numeric; v_d_tax numeric; v_o_id int; v_disc numeric; v_last varchar; v_credit char(2);
  v_price numeric; v_name varchar; v_idata varchar; v_sdata varchar; v_dist char(24);
  v_amount numeric; v_sum numeric := 0; n int := cardinality(p_items);
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
      RETURNING s_data, CASE p_d WHEN 1 THEN s_dist_01 WHEN 2 THEN s_dist_02 WHEN 3 THEN s_dist_03 WHEN 4 THEN s_dist_04
        WHEN 5 THEN s_dist_05 WHEN 6 THEN s_dist_06 WHEN 7 THEN s_dist_07 WHEN 8 THEN s_dist_08 WHEN 9 THEN s_dist_09
        ELSE s_dist_10 END INTO v_sdata, v_dist;
    v_amount := p_qty[i] * v_price;
    v_sum := v_sum + v_amount;
    INSERT INTO order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id, ol_delivery_d, ol_quantity, ol_amount, ol_dist_info)
      VALUES (v_o_id, p_d, p_w, i, p_items[i], p_supply[i], NULL, p_qty[i], v_amount, v_dist);
  END LOOP;
  out_o_id := v_o_id;
  out_total := round(v_sum * (1 - v_disc) * (1 + v_w_tax + v_d_tax), 2);
  RETURN NEXT;
END $$`,

	`CREATE OR REPLACE FUNCTION rs_payment(p_w int, p_d int, p_cw int, p_cd int, p_c int, p_by_name bool,
  p_last varchar, p_amount numeric)
RETURNS TABLE (out_c_id int, out_balance numeric) LANGUAGE plpgsql AS $$
DECLARE v_wname varchar; v_dname varchar; v_c int := p_c; v_bal numeric;
BEGIN
  UPDATE warehouse SET w_ytd = w_ytd + p_amount WHERE w_id = p_w RETURNING w_name INTO v_wname;
  UPDATE district SET d_ytd = d_ytd + p_amount WHERE d_w_id = p_w AND d_id = p_d RETURNING d_name INTO v_dname;
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
    WHERE c_w_id = p_cw AND c_d_id = p_cd AND c_id = v_c RETURNING c_balance INTO v_bal;
  INSERT INTO history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, h_data)
    VALUES (v_c, p_cd, p_cw, p_d, p_w, localtimestamp, p_amount, v_wname || '    ' || v_dname);
  out_c_id := v_c; out_balance := v_bal;
  RETURN NEXT;
END $$`,

	`CREATE OR REPLACE FUNCTION rs_order_status(p_w int, p_d int, p_c int, p_by_name bool, p_last varchar)
RETURNS TABLE (out_c_id int, out_balance numeric, out_o_id int, out_lines int) LANGUAGE plpgsql AS $$
DECLARE v_c int := p_c; v_bal numeric; v_first varchar; v_middle char(2); v_last varchar;
  v_o int; v_entry timestamp; v_carrier int; v_lines int;
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
  SELECT count(*) INTO v_lines FROM (SELECT ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_delivery_d
    FROM order_line WHERE ol_w_id = p_w AND ol_d_id = p_d AND ol_o_id = v_o) l;
  out_c_id := v_c; out_balance := v_bal; out_o_id := v_o; out_lines := v_lines;
  RETURN NEXT;
END $$`,

	`CREATE OR REPLACE FUNCTION rs_delivery(p_w int, p_carrier int)
RETURNS TABLE (out_delivered int, out_skipped int) LANGUAGE plpgsql AS $$
DECLARE v_o int; v_c int; v_sum numeric; v_del int := 0; v_skip int := 0;
BEGIN
  FOR d IN 1..10 LOOP
    DELETE FROM new_order WHERE no_w_id = p_w AND no_d_id = d
      AND no_o_id = (SELECT min(no_o_id) FROM new_order WHERE no_w_id = p_w AND no_d_id = d)
      RETURNING no_o_id INTO v_o;
    IF v_o IS NULL THEN
      v_skip := v_skip + 1;
      CONTINUE;
    END IF;
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
