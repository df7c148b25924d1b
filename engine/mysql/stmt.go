package mysql

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/rightsize/rightsize/engine"
	"github.com/rightsize/rightsize/tpcc"
)

// maxLines is the most order lines a New-Order has; the statements that
// take all lines at once have this many slots, unused ones padded.
const maxLines = tpcc.MaxOrderLines

func repeatJoin(n int, part func(i int) string, sep string) string {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = part(i)
	}
	return strings.Join(parts, sep)
}

var (
	sqlNOUpdDistrict = `UPDATE district SET d_next_o_id = d_next_o_id + 1 WHERE d_w_id = ? AND d_id = ?`
	// read after the update: the district row is ours, so d_next_o_id - 1 is our O_ID
	sqlNOInfo = `SELECT w_tax, d_tax, d_next_o_id - 1, c_discount, c_last, c_credit
 FROM warehouse JOIN district ON d_w_id = w_id JOIN customer ON c_w_id = d_w_id AND c_d_id = d_id
 WHERE w_id = ? AND d_id = ? AND c_id = ?`
	sqlNOItems = `SELECT i_id, i_price, i_name, i_data FROM item WHERE i_id IN (` +
		repeatJoin(maxLines, func(int) string { return "?" }, ", ") + `)`
	// locks the stock rows in key order (the lines are sorted by supply warehouse, item)
	sqlNOStock = `SELECT s_i_id, s_w_id, s_quantity, s_data, ELT(?, s_dist_01, s_dist_02, s_dist_03, s_dist_04, s_dist_05, s_dist_06,
 s_dist_07, s_dist_08, s_dist_09, s_dist_10) FROM stock WHERE ` +
		repeatJoin(maxLines, func(int) string { return "(s_w_id = ? AND s_i_id = ?)" }, " OR ") + ` FOR UPDATE`
	// one slot per distinct stock row: its new quantity (computed from the
	// locked row, line after line when an item appears twice), the sum of
	// the lines' quantities, the number of lines and of remote lines
	sqlNOUpdStock = `UPDATE stock JOIN (` +
		repeatJoin(maxLines, func(int) string {
			return "SELECT CAST(? AS SIGNED) AS i, CAST(? AS SIGNED) AS w, CAST(? AS SIGNED) AS nq, CAST(? AS SIGNED) AS q, " +
				"CAST(? AS SIGNED) AS c, CAST(? AS SIGNED) AS r"
		}, " UNION ALL ") + `) v ON s_i_id = v.i AND s_w_id = v.w
 SET s_quantity = v.nq, s_ytd = s_ytd + v.q, s_order_cnt = s_order_cnt + v.c, s_remote_cnt = s_remote_cnt + v.r`
	sqlNOInsOrder = `INSERT INTO orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_carrier_id, o_ol_cnt, o_all_local)
 VALUES (?, ?, ?, ?, NOW(), NULL, ?, ?)`
	sqlNOInsNewOrder = `INSERT INTO new_order (no_o_id, no_d_id, no_w_id) VALUES (?, ?, ?)`

	sqlPayWarehouse = `UPDATE warehouse SET w_ytd = w_ytd + CAST(? AS DECIMAL(6,2)) WHERE w_id = ?`
	sqlPayDistrict  = `UPDATE district SET d_ytd = d_ytd + CAST(? AS DECIMAL(6,2)) WHERE d_w_id = ? AND d_id = ?`
	sqlPayNames     = `SELECT w_name, d_name, w_street_1, w_street_2, w_city, w_state, w_zip, d_street_1, d_street_2, d_city, d_state, d_zip
 FROM warehouse JOIN district ON d_w_id = w_id WHERE w_id = ? AND d_id = ?`
	sqlByName = `SELECT c_id FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_last = ? ORDER BY c_first, c_id`
	// the BC prefix formats the amount as the procedure's DECIMAL(6,2) parameter does
	sqlPayCustomer = `UPDATE customer SET c_balance = c_balance - CAST(? AS DECIMAL(6,2)),
  c_ytd_payment = c_ytd_payment + CAST(? AS DECIMAL(6,2)), c_payment_cnt = c_payment_cnt + 1,
  c_data = CASE WHEN c_credit = 'BC'
    THEN LEFT(CONCAT(c_id, ' ', c_d_id, ' ', c_w_id, ' ', CAST(? AS SIGNED), ' ', CAST(? AS SIGNED), ' ', CAST(? AS DECIMAL(6,2)), ' | ', c_data), 500)
    ELSE c_data END
 WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?`
	sqlPayBalance = `SELECT c_balance, c_first, c_middle, c_last, c_street_1, c_street_2, c_city, c_state, c_zip, c_phone, c_credit,
 c_credit_lim, c_discount, IF(c_credit = 'BC', LEFT(c_data, 200), '') FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?`
	sqlPayHistory = `INSERT INTO history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, h_data)
 VALUES (?, ?, ?, ?, ?, NOW(), CAST(? AS DECIMAL(6,2)), ?)`

	sqlOSBegin    = `START TRANSACTION READ ONLY` // at the session's isolation
	sqlOSCustomer = `SELECT c_balance, c_first, c_middle, c_last FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?`
	sqlOSOrder    = `SELECT o_id, o_entry_d, COALESCE(o_carrier_id, 0) FROM orders WHERE o_w_id = ? AND o_d_id = ? AND o_c_id = ?
 ORDER BY o_id DESC LIMIT 1`
	sqlOSLines = `SELECT ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_delivery_d IS NOT NULL FROM order_line
 WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id = ? ORDER BY ol_number`

	// Delivery locks the oldest NEW-ORDER row of each district (a locking
	// scan that moves past rows a concurrent Delivery deleted), then
	// delivers all districts' orders with three statements; a skipped
	// district's slot holds O_ID 0, which matches nothing.
	sqlDelOldest = `SELECT no_o_id FROM new_order WHERE no_w_id = ? AND no_d_id = ? ORDER BY no_o_id LIMIT 1 FOR UPDATE`
	delSlots     = func(d, o string) string {
		return "(" + repeatJoin(tpcc.DistrictsPerWarehouse, func(i int) string {
			return fmt.Sprintf("(%s = %d AND %s = ?)", d, i+1, o)
		}, " OR ") + ")"
	}
	sqlDelNewOrders = `DELETE FROM new_order WHERE no_w_id = ? AND ` + delSlots("no_d_id", "no_o_id")
	sqlDelOrders    = `UPDATE orders JOIN order_line ON ol_w_id = o_w_id AND ol_d_id = o_d_id AND ol_o_id = o_id
 SET o_carrier_id = ?, ol_delivery_d = NOW() WHERE o_w_id = ? AND ` + delSlots("o_d_id", "o_id")
	sqlDelCustomers = `UPDATE customer JOIN (SELECT o_d_id, o_c_id, sum(ol_amount) AS amount
   FROM orders JOIN order_line ON ol_w_id = o_w_id AND ol_d_id = o_d_id AND ol_o_id = o_id
   WHERE o_w_id = ? AND ` + delSlots("o_d_id", "o_id") + ` GROUP BY o_d_id, o_c_id) x
   ON c_w_id = ? AND c_d_id = x.o_d_id AND c_id = x.o_c_id
 SET c_balance = c_balance + x.amount, c_delivery_cnt = c_delivery_cnt + 1`

	// district is a constant (primary-key) table, so its next order id
	// bounds the order-line range scan
	sqlStockLevel = `SELECT count(DISTINCT s_i_id) FROM district
 JOIN order_line ON ol_w_id = d_w_id AND ol_d_id = d_id AND ol_o_id >= d_next_o_id - 20 AND ol_o_id < d_next_o_id
 JOIN stock ON s_i_id = ol_i_id AND s_w_id = ol_w_id
 WHERE d_w_id = ? AND d_id = ? AND s_quantity < ?`
)

