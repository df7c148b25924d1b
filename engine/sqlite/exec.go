package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"

	"github.com/rightsize/rightsize/engine"
	"github.com/rightsize/rightsize/tpcc"
)

// The statements of the five transactions. They follow engine/postgres
// (stmt.go and procs.go) statement by statement, with SQLite's dialect:
// money is REAL rounded to cents on every update, timestamps are
// datetime('now') (UTC), and what PostgreSQL does with data-modifying CTEs
// takes one statement per table here.
const (
	sqlBeginWrite = `BEGIN IMMEDIATE`
	sqlBeginRead  = `BEGIN`
	sqlCommit     = `COMMIT`
	sqlRollback   = `ROLLBACK`

	// New-Order
	sqlWarehouseTax = `SELECT w_tax FROM warehouse WHERE w_id = ?1`
	sqlNextOrder    = `UPDATE district SET d_next_o_id = d_next_o_id + 1 WHERE d_w_id = ?1 AND d_id = ?2
 RETURNING d_tax, d_next_o_id - 1`
	sqlCustomerNO = `SELECT c_discount, c_last, c_credit FROM customer WHERE c_w_id = ?1 AND c_d_id = ?2 AND c_id = ?3`
	sqlInsOrder   = `INSERT INTO orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_carrier_id, o_ol_cnt, o_all_local)
 VALUES (?1, ?2, ?3, ?4, datetime('now'), NULL, ?5, ?6)`
	sqlInsNewOrder = `INSERT INTO new_order (no_o_id, no_d_id, no_w_id) VALUES (?1, ?2, ?3)`
	sqlItem        = `SELECT i_price, i_name, i_data FROM item WHERE i_id = ?1`
	// ?1 item, ?2 supply warehouse, ?3 quantity, ?4 home warehouse
	sqlStock = `UPDATE stock SET
  s_quantity = CASE WHEN s_quantity >= ?3 + 10 THEN s_quantity - ?3 ELSE s_quantity - ?3 + 91 END,
  s_ytd = s_ytd + ?3, s_order_cnt = s_order_cnt + 1, s_remote_cnt = s_remote_cnt + (?2 <> ?4)
 WHERE s_i_id = ?1 AND s_w_id = ?2 RETURNING s_quantity, s_data`
	// The order line takes the district's S_DIST_xx straight from stock.
	sqlInsOrderLine = `INSERT INTO order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id, ol_delivery_d,
  ol_quantity, ol_amount, ol_dist_info)
 SELECT ?1, ?2, ?3, ?4, ?5, ?6, NULL, ?7, round(?7 * ?8, 2),
  CASE ?2 WHEN 1 THEN s_dist_01 WHEN 2 THEN s_dist_02 WHEN 3 THEN s_dist_03 WHEN 4 THEN s_dist_04 WHEN 5 THEN s_dist_05
   WHEN 6 THEN s_dist_06 WHEN 7 THEN s_dist_07 WHEN 8 THEN s_dist_08 WHEN 9 THEN s_dist_09 ELSE s_dist_10 END
 FROM stock WHERE s_i_id = ?5 AND s_w_id = ?6`

	// Payment. The BC prefix formats the amount with 15 significant digits,
	// as PostgreSQL's float8-to-numeric cast does.
	sqlPayWarehouse = `UPDATE warehouse SET w_ytd = round(w_ytd + ?2, 2) WHERE w_id = ?1
 RETURNING w_street_1, w_street_2, w_city, w_state, w_zip`
	sqlPayDistrict = `UPDATE district SET d_ytd = round(d_ytd + ?3, 2) WHERE d_w_id = ?1 AND d_id = ?2
 RETURNING d_street_1, d_street_2, d_city, d_state, d_zip`
	// sqlByName returns the ceil(n/2)-th (1-based) of the n customers with
	// that last name, ordered by first name (then id).
	sqlByName = `SELECT c_id FROM customer WHERE c_w_id = ?1 AND c_d_id = ?2 AND c_last = ?3 ORDER BY c_first, c_id
 LIMIT 1 OFFSET (SELECT (count(*) - 1) / 2 FROM customer WHERE c_w_id = ?1 AND c_d_id = ?2 AND c_last = ?3)`
	// ?1..?3 customer key, ?4 home district, ?5 amount, ?6 home warehouse
	sqlPayCustomer = `UPDATE customer SET c_balance = round(c_balance - ?5, 2), c_ytd_payment = round(c_ytd_payment + ?5, 2),
  c_payment_cnt = c_payment_cnt + 1,
  c_data = CASE WHEN c_credit = 'BC'
    THEN substr(printf('%d %d %d %d %d %.15g | ', c_id, c_d_id, c_w_id, ?4, ?6, ?5) || c_data, 1, 500)
    ELSE c_data END
 WHERE c_w_id = ?1 AND c_d_id = ?2 AND c_id = ?3 RETURNING c_balance, c_first, c_middle, c_last,
  c_street_1, c_street_2, c_city, c_state, c_zip, c_phone, c_credit, c_credit_lim, c_discount,
  CASE WHEN c_credit = 'BC' THEN substr(c_data, 1, 200) ELSE '' END`
	sqlPayHistory = `INSERT INTO history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, h_data)
 VALUES (?1, ?2, ?3, ?4, ?5, datetime('now'), ?6,
  (SELECT w_name FROM warehouse WHERE w_id = ?5) || '    ' || (SELECT d_name FROM district WHERE d_w_id = ?5 AND d_id = ?4))`

	// Order-Status
	sqlOSCustomer = `SELECT c_balance, c_first, c_middle, c_last FROM customer WHERE c_w_id = ?1 AND c_d_id = ?2 AND c_id = ?3`
	sqlOSOrder    = `SELECT o_id, o_entry_d, COALESCE(o_carrier_id, 0) FROM orders WHERE o_w_id = ?1 AND o_d_id = ?2 AND o_c_id = ?3
 ORDER BY o_id DESC LIMIT 1`
	sqlOSLines = `SELECT ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_delivery_d IS NOT NULL FROM order_line
 WHERE ol_w_id = ?1 AND ol_d_id = ?2 AND ol_o_id = ?3 ORDER BY ol_number`

	// Delivery, per district
	sqlDelNewOrder = `DELETE FROM new_order WHERE no_w_id = ?1 AND no_d_id = ?2
  AND no_o_id = (SELECT min(no_o_id) FROM new_order WHERE no_w_id = ?1 AND no_d_id = ?2)
 RETURNING no_o_id`
	sqlDelOrder    = `UPDATE orders SET o_carrier_id = ?4 WHERE o_w_id = ?1 AND o_d_id = ?2 AND o_id = ?3 RETURNING o_c_id`
	sqlDelLines    = `UPDATE order_line SET ol_delivery_d = datetime('now') WHERE ol_w_id = ?1 AND ol_d_id = ?2 AND ol_o_id = ?3`
	sqlDelCustomer = `UPDATE customer SET c_balance = round(c_balance +
   (SELECT sum(ol_amount) FROM order_line WHERE ol_w_id = ?1 AND ol_d_id = ?2 AND ol_o_id = ?3), 2),
  c_delivery_cnt = c_delivery_cnt + 1
 WHERE c_w_id = ?1 AND c_d_id = ?2 AND c_id = ?4`

	// Stock-Level: one statement, so one snapshot. CROSS JOIN fixes the
	// join order (order lines first, then stock by key).
	sqlStockLevel = `SELECT count(DISTINCT s_i_id) FROM order_line CROSS JOIN stock
 WHERE s_i_id = ol_i_id AND s_w_id = ol_w_id AND ol_w_id = ?1 AND ol_d_id = ?2 AND s_quantity < ?3
   AND ol_o_id >= (SELECT d_next_o_id - 20 FROM district WHERE d_w_id = ?1 AND d_id = ?2)
   AND ol_o_id < (SELECT d_next_o_id FROM district WHERE d_w_id = ?1 AND d_id = ?2)`
)

