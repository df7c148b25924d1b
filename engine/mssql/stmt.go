package mssql

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"strings"

	gomssql "github.com/microsoft/go-mssqldb"

	"github.com/rightsize/rightsize/engine"
	"github.com/rightsize/rightsize/tpcc"
)

// stmtExec runs each transaction as parameterised client-side statements
// (sp_executesql) in an explicit transaction on its dedicated connection.
// The statements mirror the procedures of procs.go step by step; where a
// procedure keeps a value in a variable, a statement returns it with OUTPUT
// (UPDATE ... OUTPUT is SQL Server's RETURNING), and the writes of a
// New-Order go as one batch.
type stmtExec struct {
	conn         *sql.Conn
	args         []any
	prices       []int64 // cents
	found        []bool
	names, iData []string
	ids          []int32
}

func newStmtExec(conn *sql.Conn) *stmtExec { return &stmtExec{conn: conn} }

func (e *stmtExec) Close(ctx context.Context) error { return e.conn.Close() }

// abort rolls back after a failed statement (a no-op when the server has
// already ended the transaction, as XACT_ABORT and deadlocks do) and returns
// the statement's error.
func abort(tx *sql.Tx, err error) error {
	_ = tx.Rollback()
	return err
}

const (
	sqlNOWarehouse = `SELECT CAST(w_tax AS float) FROM dbo.warehouse WHERE w_id = @w`
	sqlNODistrict  = `UPDATE dbo.district SET d_next_o_id = d_next_o_id + 1
  OUTPUT CAST(inserted.d_tax AS float), deleted.d_next_o_id
  WHERE d_w_id = @w AND d_id = @d`
	sqlNOCustomer = `SELECT CAST(c_discount AS float), c_last, c_credit FROM dbo.customer WHERE c_w_id = @w AND c_d_id = @d AND c_id = @c`
)

// lineParam names the parameter of one order line's field: "i3" is the
// item of line 3 (i item, s supply warehouse, q quantity, p price,
// n OL_NUMBER).
func lineParam(field byte, line int) string {
	if line < len(lineParams[0]) {
		if f := strings.IndexByte(lineFields, field); f >= 0 {
			return lineParams[f][line]
		}
	}
	return fmt.Sprintf("%c%d", field, line)
}

// lineFields are the fields of a line's parameters.
const lineFields = "isqpn"

// lineParams caches the parameter names of orders of up to 15 lines.
var lineParams = func() (p [len(lineFields)][tpcc.MaxOrderLines + 1]string) {
	for f, c := range lineFields {
		for k := range p[f] {
			p[f][k] = fmt.Sprintf("%c%d", c, k)
		}
	}
	return p
}()

// itemsSQL reads the n items of an order in one statement.
func itemsSQL(n int) string {
	var b strings.Builder
	b.WriteString("SELECT i_id, CAST(i_price AS float), i_name, i_data FROM dbo.item WHERE i_id IN (")
	for k := 1; k <= n; k++ {
		if k > 1 {
			b.WriteString(", ")
		}
		b.WriteString("@" + lineParam('i', k))
	}
	b.WriteString(")")
	return b.String()
}

// newOrderWriteSQL is the writing half of a New-Order of n lines in
// district d, as one batch: the ORDER and NEW-ORDER rows, then per line one
// UPDATE of the stock row whose OUTPUT INTO inserts the order line with
// that district's S_DIST_xx (the procedure's UPDATE + INSERT, in one
// statement) and whose second OUTPUT returns the line's S_QUANTITY and
// S_DATA (one result set per line). Lines are updated in input order,
// which is sorted by (supply warehouse, item), so concurrent orders lock
// stock in one order; each keeps its OL_NUMBER (@nK).
func newOrderWriteSQL(d, n int) string {
	var b strings.Builder
	b.WriteString(`INSERT INTO dbo.orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_carrier_id, o_ol_cnt, o_all_local)
  VALUES (@o, @d, @w, @c, GETDATE(), NULL, @n, @all_local);
INSERT INTO dbo.new_order (no_o_id, no_d_id, no_w_id) VALUES (@o, @d, @w);
`)
	for k := 1; k <= n; k++ {
		i, s, q, p, num := "@"+lineParam('i', k), "@"+lineParam('s', k), "@"+lineParam('q', k), "@"+lineParam('p', k), "@"+lineParam('n', k)
		fmt.Fprintf(&b, `UPDATE dbo.stock SET
    s_quantity = CASE WHEN s_quantity >= %[3]s + 10 THEN s_quantity - %[3]s ELSE s_quantity - %[3]s + 91 END,
    s_ytd = s_ytd + %[3]s, s_order_cnt = s_order_cnt + 1,
    s_remote_cnt = s_remote_cnt + CASE WHEN %[2]s <> @w THEN 1 ELSE 0 END
  OUTPUT @o, @d, @w, %[5]s, %[1]s, %[2]s, %[3]s, %[3]s * CAST(%[4]s AS numeric(5,2)), inserted.s_dist_%02[6]d
  INTO dbo.order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_dist_info)
  OUTPUT inserted.s_quantity, inserted.s_data
  WHERE s_i_id = %[1]s AND s_w_id = %[2]s;
`, i, s, q, p, num, d)
	}
	return b.String()
}