// sqlNOInsLines returns the INSERT of n order lines.
func sqlNOInsLines(n int) string {
	return `INSERT INTO order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id, ol_delivery_d,
 ol_quantity, ol_amount, ol_dist_info) VALUES ` + repeatJoin(n, func(int) string { return "(?, ?, ?, ?, ?, ?, NULL, ?, ?, ?)" }, ", ")
}

// stmtExec runs each transaction as client-side prepared statements in an
// explicit transaction on its own connection. Its logic mirrors procs.go:
// same rows read and written, same values, same results.
type stmtExec struct {
	stmts
	noUpdDistrict, noInfo, noItems, noStock, noUpdStock, noInsOrder, noInsNewOrder *sql.Stmt
	noInsLines                                                                     [maxLines + 1]*sql.Stmt // by line count, prepared on first use
	payWarehouse, payDistrict, payNames, byName, payCustomer, payBalance, payHist  *sql.Stmt
	osCustomer, osOrder, osLines                                                   *sql.Stmt
	delOldest, delNewOrders, delOrders, delCustomers                               *sql.Stmt
	stockLevel                                                                     *sql.Stmt

	args  []any
	ids   []int32
	lines []lineState
	oids  [tpcc.DistrictsPerWarehouse]int32
}

// lineState is what New-Order learns about one line.
type lineState struct {
	price       int64 // cents
	found       bool
	dist        string
	locked      bool
	itemName    string
	iData       string
	sData       string
	qty, newQty int32 // S_QUANTITY before and after this line
}

