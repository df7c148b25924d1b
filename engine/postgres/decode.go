package postgres

import (
	"github.com/rightsize/rightsize/tpcc"
)

// The decoders below read the one row of a procedure (procs.go) into a
// result struct, in the order of the procedure's OUT parameters. Text goes
// into text, reset first with room for the whole row, so a result's strings
// alias it until the next decode into the same text; order lines reuse the
// result's Lines. Nothing is allocated once the buffers have grown.

// rowBytes is the size of a row's values: room enough for all its text.
func rowBytes(vals [][]byte) int {
	n := 0
	for _, v := range vals {
		n += len(v)
	}
	return n
}

// decodeNewOrder reads rs_new_order: O_ID, the display total, C_LAST,
// C_CREDIT, C_DISCOUNT, W_TAX, D_TAX and per line I_NAME, S_QUANTITY,
// brand-generic, I_PRICE, OL_AMOUNT (output screen, clause 2.4.3.3).
func decodeNewOrder(vals [][]byte, out *tpcc.NewOrderResult, text *tpcc.ScreenText) error {
	c := columns{vals: vals}
	text.Reset(rowBytes(vals))
	out.OID, out.Total = c.int32(), c.float64()
	out.CLast, out.Credit = text.Text(c.bytes()), text.Text(c.bytes())
	out.Discount, out.WTax, out.DTax = c.float64(), c.float64(), c.float64()
	names := c.array(textElem, -1)
	qty := c.array(int4Elem, names.n)
	brands := c.next(names.n)
	prices := c.array(float8Elem, names.n)
	amounts := c.array(float8Elem, names.n)
	if c.err != nil {
		return c.err
	}
	out.Lines = out.Lines[:0]
	for i := range names.n {
		out.Lines = append(out.Lines, tpcc.NewOrderLine{ItemName: text.Text(names.elem(-1)), StockQty: qty.int32(),
			BrandGeneric: brands[i], Price: prices.float64(), Amount: amounts.float64()})
	}
	c.check(&names, &qty, &prices, &amounts)
	return c.err
}

// decodeAddress reads a text array of five: street 1, street 2, city,
// state, zip.
func decodeAddress(c *columns, text *tpcc.ScreenText) tpcc.Address {
	a := c.array(textElem, 5)
	if c.err != nil {
		return tpcc.Address{}
	}
	addr := tpcc.Address{Street1: text.Text(a.elem(-1)), Street2: text.Text(a.elem(-1)), City: text.Text(a.elem(-1)),
		State: text.Text(a.elem(-1)), Zip: text.Text(a.elem(-1))}
	c.check(&a)
	return addr
}

// decodePayment reads rs_payment: C_ID, C_BALANCE, the warehouse's and
// the district's address, C_FIRST, C_MIDDLE, C_LAST, the customer's
// address, C_PHONE, C_CREDIT, C_CREDIT_LIM, C_DISCOUNT and C_DATA (its
// first 200 characters when BC, else empty) (output screen, clause
// 2.5.3.3).
func decodePayment(vals [][]byte, out *tpcc.PaymentResult, text *tpcc.ScreenText) error {
	c := columns{vals: vals}
	text.Reset(rowBytes(vals))
	out.CID, out.Balance = c.int32(), c.float64()
	out.Warehouse, out.District = decodeAddress(&c, text), decodeAddress(&c, text)
	out.First, out.Middle, out.Last = text.Text(c.bytes()), text.Text(c.bytes()), text.Text(c.bytes())
	out.Customer = decodeAddress(&c, text)
	out.Phone, out.Credit = text.Text(c.bytes()), text.Text(c.bytes())
	out.CreditLim, out.Discount = c.float64(), c.float64()
	out.Data = text.Text(c.bytes())
	return c.err
}

// decodeOrderStatus reads rs_order_status: C_ID, C_BALANCE, O_ID,
// O_CARRIER_ID (0 when NULL), C_FIRST, C_MIDDLE, C_LAST and per line
// OL_I_ID, OL_SUPPLY_W_ID, OL_QUANTITY, OL_AMOUNT and whether
// OL_DELIVERY_D is set (output screen, clause 2.6.3.3).
func decodeOrderStatus(vals [][]byte, out *tpcc.OrderStatusResult, text *tpcc.ScreenText) error {
	c := columns{vals: vals}
	text.Reset(rowBytes(vals))
	out.CID, out.Balance, out.OID, out.Carrier = c.int32(), c.float64(), c.int32(), c.int32()
	out.First, out.Middle, out.Last = text.Text(c.bytes()), text.Text(c.bytes()), text.Text(c.bytes())
	items := c.array(int4Elem, -1)
	supply := c.array(int4Elem, items.n)
	qty := c.array(int4Elem, items.n)
	amounts := c.array(float8Elem, items.n)
	delivered := c.array(boolElem, items.n)
	if c.err != nil {
		return c.err
	}
	out.Lines = out.Lines[:0]
	for range items.n {
		out.Lines = append(out.Lines, tpcc.OrderStatusLine{ItemID: items.int32(), SupplyWID: supply.int32(),
			Quantity: qty.int32(), Amount: amounts.float64(), Delivered: delivered.bool()})
	}
	c.check(&items, &supply, &qty, &amounts, &delivered)
	return c.err
}