// newOrderWriteArgs appends the arguments of newOrderWriteSQL to args:
// the order id, the inputs, and per line written (the first valid ones)
// its item, supply warehouse, quantity, price (in cents, sent as exact
// decimal text) and OL_NUMBER.
func newOrderWriteArgs(args []any, oid int32, in *tpcc.NewOrderInput, prices []int64, valid int) []any {
	args = append(args, sql.Named("o", oid), sql.Named("w", in.WID), sql.Named("d", in.DID), sql.Named("c", in.CID),
		sql.Named("n", int32(len(in.Lines))), sql.Named("all_local", allLocal(in)))
	for k, l := range in.Lines[:valid] {
		args = append(args, sql.Named(lineParam('i', k+1), l.ItemID), sql.Named(lineParam('s', k+1), l.SupplyWID),
			sql.Named(lineParam('q', k+1), l.Quantity), sql.Named(lineParam('p', k+1), gomssql.VarChar(centsText(prices[k]))),
			sql.Named(lineParam('n', k+1), l.Number))
	}
	return args
}

// orderTotal is round(sum * (1 - disc) * (1 + wTax + dTax), 2) computed
// exactly in integers (cents, and 1/10000 for the rates), rounding half away
// from zero: what rs_new_order computes in numeric arithmetic, so both
// modes report the same total to the cent.
func orderTotal(sumCents int64, disc, wTax, dTax float64) float64 {
	d := int64(math.Round(disc * 1e4))
	t := int64(math.Round(wTax*1e4)) + int64(math.Round(dTax*1e4))
	v := sumCents * (10000 - d) * (10000 + t) // cents × 10^8
	const scale = 100_000_000
	var c int64
	if v >= 0 {
		c = (v + scale/2) / scale
	} else {
		c = (v - scale/2) / scale
	}
	return float64(c) / 100
}