func newStmtExec(ctx context.Context, conn *sql.Conn) (*stmtExec, error) {
	e := &stmtExec{stmts: stmts{conn: conn}}
	for _, p := range []struct {
		st **sql.Stmt
		q  string
	}{
		{&e.noUpdDistrict, sqlNOUpdDistrict}, {&e.noInfo, sqlNOInfo}, {&e.noItems, sqlNOItems}, {&e.noStock, sqlNOStock},
		{&e.noUpdStock, sqlNOUpdStock}, {&e.noInsOrder, sqlNOInsOrder}, {&e.noInsNewOrder, sqlNOInsNewOrder},
		{&e.payWarehouse, sqlPayWarehouse}, {&e.payDistrict, sqlPayDistrict}, {&e.payNames, sqlPayNames},
		{&e.byName, sqlByName}, {&e.payCustomer, sqlPayCustomer}, {&e.payBalance, sqlPayBalance}, {&e.payHist, sqlPayHistory},
		{&e.osCustomer, sqlOSCustomer}, {&e.osOrder, sqlOSOrder}, {&e.osLines, sqlOSLines},
		{&e.delOldest, sqlDelOldest}, {&e.delNewOrders, sqlDelNewOrders}, {&e.delOrders, sqlDelOrders},
		{&e.delCustomers, sqlDelCustomers}, {&e.stockLevel, sqlStockLevel},
	} {
		st, err := e.prepare(ctx, p.q)
		if err != nil {
			e.Close(ctx)
			return nil, err
		}
		*p.st = st
	}
	return e, nil
}

func (e *stmtExec) begin(ctx context.Context) error {
	_, err := e.conn.ExecContext(ctx, "START TRANSACTION")
	return err
}

func (e *stmtExec) commit(ctx context.Context) error {
	_, err := e.conn.ExecContext(ctx, "COMMIT")
	return err
}

// abort rolls back after a failed statement and returns err; a broken
// connection is left for the driver to replace.
func (e *stmtExec) abort(ctx context.Context, err error) error {
	_, _ = e.conn.ExecContext(context.WithoutCancel(ctx), "ROLLBACK")
	return err
}

// units parses a DECIMAL value with the given scale as an integer number of
// 10^-scale units, exactly.
func units(s string, scale int) (int64, error) {
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	whole, frac, _ := strings.Cut(s, ".")
	if len(frac) > scale {
		return 0, fmt.Errorf("decimal %q has more than %d decimals", s, scale)
	}
	frac += strings.Repeat("0", scale-len(frac))
	v, err := strconv.ParseInt(whole+frac, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("decimal %q: %w", s, err)
	}
	if neg {
		v = -v
	}
	return v, nil
}

