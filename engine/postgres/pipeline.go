package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/rightsize/rightsize/tpcc"
)

// newStmtExec prepares every statement of stmts on conn in one round
// trip, checking their result columns, and takes the connection over.
func newStmtExec(ctx context.Context, conn *pgx.Conn) (*stmtExec, error) {
	pg := conn.PgConn()
	p := pg.StartPipeline(ctx)
	for _, s := range stmts {
		p.SendPrepare(s.name, s.sql, nil)
	}
	err := p.Sync()
	for i := 0; i < len(stmts) && err == nil; i++ {
		var res any
		if res, err = p.GetResults(); err == nil {
			sd, ok := res.(*pgconn.StatementDescription)
			if !ok {
				err = fmt.Errorf("pipeline returned %T", res)
			} else {
				err = stmts[i].check(sd)
			}
		}
		if err != nil {
			err = fmt.Errorf("prepare %s: %w", stmts[i].name, err)
		}
	}
	if cerr := p.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("prepare the statements: %w", cerr)
	}
	if err != nil {
		return nil, err
	}
	sess, err := takeOver(ctx, pg)
	if err != nil {
		return nil, err
	}
	return &stmtExec{session: sess}, nil
}

// columnKind is the letter of stmt.cols a result column of type oid reads
// as, or 0.
func columnKind(oid uint32) byte {
	switch oid {
	case pgtype.Int4OID:
		return 'i'
	case pgtype.Float8OID:
		return 'f'
	case pgtype.TextOID, pgtype.VarcharOID, pgtype.BPCharOID:
		return 's'
	case pgtype.BoolOID:
		return 'b'
	}
	return 0
}

// check compares the prepared statement's result columns with s.cols.
func (s *stmt) check(sd *pgconn.StatementDescription) error {
	if len(sd.Fields) != len(s.cols) {
		return fmt.Errorf("%d result columns, want %d", len(sd.Fields), len(s.cols))
	}
	for i, f := range sd.Fields {
		if columnKind(f.DataTypeOID) != s.cols[i] {
			return fmt.Errorf("column %s has type OID %d, want kind %c", f.Name, f.DataTypeOID, s.cols[i])
		}
	}
	return nil
}

// start begins building transaction ty's pipeline.
func (e *stmtExec) start(ty tpcc.TxnType) {
	e.w.out = e.w.out[:0]
	e.queued = e.queued[:0]
	e.reset()
	e.screen = &e.screens[ty]
	e.screen.Reset(512)
}

// queue adds s, with the parameters appended since the last queue, to the
// pipeline.
func (e *stmtExec) queue(s *stmt) {
	e.w.bind(s.name, e.buf, e.ends, false)
	e.queued = append(e.queued, s)
	e.reset()
}

// run sends the pipeline and reads its results up to ReadyForQuery,
// decoding each statement's rows as they come. The first error the server
// raised is returned as pgconn's *PgError; after one, the server skipped
// the rest of the pipeline, and the transaction it left open is rolled
// back. A decoding error is returned after the pipeline ran to its end.
func (e *stmtExec) run(ctx context.Context, what string) error {
	if err := e.ready(ctx, what); err != nil {
		return err
	}
	if err := e.w.flush(); err != nil {
		return e.lost(ctx, what, err)
	}
	i, rows := 0, 0
	var pgErr, decodeErr error
	for {
		typ, body, err := e.w.next()
		if err != nil {
			return e.lost(ctx, what, err)
		}
		switch typ {
		case 'D': // DataRow
			if rows++; pgErr == nil && decodeErr == nil && i < len(e.queued) && (rows == 1 || e.queued[i].rows.many()) {
				if decodeErr = e.w.dataRow(body); decodeErr == nil {
					decodeErr = e.row(e.queued[i].rows, e.w.vals)
				}
			}
		case 'C', 'I': // CommandComplete, EmptyQueryResponse
			if decodeErr == nil && rows == 0 && i < len(e.queued) && e.queued[i].rows.needsRow() {
				decodeErr = e.noRow(e.queued[i])
			}
			i, rows = i+1, 0
		case 'E': // ErrorResponse: the server goes on to Sync
			if pgErr == nil {
				pgErr = pgError(body)
			}
		case 'Z': // ReadyForQuery
			return e.end(ctx, what, body, pgErr, decodeErr)
		case '2', 'N', 'S', 'A': // BindComplete, notice, parameter status, notification
		default:
			return e.lost(ctx, what, fmt.Errorf("protocol: unexpected message %q", typ))
		}
	}
}

