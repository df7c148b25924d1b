package postgres

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/rightsize/rightsize/tpcc"
)

// procExec runs each transaction as one call of its PL/pgSQL function, a
// statement prepared through pgconn, then executed on the hijacked
// connection (protocol.go): parameters go as text built in one reused
// buffer, results come back in binary, as typed columns and arrays
// (procs.go), and are decoded in place into the result structs (decode.go).
// That skips pgx's per-query type planning, encoding and scanning, pgconn's
// per-call machinery, and parsing a screen text, and allocates nothing per
// transaction.
type procExec struct {
	w    *wire
	buf  []byte // parameter text
	ends []int  // end of each parameter in buf
	// screens holds the text of each transaction type's last result: its
	// strings alias it (tpcc.ScreenText).
	screens [tpcc.NumTxnTypes]tpcc.ScreenText

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
	cols      []uint32 // pgtype OIDs
}

// Result column types.
const (
	i4, f8, txt          = pgtype.Int4OID, pgtype.Float8OID, pgtype.TextOID
	i4s, f8s, txts, bols = pgtype.Int4ArrayOID, pgtype.Float8ArrayOID, pgtype.TextArrayOID, pgtype.BoolArrayOID
)

var (
	callNewOrder = procCall{"rs_call_new_order", "SELECT * FROM rs_new_order($1, $2, $3, $4, $5, $6, $7, $8)",
		[]uint32{i4, f8, txt, txt, f8, f8, f8, txts, i4s, txt, f8s, f8s}}
	callPayment = procCall{"rs_call_payment", "SELECT * FROM rs_payment($1, $2, $3, $4, $5, $6, $7, $8::float8::numeric)",
		[]uint32{i4, f8, txts, txts, txt, txt, txt, txts, txt, txt, f8, f8, txt}}
	callOrderStatus = procCall{"rs_call_order_status", "SELECT * FROM rs_order_status($1, $2, $3, $4, $5)",
		[]uint32{i4, f8, i4, i4, txt, txt, txt, i4s, i4s, i4s, f8s, bols}}
	callDelivery = procCall{"rs_call_delivery", "SELECT out_delivered, out_skipped FROM rs_delivery($1, $2)",
		[]uint32{i4, i4}}
	callStockLevel = procCall{"rs_call_stock_level", "SELECT rs_stock_level($1, $2, $3)",
		[]uint32{i4}}
	procCalls = [...]*procCall{&callNewOrder, &callPayment, &callOrderStatus, &callDelivery, &callStockLevel}
)

func newProcExec(ctx context.Context, conn *pgx.Conn) (*procExec, error) {
	pg := conn.PgConn()
	for _, c := range procCalls {
		sd, err := pg.Prepare(ctx, c.name, c.sql, nil)
		if err != nil {
			if isCode(err, "42883") { // undefined_function
				return nil, fmt.Errorf("prepare %s: %w (the procedures are missing: run build again)", c.name, err)
			}
			return nil, fmt.Errorf("prepare %s: %w", c.name, err)
		}
		if err := c.check(sd); err != nil {
			return nil, err
		}
	}
	if err := pg.SyncConn(ctx); err != nil {
		return nil, fmt.Errorf("take over the connection: %w", err)
	}
	hc, err := pg.Hijack()
	if err != nil {
		return nil, fmt.Errorf("take over the connection: %w", err)
	}
	return &procExec{w: newWire(hc)}, nil
}

// check compares the prepared statement's result columns with c's.
func (c *procCall) check(sd *pgconn.StatementDescription) error {
	if len(sd.Fields) != len(c.cols) {
		return fmt.Errorf("prepare %s: %d result columns, want %d (procedures of another rightsize: run build again)", c.name, len(sd.Fields), len(c.cols))
	}
	for i, f := range sd.Fields {
		if f.DataTypeOID != c.cols[i] {
			return fmt.Errorf("prepare %s: column %s has type OID %d, want %d (procedures of another rightsize: run build again)", c.name, f.Name, f.DataTypeOID, c.cols[i])
		}
	}
	return nil
}

