package postgres

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/rightsize/rightsize/tpcc"
)

// stmtExec runs each transaction as client-side statements in an explicit
// transaction: statements prepared through pgconn, then, on the hijacked
// connection (protocol.go), a transaction's statements are bound and
// executed in one pipeline (one write, one Sync, one round trip), their
// parameters as text and their rows in binary, decoded in place into the
// result structs as they arrive. Its SQL mirrors procs.go statement by
// statement, but that Order-Status reads the last order and its lines in
// one statement. Nothing is allocated per transaction.
type stmtExec struct {
	session
	queued []*stmt // the statements of the pipeline being built, in order

	// The result of the transaction running, and the text its strings
	// alias (one ScreenText per transaction type, as procExec keeps).
	no      *tpcc.NewOrderResult
	pay     *tpcc.PaymentResult
	os      *tpcc.OrderStatusResult
	del     *tpcc.DeliveryResult
	sl      *tpcc.StockLevelResult
	screen  *tpcc.ScreenText
	screens [tpcc.NumTxnTypes]tpcc.ScreenText

	// processed counts the order lines whose stock update and insert ran
	// in the last New-Order (tests read it: a rolled-back order processes
	// every valid item first).
	processed int
}

// stmt is a statement the executor prepares: its name, its SQL, what its
// rows hold (the decoder that reads them) and the kinds of its result
// columns, checked when it is prepared: i int4, f float8, s text
// (text, varchar or char), b bool.
type stmt struct {
	name, sql string
	rows      rowKind
	cols      string
}

// rowKind says what a statement's rows are and how many it must return.
type rowKind uint8

const (
	noRows         rowKind = iota
	wTaxRow                // New-Order: W_TAX
	nextOrderRow           // D_TAX, O_ID
	customerNORow          // C_DISCOUNT, C_LAST, C_CREDIT
	orderLineRows          // per valid item: I_NAME, I_PRICE, OL_AMOUNT, S_QUANTITY, brand-generic
	totalRow               // the display total
	warehouseRow           // Payment: the warehouse's address
	districtRow            // the district's address
	payCustomerRow         // the customer
	osCustomerRow          // Order-Status: C_ID, C_BALANCE, C_FIRST, C_MIDDLE, C_LAST
	osLineRows             // per line: O_ID, O_CARRIER_ID, then the line's columns
	deliveredRow           // Delivery: 1 when the district had an order, else 0
	lowStockRow            // Stock-Level
)

// needsRow reports whether a statement of kind k must return a row; only
// the first is read, but of the kinds that end in "Rows".
func (k rowKind) needsRow() bool { return k != noRows && k != orderLineRows }

// many reports whether every row of a statement of kind k is read.
func (k rowKind) many() bool { return k == orderLineRows || k == osLineRows }

var (
	stBegin         = stmt{"rs_begin", "BEGIN", noRows, ""}
	stBeginReadOnly = stmt{"rs_begin_read_only", "BEGIN READ ONLY", noRows, ""} // at the session's isolation (see NewExecutor)
	// stBeginLocking begins Payment and Delivery at read committed at any
	// isolation choice: they read every value that can change only in the
	// UPDATE (or FOR UPDATE) that locks its row until COMMIT, and other
	// rows' unchanging columns, so locks give them level 3 and users of
	// one warehouse queue on its row instead of failing (isolationLevel).
	stBeginLocking = stmt{"rs_begin_locking", "BEGIN ISOLATION LEVEL READ COMMITTED", noRows, ""}
	stCommit       = stmt{"rs_commit", "COMMIT", noRows, ""}
)

