package postgres

import (
	"reflect"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgtype"

	"github.com/rightsize/rightsize/tpcc"
)

// as is a value to encode as type oid rather than as its column's type.
type as struct {
	oid uint32
	v   any
}

// row encodes values in PostgreSQL's binary format with pgx's own
// encoders, as the procedures' result rows arrive; a nil value is NULL.
func row(t testing.TB, oids []uint32, values ...any) [][]byte {
	t.Helper()
	m := pgtype.NewMap()
	vals := make([][]byte, len(values))
	for i, v := range values {
		if v == nil {
			continue
		}
		oid := oids[i]
		if a, ok := v.(as); ok {
			oid, v = a.oid, a.v
		}
		b, err := m.Encode(oid, pgtype.BinaryFormatCode, v, []byte{})
		if err != nil {
			t.Fatalf("encode column %d (%v): %v", i+1, v, err)
		}
		vals[i] = b
	}
	return vals
}

var (
	lines3 = []string{"item-one", "item-two", "item-three"}

	newOrderRow = []any{int32(3001), 1234.56, "BARBARBAR", "GC", 0.1234, 0.05, 0.1,
		lines3, []int32{17, 91, 40}, "GBG", []float64{1.5, 99.99, 10}, []float64{3, 999.9, 70}}
	newOrderWant = tpcc.NewOrderResult{OID: 3001, Total: 1234.56, CLast: "BARBARBAR", Credit: "GC", Discount: 0.1234,
		WTax: 0.05, DTax: 0.1, Lines: []tpcc.NewOrderLine{
			{ItemName: "item-one", StockQty: 17, BrandGeneric: 'G', Price: 1.5, Amount: 3},
			{ItemName: "item-two", StockQty: 91, BrandGeneric: 'B', Price: 99.99, Amount: 999.9},
			{ItemName: "item-three", StockQty: 40, BrandGeneric: 'G', Price: 10, Amount: 70}}}

	wAddr, dAddr, cAddr = []string{"w1", "w2", "wcity", "WS", "123411111"}, []string{"d1", "", "dcity", "DS", "432111111"},
		[]string{"c1", "c2", "ccity", "CS", "999911111"}
	paymentRow = []any{int32(42), -10.5, wAddr, dAddr, "first", "OE", "PRIBARBAR", cAddr, "1234567890123456", "BC",
		50000.0, 0.25, "42 1 1 1 1 10.00 | data"}
	paymentWant = tpcc.PaymentResult{CID: 42, Balance: -10.5,
		Warehouse: tpcc.Address{Street1: "w1", Street2: "w2", City: "wcity", State: "WS", Zip: "123411111"},
		District:  tpcc.Address{Street1: "d1", City: "dcity", State: "DS", Zip: "432111111"},
		Customer:  tpcc.Address{Street1: "c1", Street2: "c2", City: "ccity", State: "CS", Zip: "999911111"},
		First:     "first", Middle: "OE", Last: "PRIBARBAR", Phone: "1234567890123456", Credit: "BC",
		CreditLim: 50000, Discount: 0.25, Data: "42 1 1 1 1 10.00 | data"}

	orderStatusRow = []any{int32(7), 12.34, int32(2999), int32(0), "first", "OE", "ABLEBAR",
		[]int32{5, 6}, []int32{1, 2}, []int32{5, 5}, []float64{0, 77.7}, []bool{true, false}}
	orderStatusWant = tpcc.OrderStatusResult{CID: 7, Balance: 12.34, OID: 2999, First: "first", Middle: "OE", Last: "ABLEBAR",
		Lines: []tpcc.OrderStatusLine{{ItemID: 5, SupplyWID: 1, Quantity: 5, Delivered: true},
			{ItemID: 6, SupplyWID: 2, Quantity: 5, Amount: 77.7}}}
)

// with returns a copy of values with value i replaced by v.
func with(values []any, i int, v any) []any {
	c := append([]any(nil), values...)
	c[i] = v
	return c
}

// decodeInto decodes vals with the decoder of call c into a fresh result.
func decodeInto(c *procCall, vals [][]byte, text *tpcc.ScreenText) (any, error) {
	switch c {
	case &callNewOrder:
		var out tpcc.NewOrderResult
		err := decodeNewOrder(vals, &out, text)
		return out, err
	case &callPayment:
		var out tpcc.PaymentResult
		err := decodePayment(vals, &out, text)
		return out, err
	default:
		var out tpcc.OrderStatusResult
		err := decodeOrderStatus(vals, &out, text)
		return out, err
	}
}

