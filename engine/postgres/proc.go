package postgres

import (
	"context"
	"fmt"
	"slices"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/rightsize/rightsize/tpcc"
)

// procExec runs each transaction as one call of its PL/pgSQL function, a
// statement prepared through pgconn, then executed on the hijacked
// connection (protocol.go): parameters go in binary built in one reused
// buffer (no number formatted as text, nor parsed by the server), results
// come back in binary, as typed columns and arrays
// (procs.go), and are decoded in place into the result structs (decode.go).
// That skips pgx's per-query type planning, encoding and scanning, pgconn's
// per-call machinery, and parsing a screen text, and allocates nothing per
// transaction.
type procExec struct {
	session
	// screens holds the text of each transaction type's last result: its
	// strings alias it (tpcc.ScreenText).
	screens [tpcc.NumTxnTypes]tpcc.ScreenText
}

// procCall is one prepared function call and the types of its
// parameters (sent in binary, so they must be these exactly) and of its
// result columns, checked when it is prepared.
type procCall struct {
	name, sql    string
	params, cols []uint32 // pgtype OIDs
}

// Parameter and result column types.
const (
	bo, vc               = pgtype.BoolOID, pgtype.VarcharOID
	i4, f8, txt          = pgtype.Int4OID, pgtype.Float8OID, pgtype.TextOID
	i4s, f8s, txts, bols = pgtype.Int4ArrayOID, pgtype.Float8ArrayOID, pgtype.TextArrayOID, pgtype.BoolArrayOID
)

var (
	callNewOrder = procCall{"rs_call_new_order", "SELECT * FROM rs_new_order($1, $2, $3, $4, $5, $6, $7, $8)",
		[]uint32{i4, i4, i4, i4, i4s, i4s, i4s, i4s},
		[]uint32{i4, f8, txt, txt, f8, f8, f8, txts, i4s, txt, f8s, f8s}}
	callPayment = procCall{"rs_call_payment", "SELECT * FROM rs_payment($1, $2, $3, $4, $5, $6, $7, $8::float8::numeric)",
		[]uint32{i4, i4, i4, i4, i4, bo, vc, f8},
		[]uint32{i4, f8, txts, txts, txt, txt, txt, txts, txt, txt, f8, f8, txt}}
	callOrderStatus = procCall{"rs_call_order_status", "SELECT * FROM rs_order_status($1, $2, $3, $4, $5)",
		[]uint32{i4, i4, i4, bo, vc},
		[]uint32{i4, f8, i4, i4, txt, txt, txt, i4s, i4s, i4s, f8s, bols}}
	callDelivery = procCall{"rs_call_delivery", "SELECT out_delivered, out_skipped FROM rs_delivery($1, $2)",
		[]uint32{i4, i4},
		[]uint32{i4, i4}}
	callStockLevel = procCall{"rs_call_stock_level", "SELECT rs_stock_level($1, $2, $3)",
		[]uint32{i4, i4, i4},
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
	s, err := takeOver(ctx, pg)
	if err != nil {
		return nil, err
	}
	s.binary = true
	return &procExec{session: s}, nil
}

// check compares the prepared statement's parameters and result columns
// with c's.
func (c *procCall) check(sd *pgconn.StatementDescription) error {
	if !slices.Equal(sd.ParamOIDs, c.params) {
		return fmt.Errorf("prepare %s: parameter type OIDs %v, want %v (procedures of another rightsize: run build again)", c.name, sd.ParamOIDs, c.params)
	}
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

// call executes c with the parameters appended since reset and decodes its
// one result row into out, a pointer to a result struct. An error the
// server raised is returned as pgconn's *PgError.
func (e *procExec) call(ctx context.Context, c *procCall, out any) error {
	if err := e.ready(ctx, c.name); err != nil {
		return err
	}
	if err := e.w.send(c.name, e.buf, e.ends, e.binary); err != nil {
		return e.lost(ctx, c.name, err)
	}
	rows := 0
	var pgErr, decodeErr error
	for {
		typ, body, err := e.w.next()
		if err != nil {
			return e.lost(ctx, c.name, err)
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
			return e.lost(ctx, c.name, fmt.Errorf("protocol: unexpected message %q", typ))
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
