package postgres_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/rightsize/rightsize/engine"
	"github.com/rightsize/rightsize/engine/enginetest"
	"github.com/rightsize/rightsize/engine/postgres"
	"github.com/rightsize/rightsize/tpcc"
)

// built is one database built once for the two-session tests of this file.
func built(t *testing.T) *postgres.DB {
	t.Helper()
	db := open(t).(*postgres.DB)
	enginetest.Build(t, db)
	return db
}

// waitBlocked waits until some session of the database waits for a lock.
func waitBlocked(t *testing.T, db *postgres.DB) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		n, err := db.QueryInt(context.Background(), `SELECT count(*) FROM pg_stat_activity
WHERE datname = current_database() AND wait_event_type = 'Lock'`)
		if err != nil {
			t.Fatal(err)
		}
		if n > 0 {
			return
		}
	}
	t.Fatal("the second session never waited for the first one's lock")
}

func userConn(t *testing.T, db *postgres.DB) *pgx.Conn {
	t.Helper()
	c, err := postgres.UserConn(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(context.Background()) })
	return c
}

func exec(t *testing.T, c *pgx.Conn, sql string, args ...any) {
	t.Helper()
	if _, err := c.Exec(context.Background(), sql, args...); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

// TestDeliveryNeverSkipsWrongly runs two Deliveries on one warehouse at
// once. Delivering with min(NO_O_ID) at read committed, the second found
// the first's row gone and counted the district as skipped although 899
// undelivered orders remained (clause 2.7.4.2).
func TestDeliveryNeverSkipsWrongly(t *testing.T) {
	db := built(t)
	enginetest.DeliveryNeverSkipsWrongly(t, db, enginetest.DeliveryRace{
		Hold: func(t *testing.T) func() {
			first := userConn(t, db)
			exec(t, first, "BEGIN")
			exec(t, first, `DELETE FROM new_order WHERE no_w_id = 1 AND no_d_id = 1
  AND no_o_id = (SELECT min(no_o_id) FROM new_order WHERE no_w_id = 1 AND no_d_id = 1)`)
			return func() { exec(t, first, "COMMIT") }
		},
		Blocked: func(t *testing.T) { waitBlocked(t, db) },
	})
}

func orderStatus(t *testing.T, ex tpcc.Executor, c int32) tpcc.OrderStatusResult {
	t.Helper()
	var out tpcc.OrderStatusResult
	if err := ex.OrderStatus(context.Background(), &tpcc.OrderStatusInput{WID: 1, DID: 2, CID: c}, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestIsolation runs the Isolation Tests of clause 3.4.2 that apply to a
// multi-version engine as two sessions, at the isolation rightsize's
// executors use (spec): the first session pauses inside its transaction
// while the second runs. Tests 1 and 2 run in both modes; tests 7 and 9
// pause a statements-mode New-Order's session (REPEATABLE READ), and
// TestLevel3ByLocks checks the transactions that run at read committed.
func TestIsolation(t *testing.T) {
	db := built(t)
	ctx := context.Background()
	const cust = 7
	newOrder := func(c *pgx.Conn) int32 { // a New-Order for customer cust in district 2, left uncommitted
		t.Helper()
		var o int32
		if err := c.QueryRow(ctx, `UPDATE district SET d_next_o_id = d_next_o_id + 1 WHERE d_w_id = 1 AND d_id = 2
 RETURNING d_next_o_id - 1`).Scan(&o); err != nil {
			t.Fatal(err)
		}
		exec(t, c, `INSERT INTO orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_ol_cnt, o_all_local)
 VALUES ($1, 2, 1, $2, localtimestamp, 5, 1)`, o, cust)
		exec(t, c, `INSERT INTO new_order (no_o_id, no_d_id, no_w_id) VALUES ($1, 2, 1)`, o)
		for n := 1; n <= 5; n++ {
			exec(t, c, `INSERT INTO order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_dist_info)
 VALUES ($1, 2, 1, $2, $2, 1, 1, 1.00, 'x')`, o, n)
		}
		return o
	}
	for _, mode := range db.Caps().Modes() {
		ex := executor(t, db, mode)
		// Test 1: Order-Status does not see a New-Order before it commits,
		// and sees it after.
		t.Run("test1-"+string(mode), func(t *testing.T) {
			before := orderStatus(t, ex, cust)
			c := userConn(t, db)
			exec(t, c, "BEGIN")
			o := newOrder(c)
			if got := orderStatus(t, ex, cust); got.OID != before.OID {
				t.Fatalf("Order-Status read the uncommitted order %d (dirty read)", got.OID)
			}
			exec(t, c, "COMMIT")
			if got := orderStatus(t, ex, cust); got.OID != o || len(got.Lines) != 5 {
				t.Fatalf("after commit Order-Status read order %d with %d lines, want %d with 5", got.OID, len(got.Lines), o)
			}
		})
		// Test 2: a rolled-back New-Order is never seen.
		t.Run("test2-"+string(mode), func(t *testing.T) {
			before := orderStatus(t, ex, cust)
			c := userConn(t, db)
			exec(t, c, "BEGIN")
			newOrder(c)
			exec(t, c, "ROLLBACK")
			if got := orderStatus(t, ex, cust); got.OID != before.OID || len(got.Lines) != len(before.Lines) {
				t.Fatalf("Order-Status read order %d after a rollback, want %d", got.OID, before.OID)
			}
		})
	}
	// Test 7: repeatable reads of I_PRICE inside a New-Order's transaction
	// while another session changes the price.
	t.Run("test7", func(t *testing.T) {
		c := userConn(t, db)
		price := func() float64 {
			var p float64
			if err := c.QueryRow(ctx, "SELECT i_price::float8 FROM item WHERE i_id = 77").Scan(&p); err != nil {
				t.Fatal(err)
			}
			return p
		}
		exec(t, c, "BEGIN")
		p1 := price()
		other := userConn(t, db)
		exec(t, other, "UPDATE item SET i_price = i_price + 1 WHERE i_id = 77")
		if p2 := price(); p2 != p1 {
			t.Fatalf("I_PRICE read %v then %v in one transaction (non-repeatable read)", p1, p2)
		}
		exec(t, c, "COMMIT")
		if p3 := price(); p3 != p1+1 {
			t.Fatalf("after commit I_PRICE %v, want %v", p3, p1+1)
		}
	})
	// Test 9: no phantom: a New-Order committed by another session does
	// not appear in a repeated read of the district's orders.
	t.Run("test9", func(t *testing.T) {
		c := userConn(t, db)
		count := func() int64 {
			var n int64
			if err := c.QueryRow(ctx, "SELECT count(*) FROM orders WHERE o_w_id = 1 AND o_d_id = 3").Scan(&n); err != nil {
				t.Fatal(err)
			}
			return n
		}
		exec(t, c, "BEGIN")
		n1 := count()
		ex := executor(t, db, db.Caps().DefaultMode())
		var out tpcc.NewOrderResult
		in := tpcc.NewOrderInput{WID: 1, DID: 3, CID: 9, AllLocal: true, Lines: []tpcc.OrderLineInput{
			{Number: 1, ItemID: 5, SupplyWID: 1, Quantity: 1}, {Number: 2, ItemID: 6, SupplyWID: 1, Quantity: 1}}}
		if err := ex.NewOrder(ctx, &in, &out); err != nil || out.RolledBack {
			t.Fatalf("new order: %+v, %v", out, err)
		}
		if n2 := count(); n2 != n1 {
			t.Fatalf("orders of the district %d then %d in one transaction (phantom)", n1, n2)
		}
		exec(t, c, "COMMIT")
		if n3 := count(); n3 != n1+1 {
			t.Fatalf("after commit %d orders, want %d", n3, n1+1)
		}
	})
}

// TestUnusedItemProcessesValidItemsFirst checks clause 2.4.2.3 in
// statements mode: every valid item's stock update and order line runs
// before the unused item rolls the transaction back, which leaves no trace.
func TestUnusedItemProcessesValidItemsFirst(t *testing.T) {
	db := built(t)
	ctx := context.Background()
	ex := executor(t, db, engine.Statements)
	in := tpcc.NewOrderInput{WID: 1, DID: 4, CID: 11, AllLocal: true}
	for i := int32(1); i <= 6; i++ {
		in.Lines = append(in.Lines, tpcc.OrderLineInput{Number: i, ItemID: 100 * i, SupplyWID: 1, Quantity: 2})
	}
	in.Lines = append(in.Lines, tpcc.OrderLineInput{Number: 7, ItemID: tpcc.InvalidItemID, SupplyWID: 1, Quantity: 2})
	stock := "SELECT sum(s_order_cnt) FROM stock"
	before, _ := db.QueryInt(ctx, stock)
	var out tpcc.NewOrderResult
	if err := ex.NewOrder(ctx, &in, &out); err != nil || !out.RolledBack {
		t.Fatalf("new order with an unused item: %+v, %v", out, err)
	}
	if n := postgres.Processed(ex); n != 6 {
		t.Fatalf("%d valid items processed before the rollback, want 6", n)
	}
	if after, _ := db.QueryInt(ctx, stock); after != before {
		t.Fatalf("stock updates left behind: s_order_cnt %d -> %d", before, after)
	}
}

// TestLevel3ByLocks checks how the transactions that run at read committed
// get level 3 (isolationLevel): a Payment, in either mode, that waits for
// another session's update of its warehouse row goes on once that commits
// (no serialization failure to retry); a procedures-mode New-Order with an
// item twice, paused on a stock row between its lines while another session
// changes that item's price, prices both lines alike (Isolation Test 7);
// Order-Status and Stock-Level procedures read from one snapshot (STABLE).
func TestLevel3ByLocks(t *testing.T) {
	db := built(t)
	ctx := context.Background()
	ex := executor(t, db, engine.Procedures)
	// holdRow runs sql in an open transaction of its own session until the
	// returned function commits it.
	holdRow := func(sql string) func() {
		c := userConn(t, db)
		exec(t, c, "BEGIN")
		exec(t, c, sql)
		return func() { exec(t, c, "COMMIT") }
	}
	for _, mode := range db.Caps().Modes() {
		pex := executor(t, db, mode)
		t.Run("payment-queues-"+string(mode), func(t *testing.T) {
			commit := holdRow("UPDATE warehouse SET w_ytd = w_ytd + 1 WHERE w_id = 1")
			done := make(chan error, 1)
			go func() {
				var out tpcc.PaymentResult
				done <- pex.Payment(ctx, &tpcc.PaymentInput{WID: 1, DID: 5, CWID: 1, CDID: 5, CID: 12, Amount: 10}, &out)
			}()
			waitBlocked(t, db)
			commit()
			if err := <-done; err != nil {
				t.Fatalf("a Payment that waited for the warehouse row: %v", err)
			}
		})
	}
	t.Run("test7", func(t *testing.T) {
		const x, y = 301, 302
		var before float64
		if err := userConn(t, db).QueryRow(ctx, "SELECT i_price::float8 FROM item WHERE i_id = $1", x).Scan(&before); err != nil {
			t.Fatal(err)
		}
		commit := holdRow(fmt.Sprintf("UPDATE stock SET s_ytd = s_ytd WHERE s_w_id = 1 AND s_i_id = %d", x))
		in := tpcc.NewOrderInput{WID: 1, DID: 6, CID: 30, AllLocal: true, Lines: []tpcc.OrderLineInput{
			{Number: 1, ItemID: x, SupplyWID: 1, Quantity: 1}, {Number: 2, ItemID: x, SupplyWID: 1, Quantity: 2},
			{Number: 3, ItemID: y, SupplyWID: 1, Quantity: 1}}}
		var out tpcc.NewOrderResult
		done := make(chan error, 1)
		go func() { done <- ex.NewOrder(ctx, &in, &out) }()
		waitBlocked(t, db)
		exec(t, userConn(t, db), "UPDATE item SET i_price = i_price + 1 WHERE i_id = $1", x)
		commit()
		if err := <-done; err != nil || out.RolledBack || len(out.Lines) != 3 {
			t.Fatalf("new order: %+v, %v", out, err)
		}
		if out.Lines[0].Price != before || out.Lines[1].Price != before {
			t.Fatalf("I_PRICE of item %d read %v and %v in one New-Order, want %v both times", x, out.Lines[0].Price, out.Lines[1].Price, before)
		}
	})
	t.Run("one-snapshot", func(t *testing.T) {
		for _, fn := range []string{"rs_order_status", "rs_stock_level"} {
			var v string
			if err := userConn(t, db).QueryRow(ctx, "SELECT provolatile::text FROM pg_proc WHERE proname = $1", fn).Scan(&v); err != nil || v != "s" {
				t.Errorf("%s volatility %q (%v), want s (STABLE: one snapshot per call)", fn, v, err)
			}
		}
	})
}
