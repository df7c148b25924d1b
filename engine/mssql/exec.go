package mssql

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"

	gomssql "github.com/microsoft/go-mssqldb"

	"github.com/rightsize/rightsize/engine"
	"github.com/rightsize/rightsize/tpcc"
)

// sessionSetup runs once on every virtual user's connection. With
// XACT_ABORT ON any error ends the statements mode's transaction on the
// server too, as it does inside the procedures. The isolation is
// SERIALIZABLE for level 3 of clause 3.4 (key-range locks: no dirty or
// non-repeatable reads, no phantoms; SQL Server's REPEATABLE READ allows
// phantoms), READ COMMITTED with --isolation read-committed. Deadlocks
// (1205) are retried by the driver. Stock-Level runs at READ COMMITTED,
// all it needs (clause 2.8.2.3).
func sessionSetup(i engine.Isolation) string {
	level := "SERIALIZABLE"
	if !i.Compliant() {
		level = "READ COMMITTED"
	}
	return "SET NOCOUNT ON; SET XACT_ABORT ON; SET TRANSACTION ISOLATION LEVEL " + level + ";"
}

// SetIsolation implements engine.IsolationSetter.
func (db *DB) SetIsolation(i engine.Isolation) { db.isolation = i }

// NewExecutor implements engine.DB: a dedicated connection per virtual user.
func (db *DB) NewExecutor(ctx context.Context, mode engine.Mode) (tpcc.Executor, error) {
	if mode != engine.Procedures && mode != engine.Statements {
		return nil, fmt.Errorf("mssql: unknown mode %q", mode)
	}
	conn, err := db.vu.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("connect virtual user: %w", err)
	}
	if _, err := conn.ExecContext(ctx, sessionSetup(db.isolation)); err != nil {
		conn.Close()
		return nil, fmt.Errorf("set up virtual user session: %w", err)
	}
	if mode == engine.Procedures {
		return &procExec{conn: conn, lines: make([]orderLineRow, 0, tpcc.MaxOrderLines)}, nil
	}
	return newStmtExec(conn), nil
}

// orderLineRow is one row of the dbo.rs_order_line_list table-valued
// parameter; the fields match the type's columns in order.
type orderLineRow struct {
	Seq       int32 // processing order: the lines' sorted order
	OLNumber  int32
	ItemID    int32
	SupplyWID int32
	Quantity  int32
}

// orderLines returns the lines of in as table-valued parameter rows,
// in processing order from 1, each with its OL_NUMBER, reusing buf.
func orderLines(buf []orderLineRow, in *tpcc.NewOrderInput) []orderLineRow {
	buf = buf[:0]
	for i, l := range in.Lines {
		buf = append(buf, orderLineRow{Seq: int32(i + 1), OLNumber: l.Number, ItemID: l.ItemID, SupplyWID: l.SupplyWID, Quantity: l.Quantity})
	}
	return buf
}

// cents converts an amount with at most two decimals into cents.
func cents(x float64) int64 { return int64(math.Round(x * 100)) }

// centsText writes cents as the exact decimal text SQL Server converts to
// numeric ("1234.56", "-0.05"): amounts travel as text, never as float.
func centsText(c int64) string {
	sign := ""
	if c < 0 {
		sign, c = "-", -c
	}
	return fmt.Sprintf("%s%d.%02d", sign, c/100, c%100)
}

// lastName is the @c_last argument: varchar (an nvarchar parameter would
// make SQL Server convert the varchar column and scan instead of seek), or
// NULL when the customer is chosen by id.
func lastName(byName bool, last string) any {
	if !byName {
		return sql.NullString{}
	}
	return gomssql.VarChar(last)
}

func allLocal(in *tpcc.NewOrderInput) int32 {
	if in.AllLocal {
		return 1
	}
	return 0
}

// Procedure names and the table type's name, as go-mssqldb calls them (a
// query that is a bare object name runs as an RPC call of that procedure).
const (
	procNewOrder    = "dbo.rs_new_order"
	procPayment     = "dbo.rs_payment"
	procOrderStatus = "dbo.rs_order_status"
	procDelivery    = "dbo.rs_delivery"
	procStockLevel  = "dbo.rs_stock_level"
	orderLineTVP    = "dbo." + orderLineType
)

// procExec runs each transaction as one stored-procedure call (one round
// trip); each procedure returns one row.
type procExec struct {
	conn   *sql.Conn
	lines  []orderLineRow
	screen string
}