// New-Order (clause 2.4.2.2).
var (
	stWarehouseTax = stmt{"rs_no_w_tax", `SELECT w_tax::float8 FROM warehouse WHERE w_id = $1`, wTaxRow, "f"}
	stNextOrder    = stmt{"rs_no_next_order", `UPDATE district SET d_next_o_id = d_next_o_id + 1 WHERE d_w_id = $1 AND d_id = $2
 RETURNING d_tax::float8, d_next_o_id - 1`, nextOrderRow, "fi"}
	stCustomerNO = stmt{"rs_no_customer", `SELECT c_discount::float8, c_last, c_credit FROM customer WHERE c_w_id = $1 AND c_d_id = $2 AND c_id = $3`,
		customerNORow, "fss"}
	// stItemsTotal comes after every line was processed: it returns the
	// order's total as procs.go computes it, or, when an item number does
	// not exist (the simulated user error), fails with invalidItemMarker,
	// which aborts the transaction so the COMMIT after it rolls back.
	stItemsTotal = stmt{"rs_no_total", `SELECT CASE WHEN count(i.i_id) = cardinality($1::int[])
  THEN round(sum(l.qty * i.i_price) * (1 - max(c.c_discount)) * (1 + max(w.w_tax) + max(d.d_tax)), 2)::float8
  ELSE ('` + invalidItemMarker + `' || count(i.i_id))::float8 END
FROM (unnest($1::int[], $2::int[]) AS l(id, qty) LEFT JOIN item i ON i.i_id = l.id),
  warehouse w, district d, customer c
WHERE w.w_id = $3 AND d.d_w_id = $3 AND d.d_id = $4 AND c.c_w_id = $3 AND c.c_d_id = $4 AND c.c_id = $5`, totalRow, "f"}
	// The order id is the district's counter as this transaction left it.
	stInsOrder = stmt{"rs_no_ins_order", `INSERT INTO orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_carrier_id, o_ol_cnt, o_all_local)
 VALUES ((SELECT d_next_o_id - 1 FROM district WHERE d_w_id = $3 AND d_id = $2), $2, $3, $1, localtimestamp, NULL, $4, $5)`, noRows, ""}
	stInsNewOrder = stmt{"rs_no_ins_new_order", `INSERT INTO new_order (no_o_id, no_d_id, no_w_id)
 VALUES ((SELECT d_next_o_id - 1 FROM district WHERE d_w_id = $2 AND d_id = $1), $1, $2)`, noRows, ""}
)

// invalidItemMarker starts the text of the cast error stItemsTotal raises
// for an unused item number.
const invalidItemMarker = "rightsize: unused item number "

// isInvalidItem reports whether err is stItemsTotal's simulated user error.
func isInvalidItem(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == "22P02" && strings.Contains(pgErr.Message, invalidItemMarker)
}

// stOrderLine[d-1] updates one stock row and inserts the order line with
// that district's S_DIST_xx and the item's price, in one statement, and
// returns the line's output (I_NAME, I_PRICE, OL_AMOUNT, S_QUANTITY,
// brand-generic); no row for an unused item. Parameters: $1 district,
// $2 warehouse, $3 line number, $4 item, $5 supply warehouse, $6 quantity.
var stOrderLine = func() (s [tpcc.DistrictsPerWarehouse]stmt) {
	for d := range s {
		s[d] = stmt{fmt.Sprintf("rs_no_line_%02d", d+1), fmt.Sprintf(`WITH s AS (UPDATE stock SET
  s_quantity = CASE WHEN s_quantity >= $6 + 10 THEN s_quantity - $6 ELSE s_quantity - $6 + 91 END,
  s_ytd = s_ytd + $6, s_order_cnt = s_order_cnt + 1, s_remote_cnt = s_remote_cnt + CASE WHEN $5 <> $2 THEN 1 ELSE 0 END
  WHERE s_i_id = $4 AND s_w_id = $5 RETURNING s_quantity, s_data, s_dist_%02d AS dist),
ol AS (INSERT INTO order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id, ol_delivery_d, ol_quantity, ol_amount, ol_dist_info)
SELECT (SELECT d_next_o_id - 1 FROM district WHERE d_w_id = $2 AND d_id = $1), $1, $2, $3, $4, $5, NULL, $6, $6 * i.i_price, s.dist
FROM s, item i WHERE i.i_id = $4)
SELECT i.i_name, i.i_price::float8, ($6 * i.i_price)::float8, s.s_quantity,
  CASE WHEN strpos(i.i_data, 'ORIGINAL') > 0 AND strpos(s.s_data, 'ORIGINAL') > 0 THEN 'B' ELSE 'G' END
FROM s, item i WHERE i.i_id = $4`, d+1), orderLineRows, "sffis"}
	}
	return s
}()

