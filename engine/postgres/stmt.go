package postgres

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/rightsize/rightsize/tpcc"
)

// stmtExec runs each transaction as prepared client-side statements in an
// explicit transaction, pipelined with pgx batches so a transaction costs
// one or two round trips. Its SQL mirrors procs.go statement by statement.
type stmtExec struct {
	conn       *pgx.Conn
	batch      pgx.Batch
	items, qty []int32
	// processed counts the order lines whose stock update and insert ran
	// in the last New-Order (tests read it: a rolled-back order processes
	// every valid item first).
	processed int
}

func newStmtExec(conn *pgx.Conn) *stmtExec { return &stmtExec{conn: conn} }

func (e *stmtExec) Close(ctx context.Context) error { return e.conn.Close(ctx) }

// abort rolls back after a failed statement; a broken connection is left
// for the driver to replace.
func (e *stmtExec) abort(ctx context.Context, err error) error {
	if !e.conn.IsClosed() {
		_, _ = e.conn.Exec(ctx, "ROLLBACK")
	}
	return err
}

const (
	sqlWarehouseTax = `SELECT w_tax::float8 FROM warehouse WHERE w_id = $1`
	sqlNextOrder    = `UPDATE district SET d_next_o_id = d_next_o_id + 1 WHERE d_w_id = $1 AND d_id = $2
 RETURNING d_tax::float8, d_next_o_id - 1`
	sqlCustomerNO = `SELECT c_discount::float8, c_last, c_credit FROM customer WHERE c_w_id = $1 AND c_d_id = $2 AND c_id = $3`
	// sqlItemsTotal comes after every line was processed: it returns the
	// order's total as procs.go computes it, or, when an item number does
	// not exist (the simulated user error), fails with invalidItemMarker,
	// which aborts the transaction so the COMMIT after it rolls back.
	sqlItemsTotal = `SELECT CASE WHEN count(i.i_id) = cardinality($1::int[])
  THEN round(sum(l.qty * i.i_price) * (1 - max(c.c_discount)) * (1 + max(w.w_tax) + max(d.d_tax)), 2)::float8
  ELSE ('` + invalidItemMarker + `' || count(i.i_id))::float8 END
FROM (unnest($1::int[], $2::int[]) AS l(id, qty) LEFT JOIN item i ON i.i_id = l.id),
  warehouse w, district d, customer c
WHERE w.w_id = $3 AND d.d_w_id = $3 AND d.d_id = $4 AND c.c_w_id = $3 AND c.c_d_id = $4 AND c.c_id = $5`
	// The order id is the district's counter as this transaction left it.
	sqlInsOrder = `INSERT INTO orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_carrier_id, o_ol_cnt, o_all_local)
 VALUES ((SELECT d_next_o_id - 1 FROM district WHERE d_w_id = $3 AND d_id = $2), $2, $3, $1, localtimestamp, NULL, $4, $5)`
	sqlInsNewOrder = `INSERT INTO new_order (no_o_id, no_d_id, no_w_id)
 VALUES ((SELECT d_next_o_id - 1 FROM district WHERE d_w_id = $2 AND d_id = $1), $1, $2)`
)

// invalidItemMarker starts the text of the cast error sqlItemsTotal raises
// for an unused item number.
const invalidItemMarker = "rightsize: unused item number "

// isInvalidItem reports whether err is sqlItemsTotal's simulated user error.
func isInvalidItem(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == "22P02" && strings.Contains(pgErr.Message, invalidItemMarker)
}

// sqlOrderLine[d-1] updates one stock row and inserts the order line with
// that district's S_DIST_xx and the item's price, in one statement, and
// returns the line's output (I_NAME, I_PRICE, S_QUANTITY, brand-generic);
// no row for an unused item. Parameters: $1 district, $2 warehouse,
// $3 line number, $4 item, $5 supply warehouse, $6 quantity.
var sqlOrderLine = func() (s [tpcc.DistrictsPerWarehouse]string) {
	for d := range s {
		s[d] = fmt.Sprintf(`WITH s AS (UPDATE stock SET
  s_quantity = CASE WHEN s_quantity >= $6 + 10 THEN s_quantity - $6 ELSE s_quantity - $6 + 91 END,
  s_ytd = s_ytd + $6, s_order_cnt = s_order_cnt + 1, s_remote_cnt = s_remote_cnt + CASE WHEN $5 <> $2 THEN 1 ELSE 0 END
  WHERE s_i_id = $4 AND s_w_id = $5 RETURNING s_quantity, s_data, s_dist_%02d AS dist),
ol AS (INSERT INTO order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id, ol_delivery_d, ol_quantity, ol_amount, ol_dist_info)
SELECT (SELECT d_next_o_id - 1 FROM district WHERE d_w_id = $2 AND d_id = $1), $1, $2, $3, $4, $5, NULL, $6, $6 * i.i_price, s.dist
FROM s, item i WHERE i.i_id = $4)
SELECT i.i_name, i.i_price::float8, ($6 * i.i_price)::float8, s.s_quantity,
  CASE WHEN strpos(i.i_data, 'ORIGINAL') > 0 AND strpos(s.s_data, 'ORIGINAL') > 0 THEN 'B' ELSE 'G' END
FROM s, item i WHERE i.i_id = $4`, d+1)
	}
	return s
}()

