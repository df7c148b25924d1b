package tpcc

import (
	"fmt"
	"strconv"
	"strings"
	"unsafe"
)

// Stored procedures return the text fields of an output screen as one text
// value: header fields separated by ScreenField, then each repeated line
// (order lines) introduced by ScreenLine with its fields separated by
// ScreenField. Engines build it with their string functions (chr(31),
// CHAR(31)) and the executors parse it with the ParseScreen methods.
const (
	ScreenField = "\x1f"
	ScreenLine  = "\x1e"
)

// screen splits a screen text into its header fields and line fields,
// checking their counts.
func screen(s string, header, line int) ([]string, [][]string, error) {
	parts := strings.Split(s, ScreenLine)
	h := strings.Split(parts[0], ScreenField)
	if len(h) != header {
		return nil, nil, fmt.Errorf("output screen: %d header fields, want %d", len(h), header)
	}
	lines := make([][]string, 0, len(parts)-1)
	for _, p := range parts[1:] {
		f := strings.Split(p, ScreenField)
		if len(f) != line {
			return nil, nil, fmt.Errorf("output screen: %d line fields, want %d", len(f), line)
		}
		lines = append(lines, f)
	}
	return h, lines, nil
}

// numbers parses decimal fields, keeping the first error.
type numbers struct{ err error }

func (n *numbers) float(s string) float64 {
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil && n.err == nil {
		n.err = fmt.Errorf("output screen: %w", err)
	}
	return v
}

func (n *numbers) int(s string) int32 {
	v, err := strconv.ParseInt(strings.TrimSpace(s), 10, 32)
	if err != nil && n.err == nil {
		n.err = fmt.Errorf("output screen: %w", err)
	}
	return int32(v)
}

// ParseScreen fills r's text fields from a procedure's screen: header
// C_LAST, C_CREDIT, C_DISCOUNT, W_TAX, D_TAX; per line I_NAME, S_QUANTITY,
// brand-generic, I_PRICE, OL_AMOUNT.
func (r *NewOrderResult) ParseScreen(s string) error {
	h, lines, err := screen(s, 5, 5)
	if err != nil {
		return err
	}
	var n numbers
	r.CLast, r.Credit = h[0], h[1]
	r.Discount, r.WTax, r.DTax = n.float(h[2]), n.float(h[3]), n.float(h[4])
	r.Lines = r.Lines[:0]
	for _, l := range lines {
		brand := byte('G')
		if l[2] == "B" {
			brand = 'B'
		}
		r.Lines = append(r.Lines, NewOrderLine{ItemName: l[0], StockQty: n.int(l[1]), BrandGeneric: brand,
			Price: n.float(l[3]), Amount: n.float(l[4])})
	}
	return n.err
}

// ParseScreen fills r's text fields from a procedure's screen: the
// warehouse's and the district's street 1, street 2, city, state and zip,
// then C_FIRST, C_MIDDLE, C_LAST, the customer's address (5 fields),
// C_PHONE, C_CREDIT, C_CREDIT_LIM, C_DISCOUNT and C_DATA (first 200
// characters when BC, else empty).
func (r *PaymentResult) ParseScreen(s string) error {
	h, _, err := screen(s, 23, 0)
	if err != nil {
		return err
	}
	addr := func(f []string) Address { return Address{f[0], f[1], f[2], f[3], f[4]} }
	var n numbers
	r.Warehouse, r.District = addr(h[0:5]), addr(h[5:10])
	r.First, r.Middle, r.Last = h[10], h[11], h[12]
	r.Customer = addr(h[13:18])
	r.Phone, r.Credit = h[18], h[19]
	r.CreditLim, r.Discount = n.float(h[20]), n.float(h[21])
	r.Data = h[22]
	return n.err
}

// ParseScreen fills r's text fields and lines from a procedure's screen:
// header C_FIRST, C_MIDDLE, C_LAST; per line OL_I_ID, OL_SUPPLY_W_ID,
// OL_QUANTITY, OL_AMOUNT, OL_DELIVERY_D (empty when NULL).
func (r *OrderStatusResult) ParseScreen(s string) error {
	h, lines, err := screen(s, 3, 5)
	if err != nil {
		return err
	}
	var n numbers
	r.First, r.Middle, r.Last = h[0], h[1], h[2]
	r.Lines = r.Lines[:0]
	for _, l := range lines {
		r.Lines = append(r.Lines, OrderStatusLine{ItemID: n.int(l[0]), SupplyWID: n.int(l[1]), Quantity: n.int(l[2]),
			Amount: n.float(l[3]), Delivered: l[4] != ""})
	}
	return n.err
}

// ScreenText holds the text fields of the output screens an executor
// decodes, so that decoding allocates nothing per transaction: Text copies
// bytes in and returns a string aliasing the copy. Those strings stay valid
// until the next Reset of the same ScreenText (an executor keeps one per
// transaction type and resets it at that type's next call); keep one longer
// with strings.Clone.
type ScreenText struct{ buf []byte }

// Reset empties t, with room for n bytes: strings returned before may then
// change, unless t had to grow.
func (t *ScreenText) Reset(n int) {
	if cap(t.buf) < n {
		t.buf = make([]byte, 0, n)
		return
	}
	t.buf = t.buf[:0]
}

// Text copies b into t and returns it as a string aliasing t.
func (t *ScreenText) Text(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	start := len(t.buf)
	t.buf = append(t.buf, b...)
	return unsafe.String(&t.buf[start], len(b))
}