// NewOrder sends the whole transaction in one pipeline (one round trip).
// Every line is processed before the items' check, so an order with an
// unused item does all its valid items' work and then rolls back (2.4.2.3).
func (e *stmtExec) NewOrder(ctx context.Context, in *tpcc.NewOrderInput, out *tpcc.NewOrderResult) error {
	*out = tpcc.NewOrderResult{Lines: out.Lines[:0]}
	e.start(tpcc.NewOrderTxn)
	e.no = out
	allLocal := int32(0)
	if in.AllLocal {
		allLocal = 1
	}
	e.queue(&stBegin)
	e.int(in.WID)
	e.queue(&stWarehouseTax)
	e.int(in.WID)
	e.int(in.DID)
	e.queue(&stNextOrder)
	e.int(in.WID)
	e.int(in.DID)
	e.int(in.CID)
	e.queue(&stCustomerNO)
	e.int(in.CID)
	e.int(in.DID)
	e.int(in.WID)
	e.int(int32(len(in.Lines)))
	e.int(allLocal)
	e.queue(&stInsOrder)
	e.int(in.DID)
	e.int(in.WID)
	e.queue(&stInsNewOrder)
	for _, l := range in.Lines {
		e.int(in.DID)
		e.int(in.WID)
		e.int(l.Number)
		e.int(l.ItemID)
		e.int(l.SupplyWID)
		e.int(l.Quantity)
		e.queue(&stOrderLine[in.DID-1])
	}
	e.intArray(in.Lines, func(l *tpcc.OrderLineInput) int32 { return l.ItemID })
	e.intArray(in.Lines, func(l *tpcc.OrderLineInput) int32 { return l.Quantity })
	e.int(in.WID)
	e.int(in.DID)
	e.int(in.CID)
	e.queue(&stItemsTotal)
	e.queue(&stCommit)
	e.processed = 0
	err := e.run(ctx, "new order")
	if err != nil && isInvalidItem(err) { // the simulated user error, rolled back
		*out = tpcc.NewOrderResult{RolledBack: true, Lines: out.Lines[:0]}
		return nil
	}
	return err
}

// Payment (clause 2.5.2.2). The customer of a Payment: by id ($3) or the
// middle one by last name ($3), chosen in SQL in the same transaction. A
// name nobody has fails the statement (and so the whole transaction); the
// volatile random() keeps the planner from folding that error into every
// plan, since custom plans see parameters as constants.
// Parameters of the customer and history statements: $1 customer's
// warehouse, $2 customer's district, $3 id or last name, $4 district,
// $5 amount, $6 warehouse.
const (
	cidByID   = `$3::int`
	cidByName = `COALESCE((SELECT (array_agg(c_id ORDER BY c_first, c_id))[((count(*) + 1) / 2)::int]
    FROM customer WHERE c_w_id = $1 AND c_d_id = $2 AND c_last = $3::text),
    ('rightsize: no customer named ' || $3::text || left(random()::text, 0))::int)`
)

func paymentCustomerSQL(cid string) string {
	return `UPDATE customer SET c_balance = c_balance - $5::float8::numeric, c_ytd_payment = c_ytd_payment + $5::float8::numeric,
  c_payment_cnt = c_payment_cnt + 1,
  c_data = CASE WHEN c_credit = 'BC'
    THEN left(c_id || ' ' || c_d_id || ' ' || c_w_id || ' ' || $4::int || ' ' || $6::int || ' ' || $5::float8::numeric || ' | ' || c_data, 500)
    ELSE c_data END
 WHERE c_w_id = $1 AND c_d_id = $2 AND c_id = ` + cid + ` RETURNING c_id, c_balance::float8,
  c_first, c_middle, c_last, c_street_1, c_street_2, c_city, c_state, c_zip, c_phone, c_credit,
  c_credit_lim::float8, c_discount::float8, CASE WHEN c_credit = 'BC' THEN left(c_data, 200) ELSE '' END`
}

func paymentHistorySQL(cid string) string {
	return `INSERT INTO history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, h_data)
 SELECT ` + cid + `, $2, $1, $4, $6, localtimestamp, $5::float8::numeric,
   (SELECT w_name FROM warehouse WHERE w_id = $6) || '    ' || (SELECT d_name FROM district WHERE d_w_id = $6 AND d_id = $4)`
}