// statement indexes into executor.st
const (
	stBeginWrite = iota
	stBeginRead
	stCommit
	stRollback
	stWarehouseTax
	stNextOrder
	stCustomerNO
	stInsOrder
	stInsNewOrder
	stItem
	stStock
	stInsOrderLine
	stPayWarehouse
	stPayDistrict
	stByName
	stPayCustomer
	stPayHistory
	stOSCustomer
	stOSOrder
	stOSLines
	stDelNewOrder
	stDelOrder
	stDelLines
	stDelCustomer
	stStockLevel
	numStmts
)

var stmtSQL = [numStmts]string{
	stBeginWrite: sqlBeginWrite, stBeginRead: sqlBeginRead, stCommit: sqlCommit, stRollback: sqlRollback,
	stWarehouseTax: sqlWarehouseTax, stNextOrder: sqlNextOrder, stCustomerNO: sqlCustomerNO, stInsOrder: sqlInsOrder,
	stInsNewOrder: sqlInsNewOrder, stItem: sqlItem, stStock: sqlStock, stInsOrderLine: sqlInsOrderLine,
	stPayWarehouse: sqlPayWarehouse, stPayDistrict: sqlPayDistrict, stByName: sqlByName, stPayCustomer: sqlPayCustomer,
	stPayHistory: sqlPayHistory, stOSCustomer: sqlOSCustomer, stOSOrder: sqlOSOrder, stOSLines: sqlOSLines,
	stDelNewOrder: sqlDelNewOrder, stDelOrder: sqlDelOrder, stDelLines: sqlDelLines, stDelCustomer: sqlDelCustomer,
	stStockLevel: sqlStockLevel,
}

