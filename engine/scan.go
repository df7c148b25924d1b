package engine

import (
	"database/sql"

	"github.com/rightsize/rightsize/tpcc"
)

// PaymentScreen lists the scan targets of a Payment's output row, for the
// engines whose procedures return it as columns: C_ID, C_BALANCE, the
// warehouse's and the district's street 1, street 2, city, state and zip,
// C_FIRST, C_MIDDLE, C_LAST, the customer's address, C_PHONE, C_CREDIT,
// C_CREDIT_LIM, C_DISCOUNT and C_DATA (first 200 characters when BC).
func PaymentScreen(out *tpcc.PaymentResult) []any {
	w, d, c := &out.Warehouse, &out.District, &out.Customer
	return []any{&out.CID, &out.Balance, &w.Street1, &w.Street2, &w.City, &w.State, &w.Zip,
		&d.Street1, &d.Street2, &d.City, &d.State, &d.Zip, &out.First, &out.Middle, &out.Last,
		&c.Street1, &c.Street2, &c.City, &c.State, &c.Zip, &out.Phone, &out.Credit, &out.CreditLim, &out.Discount, &out.Data}
}

// ScanOrderStatusLines reads the lines of an Order-Status from rows of
// OL_I_ID, OL_SUPPLY_W_ID, OL_QUANTITY, OL_AMOUNT and 1 when OL_DELIVERY_D
// is set (else 0), replacing out.Lines.
func ScanOrderStatusLines(rows *sql.Rows, out *tpcc.OrderStatusResult) error {
	out.Lines = out.Lines[:0]
	for rows.Next() {
		var l tpcc.OrderStatusLine
		var delivered int32
		if err := rows.Scan(&l.ItemID, &l.SupplyWID, &l.Quantity, &l.Amount, &delivered); err != nil {
			return err
		}
		l.Delivered = delivered != 0
		out.Lines = append(out.Lines, l)
	}
	return rows.Err()
}

// Rows is what database/sql's and pgx's query results both offer.
type Rows interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
}

// ScanNamed reads rows of a name and a value, as text, calling add for
// each: settings, status variables and counters read by name.
func ScanNamed(rows Rows, add func(name, value string)) error {
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			return err
		}
		add(k, v)
	}
	return rows.Err()
}