var (
	stPayCustomer = [2]stmt{{"rs_pay_customer_id", paymentCustomerSQL(cidByID), payCustomerRow, "ifssssssssssffs"},
		{"rs_pay_customer_name", paymentCustomerSQL(cidByName), payCustomerRow, "ifssssssssssffs"}}
	stPayHistory = [2]stmt{{"rs_pay_history_id", paymentHistorySQL(cidByID), noRows, ""},
		{"rs_pay_history_name", paymentHistorySQL(cidByName), noRows, ""}}
	stPayWarehouse = stmt{"rs_pay_warehouse",
		`UPDATE warehouse SET w_ytd = w_ytd + $2::float8::numeric WHERE w_id = $1 RETURNING w_street_1, w_street_2, w_city, w_state, w_zip`,
		warehouseRow, "sssss"}
	stPayDistrict = stmt{"rs_pay_district",
		`UPDATE district SET d_ytd = d_ytd + $3::float8::numeric WHERE d_w_id = $1 AND d_id = $2 RETURNING d_street_1, d_street_2, d_city, d_state, d_zip`,
		districtRow, "sssss"}
)

// Payment sends the whole transaction in one pipeline (one round trip).
func (e *stmtExec) Payment(ctx context.Context, in *tpcc.PaymentInput, out *tpcc.PaymentResult) error {
	e.start(tpcc.PaymentTxn)
	e.pay = out
	e.queue(&stBeginLocking)
	e.int(in.WID)
	e.float(in.Amount)
	e.queue(&stPayWarehouse)
	e.int(in.WID)
	e.int(in.DID)
	e.float(in.Amount)
	e.queue(&stPayDistrict)
	v := 0
	if in.ByName {
		v = 1
	}
	for _, s := range []*stmt{&stPayCustomer[v], &stPayHistory[v]} {
		e.int(in.CWID)
		e.int(in.CDID)
		if in.ByName {
			e.text(in.CLast)
		} else {
			e.int(in.CID)
		}
		e.int(in.DID)
		e.float(in.Amount)
		e.int(in.WID)
		e.queue(s)
	}
	e.queue(&stCommit)
	return e.run(ctx, "payment")
}

// Order-Status (clause 2.6.2.2) in one pipeline, read only: the customer
// (by id or the middle one by last name, chosen in SQL as Payment does;
// no row when nobody has the name), then the customer's last order with
// its lines, read together in one statement. Parameters: $1 warehouse,
// $2 district, $3 id or last name.
const osCidByName = `(SELECT (array_agg(c_id ORDER BY c_first, c_id))[((count(*) + 1) / 2)::int]
    FROM customer WHERE c_w_id = $1 AND c_d_id = $2 AND c_last = $3::text)`

func orderStatusCustomerSQL(cid string) string {
	return `SELECT c_id, c_balance::float8, c_first, c_middle, c_last FROM customer WHERE c_w_id = $1 AND c_d_id = $2 AND c_id = ` + cid
}

func orderStatusLinesSQL(cid string) string {
	return `SELECT o.o_id, COALESCE(o.o_carrier_id, 0), l.ol_i_id, l.ol_supply_w_id, l.ol_quantity, l.ol_amount::float8,
  l.ol_delivery_d IS NOT NULL
FROM (SELECT o_id, o_carrier_id FROM orders WHERE o_w_id = $1 AND o_d_id = $2 AND o_c_id = ` + cid + `
  ORDER BY o_id DESC LIMIT 1) o
JOIN order_line l ON l.ol_w_id = $1 AND l.ol_d_id = $2 AND l.ol_o_id = o.o_id
ORDER BY l.ol_number`
}

var (
	stOSCustomer = [2]stmt{{"rs_os_customer_id", orderStatusCustomerSQL(cidByID), osCustomerRow, "ifsss"},
		{"rs_os_customer_name", orderStatusCustomerSQL(osCidByName), osCustomerRow, "ifsss"}}
	stOSLines = [2]stmt{{"rs_os_lines_id", orderStatusLinesSQL(cidByID), osLineRows, "iiiiifb"},
		{"rs_os_lines_name", orderStatusLinesSQL(osCidByName), osLineRows, "iiiiifb"}}
)