// executor runs the five transactions on one dedicated connection with
// statements prepared once. Write transactions hold the DB's writer lock
// from BEGIN IMMEDIATE to COMMIT or ROLLBACK.
type executor struct {
	db   *DB
	conn *sql.Conn
	st   [numStmts]*sql.Stmt

	inTx, locked bool
	raw          [4]sql.RawBytes // columns read and not returned (names, data, dates)
}

// NewExecutor implements engine.DB: a dedicated connection per virtual
// user. Only engine.Statements exists.
func (db *DB) NewExecutor(ctx context.Context, mode engine.Mode) (tpcc.Executor, error) {
	if mode != engine.Statements {
		return nil, fmt.Errorf("sqlite: mode %q is not supported (SQLite has no stored procedures; use statements)", mode)
	}
	conn, err := db.sql.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("sqlite: connect virtual user: %w", err)
	}
	e := &executor{db: db, conn: conn}
	for i, q := range stmtSQL {
		if e.st[i], err = conn.PrepareContext(ctx, q); err != nil {
			e.closeStmts()
			conn.Close()
			return nil, fmt.Errorf("sqlite: prepare %q: %w", q, err)
		}
	}
	db.mu.Lock()
	db.execs[e] = struct{}{}
	db.mu.Unlock()
	return e, nil
}

func (e *executor) closeStmts() {
	for _, s := range e.st {
		if s != nil {
			s.Close()
		}
	}
}

// Close implements tpcc.Executor; an open transaction is rolled back.
func (e *executor) Close(ctx context.Context) error {
	e.db.mu.Lock()
	if _, ok := e.db.execs[e]; !ok {
		e.db.mu.Unlock()
		return nil
	}
	delete(e.db.execs, e)
	if s, err := cacheStatus(e.conn); err == nil {
		for i := range s {
			e.db.retired[i] += s[i]
		}
	}
	e.db.mu.Unlock()
	if e.inTx {
		e.rollback()
	}
	e.closeStmts()
	return e.conn.Close()
}

// begin starts a write (IMMEDIATE, under the writer lock) or a read
// (deferred) transaction.
func (e *executor) begin(ctx context.Context, write bool) error {
	if e.db.closed.Load() {
		return ErrClosed
	}
	if write {
		if err := e.db.lockWriter(ctx); err != nil {
			return err
		}
		e.locked = true
		if _, err := e.st[stBeginWrite].ExecContext(ctx); err != nil {
			e.unlock()
			return err
		}
	} else if _, err := e.st[stBeginRead].ExecContext(ctx); err != nil {
		return err
	}
	e.inTx = true
	return nil
}

func (e *executor) unlock() {
	if e.locked {
		e.locked = false
		e.db.unlockWriter()
	}
}

func (e *executor) commit(ctx context.Context) error {
	_, err := e.st[stCommit].ExecContext(ctx)
	if err != nil {
		return e.abort(err)
	}
	e.inTx = false
	e.unlock()
	e.db.commits.Add(1)
	return nil
}

// rollback ends the transaction whatever the caller's context says
// (SQLite may already have rolled back after some errors: that is fine).
func (e *executor) rollback() {
	_, _ = e.st[stRollback].ExecContext(context.Background())
	e.inTx = false
	e.unlock()
	e.db.rollbacks.Add(1)
}

// abort rolls back after a failed statement and returns err.
func (e *executor) abort(err error) error {
	if e.inTx {
		e.rollback()
	}
	return err
}

// row runs a query expected to return one row and scans it; dest may hold
// *sql.RawBytes (which Row.Scan refuses). It returns sql.ErrNoRows for none.
func (e *executor) row(ctx context.Context, s int, args []any, dest ...any) error {
	rows, err := e.st[s].QueryContext(ctx, args...)
	if err != nil {
		return err
	}
	if !rows.Next() {
		err = rows.Err()
		rows.Close()
		if err == nil {
			err = sql.ErrNoRows
		}
		return err
	}
	err = rows.Scan(dest...)
	if cerr := rows.Close(); err == nil {
		err = cerr
	}
	return err
}