// NewOrder reads the items and locks the stock rows of all lines at once,
// then processes every valid line (stock, order, new-order, order lines);
// an unused item number (the last line) rolls all of it back afterwards
// (2.4.2.3).
func (e *stmtExec) NewOrder(ctx context.Context, in *tpcc.NewOrderInput, out *tpcc.NewOrderResult) error {
	*out = tpcc.NewOrderResult{Lines: out.Lines[:0]}
	n := len(in.Lines)
	if n == 0 || n > maxLines {
		return fmt.Errorf("new order with %d lines", n)
	}
	if err := e.begin(ctx); err != nil {
		return e.abort(ctx, err)
	}
	h, err := e.newOrderHead(ctx, in, out)
	if err != nil {
		return e.abort(ctx, err)
	}
	lines, valid, err := e.newOrderStock(ctx, in)
	if err != nil {
		return e.abort(ctx, err)
	}
	if _, err := e.noInsOrder.ExecContext(ctx, h.oid, in.DID, in.WID, in.CID, int32(n), boolInt(in.AllLocal)); err != nil {
		return e.abort(ctx, err)
	}
	if _, err := e.noInsNewOrder.ExecContext(ctx, h.oid, in.DID, in.WID); err != nil {
		return e.abort(ctx, err)
	}
	sum, err := e.insertLines(ctx, in, out, h.oid, lines[:valid])
	if err != nil {
		return e.abort(ctx, err)
	}
	if valid < n { // the simulated user error: every valid item was processed, now roll back
		if _, err := e.conn.ExecContext(ctx, "ROLLBACK"); err != nil {
			return err
		}
		*out = tpcc.NewOrderResult{RolledBack: true, Lines: out.Lines[:0]}
		return nil
	}
	if err := e.commit(ctx); err != nil {
		return e.abort(ctx, err)
	}
	out.OID = h.oid
	out.WTax, out.DTax, out.Discount = float64(h.wTax)/1e4, float64(h.dTax)/1e4, float64(h.disc)/1e4
	// exact: cents x (1 - disc) x (1 + taxes) in units of 10^-10, then one rounding
	out.Total = float64(sum*(10000-h.disc)*(10000+h.wTax+h.dTax)) / 1e10
	return nil
}

// orderHead is what New-Order reads before its lines: the order number
// and the taxes and discount in units of 10^-4.
type orderHead struct {
	oid              int32
	wTax, dTax, disc int64
}

// newOrderHead takes the district's next order number and reads the
// taxes, the discount and the customer's name and credit into out.
func (e *stmtExec) newOrderHead(ctx context.Context, in *tpcc.NewOrderInput, out *tpcc.NewOrderResult) (h orderHead, err error) {
	if _, err := e.noUpdDistrict.ExecContext(ctx, in.WID, in.DID); err != nil {
		return h, err
	}
	var wTaxS, dTaxS, discS string
	if err := e.noInfo.QueryRowContext(ctx, in.WID, in.DID, in.CID).Scan(&wTaxS, &dTaxS, &h.oid, &discS, &out.CLast, &out.Credit); err != nil {
		return h, err
	}
	wTax, err1 := units(wTaxS, 4)
	dTax, err2 := units(dTaxS, 4)
	disc, err3 := units(discS, 4)
	h.wTax, h.dTax, h.disc = wTax, dTax, disc
	return h, firstErr(err1, err2, err3)
}

