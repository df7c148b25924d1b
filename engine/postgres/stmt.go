package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/rightsize/rightsize/tpcc"
)

// stmtExec runs each transaction as prepared client-side statements in an
// explicit transaction, pipelined with pgx batches so a transaction costs
// one or two round trips. Its SQL mirrors procs.go statement by statement.
type stmtExec struct {
	conn   *pgx.Conn
	batch  pgx.Batch
	prices []pgtype.Numeric
	found  []bool
	items  []int32
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
	sqlItems      = `SELECT i_id, i_price, i_name, i_data FROM item WHERE i_id = ANY($1)`
	sqlInsOrder   = `INSERT INTO orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_carrier_id, o_ol_cnt, o_all_local)
 VALUES ($1, $2, $3, $4, localtimestamp, NULL, $5, $6)`
	sqlInsNewOrder = `INSERT INTO new_order (no_o_id, no_d_id, no_w_id) VALUES ($1, $2, $3)`
)

// sqlOrderLine[d-1] updates one stock row and inserts the order line with
// that district's S_DIST_xx, in one statement.
var sqlOrderLine = func() (s [tpcc.DistrictsPerWarehouse]string) {
	for d := range s {
		s[d] = fmt.Sprintf(`WITH s AS (UPDATE stock SET
  s_quantity = CASE WHEN s_quantity >= $8 + 10 THEN s_quantity - $8 ELSE s_quantity - $8 + 91 END,
  s_ytd = s_ytd + $8, s_order_cnt = s_order_cnt + 1, s_remote_cnt = s_remote_cnt + CASE WHEN $6 <> $3 THEN 1 ELSE 0 END
  WHERE s_i_id = $5 AND s_w_id = $6 RETURNING s_data, s_dist_%02d AS dist)
INSERT INTO order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id, ol_delivery_d, ol_quantity, ol_amount, ol_dist_info)
SELECT $1, $2, $3, $4, $5, $6, NULL, $8, $8 * $7::numeric, dist FROM s`, d+1)
	}
	return s
}()

func (e *stmtExec) NewOrder(ctx context.Context, in *tpcc.NewOrderInput, out *tpcc.NewOrderResult) error {
	*out = tpcc.NewOrderResult{}
	e.items = e.items[:0]
	for _, l := range in.Lines {
		e.items = append(e.items, l.ItemID)
	}
	b := &e.batch
	*b = pgx.Batch{QueuedQueries: b.QueuedQueries[:0]}
	b.Queue("BEGIN")
	b.Queue(sqlWarehouseTax, in.WID)
	b.Queue(sqlNextOrder, in.WID, in.DID)
	b.Queue(sqlCustomerNO, in.WID, in.DID, in.CID)
	b.Queue(sqlItems, e.items)
	br := e.conn.SendBatch(ctx, b)
	var wTax, dTax, disc float64
	var oid int32
	var last, credit string
	_, err := br.Exec()
	if err == nil {
		err = br.QueryRow().Scan(&wTax)
	}
	if err == nil {
		err = br.QueryRow().Scan(&dTax, &oid)
	}
	if err == nil {
		err = br.QueryRow().Scan(&disc, &last, &credit)
	}
	n := len(in.Lines)
	if cap(e.prices) < n {
		e.prices, e.found = make([]pgtype.Numeric, n), make([]bool, n)
	}
	prices, found := e.prices[:n], e.found[:n]
	clear(found)
	if err == nil {
		var rows pgx.Rows
		rows, err = br.Query()
		if err == nil {
			var id int32
			var price pgtype.Numeric
			var name, data string
			_, err = pgx.ForEachRow(rows, []any{&id, &price, &name, &data}, func() error {
				for i, l := range in.Lines {
					if l.ItemID == id {
						prices[i], found[i] = price, true
					}
				}
				return nil
			})
		}
	}
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return e.abort(ctx, err)
	}
	for _, ok := range found {
		if !ok { // the simulated user error: an unused item number
			if _, err := e.conn.Exec(ctx, "ROLLBACK"); err != nil {
				return err
			}
			out.RolledBack = true
			return nil
		}
	}
	allLocal := int32(0)
	if in.AllLocal {
		allLocal = 1
	}
	*b = pgx.Batch{QueuedQueries: b.QueuedQueries[:0]}
	b.Queue(sqlInsOrder, oid, in.DID, in.WID, in.CID, int32(n), allLocal)
	b.Queue(sqlInsNewOrder, oid, in.DID, in.WID)
	var sum float64
	for i, l := range in.Lines {
		b.Queue(sqlOrderLine[in.DID-1], oid, in.DID, in.WID, int32(i+1), l.ItemID, l.SupplyWID, prices[i], l.Quantity)
		f, _ := prices[i].Float64Value()
		sum += float64(l.Quantity) * f.Float64
	}
	b.Queue("COMMIT")
	if err := e.conn.SendBatch(ctx, b).Close(); err != nil {
		return e.abort(ctx, err)
	}
	out.OID = oid
	out.Total = sum * (1 - disc) * (1 + wTax + dTax)
	return nil
}