// NewOrder sends the whole transaction in one pipeline (one round trip).
// Every line is processed before the items' check, so an order with an
// unused item does all its valid items' work and then rolls back (2.4.2.3).
func (e *stmtExec) NewOrder(ctx context.Context, in *tpcc.NewOrderInput, out *tpcc.NewOrderResult) error {
	*out = tpcc.NewOrderResult{Lines: out.Lines[:0]}
	e.items = e.items[:0]
	e.qty = e.qty[:0]
	for _, l := range in.Lines {
		e.items = append(e.items, l.ItemID)
		e.qty = append(e.qty, l.Quantity)
	}
	allLocal := int32(0)
	if in.AllLocal {
		allLocal = 1
	}
	n := int32(len(in.Lines))
	b := &e.batch
	*b = pgx.Batch{QueuedQueries: b.QueuedQueries[:0]}
	b.Queue("BEGIN")
	b.Queue(sqlWarehouseTax, in.WID)
	b.Queue(sqlNextOrder, in.WID, in.DID)
	b.Queue(sqlCustomerNO, in.WID, in.DID, in.CID)
	b.Queue(sqlInsOrder, in.CID, in.DID, in.WID, n, allLocal)
	b.Queue(sqlInsNewOrder, in.DID, in.WID)
	for _, l := range in.Lines {
		b.Queue(sqlOrderLine[in.DID-1], in.DID, in.WID, l.Number, l.ItemID, l.SupplyWID, l.Quantity)
	}
	b.Queue(sqlItemsTotal, e.items, e.qty, in.WID, in.DID, in.CID)
	b.Queue("COMMIT")
	br := e.conn.SendBatch(ctx, b)
	e.processed = 0
	_, err := br.Exec()
	if err == nil {
		err = br.QueryRow().Scan(&out.WTax)
	}
	if err == nil {
		err = br.QueryRow().Scan(&out.DTax, &out.OID)
	}
	if err == nil {
		err = br.QueryRow().Scan(&out.Discount, &out.CLast, &out.Credit)
	}
	for range 2 { // the order and new-order inserts
		if err == nil {
			_, err = br.Exec()
		}
	}
	for i := 0; i < len(in.Lines) && err == nil; i++ {
		err = e.orderLine(br, out)
	}
	if err == nil {
		err = br.QueryRow().Scan(&out.Total)
	}
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		if isInvalidItem(err) { // the simulated user error: roll back
			if _, rerr := e.conn.Exec(ctx, "ROLLBACK"); rerr != nil {
				return rerr
			}
			*out = tpcc.NewOrderResult{RolledBack: true, Lines: out.Lines[:0]}
			return nil
		}
		return e.abort(ctx, err)
	}
	return nil
}

// orderLine reads one line's output (no row for an unused item).
func (e *stmtExec) orderLine(br pgx.BatchResults, out *tpcc.NewOrderResult) error {
	rows, err := br.Query()
	if err != nil {
		return err
	}
	for rows.Next() {
		var l tpcc.NewOrderLine
		var brand string
		if err := rows.Scan(&l.ItemName, &l.Price, &l.Amount, &l.StockQty, &brand); err != nil {
			rows.Close()
			return err
		}
		l.BrandGeneric = brand[0]
		out.Lines = append(out.Lines, l)
		e.processed++
	}
	rows.Close()
	return rows.Err()
}

// The customer of a Payment: by id ($3) or the middle one by last name ($3).
// A name nobody has fails the statement (and so the whole transaction); the
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
	sqlPayCustomer  = [2]string{paymentCustomerSQL(cidByID), paymentCustomerSQL(cidByName)}
	sqlPayHistory   = [2]string{paymentHistorySQL(cidByID), paymentHistorySQL(cidByName)}
	sqlPayWarehouse = `UPDATE warehouse SET w_ytd = w_ytd + $2::float8::numeric WHERE w_id = $1 RETURNING w_street_1, w_street_2, w_city, w_state, w_zip`
	sqlPayDistrict  = `UPDATE district SET d_ytd = d_ytd + $3::float8::numeric WHERE d_w_id = $1 AND d_id = $2 RETURNING d_street_1, d_street_2, d_city, d_state, d_zip`
	sqlByName       = `SELECT c_id FROM customer WHERE c_w_id = $1 AND c_d_id = $2 AND c_last = $3 ORDER BY c_first, c_id`
)

