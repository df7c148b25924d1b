package postgres_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/rightsize/rightsize/engine"
	"github.com/rightsize/rightsize/engine/enginetest"
	"github.com/rightsize/rightsize/engine/postgres"
	"github.com/rightsize/rightsize/tpcc"
)

// version1Payment is rs_payment as rightsize before procedures version 2
// installed it: the output screen as one text (only its shape matters).
const version1Payment = `CREATE FUNCTION rs_payment(p_w int, p_d int, p_cw int, p_cd int, p_c int, p_by_name bool,
  p_last varchar, p_amount numeric)
RETURNS TABLE (out_c_id int, out_balance float8, out_screen text) LANGUAGE plpgsql AS $$
BEGIN
  out_c_id := p_c; out_balance := 0; out_screen := '';
  RETURN NEXT;
END $$`

// TestProceduresOfAnotherVersion: a database whose procedures an older
// rightsize installed gets them replaced before its first procedures-mode
// executor (they hold no data, so no rebuild); those of a newer rightsize
// are refused, saying so.
func TestProceduresOfAnotherVersion(t *testing.T) {
	cases := []struct {
		name    string
		setup   []string
		wantErr string // "" : the executor opens and Payment returns full outputs
	}{
		{"version 1 (screen text)", []string{"DROP FUNCTION rs_procedures_version()",
			"DROP FUNCTION rs_payment(int, int, int, int, int, bool, varchar, numeric)", version1Payment}, ""},
		{"current", nil, ""},
		{"newer", []string{"CREATE OR REPLACE FUNCTION rs_procedures_version() RETURNS int LANGUAGE sql AS 'SELECT 99'"},
			"version 99, from a newer rightsize"},
	}
	db := open(t)
	enginetest.Build(t, db)
	ctx := context.Background()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, sql := range c.setup {
				execSQL(t, db, sql)
			}
			// a fresh DB, as a new rightsize process opens it
			pg := db.(*postgres.DB)
			fresh, err := postgres.Open(ctx, pg.DSN(), 2)
			if err != nil {
				t.Fatal(err)
			}
			defer fresh.Close()
			ex, err := fresh.NewExecutor(ctx, engine.Procedures)
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("NewExecutor: %v, want an error containing %q", err, c.wantErr)
				}
				execSQL(t, db, "DROP FUNCTION rs_procedures_version()")
				if err := fresh.InstallProcedures(ctx); err != nil { // what build does
					t.Fatal(err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer ex.Close(ctx)
			in := tpcc.PaymentInput{WID: 1, DID: 1, CWID: 1, CDID: 1, CID: 7, Amount: 12.5}
			var out tpcc.PaymentResult
			if err := ex.Payment(ctx, &in, &out); err != nil {
				t.Fatal(err)
			}
			if out.CID != 7 || out.Warehouse.Zip == "" || out.Customer.City == "" || out.Last == "" || out.Middle != "OE" {
				t.Fatalf("payment outputs incomplete: %+v", out)
			}
		})
	}
}

// TestNewOrderWithAnItemTwice: procedures-mode New-Order takes its lines
// one by one when an item comes twice, so the second line's S_QUANTITY
// follows the first line's update, and the stock row counts both orders;
// with the unused item besides, nothing is left behind.
func TestNewOrderWithAnItemTwice(t *testing.T) {
	db := built(t)
	ctx := context.Background()
	ex := executor(t, db, engine.Procedures)
	stock := func(col string) int32 {
		v, err := db.QueryInt(ctx, "SELECT "+col+" FROM stock WHERE s_w_id = 1 AND s_i_id = 500")
		if err != nil {
			t.Fatal(err)
		}
		return int32(v)
	}
	have, orders := stock("s_quantity"), stock("s_order_cnt")
	in := tpcc.NewOrderInput{WID: 1, DID: 3, CID: 21, AllLocal: true, Lines: []tpcc.OrderLineInput{
		{Number: 2, ItemID: 500, SupplyWID: 1, Quantity: 3},
		{Number: 1, ItemID: 500, SupplyWID: 1, Quantity: 4},
		{Number: 3, ItemID: 700, SupplyWID: 1, Quantity: 1},
	}}
	var out tpcc.NewOrderResult
	if err := ex.NewOrder(ctx, &in, &out); err != nil || out.RolledBack || len(out.Lines) != 3 {
		t.Fatalf("new order: %+v, %v", out, err)
	}
	first := tpcc.NewStockQuantity(have, 3)
	if out.Lines[0].StockQty != first || out.Lines[1].StockQty != tpcc.NewStockQuantity(first, 4) {
		t.Errorf("S_QUANTITY %d then %d from %d, want %d then %d", out.Lines[0].StockQty, out.Lines[1].StockQty,
			have, first, tpcc.NewStockQuantity(first, 4))
	}
	if got := stock("s_order_cnt"); got != orders+2 {
		t.Errorf("s_order_cnt %d -> %d, want +2", orders, got)
	}
	lines, _ := db.QueryInt(ctx, fmt.Sprintf("SELECT count(*) FROM order_line WHERE ol_w_id = 1 AND ol_d_id = 3 AND ol_o_id = %d", out.OID))
	if lines != 3 {
		t.Errorf("%d order lines stored, want 3", lines)
	}
	in.Lines = append(in.Lines, tpcc.OrderLineInput{Number: 4, ItemID: tpcc.InvalidItemID, SupplyWID: 1, Quantity: 1})
	before := stock("s_order_cnt")
	if err := ex.NewOrder(ctx, &in, &out); err != nil || !out.RolledBack {
		t.Fatalf("new order with an unused item: %+v, %v", out, err)
	}
	if after := stock("s_order_cnt"); after != before {
		t.Errorf("stock updates left behind: s_order_cnt %d -> %d", before, after)
	}
}