// NewOrder implements tpcc.Executor. The unused item (the last line) is
// discovered by its SELECT on item returning no row, after every valid
// line was processed; the whole transaction is rolled back.
func (e *executor) NewOrder(ctx context.Context, in *tpcc.NewOrderInput, out *tpcc.NewOrderResult) error {
	*out = tpcc.NewOrderResult{Lines: out.Lines[:0]}
	if err := e.begin(ctx, true); err != nil {
		return err
	}
	var wTax, dTax, disc float64
	var oid int32
	err := e.st[stWarehouseTax].QueryRowContext(ctx, in.WID).Scan(&wTax)
	if err == nil {
		err = e.row(ctx, stNextOrder, []any{in.WID, in.DID}, &dTax, &oid)
	}
	if err == nil {
		err = e.row(ctx, stCustomerNO, []any{in.WID, in.DID, in.CID}, &disc, &out.CLast, &out.Credit)
	}
	if err != nil {
		return e.abort(err)
	}
	allLocal := 0
	if in.AllLocal {
		allLocal = 1
	}
	if _, err := e.st[stInsOrder].ExecContext(ctx, oid, in.DID, in.WID, in.CID, len(in.Lines), allLocal); err != nil {
		return e.abort(err)
	}
	if _, err := e.st[stInsNewOrder].ExecContext(ctx, oid, in.DID, in.WID); err != nil {
		return e.abort(err)
	}
	var sum float64
	for _, l := range in.Lines {
		var line tpcc.NewOrderLine
		var iData, sData string
		err := e.row(ctx, stItem, []any{l.ItemID}, &line.Price, &line.ItemName, &iData)
		if errors.Is(err, sql.ErrNoRows) { // the simulated user error: an unused item number
			e.rollback()
			*out = tpcc.NewOrderResult{RolledBack: true, Lines: out.Lines[:0]}
			return nil
		}
		if err != nil {
			return e.abort(err)
		}
		if err := e.row(ctx, stStock, []any{l.ItemID, l.SupplyWID, l.Quantity, in.WID}, &line.StockQty, &sData); err != nil {
			return e.abort(fmt.Errorf("stock %d/%d: %w", l.SupplyWID, l.ItemID, err))
		}
		if _, err := e.st[stInsOrderLine].ExecContext(ctx, oid, in.DID, in.WID, l.Number, l.ItemID, l.SupplyWID, l.Quantity, line.Price); err != nil {
			return e.abort(err)
		}
		line.Amount = math.Round(float64(l.Quantity)*line.Price*100) / 100
		line.BrandGeneric = tpcc.Brand(iData, sData)
		out.Lines = append(out.Lines, line)
		sum += line.Amount
	}
	if err := e.commit(ctx); err != nil {
		return err
	}
	out.OID, out.WTax, out.DTax, out.Discount = oid, wTax, dTax, disc
	out.Total = sum * (1 - disc) * (1 + wTax + dTax)
	return nil
}

// byName finds the customer by last name (clause 2.5.2.2).
func (e *executor) byName(ctx context.Context, w, d int32, last string) (int32, error) {
	var id int32
	err := e.st[stByName].QueryRowContext(ctx, w, d, last).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, tpcc.ErrNoSuchCustomer
	}
	return id, err
}

// Payment implements tpcc.Executor.
func (e *executor) Payment(ctx context.Context, in *tpcc.PaymentInput, out *tpcc.PaymentResult) error {
	if err := e.begin(ctx, true); err != nil {
		return err
	}
	w, d := &out.Warehouse, &out.District
	if err := e.row(ctx, stPayWarehouse, []any{in.WID, in.Amount}, &w.Street1, &w.Street2, &w.City, &w.State, &w.Zip); err != nil {
		return e.abort(err)
	}
	if err := e.row(ctx, stPayDistrict, []any{in.WID, in.DID, in.Amount}, &d.Street1, &d.Street2, &d.City, &d.State, &d.Zip); err != nil {
		return e.abort(err)
	}
	cid := in.CID
	if in.ByName {
		var err error
		if cid, err = e.byName(ctx, in.CWID, in.CDID, in.CLast); err != nil {
			return e.abort(err)
		}
	}
	var bal float64
	c := &out.Customer
	err := e.row(ctx, stPayCustomer, []any{in.CWID, in.CDID, cid, in.DID, in.Amount, in.WID}, &bal, &out.First, &out.Middle, &out.Last,
		&c.Street1, &c.Street2, &c.City, &c.State, &c.Zip, &out.Phone, &out.Credit, &out.CreditLim, &out.Discount, &out.Data)
	if err != nil {
		return e.abort(fmt.Errorf("payment customer %d/%d/%d: %w", in.CWID, in.CDID, cid, err))
	}
	if _, err := e.st[stPayHistory].ExecContext(ctx, cid, in.CDID, in.CWID, in.DID, in.WID, in.Amount); err != nil {
		return e.abort(err)
	}
	if err := e.commit(ctx); err != nil {
		return err
	}
	out.CID, out.Balance = cid, bal
	return nil
}