// end is the outcome of a pipeline that reached ReadyForQuery, whose body
// tells the transaction's status: a transaction left open (an error
// skipped its COMMIT) is rolled back first.
func (e *stmtExec) end(ctx context.Context, what string, status []byte, pgErr, decodeErr error) error {
	if len(status) == 1 && status[0] != 'I' {
		if err := e.rollback(ctx, what); err != nil {
			return err
		}
	}
	switch {
	case pgErr != nil:
		return pgErr
	case decodeErr != nil:
		return fmt.Errorf("%s: %w", what, decodeErr)
	}
	return nil
}

// rollback ends the transaction the connection is in.
func (e *stmtExec) rollback(ctx context.Context, what string) error {
	if err := e.w.query("ROLLBACK"); err != nil {
		return e.lost(ctx, what, err)
	}
	var pgErr error
	for {
		typ, body, err := e.w.next()
		if err != nil {
			return e.lost(ctx, what, err)
		}
		switch typ {
		case 'E':
			if pgErr == nil {
				pgErr = pgError(body)
			}
		case 'Z':
			if pgErr != nil {
				return e.lost(ctx, what, fmt.Errorf("rollback: %w", pgErr))
			}
			return nil
		}
	}
}

// noRow is the error of a statement that returned no row but must.
func (e *stmtExec) noRow(s *stmt) error {
	if s.rows == osCustomerRow {
		return tpcc.ErrNoSuchCustomer
	}
	return fmt.Errorf("%s: %w", s.name, pgx.ErrNoRows)
}

// row decodes a row of a statement of kind k into the transaction's
// result, its text into e.screen.
func (e *stmtExec) row(k rowKind, vals [][]byte) error {
	c := columns{vals: vals}
	t := e.screen
	switch k {
	case wTaxRow:
		e.no.WTax = c.float64()
	case nextOrderRow:
		e.no.DTax, e.no.OID = c.float64(), c.int32()
	case customerNORow:
		e.no.Discount, e.no.CLast, e.no.Credit = c.float64(), t.Text(c.bytes()), t.Text(c.bytes())
	case orderLineRows:
		l := tpcc.NewOrderLine{ItemName: t.Text(c.bytes()), Price: c.float64(), Amount: c.float64(), StockQty: c.int32()}
		if brand := c.next(1); c.err == nil {
			l.BrandGeneric = brand[0]
			e.no.Lines = append(e.no.Lines, l)
			e.processed++
		}
	case totalRow:
		e.no.Total = c.float64()
	case warehouseRow:
		e.pay.Warehouse = addressColumns(&c, t)
	case districtRow:
		e.pay.District = addressColumns(&c, t)
	case payCustomerRow:
		p := e.pay
		p.CID, p.Balance = c.int32(), c.float64()
		p.First, p.Middle, p.Last = t.Text(c.bytes()), t.Text(c.bytes()), t.Text(c.bytes())
		p.Customer = addressColumns(&c, t)
		p.Phone, p.Credit = t.Text(c.bytes()), t.Text(c.bytes())
		p.CreditLim, p.Discount, p.Data = c.float64(), c.float64(), t.Text(c.bytes())
	default:
		return e.otherRow(k, &c)
	}
	return c.err
}

// otherRow decodes the rows of Order-Status, Delivery and Stock-Level.
func (e *stmtExec) otherRow(k rowKind, c *columns) error {
	t := e.screen
	switch k {
	case osCustomerRow:
		o := e.os
		o.CID, o.Balance = c.int32(), c.float64()
		o.First, o.Middle, o.Last = t.Text(c.bytes()), t.Text(c.bytes()), t.Text(c.bytes())
	case osLineRows:
		e.os.OID, e.os.Carrier = c.int32(), c.int32()
		l := tpcc.OrderStatusLine{ItemID: c.int32(), SupplyWID: c.int32(), Quantity: c.int32(), Amount: c.float64()}
		if v := c.next(1); c.err == nil {
			l.Delivered = v[0] != 0
			e.os.Lines = append(e.os.Lines, l)
		}
	case deliveredRow:
		if c.int32() == 1 {
			e.del.Delivered++
		} else {
			e.del.Skipped++
		}
	case lowStockRow:
		e.sl.LowStock = c.int32()
	default:
		return errors.New("a row from a statement that returns none")
	}
	return c.err
}

// addressColumns reads five text columns: street 1, street 2, city,
// state, zip.
func addressColumns(c *columns, t *tpcc.ScreenText) tpcc.Address {
	return tpcc.Address{Street1: t.Text(c.bytes()), Street2: t.Text(c.bytes()), City: t.Text(c.bytes()),
		State: t.Text(c.bytes()), Zip: t.Text(c.bytes())}
}