// newOrderStock reads the items of all lines and locks and updates their
// stock rows; it returns what it learnt by line and how many lines come
// before the unused item (all of them when there is none).
func (e *stmtExec) newOrderStock(ctx context.Context, in *tpcc.NewOrderInput) (lines []lineState, valid int, err error) {
	n := len(in.Lines)
	// items: all lines in one query, padded with the first item
	if cap(e.lines) < n {
		e.lines = make([]lineState, n)
	}
	lines = e.lines[:n]
	clear(lines)
	args := e.args[:0]
	for i := range maxLines {
		args = append(args, in.Lines[min(i, n-1)].ItemID)
	}
	if err := e.scanItems(ctx, args, in, lines); err != nil {
		return nil, 0, err
	}
	valid = n // the lines before the unused item, which sorts last
	for i, l := range lines {
		if !l.found {
			valid = min(valid, i)
		}
	}

	// stock: lock all rows, then update each distinct row once
	args = append(args[:0], in.DID)
	for i := range maxLines {
		l := in.Lines[min(i, n-1)]
		args = append(args, l.SupplyWID, l.ItemID)
	}
	if err := e.scanStock(ctx, args, in, lines[:valid]); err != nil {
		return nil, 0, err
	}
	args = stockUpdates(args[:0], in, lines[:valid])
	e.args = args
	if _, err := e.noUpdStock.ExecContext(ctx, args...); err != nil {
		return nil, 0, err
	}
	return lines, valid, nil
}

// insertLines inserts the order's valid lines in one statement, appends
// them to out and returns their sum in cents.
func (e *stmtExec) insertLines(ctx context.Context, in *tpcc.NewOrderInput, out *tpcc.NewOrderResult, oid int32, lines []lineState) (sum int64, err error) {
	valid := len(lines)
	if valid == 0 {
		return 0, nil
	}
	ins := e.noInsLines[valid]
	if ins == nil {
		st, err := e.prepare(ctx, sqlNOInsLines(valid))
		if err != nil {
			return 0, err
		}
		e.noInsLines[valid], ins = st, st
	}
	args := e.args[:0]
	for i, l := range in.Lines[:valid] {
		amt := int64(l.Quantity) * lines[i].price
		sum += amt
		args = append(args, oid, in.DID, in.WID, l.Number, l.ItemID, l.SupplyWID, l.Quantity,
			strconv.FormatInt(amt/100, 10)+"."+twoDigits(amt%100), lines[i].dist)
		out.Lines = append(out.Lines, tpcc.NewOrderLine{ItemName: lines[i].itemName, StockQty: lines[i].newQty,
			BrandGeneric: tpcc.Brand(lines[i].iData, lines[i].sData), Price: float64(lines[i].price) / 100, Amount: float64(amt) / 100})
	}
	e.args = args
	if _, err := ins.ExecContext(ctx, args...); err != nil {
		return 0, err
	}
	return sum, nil
}

// stockUpdates computes, line after line, each line's new S_QUANTITY from
// the locked rows (an item twice in one order sees the first line's
// update) and appends the slots of sqlNOUpdStock: one per distinct stock
// row, padded with rows that match nothing.
func stockUpdates(args []any, in *tpcc.NewOrderInput, lines []lineState) []any {
	for i := range lines {
		q := lines[i].qty
		if j := previousLine(in, i); j >= 0 {
			q = lines[j].newQty
		}
		lines[i].newQty = tpcc.NewStockQuantity(q, in.Lines[i].Quantity)
	}
	slots := 0
	for i := range lines {
		l := in.Lines[i]
		if previousLine(in, i) >= 0 {
			continue // the row's slot is written with its first line
		}
		var newQty, total, count, remote int32
		for j := i; j < len(lines); j++ {
			if m := in.Lines[j]; m.ItemID == l.ItemID && m.SupplyWID == l.SupplyWID {
				newQty = lines[j].newQty
				total += m.Quantity
				count++
				if m.SupplyWID != in.WID {
					remote++
				}
			}
		}
		args = append(args, l.ItemID, l.SupplyWID, newQty, total, count, remote)
		slots++
	}
	for ; slots < maxLines; slots++ {
		args = append(args, 0, 0, 0, 0, 0, 0)
	}
	return args
}

