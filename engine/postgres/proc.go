package postgres

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/rightsize/rightsize/tpcc"
)

// procExec runs each transaction as one call of its PL/pgSQL function, a
// prepared statement executed at the protocol level (pgconn): parameters go
// as text built in one reused buffer, results come back in binary and are
// decoded straight into the result structs. That skips pgx's per-query
// type planning, encoding and scanning, which was a third of the driver's
// user-space CPU per transaction.
type procExec struct {
	pg     *pgconn.PgConn
	buf    []byte   // parameter text
	ends   []int    // end of each parameter in buf
	params [][]byte // views of buf
	row    [5]int64 // the result row, decoded; float8 columns as bits
	screen string   // the result row's text column (the output screen)

	// watched is the context whose cancellation interrupts the connection
	// (stopWatch undoes that): registered once per context rather than
	// once per call, as pgconn would, since a virtual user passes the same
	// one every time.
	watched   context.Context
	stopWatch func() bool
}

// procCall is one prepared function call and the types of its result
// columns, checked when it is prepared.
type procCall struct {
	name, sql string
	cols      []uint32 // pgtype OIDs: Int4OID, Float8OID or TextOID (at most one)
}

var (
	callNewOrder = procCall{"rs_call_new_order", "SELECT out_o_id, out_total, out_screen FROM rs_new_order($1, $2, $3, $4, $5, $6, $7, $8)",
		[]uint32{pgtype.Int4OID, pgtype.Float8OID, pgtype.TextOID}}
	callPayment = procCall{"rs_call_payment", "SELECT out_c_id, out_balance, out_screen FROM rs_payment($1, $2, $3, $4, $5, $6, $7, $8::float8::numeric)",
		[]uint32{pgtype.Int4OID, pgtype.Float8OID, pgtype.TextOID}}
	callOrderStatus = procCall{"rs_call_order_status", "SELECT out_c_id, out_balance, out_o_id, out_carrier, out_screen FROM rs_order_status($1, $2, $3, $4, $5)",
		[]uint32{pgtype.Int4OID, pgtype.Float8OID, pgtype.Int4OID, pgtype.Int4OID, pgtype.TextOID}}
	callDelivery = procCall{"rs_call_delivery", "SELECT out_delivered, out_skipped FROM rs_delivery($1, $2)",
		[]uint32{pgtype.Int4OID, pgtype.Int4OID}}
	callStockLevel = procCall{"rs_call_stock_level", "SELECT rs_stock_level($1, $2, $3)",
		[]uint32{pgtype.Int4OID}}
	procCalls = []procCall{callNewOrder, callPayment, callOrderStatus, callDelivery, callStockLevel}
)

// binaryResults asks for every result column in binary.
var binaryResults = []int16{pgtype.BinaryFormatCode}

func newProcExec(ctx context.Context, conn *pgx.Conn) (*procExec, error) {
	e := &procExec{pg: conn.PgConn()}
	for _, c := range procCalls {
		sd, err := e.pg.Prepare(ctx, c.name, c.sql, nil)
		if err != nil {
			if isCode(err, "42883") { // undefined_function
				return nil, fmt.Errorf("prepare %s: %w (the procedures are missing: run build again)", c.name, err)
			}
			return nil, fmt.Errorf("prepare %s: %w", c.name, err)
		}
		if len(sd.Fields) != len(c.cols) {
			return nil, fmt.Errorf("prepare %s: %d result columns, want %d", c.name, len(sd.Fields), len(c.cols))
		}
		for i, f := range sd.Fields {
			if f.DataTypeOID != c.cols[i] {
				return nil, fmt.Errorf("prepare %s: column %s has type OID %d, want %d", c.name, f.Name, f.DataTypeOID, c.cols[i])
			}
		}
	}
	return e, nil
}

func (e *procExec) Close(ctx context.Context) error {
	e.unwatch()
	return e.pg.Close(ctx)
}

// watch makes ctx's cancellation end whatever the connection is waiting
// for, as pgconn's default handler does: a deadline in the past returns the
// call at once, and pgconn then closes the connection, sending the server a
// cancel request first.
func (e *procExec) watch(ctx context.Context) {
	if ctx == e.watched {
		return
	}
	e.unwatch()
	e.watched = ctx
	if ctx.Done() != nil {
		netConn := e.pg.Conn()
		e.stopWatch = context.AfterFunc(ctx, func() { _ = netConn.SetDeadline(time.Unix(1, 0)) })
	}
}

func (e *procExec) unwatch() {
	if e.stopWatch != nil {
		e.stopWatch()
		e.stopWatch = nil
	}
	e.watched = nil
}

// Parameter text, appended to e.buf one parameter at a time.
func (e *procExec) reset() { e.buf, e.ends = e.buf[:0], e.ends[:0] }
func (e *procExec) end()   { e.ends = append(e.ends, len(e.buf)) }
func (e *procExec) int(v int32) {
	e.buf = strconv.AppendInt(e.buf, int64(v), 10)
	e.end()
}
func (e *procExec) bool(v bool) {
	if v {
		e.buf = append(e.buf, 't')
	} else {
		e.buf = append(e.buf, 'f')
	}
	e.end()
}
func (e *procExec) text(s string) { e.buf = append(e.buf, s...); e.end() }
func (e *procExec) float(v float64) {
	e.buf = strconv.AppendFloat(e.buf, v, 'g', -1, 64) // shortest text that reads back as v
	e.end()
}

