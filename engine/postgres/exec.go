package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/rightsize/rightsize/engine"
	"github.com/rightsize/rightsize/internal/rawsock"
	"github.com/rightsize/rightsize/tpcc"
)

// NewExecutor implements engine.DB: a dedicated connection per virtual user.
func (db *DB) NewExecutor(ctx context.Context, mode engine.Mode) (tpcc.Executor, error) {
	cfg, err := pgx.ParseConfig(db.dsn)
	if err != nil {
		return nil, fmt.Errorf("parse PostgreSQL DSN: %w", err)
	}
	// A virtual user waits on its socket all the time: raw reads and
	// writes spare the runtime a sysmon wake-up per round trip.
	cfg.DialFunc = rawsock.WrapDial(cfg.DialFunc)
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("connect virtual user: %w", err)
	}
	switch mode {
	case engine.Procedures:
		return &procExec{conn: conn}, nil
	case engine.Statements:
		return newStmtExec(conn), nil
	}
	conn.Close(ctx)
	return nil, fmt.Errorf("postgres: unknown mode %q", mode)
}

func isCode(err error, code string) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == code
}

// procExec runs each transaction as one stored-procedure call.
type procExec struct {
	conn          *pgx.Conn
	items, supply []int32
	qty           []int32
}

func (e *procExec) Close(ctx context.Context) error { return e.conn.Close(ctx) }

func (e *procExec) NewOrder(ctx context.Context, in *tpcc.NewOrderInput, out *tpcc.NewOrderResult) error {
	e.items, e.supply, e.qty = e.items[:0], e.supply[:0], e.qty[:0]
	for _, l := range in.Lines {
		e.items = append(e.items, l.ItemID)
		e.supply = append(e.supply, l.SupplyWID)
		e.qty = append(e.qty, l.Quantity)
	}
	allLocal := int32(0)
	if in.AllLocal {
		allLocal = 1
	}
	*out = tpcc.NewOrderResult{}
	err := e.conn.QueryRow(ctx, "SELECT out_o_id, out_total::float8 FROM rs_new_order($1, $2, $3, $4, $5, $6, $7)",
		in.WID, in.DID, in.CID, allLocal, e.items, e.supply, e.qty).Scan(&out.OID, &out.Total)
	if isCode(err, invalidItemCode) {
		out.RolledBack = true
		return nil
	}
	return err
}

func (e *procExec) Payment(ctx context.Context, in *tpcc.PaymentInput, out *tpcc.PaymentResult) error {
	return e.conn.QueryRow(ctx, "SELECT out_c_id, out_balance::float8 FROM rs_payment($1, $2, $3, $4, $5, $6, $7, $8::float8::numeric)",
		in.WID, in.DID, in.CWID, in.CDID, in.CID, in.ByName, in.CLast, in.Amount).Scan(&out.CID, &out.Balance)
}

func (e *procExec) OrderStatus(ctx context.Context, in *tpcc.OrderStatusInput, out *tpcc.OrderStatusResult) error {
	return e.conn.QueryRow(ctx, "SELECT out_c_id, out_balance::float8, out_o_id, out_lines FROM rs_order_status($1, $2, $3, $4, $5)",
		in.WID, in.DID, in.CID, in.ByName, in.CLast).Scan(&out.CID, &out.Balance, &out.OID, &out.Lines)
}

func (e *procExec) Delivery(ctx context.Context, in *tpcc.DeliveryInput, out *tpcc.DeliveryResult) error {
	return e.conn.QueryRow(ctx, "SELECT out_delivered, out_skipped FROM rs_delivery($1, $2)",
		in.WID, in.CarrierID).Scan(&out.Delivered, &out.Skipped)
}

func (e *procExec) StockLevel(ctx context.Context, in *tpcc.StockLevelInput, out *tpcc.StockLevelResult) error {
	return e.conn.QueryRow(ctx, "SELECT rs_stock_level($1, $2, $3)", in.WID, in.DID, in.Threshold).Scan(&out.LowStock)
}