// NewOrder reads the items of all lines at once, then writes every valid
// line (the lines before an unused item, which sorts last); an unused item
// rolls all of it back afterwards (2.4.2.3).
func (e *stmtExec) NewOrder(ctx context.Context, in *tpcc.NewOrderInput, out *tpcc.NewOrderResult) error {
	*out = tpcc.NewOrderResult{Lines: out.Lines[:0]}
	n := len(in.Lines)
	tx, err := e.conn.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	w, d := sql.Named("w", in.WID), sql.Named("d", in.DID)
	var oid int32
	if err := tx.QueryRowContext(ctx, sqlNOWarehouse, w).Scan(&out.WTax); err != nil {
		return abort(tx, err)
	}
	if err := tx.QueryRowContext(ctx, sqlNODistrict, w, d).Scan(&out.DTax, &oid); err != nil {
		return abort(tx, err)
	}
	if err := tx.QueryRowContext(ctx, sqlNOCustomer, w, d, sql.Named("c", in.CID)).Scan(&out.Discount, &out.CLast, &out.Credit); err != nil {
		return abort(tx, err)
	}

	valid, err := e.readItems(ctx, tx, in)
	if err != nil {
		return abort(tx, err)
	}
	prices, names, iData := e.prices[:n], e.names[:n], e.iData[:n]
	args := newOrderWriteArgs(e.args[:0], oid, in, prices, valid)
	e.args = args
	var sum int64
	for k, l := range in.Lines[:valid] {
		amount := int64(l.Quantity) * prices[k]
		sum += amount
		out.Lines = append(out.Lines, tpcc.NewOrderLine{ItemName: names[k], Price: float64(prices[k]) / 100, Amount: float64(amount) / 100})
	}
	if err := e.writeLines(ctx, tx, newOrderWriteSQL(int(in.DID), valid), args, iData, out); err != nil {
		return abort(tx, err)
	}
	if valid < n { // the simulated user error of clause 2.4.2.3: every valid item was processed, now undo it
		if err := tx.Rollback(); err != nil {
			return err
		}
		*out = tpcc.NewOrderResult{RolledBack: true, Lines: out.Lines[:0]}
		return nil
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	out.OID = oid
	out.Total = orderTotal(sum, out.Discount, out.WTax, out.DTax)
	return nil
}

// readItems reads the order's items in one query into e.prices, e.found,
// e.names and e.iData (by line) and returns how many lines come before the
// first unused item.
func (e *stmtExec) readItems(ctx context.Context, tx *sql.Tx, in *tpcc.NewOrderInput) (valid int, err error) {
	n := len(in.Lines)
	args := e.args[:0]
	for k, l := range in.Lines {
		args = append(args, sql.Named(lineParam('i', k+1), l.ItemID))
	}
	e.args = args
	if cap(e.prices) < n {
		e.prices, e.found, e.names, e.iData = make([]int64, n), make([]bool, n), make([]string, n), make([]string, n)
	}
	prices, found, names, iData := e.prices[:n], e.found[:n], e.names[:n], e.iData[:n]
	clear(found)
	rows, err := tx.QueryContext(ctx, itemsSQL(n), args...)
	if err != nil {
		return 0, err
	}
	for rows.Next() {
		var id int32
		var price float64
		var name, data string
		if err := rows.Scan(&id, &price, &name, &data); err != nil {
			rows.Close()
			return 0, err
		}
		for k, l := range in.Lines {
			if l.ItemID == id {
				prices[k], found[k], names[k], iData[k] = cents(price), true, name, data
			}
		}
	}
	if err := rows.Close(); err != nil {
		return 0, err
	}
	if err := rows.Err(); err != nil {
		return 0, err
	}
	valid = n
	for k, ok := range found {
		if !ok {
			valid = min(valid, k)
		}
	}
	return valid, nil
}

// writeLines runs the write batch and reads each line's S_QUANTITY and
// S_DATA (one result set per line) into out's lines.
func (e *stmtExec) writeLines(ctx context.Context, tx *sql.Tx, batch string, args []any, iData []string, out *tpcc.NewOrderResult) error {
	rows, err := tx.QueryContext(ctx, batch, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for k := range out.Lines {
		if k > 0 && !rows.NextResultSet() {
			return fmt.Errorf("new order write batch: no result for line %d: %w", k+1, errors.Join(rows.Err(), sql.ErrNoRows))
		}
		if !rows.Next() {
			return fmt.Errorf("new order write batch: no stock row for line %d: %w", k+1, errors.Join(rows.Err(), sql.ErrNoRows))
		}
		var sData string
		if err := rows.Scan(&out.Lines[k].StockQty, &sData); err != nil {
			return err
		}
		out.Lines[k].BrandGeneric = tpcc.Brand(iData[k], sData)
	}
	return rows.Close()
}

// sqlAmount is the payment amount, sent as exact decimal text.
const sqlAmount = "CAST(@amount AS numeric(6,2))"

var (
	sqlPayWarehouse = `UPDATE dbo.warehouse SET w_ytd = w_ytd + ` + sqlAmount + `
  OUTPUT inserted.w_name, inserted.w_street_1, inserted.w_street_2, inserted.w_city, inserted.w_state, inserted.w_zip WHERE w_id = @w`
	sqlPayDistrict = `UPDATE dbo.district SET d_ytd = d_ytd + ` + sqlAmount + `
  OUTPUT inserted.d_name, inserted.d_street_1, inserted.d_street_2, inserted.d_city, inserted.d_state, inserted.d_zip
  WHERE d_w_id = @w AND d_id = @d`
	sqlByName      = `SELECT c_id FROM dbo.customer WHERE c_w_id = @w AND c_d_id = @d AND c_last = @last ORDER BY c_first, c_id`
	sqlPayCustomer = `UPDATE dbo.customer SET
    c_ytd_payment = c_ytd_payment + ` + sqlAmount + `,
    c_payment_cnt = c_payment_cnt + 1,
    c_data = CASE WHEN c_credit = 'BC' THEN LEFT(` + bcPrefix("@d", "@w", sqlAmount) + ` + c_data, 500) ELSE c_data END,
    c_balance = c_balance - ` + sqlAmount + `
  OUTPUT CAST(inserted.c_balance AS float), inserted.c_first, inserted.c_middle, inserted.c_last, inserted.c_street_1,
    inserted.c_street_2, inserted.c_city, inserted.c_state, inserted.c_zip, inserted.c_phone, inserted.c_credit,
    CAST(inserted.c_credit_lim AS float), CAST(inserted.c_discount AS float),
    CASE WHEN inserted.c_credit = 'BC' THEN LEFT(inserted.c_data, 200) ELSE '' END
  WHERE c_w_id = @cw AND c_d_id = @cd AND c_id = @c`
	sqlPayHistory = `INSERT INTO dbo.history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, h_data)
  VALUES (@c, @cd, @cw, @d, @w, GETDATE(), ` + sqlAmount + `, @h_data)`
)

// middle picks the ceil(n/2)-th (1-based) customer of a by-name lookup.
func middle(ids []int32) int32 { return ids[(len(ids)+1)/2-1] }

// byName returns the middle customer named last in district (w, d).
func (e *stmtExec) byName(ctx context.Context, tx *sql.Tx, w, d int32, last string) (int32, error) {
	rows, err := tx.QueryContext(ctx, sqlByName, sql.Named("w", w), sql.Named("d", d), sql.Named("last", gomssql.VarChar(last)))
	if err != nil {
		return 0, err
	}
	e.ids = e.ids[:0]
	for rows.Next() {
		var id int32
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return 0, err
		}
		e.ids = append(e.ids, id)
	}
	if err := rows.Close(); err != nil {
		return 0, err
	}
	if err := rows.Err(); err != nil {
		return 0, err
	}
	if len(e.ids) == 0 {
		return 0, tpcc.ErrNoSuchCustomer
	}
	return middle(e.ids), nil
}

func (e *stmtExec) Payment(ctx context.Context, in *tpcc.PaymentInput, out *tpcc.PaymentResult) error {
	amount := sql.Named("amount", gomssql.VarChar(centsText(cents(in.Amount))))
	w, d := sql.Named("w", in.WID), sql.Named("d", in.DID)
	tx, err := e.conn.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	var wName, dName string
	wa, da := &out.Warehouse, &out.District
	if err := tx.QueryRowContext(ctx, sqlPayWarehouse, amount, w).Scan(&wName, &wa.Street1, &wa.Street2, &wa.City, &wa.State, &wa.Zip); err != nil {
		return abort(tx, err)
	}
	if err := tx.QueryRowContext(ctx, sqlPayDistrict, amount, w, d).Scan(&dName, &da.Street1, &da.Street2, &da.City, &da.State, &da.Zip); err != nil {
		return abort(tx, err)
	}
	cid := in.CID
	if in.ByName {
		if cid, err = e.byName(ctx, tx, in.CWID, in.CDID, in.CLast); err != nil {
			return abort(tx, err)
		}
	}
	out.CID = cid
	cw, cd, c := sql.Named("cw", in.CWID), sql.Named("cd", in.CDID), sql.Named("c", cid)
	ca := &out.Customer
	if err := tx.QueryRowContext(ctx, sqlPayCustomer, amount, w, d, cw, cd, c).Scan(&out.Balance, &out.First, &out.Middle, &out.Last,
		&ca.Street1, &ca.Street2, &ca.City, &ca.State, &ca.Zip, &out.Phone, &out.Credit, &out.CreditLim, &out.Discount, &out.Data); err != nil {
		return abort(tx, err)
	}
	if _, err := tx.ExecContext(ctx, sqlPayHistory, amount, w, d, cw, cd, c,
		sql.Named("h_data", gomssql.VarChar(wName+"    "+dName))); err != nil {
		return abort(tx, err)
	}
	return tx.Commit()
}

const (
	sqlOSCustomer = `SELECT CAST(c_balance AS float), c_first, c_middle, c_last FROM dbo.customer
  WHERE c_w_id = @w AND c_d_id = @d AND c_id = @c`
	sqlOSOrder = `SELECT TOP (1) o_id, o_entry_d, ISNULL(o_carrier_id, 0) FROM dbo.orders
  WHERE o_w_id = @w AND o_d_id = @d AND o_c_id = @c ORDER BY o_id DESC`
	sqlOSLines = `SELECT ol_i_id, ol_supply_w_id, ol_quantity, CAST(ol_amount AS float),
    CASE WHEN ol_delivery_d IS NULL THEN 0 ELSE 1 END FROM dbo.order_line
  WHERE ol_w_id = @w AND ol_d_id = @d AND ol_o_id = @o ORDER BY ol_number`
)

func (e *stmtExec) OrderStatus(ctx context.Context, in *tpcc.OrderStatusInput, out *tpcc.OrderStatusResult) error {
	w, d := sql.Named("w", in.WID), sql.Named("d", in.DID)
	tx, err := e.conn.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	cid := in.CID
	if in.ByName {
		if cid, err = e.byName(ctx, tx, in.WID, in.DID, in.CLast); err != nil {
			return abort(tx, err)
		}
	}
	out.CID = cid
	c := sql.Named("c", cid)
	if err := tx.QueryRowContext(ctx, sqlOSCustomer, w, d, c).Scan(&out.Balance, &out.First, &out.Middle, &out.Last); err != nil {
		return abort(tx, err)
	}
	var entry sql.NullTime
	out.OID, out.Carrier = 0, 0
	err = tx.QueryRowContext(ctx, sqlOSOrder, w, d, c).Scan(&out.OID, &entry, &out.Carrier)
	if err != nil && !errors.Is(err, sql.ErrNoRows) { // no order: o_id 0, as the procedure reports
		return abort(tx, err)
	}
	rows, err := tx.QueryContext(ctx, sqlOSLines, w, d, sql.Named("o", out.OID))
	if err != nil {
		return abort(tx, err)
	}
	err = engine.ScanOrderStatusLines(rows, out)
	if cerr := rows.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return abort(tx, err)
	}
	return tx.Commit()
}