const (
	sqlPayWarehouse = `UPDATE warehouse SET w_ytd = w_ytd + $2::float8::numeric WHERE w_id = $1 RETURNING w_name`
	sqlPayDistrict  = `UPDATE district SET d_ytd = d_ytd + $3::float8::numeric WHERE d_w_id = $1 AND d_id = $2 RETURNING d_name`
	sqlByName       = `SELECT c_id FROM customer WHERE c_w_id = $1 AND c_d_id = $2 AND c_last = $3 ORDER BY c_first, c_id`
	sqlPayCustomer  = `UPDATE customer SET c_balance = c_balance - $5::float8::numeric, c_ytd_payment = c_ytd_payment + $5::float8::numeric,
  c_payment_cnt = c_payment_cnt + 1,
  c_data = CASE WHEN c_credit = 'BC'
    THEN left(c_id || ' ' || c_d_id || ' ' || c_w_id || ' ' || $4::int || ' ' || $6::int || ' ' || $5::float8::numeric || ' | ' || c_data, 500)
    ELSE c_data END
 WHERE c_w_id = $1 AND c_d_id = $2 AND c_id = $3 RETURNING c_balance::float8`
	sqlPayHistory = `INSERT INTO history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, h_data)
 VALUES ($1, $2, $3, $4, $5, localtimestamp, $6::float8::numeric, $7)`
)

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

func (e *stmtExec) Payment(ctx context.Context, in *tpcc.PaymentInput, out *tpcc.PaymentResult) error {
	b := &e.batch
	*b = pgx.Batch{QueuedQueries: b.QueuedQueries[:0]}
	b.Queue("BEGIN")
	b.Queue(sqlPayWarehouse, in.WID, in.Amount)
	b.Queue(sqlPayDistrict, in.WID, in.DID, in.Amount)
	if in.ByName {
		b.Queue(sqlByName, in.CWID, in.CDID, in.CLast)
	}
	br := e.conn.SendBatch(ctx, b)
	var wName, dName string
	cid := in.CID
	_, err := br.Exec()
	if err == nil {
		err = br.QueryRow().Scan(&wName)
	}
	if err == nil {
		err = br.QueryRow().Scan(&dName)
	}
	if err == nil && in.ByName {
		cid, err = e.byName(br)
	}
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return e.abort(ctx, err)
	}
	*b = pgx.Batch{QueuedQueries: b.QueuedQueries[:0]}
	b.Queue(sqlPayCustomer, in.CWID, in.CDID, cid, in.DID, in.Amount, in.WID)
	b.Queue(sqlPayHistory, cid, in.CDID, in.CWID, in.DID, in.WID, in.Amount, wName+"    "+dName)
	b.Queue("COMMIT")
	br = e.conn.SendBatch(ctx, b)
	err = br.QueryRow().Scan(&out.Balance)
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return e.abort(ctx, err)
	}
	out.CID = cid
	return nil
}

const (
	sqlOSCustomer = `SELECT c_balance::float8, c_first, c_middle, c_last FROM customer WHERE c_w_id = $1 AND c_d_id = $2 AND c_id = $3`
	sqlOSOrder    = `SELECT o_id, o_entry_d, o_carrier_id FROM orders WHERE o_w_id = $1 AND o_d_id = $2 AND o_c_id = $3 ORDER BY o_id DESC LIMIT 1`
	sqlOSLines    = `SELECT ol_i_id, ol_supply_w_id, ol_quantity, ol_amount::float8, ol_delivery_d FROM order_line
 WHERE ol_w_id = $1 AND ol_d_id = $2 AND ol_o_id = $3`
)

func (e *stmtExec) OrderStatus(ctx context.Context, in *tpcc.OrderStatusInput, out *tpcc.OrderStatusResult) error {
	b := &e.batch
	cid := in.CID
	if in.ByName {
		*b = pgx.Batch{QueuedQueries: b.QueuedQueries[:0]}
		b.Queue("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
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
		b.Queue("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
	}
	b.Queue(sqlOSCustomer, in.WID, in.DID, cid)
	b.Queue(sqlOSOrder, in.WID, in.DID, cid)
	br := e.conn.SendBatch(ctx, b)
	var err error
	if !in.ByName {
		_, err = br.Exec()
	}
	var first, mid, last string
	var entry pgtype.Timestamp
	var carrier pgtype.Int4
	if err == nil {
		err = br.QueryRow().Scan(&out.Balance, &first, &mid, &last)
	}
	if err == nil {
		err = br.QueryRow().Scan(&out.OID, &entry, &carrier)
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
	out.Lines = 0
	if err == nil {
		var item, supply, qty int32
		var amount float64
		var delivered pgtype.Timestamp
		_, err = pgx.ForEachRow(rows, []any{&item, &supply, &qty, &amount, &delivered}, func() error { out.Lines++; return nil })
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
// in one statement; it returns 1, or 0 when the district had none.
const sqlDeliverDistrict = `WITH no AS (
  DELETE FROM new_order WHERE no_w_id = $1 AND no_d_id = $2
    AND no_o_id = (SELECT min(no_o_id) FROM new_order WHERE no_w_id = $1 AND no_d_id = $2)
  RETURNING no_o_id),
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