// intArray appends the array literal {f(0),f(1),...}.
func (e *procExec) intArray(lines []tpcc.OrderLineInput, f func(*tpcc.OrderLineInput) int32) {
	e.buf = append(e.buf, '{')
	for i := range lines {
		if i > 0 {
			e.buf = append(e.buf, ',')
		}
		e.buf = strconv.AppendInt(e.buf, int64(f(&lines[i])), 10)
	}
	e.buf = append(e.buf, '}')
	e.end()
}

// call executes c with the parameters appended since reset and decodes its
// one result row into e.row.
func (e *procExec) call(ctx context.Context, c *procCall) error {
	e.params = e.params[:0]
	start := 0
	for _, end := range e.ends {
		e.params = append(e.params, e.buf[start:end])
		start = end
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	e.watch(ctx)
	rr := e.pg.ExecPrepared(context.Background(), c.name, e.params, nil, binaryResults)
	rows := 0
	var decodeErr error
	for rr.NextRow() {
		if rows++; rows == 1 {
			decodeErr = e.decode(c, rr.Values())
		}
	}
	if _, err := rr.Close(); err != nil {
		if ctxErr := ctx.Err(); ctxErr != nil {
			return fmt.Errorf("%s: %w (%v)", c.name, ctxErr, err)
		}
		return err
	}
	if decodeErr != nil {
		return decodeErr
	}
	if rows != 1 {
		return fmt.Errorf("%s returned %d rows, want 1", c.name, rows)
	}
	return nil
}

func (e *procExec) decode(c *procCall, vals [][]byte) error {
	for i, v := range vals {
		switch {
		case v == nil:
			return fmt.Errorf("%s: column %d is NULL", c.name, i+1)
		case c.cols[i] == pgtype.Int4OID && len(v) == 4:
			e.row[i] = int64(int32(binary.BigEndian.Uint32(v)))
		case c.cols[i] == pgtype.Float8OID && len(v) == 8:
			e.row[i] = int64(binary.BigEndian.Uint64(v))
		case c.cols[i] == pgtype.TextOID:
			e.screen = string(v)
		default:
			return fmt.Errorf("%s: column %d has %d bytes", c.name, i+1, len(v))
		}
	}
	return nil
}

func (e *procExec) int32At(i int) int32     { return int32(e.row[i]) }
func (e *procExec) float64At(i int) float64 { return math.Float64frombits(uint64(e.row[i])) }

func (e *procExec) NewOrder(ctx context.Context, in *tpcc.NewOrderInput, out *tpcc.NewOrderResult) error {
	allLocal := int32(0)
	if in.AllLocal {
		allLocal = 1
	}
	e.reset()
	e.int(in.WID)
	e.int(in.DID)
	e.int(in.CID)
	e.int(allLocal)
	e.intArray(in.Lines, func(l *tpcc.OrderLineInput) int32 { return l.ItemID })
	e.intArray(in.Lines, func(l *tpcc.OrderLineInput) int32 { return l.SupplyWID })
	e.intArray(in.Lines, func(l *tpcc.OrderLineInput) int32 { return l.Quantity })
	e.intArray(in.Lines, func(l *tpcc.OrderLineInput) int32 { return l.Number })
	lines := out.Lines[:0]
	*out = tpcc.NewOrderResult{Lines: lines}
	err := e.call(ctx, &callNewOrder)
	if isCode(err, invalidItemCode) {
		out.RolledBack = true
		return nil
	}
	if err != nil {
		return err
	}
	out.OID, out.Total = e.int32At(0), e.float64At(1)
	return out.ParseScreen(e.screen)
}

func (e *procExec) Payment(ctx context.Context, in *tpcc.PaymentInput, out *tpcc.PaymentResult) error {
	e.reset()
	e.int(in.WID)
	e.int(in.DID)
	e.int(in.CWID)
	e.int(in.CDID)
	e.int(in.CID)
	e.bool(in.ByName)
	e.text(in.CLast)
	e.float(in.Amount)
	if err := e.call(ctx, &callPayment); err != nil {
		return err
	}
	out.CID, out.Balance = e.int32At(0), e.float64At(1)
	return out.ParseScreen(e.screen)
}

func (e *procExec) OrderStatus(ctx context.Context, in *tpcc.OrderStatusInput, out *tpcc.OrderStatusResult) error {
	e.reset()
	e.int(in.WID)
	e.int(in.DID)
	e.int(in.CID)
	e.bool(in.ByName)
	e.text(in.CLast)
	if err := e.call(ctx, &callOrderStatus); err != nil {
		return err
	}
	out.CID, out.Balance, out.OID, out.Carrier = e.int32At(0), e.float64At(1), e.int32At(2), e.int32At(3)
	return out.ParseScreen(e.screen)
}

func (e *procExec) Delivery(ctx context.Context, in *tpcc.DeliveryInput, out *tpcc.DeliveryResult) error {
	e.reset()
	e.int(in.WID)
	e.int(in.CarrierID)
	if err := e.call(ctx, &callDelivery); err != nil {
		return err
	}
	out.Delivered, out.Skipped = e.int32At(0), e.int32At(1)
	return nil
}

func (e *procExec) StockLevel(ctx context.Context, in *tpcc.StockLevelInput, out *tpcc.StockLevelResult) error {
	e.reset()
	e.int(in.WID)
	e.int(in.DID)
	e.int(in.Threshold)
	if err := e.call(ctx, &callStockLevel); err != nil {
		return err
	}
	out.LowStock = e.int32At(0)
	return nil
}