// previousLine is the index of the last line before i with the same item
// and supply warehouse, or -1.
func previousLine(in *tpcc.NewOrderInput, i int) int {
	for j := i - 1; j >= 0; j-- {
		if in.Lines[j].ItemID == in.Lines[i].ItemID && in.Lines[j].SupplyWID == in.Lines[i].SupplyWID {
			return j
		}
	}
	return -1
}

func twoDigits(c int64) string {
	if c < 10 {
		return "0" + strconv.FormatInt(c, 10)
	}
	return strconv.FormatInt(c, 10)
}

func firstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

func (e *stmtExec) scanItems(ctx context.Context, args []any, in *tpcc.NewOrderInput, lines []lineState) error {
	rows, err := e.noItems.QueryContext(ctx, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	var id int32
	var price, name, data string
	for rows.Next() {
		if err := rows.Scan(&id, &price, &name, &data); err != nil {
			return err
		}
		p, err := units(price, 2)
		if err != nil {
			return err
		}
		for i, l := range in.Lines {
			if l.ItemID == id {
				lines[i].price, lines[i].found, lines[i].itemName, lines[i].iData = p, true, name, data
			}
		}
	}
	return rows.Err()
}

func (e *stmtExec) scanStock(ctx context.Context, args []any, in *tpcc.NewOrderInput, lines []lineState) error {
	rows, err := e.noStock.QueryContext(ctx, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	var item, w, qty int32
	var data, dist string
	for rows.Next() {
		if err := rows.Scan(&item, &w, &qty, &data, &dist); err != nil {
			return err
		}
		for i, l := range in.Lines[:len(lines)] {
			if l.ItemID == item && l.SupplyWID == w {
				lines[i].dist, lines[i].locked, lines[i].qty, lines[i].sData = dist, true, qty, data
			}
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	for i, l := range lines {
		if !l.locked {
			return fmt.Errorf("no stock row for item %d in warehouse %d", in.Lines[i].ItemID, in.Lines[i].SupplyWID)
		}
	}
	return nil
}

// byNameID picks the ceil(n/2)-th customer (by C_FIRST, C_ID) with last
// name last.
func (e *stmtExec) byNameID(ctx context.Context, w, d int32, last string) (int32, error) {
	rows, err := e.byName.QueryContext(ctx, w, d, last)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	e.ids = e.ids[:0]
	var id int32
	for rows.Next() {
		if err := rows.Scan(&id); err != nil {
			return 0, err
		}
		e.ids = append(e.ids, id)
	}
	if err := rows.Err(); err != nil {
		return 0, err
	}
	if len(e.ids) == 0 {
		return 0, tpcc.ErrNoSuchCustomer
	}
	return e.ids[(len(e.ids)+1)/2-1], nil
}

func (e *stmtExec) Payment(ctx context.Context, in *tpcc.PaymentInput, out *tpcc.PaymentResult) error {
	amt := amount(in.Amount)
	if err := e.begin(ctx); err != nil {
		return e.abort(ctx, err)
	}
	if _, err := e.payWarehouse.ExecContext(ctx, amt, in.WID); err != nil {
		return e.abort(ctx, err)
	}
	if _, err := e.payDistrict.ExecContext(ctx, amt, in.WID, in.DID); err != nil {
		return e.abort(ctx, err)
	}
	var wName, dName string
	w, d := &out.Warehouse, &out.District
	if err := e.payNames.QueryRowContext(ctx, in.WID, in.DID).Scan(&wName, &dName, &w.Street1, &w.Street2, &w.City, &w.State, &w.Zip,
		&d.Street1, &d.Street2, &d.City, &d.State, &d.Zip); err != nil {
		return e.abort(ctx, err)
	}
	cid := in.CID
	if in.ByName {
		var err error
		if cid, err = e.byNameID(ctx, in.CWID, in.CDID, in.CLast); err != nil {
			return e.abort(ctx, err)
		}
	}
	if _, err := e.payCustomer.ExecContext(ctx, amt, amt, in.DID, in.WID, amt, in.CWID, in.CDID, cid); err != nil {
		return e.abort(ctx, err)
	}
	c := &out.Customer
	if err := e.payBalance.QueryRowContext(ctx, in.CWID, in.CDID, cid).Scan(&out.Balance, &out.First, &out.Middle, &out.Last,
		&c.Street1, &c.Street2, &c.City, &c.State, &c.Zip, &out.Phone, &out.Credit, &out.CreditLim, &out.Discount, &out.Data); err != nil {
		return e.abort(ctx, err)
	}
	if _, err := e.payHist.ExecContext(ctx, cid, in.CDID, in.CWID, in.DID, in.WID, amt, wName+"    "+dName); err != nil {
		return e.abort(ctx, err)
	}
	if err := e.commit(ctx); err != nil {
		return e.abort(ctx, err)
	}
	out.CID = cid
	return nil
}

func (e *stmtExec) OrderStatus(ctx context.Context, in *tpcc.OrderStatusInput, out *tpcc.OrderStatusResult) error {
	if _, err := e.conn.ExecContext(ctx, sqlOSBegin); err != nil {
		return e.abort(ctx, err)
	}
	cid := in.CID
	if in.ByName {
		var err error
		if cid, err = e.byNameID(ctx, in.WID, in.DID, in.CLast); err != nil {
			return e.abort(ctx, err)
		}
	}
	if err := e.osCustomer.QueryRowContext(ctx, in.WID, in.DID, cid).Scan(&out.Balance, &out.First, &out.Middle, &out.Last); err != nil {
		return e.abort(ctx, err)
	}
	var entry sql.NullTime
	if err := e.osOrder.QueryRowContext(ctx, in.WID, in.DID, cid).Scan(&out.OID, &entry, &out.Carrier); err != nil {
		return e.abort(ctx, err)
	}
	rows, err := e.osLines.QueryContext(ctx, in.WID, in.DID, out.OID)
	if err != nil {
		return e.abort(ctx, err)
	}
	err = engine.ScanOrderStatusLines(rows, out)
	rows.Close()
	if err != nil {
		return e.abort(ctx, err)
	}
	if err := e.commit(ctx); err != nil {
		return e.abort(ctx, err)
	}
	out.CID = cid
	return nil
}

func (e *stmtExec) Delivery(ctx context.Context, in *tpcc.DeliveryInput, out *tpcc.DeliveryResult) error {
	*out = tpcc.DeliveryResult{}
	if err := e.begin(ctx); err != nil {
		return e.abort(ctx, err)
	}
	for d := range tpcc.DistrictsPerWarehouse {
		e.oids[d] = 0
		err := e.delOldest.QueryRowContext(ctx, in.WID, int32(d+1)).Scan(&e.oids[d])
		switch {
		case errors.Is(err, sql.ErrNoRows):
			out.Skipped++
		case err != nil:
			return e.abort(ctx, err)
		default:
			out.Delivered++
		}
	}
	if out.Delivered > 0 {
		args := append(e.args[:0], in.WID)
		for _, o := range e.oids {
			args = append(args, o)
		}
		if _, err := e.delNewOrders.ExecContext(ctx, args...); err != nil {
			return e.abort(ctx, err)
		}
		args = append(args[:0], in.CarrierID, in.WID)
		for _, o := range e.oids {
			args = append(args, o)
		}
		if _, err := e.delOrders.ExecContext(ctx, args...); err != nil {
			return e.abort(ctx, err)
		}
		args = append(args[:0], in.WID)
		for _, o := range e.oids {
			args = append(args, o)
		}
		args = append(args, in.WID)
		if _, err := e.delCustomers.ExecContext(ctx, args...); err != nil {
			return e.abort(ctx, err)
		}
		e.args = args
	}
	if err := e.commit(ctx); err != nil {
		return e.abort(ctx, err)
	}
	return nil
}

func (e *stmtExec) StockLevel(ctx context.Context, in *tpcc.StockLevelInput, out *tpcc.StockLevelResult) error {
	return e.stockLevel.QueryRowContext(ctx, in.WID, in.DID, in.Threshold).Scan(&out.LowStock)
}
