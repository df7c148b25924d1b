package mysql

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/go-sql-driver/mysql"

	"github.com/rightsize/rightsize/engine"
	"github.com/rightsize/rightsize/tpcc"
)

// NewExecutor implements engine.DB: a dedicated connection per virtual
// user, at REPEATABLE READ (READ COMMITTED with --isolation read-committed;
// see the package documentation), with its statements prepared once.
func (db *DB) NewExecutor(ctx context.Context, mode engine.Mode) (tpcc.Executor, error) {
	if mode != engine.Procedures && mode != engine.Statements {
		return nil, fmt.Errorf("mysql: unknown mode %q", mode)
	}
	conn, err := db.users.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("connect virtual user: %w", err)
	}
	if _, err := conn.ExecContext(ctx, "SET SESSION TRANSACTION ISOLATION LEVEL "+isolationLevel(db.isolation)); err != nil {
		conn.Close()
		return nil, fmt.Errorf("connect virtual user: %w", err)
	}
	var e tpcc.Executor
	if mode == engine.Procedures {
		e, err = newProcExec(ctx, conn)
	} else {
		e, err = newStmtExec(ctx, conn)
	}
	if err != nil {
		conn.Close()
		return nil, err
	}
	return e, nil
}

// isolationLevel is the InnoDB level an isolation choice runs at.
func isolationLevel(i engine.Isolation) string {
	if i.Compliant() {
		return "REPEATABLE READ"
	}
	return "READ COMMITTED"
}

// SetIsolation implements engine.IsolationSetter.
func (db *DB) SetIsolation(i engine.Isolation) { db.isolation = i }

// stmts owns the prepared statements of one connection.
type stmts struct {
	conn *sql.Conn
	all  []*sql.Stmt
}

func (s *stmts) prepare(ctx context.Context, q string) (*sql.Stmt, error) {
	st, err := s.conn.PrepareContext(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("prepare %.60q: %w", q, err)
	}
	s.all = append(s.all, st)
	return st, nil
}

func (s *stmts) Close(context.Context) error {
	for _, st := range s.all {
		_ = st.Close()
	}
	s.all = nil
	return s.conn.Close()
}

// noCustomer turns the procedures' "no customer with that last name"
// signal into tpcc.ErrNoSuchCustomer.
func noCustomer(err error) error {
	var me *mysql.MySQLError
	if errors.As(err, &me) && me.Number == 1644 && strings.HasPrefix(me.Message, "rightsize: no customer") {
		return fmt.Errorf("%w (%v)", tpcc.ErrNoSuchCustomer, err)
	}
	return err
}

// amount formats a payment amount (two decimals) for a DECIMAL(6,2)
// parameter, exactly.
func amount(a float64) string { return strconv.FormatFloat(a, 'f', 2, 64) }

// procExec runs each transaction as one CALL of a prepared statement.
type procExec struct {
	stmts
	newOrder, payment, orderStatus, delivery, stockLevel *sql.Stmt
	items, supply, qty, numbers                          []byte
	screen                                               string
}

func newProcExec(ctx context.Context, conn *sql.Conn) (*procExec, error) {
	e := &procExec{stmts: stmts{conn: conn}}
	for _, p := range []struct {
		st **sql.Stmt
		q  string
	}{
		{&e.newOrder, "CALL rs_new_order(?, ?, ?, ?, ?, ?, ?, ?, ?)"},
		{&e.payment, "CALL rs_payment(?, ?, ?, ?, ?, ?, ?, ?)"},
		{&e.orderStatus, "CALL rs_order_status(?, ?, ?, ?, ?)"},
		{&e.delivery, "CALL rs_delivery(?, ?)"},
		{&e.stockLevel, "CALL rs_stock_level(?, ?, ?)"},
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

func appendList(b []byte, i int, v int32) []byte {
	if i > 0 {
		b = append(b, ',')
	}
	return strconv.AppendInt(b, int64(v), 10)
}

func boolInt(b bool) int32 {
	if b {
		return 1
	}
	return 0
}

func (e *procExec) NewOrder(ctx context.Context, in *tpcc.NewOrderInput, out *tpcc.NewOrderResult) error {
	e.items, e.supply, e.qty, e.numbers = e.items[:0], e.supply[:0], e.qty[:0], e.numbers[:0]
	for i, l := range in.Lines {
		e.items = appendList(e.items, i, l.ItemID)
		e.supply = appendList(e.supply, i, l.SupplyWID)
		e.qty = appendList(e.qty, i, l.Quantity)
		e.numbers = appendList(e.numbers, i, l.Number)
	}
	*out = tpcc.NewOrderResult{Lines: out.Lines[:0]}
	var rb int32
	err := e.newOrder.QueryRowContext(ctx, in.WID, in.DID, in.CID, boolInt(in.AllLocal), int32(len(in.Lines)),
		string(e.items), string(e.supply), string(e.qty), string(e.numbers)).Scan(&out.OID, &out.Total, &rb, &e.screen)
	if err != nil {
		return err
	}
	if rb != 0 {
		*out = tpcc.NewOrderResult{RolledBack: true, Lines: out.Lines[:0]}
		return nil
	}
	return out.ParseScreen(e.screen)
}

func (e *procExec) Payment(ctx context.Context, in *tpcc.PaymentInput, out *tpcc.PaymentResult) error {
	err := e.payment.QueryRowContext(ctx, in.WID, in.DID, in.CWID, in.CDID, in.CID, boolInt(in.ByName), in.CLast,
		amount(in.Amount)).Scan(engine.PaymentScreen(out)...)
	return noCustomer(err)
}

func (e *procExec) OrderStatus(ctx context.Context, in *tpcc.OrderStatusInput, out *tpcc.OrderStatusResult) error {
	rows, err := e.orderStatus.QueryContext(ctx, in.WID, in.DID, in.CID, boolInt(in.ByName), in.CLast)
	if err != nil {
		return noCustomer(err)
	}
	defer rows.Close()
	if !rows.Next() {
		return noCustomer(fmt.Errorf("rs_order_status returned no customer row: %w", firstErr(rows.Err(), sql.ErrNoRows)))
	}
	if err := rows.Scan(&out.CID, &out.Balance, &out.First, &out.Middle, &out.Last, &out.OID, &out.Carrier); err != nil {
		return err
	}
	if !rows.NextResultSet() {
		return fmt.Errorf("rs_order_status returned no order lines: %w", firstErr(rows.Err(), sql.ErrNoRows))
	}
	return engine.ScanOrderStatusLines(rows, out)
}

func (e *procExec) Delivery(ctx context.Context, in *tpcc.DeliveryInput, out *tpcc.DeliveryResult) error {
	return e.delivery.QueryRowContext(ctx, in.WID, in.CarrierID).Scan(&out.Delivered, &out.Skipped)
}

func (e *procExec) StockLevel(ctx context.Context, in *tpcc.StockLevelInput, out *tpcc.StockLevelResult) error {
	return e.stockLevel.QueryRowContext(ctx, in.WID, in.DID, in.Threshold).Scan(&out.LowStock)
}