// OrderStatus implements tpcc.Executor in a read-only (deferred)
// transaction, so its reads see one snapshot.
func (e *executor) OrderStatus(ctx context.Context, in *tpcc.OrderStatusInput, out *tpcc.OrderStatusResult) error {
	if err := e.begin(ctx, false); err != nil {
		return err
	}
	cid := in.CID
	if in.ByName {
		var err error
		if cid, err = e.byName(ctx, in.WID, in.DID, in.CLast); err != nil {
			return e.abort(err)
		}
	}
	res := tpcc.OrderStatusResult{CID: cid, Lines: out.Lines[:0]}
	if err := e.row(ctx, stOSCustomer, []any{in.WID, in.DID, cid}, &res.Balance, &res.First, &res.Middle, &res.Last); err != nil {
		return e.abort(err)
	}
	if err := e.row(ctx, stOSOrder, []any{in.WID, in.DID, cid}, &res.OID, &e.raw[3], &res.Carrier); err != nil {
		return e.abort(err)
	}
	rows, err := e.st[stOSLines].QueryContext(ctx, in.WID, in.DID, res.OID)
	if err != nil {
		return e.abort(err)
	}
	for rows.Next() {
		var l tpcc.OrderStatusLine
		if err := rows.Scan(&l.ItemID, &l.SupplyWID, &l.Quantity, &l.Amount, &l.Delivered); err != nil {
			rows.Close()
			return e.abort(err)
		}
		res.Lines = append(res.Lines, l)
	}
	if err := rows.Close(); err != nil {
		return e.abort(err)
	}
	if err := rows.Err(); err != nil {
		return e.abort(err)
	}
	if err := e.commit(ctx); err != nil {
		return err
	}
	*out = res
	return nil
}

// Delivery implements tpcc.Executor: the ten districts in one transaction,
// skipping those without an undelivered order. Write transactions hold the
// database's one writer lock from BEGIN IMMEDIATE on, so no other Delivery
// can take the oldest NEW-ORDER row between the read and the delete: a
// district is skipped only when it has no undelivered order (2.7.4.2).
// SQLite's transactions are serializable, which meets clause 3.4.
func (e *executor) Delivery(ctx context.Context, in *tpcc.DeliveryInput, out *tpcc.DeliveryResult) error {
	*out = tpcc.DeliveryResult{}
	if err := e.begin(ctx, true); err != nil {
		return err
	}
	for d := int32(1); d <= tpcc.DistrictsPerWarehouse; d++ {
		var oid, cid int32
		err := e.st[stDelNewOrder].QueryRowContext(ctx, in.WID, d).Scan(&oid)
		if errors.Is(err, sql.ErrNoRows) {
			out.Skipped++
			continue
		}
		if err == nil {
			err = e.st[stDelOrder].QueryRowContext(ctx, in.WID, d, oid, in.CarrierID).Scan(&cid)
		}
		if err == nil {
			_, err = e.st[stDelLines].ExecContext(ctx, in.WID, d, oid)
		}
		if err == nil {
			_, err = e.st[stDelCustomer].ExecContext(ctx, in.WID, d, oid, cid)
		}
		if err != nil {
			*out = tpcc.DeliveryResult{}
			return e.abort(fmt.Errorf("delivery district %d: %w", d, err))
		}
		out.Delivered++
	}
	if err := e.commit(ctx); err != nil {
		*out = tpcc.DeliveryResult{}
		return err
	}
	return nil
}

// StockLevel implements tpcc.Executor with one statement (its own
// snapshot, like PostgreSQL's statements mode).
func (e *executor) StockLevel(ctx context.Context, in *tpcc.StockLevelInput, out *tpcc.StockLevelResult) error {
	if e.db.closed.Load() {
		return ErrClosed
	}
	return e.st[stStockLevel].QueryRowContext(ctx, in.WID, in.DID, in.Threshold).Scan(&out.LowStock)
}