// address lists the scan targets of an address's five columns.
func address(a *tpcc.Address) []any { return []any{&a.Street1, &a.Street2, &a.City, &a.State, &a.Zip} }

// middle picks the ceil(n/2)-th (1-based) customer of a by-name lookup.
func middle(ids []int32) int32 { return ids[(len(ids)+1)/2-1] }

func (e *stmtExec) byName(br pgx.BatchResults) (int32, error) {
	rows, err := br.Query()
	if err != nil {
		return 0, err
	}
	e.items = e.items[:0]
	var id int32
	if _, err := pgx.ForEachRow(rows, []any{&id}, func() error { e.items = append(e.items, id); return nil }); err != nil {
		return 0, err
	}
	if len(e.items) == 0 {
		return 0, tpcc.ErrNoSuchCustomer
	}
	return middle(e.items), nil
}

// Payment sends the whole transaction in one pipeline (one round trip):
// the by-name customer is chosen in SQL, in the same transaction.
func (e *stmtExec) Payment(ctx context.Context, in *tpcc.PaymentInput, out *tpcc.PaymentResult) error {
	v, customer := 0, any(in.CID)
	if in.ByName {
		v, customer = 1, in.CLast
	}
	b := &e.batch
	*b = pgx.Batch{QueuedQueries: b.QueuedQueries[:0]}
	b.Queue("BEGIN")
	b.Queue(sqlPayWarehouse, in.WID, in.Amount)
	b.Queue(sqlPayDistrict, in.WID, in.DID, in.Amount)
	b.Queue(sqlPayCustomer[v], in.CWID, in.CDID, customer, in.DID, in.Amount, in.WID)
	b.Queue(sqlPayHistory[v], in.CWID, in.CDID, customer, in.DID, in.Amount, in.WID)
	b.Queue("COMMIT")
	br := e.conn.SendBatch(ctx, b)
	_, err := br.Exec()
	if err == nil {
		err = br.QueryRow().Scan(address(&out.Warehouse)...)
	}
	if err == nil {
		err = br.QueryRow().Scan(address(&out.District)...)
	}
	if err == nil {
		c := &out.Customer
		err = br.QueryRow().Scan(&out.CID, &out.Balance, &out.First, &out.Middle, &out.Last,
			&c.Street1, &c.Street2, &c.City, &c.State, &c.Zip, &out.Phone, &out.Credit, &out.CreditLim, &out.Discount, &out.Data)
	}
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return e.abort(ctx, err)
	}
	return nil
}

const (
	sqlOSBegin    = `BEGIN READ ONLY` // at the session's isolation (see NewExecutor)
	sqlOSCustomer = `SELECT c_balance::float8, c_first, c_middle, c_last FROM customer WHERE c_w_id = $1 AND c_d_id = $2 AND c_id = $3`
	sqlOSOrder    = `SELECT o_id, o_entry_d, COALESCE(o_carrier_id, 0) FROM orders WHERE o_w_id = $1 AND o_d_id = $2 AND o_c_id = $3 ORDER BY o_id DESC LIMIT 1`
	sqlOSLines    = `SELECT ol_i_id, ol_supply_w_id, ol_quantity, ol_amount::float8, ol_delivery_d FROM order_line
 WHERE ol_w_id = $1 AND ol_d_id = $2 AND ol_o_id = $3 ORDER BY ol_number`
)