func (e *procExec) Close(ctx context.Context) error { return e.conn.Close() }

// newOrderArgs are rs_new_order's arguments.
func newOrderArgs(in *tpcc.NewOrderInput, lines []orderLineRow) []any {
	return []any{sql.Named("w_id", in.WID), sql.Named("d_id", in.DID), sql.Named("c_id", in.CID),
		sql.Named("all_local", allLocal(in)), sql.Named("lines", gomssql.TVP{TypeName: orderLineTVP, Value: lines})}
}

// paymentArgs are rs_payment's arguments.
func paymentArgs(in *tpcc.PaymentInput) []any {
	return []any{sql.Named("w_id", in.WID), sql.Named("d_id", in.DID), sql.Named("c_w_id", in.CWID), sql.Named("c_d_id", in.CDID),
		sql.Named("c_id", in.CID), sql.Named("by_name", in.ByName), sql.Named("c_last", lastName(in.ByName, in.CLast)),
		sql.Named("h_amount", gomssql.VarChar(centsText(cents(in.Amount))))}
}

// orderStatusArgs are rs_order_status's arguments.
func orderStatusArgs(in *tpcc.OrderStatusInput) []any {
	return []any{sql.Named("w_id", in.WID), sql.Named("d_id", in.DID), sql.Named("c_id", in.CID),
		sql.Named("by_name", in.ByName), sql.Named("c_last", lastName(in.ByName, in.CLast))}
}

// deliveryArgs are rs_delivery's arguments.
func deliveryArgs(in *tpcc.DeliveryInput) []any {
	return []any{sql.Named("w_id", in.WID), sql.Named("o_carrier_id", in.CarrierID)}
}

// stockLevelArgs are rs_stock_level's arguments.
func stockLevelArgs(in *tpcc.StockLevelInput) []any {
	return []any{sql.Named("w_id", in.WID), sql.Named("d_id", in.DID), sql.Named("threshold", in.Threshold)}
}

func (e *procExec) NewOrder(ctx context.Context, in *tpcc.NewOrderInput, out *tpcc.NewOrderResult) error {
	*out = tpcc.NewOrderResult{Lines: out.Lines[:0]}
	e.lines = orderLines(e.lines, in)
	var rolledBack int32
	err := e.conn.QueryRowContext(ctx, procNewOrder, newOrderArgs(in, e.lines)...).Scan(&out.OID, &out.Total, &rolledBack, &e.screen)
	if err != nil {
		*out = tpcc.NewOrderResult{Lines: out.Lines[:0]}
		return err
	}
	if rolledBack != 0 {
		*out = tpcc.NewOrderResult{RolledBack: true, Lines: out.Lines[:0]}
		return nil
	}
	return out.ParseScreen(e.screen)
}

func (e *procExec) Payment(ctx context.Context, in *tpcc.PaymentInput, out *tpcc.PaymentResult) error {
	return e.conn.QueryRowContext(ctx, procPayment, paymentArgs(in)...).Scan(engine.PaymentScreen(out)...)
}

func (e *procExec) OrderStatus(ctx context.Context, in *tpcc.OrderStatusInput, out *tpcc.OrderStatusResult) error {
	rows, err := e.conn.QueryContext(ctx, procOrderStatus, orderStatusArgs(in)...)
	if err != nil {
		return err
	}
	defer rows.Close()
	if err := engine.ScanOrderStatusLines(rows, out); err != nil {
		return err
	}
	if !rows.NextResultSet() || !rows.Next() {
		return fmt.Errorf("rs_order_status returned no customer row: %w", errors.Join(rows.Err(), sql.ErrNoRows))
	}
	return rows.Scan(&out.CID, &out.Balance, &out.First, &out.Middle, &out.Last, &out.OID, &out.Carrier)
}

func (e *procExec) Delivery(ctx context.Context, in *tpcc.DeliveryInput, out *tpcc.DeliveryResult) error {
	return e.conn.QueryRowContext(ctx, procDelivery, deliveryArgs(in)...).Scan(&out.Delivered, &out.Skipped)
}

func (e *procExec) StockLevel(ctx context.Context, in *tpcc.StockLevelInput, out *tpcc.StockLevelResult) error {
	return e.conn.QueryRowContext(ctx, procStockLevel, stockLevelArgs(in)...).Scan(&out.LowStock)
}