func (e *stmtExec) OrderStatus(ctx context.Context, in *tpcc.OrderStatusInput, out *tpcc.OrderStatusResult) error {
	*out = tpcc.OrderStatusResult{Lines: out.Lines[:0]}
	e.start(tpcc.OrderStatusTxn)
	e.os = out
	e.queue(&stBeginReadOnly)
	v := 0
	if in.ByName {
		v = 1
	}
	for _, s := range []*stmt{&stOSCustomer[v], &stOSLines[v]} {
		e.int(in.WID)
		e.int(in.DID)
		if in.ByName {
			e.text(in.CLast)
		} else {
			e.int(in.CID)
		}
		e.queue(s)
	}
	e.queue(&stCommit)
	return e.run(ctx, "order status")
}

// stDeliverDistrict delivers the oldest undelivered order of one district
// in one statement; it returns 1, or 0 when the district had none. The
// oldest NEW-ORDER row is locked before it is deleted: at read committed
// (stBeginLocking) a row a concurrent Delivery deleted is passed over for
// the next one, so a district is skipped only when it has no undelivered
// order.
var stDeliverDistrict = stmt{"rs_delivery_district", `WITH oldest AS (
  SELECT no_o_id FROM new_order WHERE no_w_id = $1 AND no_d_id = $2 ORDER BY no_o_id LIMIT 1 FOR UPDATE),
no AS (DELETE FROM new_order n USING oldest WHERE n.no_w_id = $1 AND n.no_d_id = $2 AND n.no_o_id = oldest.no_o_id
  RETURNING n.no_o_id),
o AS (UPDATE orders SET o_carrier_id = $3 FROM no WHERE o_w_id = $1 AND o_d_id = $2 AND o_id = no.no_o_id RETURNING o_id, o_c_id),
l AS (UPDATE order_line SET ol_delivery_d = localtimestamp FROM o WHERE ol_w_id = $1 AND ol_d_id = $2 AND ol_o_id = o.o_id RETURNING ol_amount),
c AS (UPDATE customer SET c_balance = c_balance + (SELECT sum(ol_amount) FROM l), c_delivery_cnt = c_delivery_cnt + 1
  FROM o WHERE c_w_id = $1 AND c_d_id = $2 AND c_id = o.o_c_id RETURNING c_id)
SELECT count(*)::int FROM c`, deliveredRow, "i"}

func (e *stmtExec) Delivery(ctx context.Context, in *tpcc.DeliveryInput, out *tpcc.DeliveryResult) error {
	*out = tpcc.DeliveryResult{}
	e.start(tpcc.DeliveryTxn)
	e.del = out
	e.queue(&stBeginLocking)
	for d := int32(1); d <= tpcc.DistrictsPerWarehouse; d++ {
		e.int(in.WID)
		e.int(d)
		e.int(in.CarrierID)
		e.queue(&stDeliverDistrict)
	}
	e.queue(&stCommit)
	return e.run(ctx, "delivery")
}

var stStockLevel = stmt{"rs_stock_level", `SELECT count(DISTINCT s_i_id)::int FROM order_line JOIN stock ON s_i_id = ol_i_id AND s_w_id = ol_w_id
 WHERE ol_w_id = $1 AND ol_d_id = $2 AND s_quantity < $3
   AND ol_o_id >= (SELECT d_next_o_id - 20 FROM district WHERE d_w_id = $1 AND d_id = $2)
   AND ol_o_id < (SELECT d_next_o_id FROM district WHERE d_w_id = $1 AND d_id = $2)`, lowStockRow, "i"}

func (e *stmtExec) StockLevel(ctx context.Context, in *tpcc.StockLevelInput, out *tpcc.StockLevelResult) error {
	e.start(tpcc.StockLevelTxn)
	e.sl = out
	e.int(in.WID)
	e.int(in.DID)
	e.int(in.Threshold)
	e.queue(&stStockLevel)
	return e.run(ctx, "stock level")
}

// stmts are every statement an executor prepares.
var stmts = func() []*stmt {
	s := []*stmt{&stBegin, &stBeginReadOnly, &stBeginLocking, &stCommit, &stWarehouseTax, &stNextOrder, &stCustomerNO, &stItemsTotal,
		&stInsOrder, &stInsNewOrder, &stPayWarehouse, &stPayDistrict, &stDeliverDistrict, &stStockLevel}
	for i := range stOrderLine {
		s = append(s, &stOrderLine[i])
	}
	for i := range 2 {
		s = append(s, &stPayCustomer[i], &stPayHistory[i], &stOSCustomer[i], &stOSLines[i])
	}
	return s
}()