func (e *stmtExec) OrderStatus(ctx context.Context, in *tpcc.OrderStatusInput, out *tpcc.OrderStatusResult) error {
	b := &e.batch
	cid := in.CID
	if in.ByName {
		*b = pgx.Batch{QueuedQueries: b.QueuedQueries[:0]}
		b.Queue(sqlOSBegin)
		b.Queue(sqlByName, in.WID, in.DID, in.CLast)
		br := e.conn.SendBatch(ctx, b)
		_, err := br.Exec()
		if err == nil {
			cid, err = e.byName(br)
		}
		if cerr := br.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return e.abort(ctx, err)
		}
	}
	*b = pgx.Batch{QueuedQueries: b.QueuedQueries[:0]}
	if !in.ByName {
		b.Queue(sqlOSBegin)
	}
	b.Queue(sqlOSCustomer, in.WID, in.DID, cid)
	b.Queue(sqlOSOrder, in.WID, in.DID, cid)
	br := e.conn.SendBatch(ctx, b)
	var err error
	if !in.ByName {
		_, err = br.Exec()
	}
	var entry pgtype.Timestamp
	if err == nil {
		err = br.QueryRow().Scan(&out.Balance, &out.First, &out.Middle, &out.Last)
	}
	if err == nil {
		err = br.QueryRow().Scan(&out.OID, &entry, &out.Carrier)
	}
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return e.abort(ctx, err)
	}
	*b = pgx.Batch{QueuedQueries: b.QueuedQueries[:0]}
	b.Queue(sqlOSLines, in.WID, in.DID, out.OID)
	b.Queue("COMMIT")
	br = e.conn.SendBatch(ctx, b)
	rows, err := br.Query()
	out.Lines = out.Lines[:0]
	if err == nil {
		var l tpcc.OrderStatusLine
		var delivered pgtype.Timestamp
		_, err = pgx.ForEachRow(rows, []any{&l.ItemID, &l.SupplyWID, &l.Quantity, &l.Amount, &delivered}, func() error {
			l.Delivered = delivered.Valid
			out.Lines = append(out.Lines, l)
			return nil
		})
	}
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return e.abort(ctx, err)
	}
	out.CID = cid
	return nil
}

// sqlDeliverDistrict delivers the oldest undelivered order of one district
// in one statement; it returns 1, or 0 when the district had none. The
// oldest NEW-ORDER row is locked before it is deleted: at read committed a
// row a concurrent Delivery deleted is passed over for the next one, at
// repeatable read the conflict is a serialization failure the driver
// retries, so a district is skipped only when it has no undelivered order.
const sqlDeliverDistrict = `WITH oldest AS (
  SELECT no_o_id FROM new_order WHERE no_w_id = $1 AND no_d_id = $2 ORDER BY no_o_id LIMIT 1 FOR UPDATE),
no AS (DELETE FROM new_order n USING oldest WHERE n.no_w_id = $1 AND n.no_d_id = $2 AND n.no_o_id = oldest.no_o_id
  RETURNING n.no_o_id),
o AS (UPDATE orders SET o_carrier_id = $3 FROM no WHERE o_w_id = $1 AND o_d_id = $2 AND o_id = no.no_o_id RETURNING o_id, o_c_id),
l AS (UPDATE order_line SET ol_delivery_d = localtimestamp FROM o WHERE ol_w_id = $1 AND ol_d_id = $2 AND ol_o_id = o.o_id RETURNING ol_amount),
c AS (UPDATE customer SET c_balance = c_balance + (SELECT sum(ol_amount) FROM l), c_delivery_cnt = c_delivery_cnt + 1
  FROM o WHERE c_w_id = $1 AND c_d_id = $2 AND c_id = o.o_c_id RETURNING c_id)
SELECT count(*)::int FROM c`

func (e *stmtExec) Delivery(ctx context.Context, in *tpcc.DeliveryInput, out *tpcc.DeliveryResult) error {
	b := &e.batch
	*b = pgx.Batch{QueuedQueries: b.QueuedQueries[:0]}
	b.Queue("BEGIN")
	for d := int32(1); d <= tpcc.DistrictsPerWarehouse; d++ {
		b.Queue(sqlDeliverDistrict, in.WID, d, in.CarrierID)
	}
	b.Queue("COMMIT")
	br := e.conn.SendBatch(ctx, b)
	*out = tpcc.DeliveryResult{}
	_, err := br.Exec()
	for d := 0; d < tpcc.DistrictsPerWarehouse && err == nil; d++ {
		var n int32
		if err = br.QueryRow().Scan(&n); err == nil {
			if n == 1 {
				out.Delivered++
			} else {
				out.Skipped++
			}
		}
	}
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return e.abort(ctx, err)
	}
	return nil
}

const sqlStockLevel = `SELECT count(DISTINCT s_i_id)::int FROM order_line JOIN stock ON s_i_id = ol_i_id AND s_w_id = ol_w_id
 WHERE ol_w_id = $1 AND ol_d_id = $2 AND s_quantity < $3
   AND ol_o_id >= (SELECT d_next_o_id - 20 FROM district WHERE d_w_id = $1 AND d_id = $2)
   AND ol_o_id < (SELECT d_next_o_id FROM district WHERE d_w_id = $1 AND d_id = $2)`

func (e *stmtExec) StockLevel(ctx context.Context, in *tpcc.StockLevelInput, out *tpcc.StockLevelResult) error {
	return e.conn.QueryRow(ctx, sqlStockLevel, in.WID, in.DID, in.Threshold).Scan(&out.LowStock)
}
