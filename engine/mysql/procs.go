package mysql

import (
	"context"
	"fmt"
)

// procedureNames are the stored procedures InstallProcedures creates.
var procedureNames = []string{"rs_new_order", "rs_payment", "rs_order_status", "rs_delivery", "rs_stock_level"}

// procedures are the five transactions in the MySQL/MariaDB dialect, one
// CALL (one round trip) each. Every procedure runs its own transaction
// (START TRANSACTION ... COMMIT) and, on any SQL error, rolls back and
// re-raises it (a deadlock 1213 reaches the client as 1213). Each returns
// one result row. stmt.go runs the same logic as client-side statements.
//
// New-Order takes its lines as comma-separated lists (item ids, supply
// warehouses, quantities), split with SUBSTRING_INDEX, which works on every
// MySQL and MariaDB version. An unused item id rolls the whole transaction
// back and returns a row with rolled_back = 1 (the simulated user error of
// clause 2.4.2.3 is not an SQL error).
var procedures = []string{
	`CREATE PROCEDURE rs_new_order(IN p_w INT, IN p_d INT, IN p_c INT, IN p_all_local INT, IN p_n INT,
  IN p_items VARCHAR(255), IN p_supply VARCHAR(255), IN p_qty VARCHAR(255), IN p_numbers VARCHAR(255))
MODIFIES SQL DATA
proc: BEGIN
  DECLARE v_w_tax, v_d_tax, v_disc DECIMAL(4,4);
  DECLARE v_o_id, v_i, v_item, v_supply, v_qty, v_number, v_squant INT;
  DECLARE v_lines VARCHAR(2000) DEFAULT '';
  DECLARE v_found INT DEFAULT 1;
  DECLARE v_last VARCHAR(16);
  DECLARE v_credit CHAR(2);
  DECLARE v_price DECIMAL(5,2);
  DECLARE v_name VARCHAR(24);
  DECLARE v_idata, v_sdata VARCHAR(50);
  DECLARE v_dist CHAR(24);
  DECLARE v_amount DECIMAL(6,2);
  DECLARE v_sum DECIMAL(12,2) DEFAULT 0;
  DECLARE CONTINUE HANDLER FOR NOT FOUND SET v_found = 0;
  DECLARE EXIT HANDLER FOR SQLEXCEPTION BEGIN ROLLBACK; RESIGNAL; END;
  START TRANSACTION;
  SELECT w_tax INTO v_w_tax FROM warehouse WHERE w_id = p_w;
  UPDATE district SET d_next_o_id = d_next_o_id + 1 WHERE d_w_id = p_w AND d_id = p_d;
  SELECT d_tax, d_next_o_id - 1 INTO v_d_tax, v_o_id FROM district WHERE d_w_id = p_w AND d_id = p_d;
  SELECT c_discount, c_last, c_credit INTO v_disc, v_last, v_credit
    FROM customer WHERE c_w_id = p_w AND c_d_id = p_d AND c_id = p_c;
  INSERT INTO orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_carrier_id, o_ol_cnt, o_all_local)
    VALUES (v_o_id, p_d, p_w, p_c, NOW(), NULL, p_n, p_all_local);
  INSERT INTO new_order (no_o_id, no_d_id, no_w_id) VALUES (v_o_id, p_d, p_w);
  SET v_i = 1;
  WHILE v_i <= p_n DO
    SET v_item = CAST(SUBSTRING_INDEX(SUBSTRING_INDEX(p_items, ',', v_i), ',', -1) AS SIGNED);
    SET v_supply = CAST(SUBSTRING_INDEX(SUBSTRING_INDEX(p_supply, ',', v_i), ',', -1) AS SIGNED);
    SET v_qty = CAST(SUBSTRING_INDEX(SUBSTRING_INDEX(p_qty, ',', v_i), ',', -1) AS SIGNED);
    SET v_number = CAST(SUBSTRING_INDEX(SUBSTRING_INDEX(p_numbers, ',', v_i), ',', -1) AS SIGNED);
    SET v_found = 1;
    SELECT i_price, i_name, i_data INTO v_price, v_name, v_idata FROM item WHERE i_id = v_item;
    IF v_found = 0 THEN
      -- the unused item is the last line: every valid item was processed
      ROLLBACK;
      SELECT 0 AS o_id, 0 AS total, 1 AS rolled_back, '' AS screen;
      LEAVE proc;
    END IF;
    UPDATE stock SET
        s_quantity = CASE WHEN s_quantity >= v_qty + 10 THEN s_quantity - v_qty ELSE s_quantity - v_qty + 91 END,
        s_ytd = s_ytd + v_qty, s_order_cnt = s_order_cnt + 1,
        s_remote_cnt = s_remote_cnt + CASE WHEN v_supply <> p_w THEN 1 ELSE 0 END
      WHERE s_i_id = v_item AND s_w_id = v_supply;
    SELECT s_quantity, s_data, ELT(p_d, s_dist_01, s_dist_02, s_dist_03, s_dist_04, s_dist_05, s_dist_06, s_dist_07, s_dist_08,
        s_dist_09, s_dist_10) INTO v_squant, v_sdata, v_dist FROM stock WHERE s_i_id = v_item AND s_w_id = v_supply;
    SET v_amount = v_qty * v_price;
    SET v_sum = v_sum + v_amount;
    INSERT INTO order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id, ol_delivery_d, ol_quantity,
        ol_amount, ol_dist_info)
      VALUES (v_o_id, p_d, p_w, v_number, v_item, v_supply, NULL, v_qty, v_amount, v_dist);
    SET v_lines = CONCAT(v_lines, CHAR(30 USING utf8mb4), CONCAT_WS(CHAR(31 USING utf8mb4), v_name, v_squant,
      IF(LOCATE('ORIGINAL', v_idata) > 0 AND LOCATE('ORIGINAL', v_sdata) > 0, 'B', 'G'), v_price, v_amount));
    SET v_i = v_i + 1;
  END WHILE;
  COMMIT;
  SELECT v_o_id AS o_id, v_sum * (1 - v_disc) * (1 + v_w_tax + v_d_tax) AS total, 0 AS rolled_back,
    CONCAT(CONCAT_WS(CHAR(31 USING utf8mb4), v_last, v_credit, v_disc, v_w_tax, v_d_tax), v_lines) AS screen;
END`,

	`CREATE PROCEDURE rs_payment(IN p_w INT, IN p_d INT, IN p_cw INT, IN p_cd INT, IN p_c INT, IN p_by_name INT,
  IN p_last VARCHAR(16), IN p_amount DECIMAL(6,2))
MODIFIES SQL DATA
BEGIN
  DECLARE v_wname, v_dname VARCHAR(10);
  DECLARE v_c, v_n INT;
  DECLARE v_bal DECIMAL(12,2);
  DECLARE v_w1, v_w2, v_wcity, v_d1, v_d2, v_dcity VARCHAR(20);
  DECLARE v_wstate, v_dstate CHAR(2);
  DECLARE v_wzip, v_dzip CHAR(9);
  DECLARE EXIT HANDLER FOR SQLEXCEPTION BEGIN ROLLBACK; RESIGNAL; END;
  START TRANSACTION;
  UPDATE warehouse SET w_ytd = w_ytd + p_amount WHERE w_id = p_w;
  SELECT w_name, w_street_1, w_street_2, w_city, w_state, w_zip INTO v_wname, v_w1, v_w2, v_wcity, v_wstate, v_wzip
    FROM warehouse WHERE w_id = p_w;
  UPDATE district SET d_ytd = d_ytd + p_amount WHERE d_w_id = p_w AND d_id = p_d;
  SELECT d_name, d_street_1, d_street_2, d_city, d_state, d_zip INTO v_dname, v_d1, v_d2, v_dcity, v_dstate, v_dzip
    FROM district WHERE d_w_id = p_w AND d_id = p_d;
  SET v_c = p_c;
  IF p_by_name <> 0 THEN
    SELECT count(*) INTO v_n FROM customer WHERE c_w_id = p_cw AND c_d_id = p_cd AND c_last = p_last;
    IF v_n = 0 THEN
      SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'rightsize: no customer with that last name';
    END IF;
    SET v_n = (v_n + 1) DIV 2 - 1;
    SELECT c_id INTO v_c FROM customer WHERE c_w_id = p_cw AND c_d_id = p_cd AND c_last = p_last
      ORDER BY c_first, c_id LIMIT v_n, 1;
  END IF;
  UPDATE customer SET c_balance = c_balance - p_amount, c_ytd_payment = c_ytd_payment + p_amount,
      c_payment_cnt = c_payment_cnt + 1,
      c_data = CASE WHEN c_credit = 'BC'
        THEN LEFT(CONCAT(c_id, ' ', c_d_id, ' ', c_w_id, ' ', p_d, ' ', p_w, ' ', p_amount, ' | ', c_data), 500)
        ELSE c_data END
    WHERE c_w_id = p_cw AND c_d_id = p_cd AND c_id = v_c;
  INSERT INTO history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, h_data)
    VALUES (v_c, p_cd, p_cw, p_d, p_w, NOW(), p_amount, CONCAT(v_wname, '    ', v_dname));
  -- the output screen: the customer's row as this transaction left it
  SELECT v_c AS c_id, c_balance, v_w1, v_w2, v_wcity, v_wstate, v_wzip, v_d1, v_d2, v_dcity, v_dstate, v_dzip,
      c_first, c_middle, c_last, c_street_1, c_street_2, c_city, c_state, c_zip, c_phone, c_credit, c_credit_lim, c_discount,
      IF(c_credit = 'BC', LEFT(c_data, 200), '')
    FROM customer WHERE c_w_id = p_cw AND c_d_id = p_cd AND c_id = v_c;
  COMMIT;
END`,

	`CREATE PROCEDURE rs_order_status(IN p_w INT, IN p_d INT, IN p_c INT, IN p_by_name INT, IN p_last VARCHAR(16))
READS SQL DATA
BEGIN
  DECLARE v_c, v_n, v_o, v_carrier INT;
  DECLARE v_bal DECIMAL(12,2);
  DECLARE v_first, v_last VARCHAR(16);
  DECLARE v_middle CHAR(2);
  DECLARE v_entry DATETIME;
  DECLARE EXIT HANDLER FOR SQLEXCEPTION BEGIN ROLLBACK; RESIGNAL; END;
  START TRANSACTION READ ONLY; -- at the session's isolation (REPEATABLE READ: one snapshot)
  SET v_c = p_c;
  IF p_by_name <> 0 THEN
    SELECT count(*) INTO v_n FROM customer WHERE c_w_id = p_w AND c_d_id = p_d AND c_last = p_last;
    IF v_n = 0 THEN
      SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'rightsize: no customer with that last name';
    END IF;
    SET v_n = (v_n + 1) DIV 2 - 1;
    SELECT c_id INTO v_c FROM customer WHERE c_w_id = p_w AND c_d_id = p_d AND c_last = p_last
      ORDER BY c_first, c_id LIMIT v_n, 1;
  END IF;
  SELECT c_balance, c_first, c_middle, c_last INTO v_bal, v_first, v_middle, v_last
    FROM customer WHERE c_w_id = p_w AND c_d_id = p_d AND c_id = v_c;
  SELECT o_id, o_entry_d, o_carrier_id INTO v_o, v_entry, v_carrier
    FROM orders WHERE o_w_id = p_w AND o_d_id = p_d AND o_c_id = v_c ORDER BY o_id DESC LIMIT 1;
  -- two result sets: the customer and order, then every line (2.6.2.2)
  SELECT v_c AS c_id, v_bal AS balance, v_first, v_middle, v_last, COALESCE(v_o, 0) AS o_id, COALESCE(v_carrier, 0) AS carrier;
  SELECT ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_delivery_d IS NOT NULL
    FROM order_line WHERE ol_w_id = p_w AND ol_d_id = p_d AND ol_o_id = v_o ORDER BY ol_number;
  COMMIT;
END`,

	`CREATE PROCEDURE rs_delivery(IN p_w INT, IN p_carrier INT)
MODIFIES SQL DATA
BEGIN
  DECLARE v_d, v_o, v_c INT;
  DECLARE v_del, v_skip INT DEFAULT 0;
  DECLARE v_found INT DEFAULT 1;
  DECLARE v_sum DECIMAL(12,2);
  DECLARE CONTINUE HANDLER FOR NOT FOUND SET v_found = 0;
  DECLARE EXIT HANDLER FOR SQLEXCEPTION BEGIN ROLLBACK; RESIGNAL; END;
  START TRANSACTION;
  SET v_d = 1;
  WHILE v_d <= 10 DO
    SET v_found = 1;
    SELECT no_o_id INTO v_o FROM new_order WHERE no_w_id = p_w AND no_d_id = v_d
      ORDER BY no_o_id LIMIT 1 FOR UPDATE;
    IF v_found = 0 THEN
      SET v_skip = v_skip + 1;
    ELSE
      DELETE FROM new_order WHERE no_w_id = p_w AND no_d_id = v_d AND no_o_id = v_o;
      UPDATE orders SET o_carrier_id = p_carrier WHERE o_w_id = p_w AND o_d_id = v_d AND o_id = v_o;
      SELECT o_c_id INTO v_c FROM orders WHERE o_w_id = p_w AND o_d_id = v_d AND o_id = v_o;
      UPDATE order_line SET ol_delivery_d = NOW() WHERE ol_w_id = p_w AND ol_d_id = v_d AND ol_o_id = v_o;
      SELECT COALESCE(sum(ol_amount), 0) INTO v_sum FROM order_line
        WHERE ol_w_id = p_w AND ol_d_id = v_d AND ol_o_id = v_o;
      UPDATE customer SET c_balance = c_balance + v_sum, c_delivery_cnt = c_delivery_cnt + 1
        WHERE c_w_id = p_w AND c_d_id = v_d AND c_id = v_c;
      SET v_del = v_del + 1;
    END IF;
    SET v_d = v_d + 1;
  END WHILE;
  COMMIT;
  SELECT v_del AS delivered, v_skip AS skipped;
END`,

	`CREATE PROCEDURE rs_stock_level(IN p_w INT, IN p_d INT, IN p_threshold INT)
READS SQL DATA
BEGIN
  DECLARE v_next, v_cnt INT;
  SELECT d_next_o_id INTO v_next FROM district WHERE d_w_id = p_w AND d_id = p_d;
  SELECT count(DISTINCT s_i_id) INTO v_cnt FROM order_line JOIN stock ON s_i_id = ol_i_id AND s_w_id = ol_w_id
    WHERE ol_w_id = p_w AND ol_d_id = p_d AND ol_o_id >= v_next - 20 AND ol_o_id < v_next AND s_quantity < p_threshold;
  SELECT v_cnt AS low_stock;
END`,
}

// InstallProcedures implements engine.DB (replacing existing versions).
func (db *DB) InstallProcedures(ctx context.Context) error {
	for i, p := range procedures {
		if _, err := db.pool.ExecContext(ctx, "DROP PROCEDURE IF EXISTS "+procedureNames[i]); err != nil {
			return fmt.Errorf("install procedures: %w", err)
		}
		if _, err := db.pool.ExecContext(ctx, p); err != nil {
			return fmt.Errorf("install procedure %s: %w", procedureNames[i], err)
		}
	}
	return nil
}