const (
	// sqlDeliveryOldest finds (and U-locks, so a concurrent Delivery of the
	// same warehouse waits) the oldest undelivered order of a district.
	sqlDeliveryOldest = `SELECT TOP (1) no_o_id FROM dbo.new_order WITH (UPDLOCK, ROWLOCK)
  WHERE no_w_id = @w AND no_d_id = @d ORDER BY no_o_id`
	// sqlDeliveryDistrict delivers order @o of district (@w, @d).
	sqlDeliveryDistrict = `DELETE FROM dbo.new_order WHERE no_w_id = @w AND no_d_id = @d AND no_o_id = @o;
UPDATE dbo.orders SET o_carrier_id = @carrier WHERE o_w_id = @w AND o_d_id = @d AND o_id = @o;
UPDATE dbo.order_line SET ol_delivery_d = GETDATE() WHERE ol_w_id = @w AND ol_d_id = @d AND ol_o_id = @o;
UPDATE dbo.customer SET
    c_balance = c_balance + (SELECT SUM(ol_amount) FROM dbo.order_line WHERE ol_w_id = @w AND ol_d_id = @d AND ol_o_id = @o),
    c_delivery_cnt = c_delivery_cnt + 1
  WHERE c_w_id = @w AND c_d_id = @d
    AND c_id = (SELECT o_c_id FROM dbo.orders WHERE o_w_id = @w AND o_d_id = @d AND o_id = @o);`
)