func (e *procExec) Close(ctx context.Context) error {
	e.unwatch()
	return e.w.close()
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
		netConn := e.w.hc.Conn
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
// one result row into out, a pointer to a result struct. An error the
// server raised is returned as pgconn's *PgError.
func (e *procExec) call(ctx context.Context, c *procCall, out any) error {
	if e.w.broken != nil {
		return fmt.Errorf("%s: %w", c.name, errConnBroken)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	e.watch(ctx)
	if err := e.w.send(c.name, e.buf, e.ends); err != nil {
		return e.lost(ctx, c, err)
	}
	rows := 0
	var pgErr, decodeErr error
	for {
		typ, body, err := e.w.next()
		if err != nil {
			return e.lost(ctx, c, err)
		}
		switch typ {
		case 'D': // DataRow
			if rows++; rows == 1 && pgErr == nil {
				if decodeErr = e.w.dataRow(body); decodeErr == nil {
					decodeErr = e.decode(e.w.vals, out)
				}
			}
		case 'E': // ErrorResponse: the server goes on to ReadyForQuery
			if pgErr == nil {
				pgErr = pgError(body)
			}
		case 'Z': // ReadyForQuery
			return result(c, rows, pgErr, decodeErr)
		case '2', 'C', 'N', 'S', 'A': // BindComplete, CommandComplete, notice, parameter status, notification
		default:
			return e.lost(ctx, c, fmt.Errorf("protocol: unexpected message %q", typ))
		}
	}
}

// result is the outcome of a call that reached ReadyForQuery.
func result(c *procCall, rows int, pgErr, decodeErr error) error {
	switch {
	case pgErr != nil:
		return pgErr
	case decodeErr != nil:
		return fmt.Errorf("%s: %w", c.name, decodeErr)
	case rows != 1:
		return fmt.Errorf("%s returned %d rows, want 1", c.name, rows)
	}
	return nil
}

// lost ends the connection after err broke a call, naming ctx's error when
// its cancellation was the cause.
func (e *procExec) lost(ctx context.Context, c *procCall, err error) error {
	ctxErr := ctx.Err()
	e.w.fail(err, ctxErr != nil)
	if ctxErr != nil {
		return fmt.Errorf("%s: %w (%v)", c.name, ctxErr, err)
	}
	return fmt.Errorf("%s: %w", c.name, err)
}

// decode reads a result row into out.
func (e *procExec) decode(vals [][]byte, out any) error {
	switch o := out.(type) {
	case *tpcc.NewOrderResult:
		return decodeNewOrder(vals, o, &e.screens[tpcc.NewOrderTxn])
	case *tpcc.PaymentResult:
		return decodePayment(vals, o, &e.screens[tpcc.PaymentTxn])
	case *tpcc.OrderStatusResult:
		return decodeOrderStatus(vals, o, &e.screens[tpcc.OrderStatusTxn])
	case *tpcc.DeliveryResult:
		c := columns{vals: vals}
		o.Delivered, o.Skipped = c.int32(), c.int32()
		return c.err
	case *tpcc.StockLevelResult:
		c := columns{vals: vals}
		o.LowStock = c.int32()
		return c.err
	}
	return fmt.Errorf("no decoder for %T", out)
}

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
	*out = tpcc.NewOrderResult{Lines: out.Lines[:0]}
	err := e.call(ctx, &callNewOrder, out)
	if err != nil && isCode(err, invalidItemCode) {
		*out = tpcc.NewOrderResult{Lines: out.Lines[:0], RolledBack: true}
		return nil
	}
	return err
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
	return e.call(ctx, &callPayment, out)
}

func (e *procExec) OrderStatus(ctx context.Context, in *tpcc.OrderStatusInput, out *tpcc.OrderStatusResult) error {
	e.reset()
	e.int(in.WID)
	e.int(in.DID)
	e.int(in.CID)
	e.bool(in.ByName)
	e.text(in.CLast)
	return e.call(ctx, &callOrderStatus, out)
}

func (e *procExec) Delivery(ctx context.Context, in *tpcc.DeliveryInput, out *tpcc.DeliveryResult) error {
	e.reset()
	e.int(in.WID)
	e.int(in.CarrierID)
	return e.call(ctx, &callDelivery, out)
}

func (e *procExec) StockLevel(ctx context.Context, in *tpcc.StockLevelInput, out *tpcc.StockLevelResult) error {
	e.reset()
	e.int(in.WID)
	e.int(in.DID)
	e.int(in.Threshold)
	return e.call(ctx, &callStockLevel, out)
}