func TestDecode(t *testing.T) {
	cases := []struct {
		name    string
		call    *procCall
		values  []any
		want    any    // when no error
		wantErr string // a part of the error
	}{
		{"new order", &callNewOrder, newOrderRow, newOrderWant, ""},
		{"payment", &callPayment, paymentRow, paymentWant, ""},
		{"order status", &callOrderStatus, orderStatusRow, orderStatusWant, ""},
		{"new order with no lines", &callNewOrder,
			with(with(with(with(with(newOrderRow, 7, []string{}), 8, []int32{}), 9, ""), 10, []float64{}), 11, []float64{}),
			tpcc.NewOrderResult{OID: 3001, Total: 1234.56, CLast: "BARBARBAR", Credit: "GC", Discount: 0.1234, WTax: 0.05, DTax: 0.1}, ""},
		{"NULL column", &callNewOrder, with(newOrderRow, 2, nil), nil, "column 3 is NULL"},
		{"missing column", &callOrderStatus, orderStatusRow[:11], nil, "column 12 missing"},
		{"short int", &callPayment, with(paymentRow, 0, as{pgtype.Int2OID, int16(1)}), nil, "column 1 has 2 bytes, want 4"},
		{"array of another length", &callNewOrder, with(newOrderRow, 8, []int32{1, 2}), nil, "column 9: 2 elements, want 3"},
		{"brands of another length", &callNewOrder, with(newOrderRow, 9, "GB"), nil, "column 10 has 2 bytes, want 3"},
		{"array of another type", &callOrderStatus, with(orderStatusRow, 10, as{pgtype.Int4ArrayOID, []int32{1, 2}}), nil, "array of type OID 23, want 701"},
		{"NULL element", &callOrderStatus, with(orderStatusRow, 7, []*int32{nil, new(int32)}), nil, "NULL or malformed"},
		{"address of four", &callPayment, with(paymentRow, 3, dAddr[:4]), nil, "column 4: 4 elements, want 5"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var text tpcc.ScreenText
			got, err := decodeInto(c.call, row(t, c.call.cols, c.values...), &text)
			switch {
			case c.wantErr != "" && (err == nil || !strings.Contains(err.Error(), c.wantErr)):
				t.Fatalf("error %v, want one containing %q", err, c.wantErr)
			case c.wantErr == "" && err != nil:
				t.Fatal(err)
			case c.wantErr == "" && !reflect.DeepEqual(got, c.want):
				t.Fatalf("decoded\n  %+v\nwant\n  %+v", got, c.want)
			}
		})
	}
}

// decoders decode each transaction's sample row into one reused result,
// as a virtual user does.
func decoders(t testing.TB) []struct {
	name   string
	decode func() error
} {
	no, pay, os := row(t, callNewOrder.cols, newOrderRow...), row(t, callPayment.cols, paymentRow...),
		row(t, callOrderStatus.cols, orderStatusRow...)
	var noOut tpcc.NewOrderResult
	var payOut tpcc.PaymentResult
	var osOut tpcc.OrderStatusResult
	var texts [3]tpcc.ScreenText
	return []struct {
		name   string
		decode func() error
	}{
		{"new_order", func() error { return decodeNewOrder(no, &noOut, &texts[0]) }},
		{"payment", func() error { return decodePayment(pay, &payOut, &texts[1]) }},
		{"order_status", func() error { return decodeOrderStatus(os, &osOut, &texts[2]) }},
	}
}

// TestDecodeAllocatesNothing: once its buffers have grown, decoding a
// transaction's result allocates nothing (issue 32).
func TestDecodeAllocatesNothing(t *testing.T) {
	for _, d := range decoders(t) {
		if err := d.decode(); err != nil {
			t.Fatal(err)
		}
		if n := testing.AllocsPerRun(100, func() { _ = d.decode() }); n != 0 {
			t.Errorf("%s: %v allocations per decode, want 0", d.name, n)
		}
	}
}

// BenchmarkDecode decodes each transaction's result row (binary columns
// and arrays) into a reused result: time and allocations per transaction.
//
//	go test -run '^$' -bench Decode -benchmem ./engine/postgres
func BenchmarkDecode(b *testing.B) {
	for _, d := range decoders(b) {
		b.Run(d.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := d.decode(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