func (e *stmtExec) Delivery(ctx context.Context, in *tpcc.DeliveryInput, out *tpcc.DeliveryResult) error {
	*out = tpcc.DeliveryResult{}
	tx, err := e.conn.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	w, carrier := sql.Named("w", in.WID), sql.Named("carrier", in.CarrierID)
	for did := int32(1); did <= tpcc.DistrictsPerWarehouse; did++ {
		d := sql.Named("d", did)
		var oid int32
		err := tx.QueryRowContext(ctx, sqlDeliveryOldest, w, d).Scan(&oid)
		if errors.Is(err, sql.ErrNoRows) {
			out.Skipped++
			continue
		}
		if err != nil {
			return abort(tx, err)
		}
		if _, err := tx.ExecContext(ctx, sqlDeliveryDistrict, w, d, carrier, sql.Named("o", oid)); err != nil {
			return abort(tx, err)
		}
		out.Delivered++
	}
	if err := tx.Commit(); err != nil {
		*out = tpcc.DeliveryResult{}
		return err
	}
	return nil
}

const (
	sqlSLNext  = `SELECT d_next_o_id FROM dbo.district WHERE d_w_id = @w AND d_id = @d`
	sqlSLCount = `SELECT COUNT(DISTINCT s.s_i_id)
  FROM dbo.order_line AS ol JOIN dbo.stock AS s ON s.s_i_id = ol.ol_i_id AND s.s_w_id = ol.ol_w_id
  WHERE ol.ol_w_id = @w AND ol.ol_d_id = @d AND ol.ol_o_id >= @next - 20 AND ol.ol_o_id < @next
    AND s.s_quantity < @threshold`
)

// StockLevel runs at read committed, all clause 2.8.2.3 asks.
func (e *stmtExec) StockLevel(ctx context.Context, in *tpcc.StockLevelInput, out *tpcc.StockLevelResult) error {
	w, d := sql.Named("w", in.WID), sql.Named("d", in.DID)
	tx, err := e.conn.BeginTx(ctx, &sql.TxOptions{Isolation: sql.LevelReadCommitted})
	if err != nil {
		return err
	}
	var next int32
	if err := tx.QueryRowContext(ctx, sqlSLNext, w, d).Scan(&next); err != nil {
		return abort(tx, err)
	}
	if err := tx.QueryRowContext(ctx, sqlSLCount, w, d, sql.Named("next", next), sql.Named("threshold", in.Threshold)).Scan(&out.LowStock); err != nil {
		return abort(tx, err)
	}
	return tx.Commit()
}

// statementTexts lists the statement texts the statements mode sends, for
// tests: with all, the New-Order batches of every district and line count,
// otherwise those of the extremes only.
func statementTexts(all bool) map[string]string {
	m := map[string]string{
		"new_order/warehouse": sqlNOWarehouse, "new_order/district": sqlNODistrict, "new_order/customer": sqlNOCustomer,
		"payment/warehouse": sqlPayWarehouse, "payment/district": sqlPayDistrict, "payment/customer": sqlPayCustomer,
		"payment/history": sqlPayHistory, "by_name": sqlByName,
		"order_status/customer": sqlOSCustomer, "order_status/order": sqlOSOrder, "order_status/lines": sqlOSLines,
		"delivery/oldest": sqlDeliveryOldest, "delivery/district": sqlDeliveryDistrict,
		"stock_level/next": sqlSLNext, "stock_level/count": sqlSLCount, "session": sessionSetup(engine.IsolationSpec),
		"session/read-committed": sessionSetup(engine.IsolationReadCommitted),
	}
	if all {
		for n := tpcc.MinOrderLines; n <= tpcc.MaxOrderLines; n++ {
			m[fmt.Sprintf("new_order/items/%d", n)] = itemsSQL(n)
			for d := 1; d <= tpcc.DistrictsPerWarehouse; d++ {
				m[fmt.Sprintf("new_order/write/d%d/n%d", d, n)] = newOrderWriteSQL(d, n)
			}
		}
		return m
	}
	// The variants differ only in numbers: the extremes represent them.
	m["new_order/items/5"] = itemsSQL(tpcc.MinOrderLines)
	m["new_order/items/15"] = itemsSQL(tpcc.MaxOrderLines)
	m["new_order/write/d1/n5"] = newOrderWriteSQL(1, tpcc.MinOrderLines)
	m["new_order/write/d10/n15"] = newOrderWriteSQL(tpcc.DistrictsPerWarehouse, tpcc.MaxOrderLines)
	return m
}
