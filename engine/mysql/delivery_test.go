package mysql_test

import (
	"context"
	"testing"
	"time"

	"github.com/rightsize/rightsize/engine"
	"github.com/rightsize/rightsize/engine/enginetest"
	"github.com/rightsize/rightsize/engine/mysql"
	"github.com/rightsize/rightsize/tpcc"
)

// TestDeliveryNeverSkipsWrongly runs two Deliveries on one warehouse at
// once: the first holds the oldest NEW-ORDER row of district 1 (deleted,
// not committed) while the second starts. The second must wait and then
// deliver the next order, never count the district as skipped while it
// has undelivered orders (clause 2.7.4.2).
func TestDeliveryNeverSkipsWrongly(t *testing.T) {
	db := open(t).(*mysql.DB)
	enginetest.Build(t, db)
	ctx := context.Background()
	for _, iso := range []engine.Isolation{engine.IsolationSpec, engine.IsolationReadCommitted} {
		for _, mode := range db.Caps().Modes() {
			t.Run(string(iso)+"-"+string(mode), func(t *testing.T) {
				db.SetIsolation(iso)
				defer db.SetIsolation(engine.IsolationSpec)
				first, err := db.Pool().BeginTx(ctx, nil)
				if err != nil {
					t.Fatal(err)
				}
				defer first.Rollback()
				if _, err := first.ExecContext(ctx, `DELETE FROM new_order WHERE no_w_id = 1 AND no_d_id = 1 ORDER BY no_o_id LIMIT 1`); err != nil {
					t.Fatal(err)
				}
				ex, err := db.NewExecutor(ctx, mode)
				if err != nil {
					t.Fatal(err)
				}
				defer ex.Close(ctx)
				var out tpcc.DeliveryResult
				done := make(chan error, 1)
				go func() { done <- ex.Delivery(ctx, &tpcc.DeliveryInput{WID: 1, CarrierID: 3}, &out) }()
				waitLockWait(t, db)
				if err := first.Commit(); err != nil {
					t.Fatal(err)
				}
				err = <-done
				retries := 0
				for err != nil && db.Classify(err) == engine.ErrRetry && retries < 3 { // as the driver does
					retries++
					err = ex.Delivery(ctx, &tpcc.DeliveryInput{WID: 1, CarrierID: 3}, &out)
				}
				if err != nil {
					t.Fatal(err)
				}
				if out.Skipped != 0 || out.Delivered != tpcc.DistrictsPerWarehouse {
					t.Fatalf("delivered %d, skipped %d (after %d retries): a district with undelivered orders was skipped",
						out.Delivered, out.Skipped, retries)
				}
				t.Logf("no district skipped (%d retries)", retries)
			})
		}
	}
}

// waitLockWait waits until the second Delivery runs its locking read of the
// oldest NEW-ORDER row, which the first transaction holds (MariaDB does not
// always show such a transaction as LOCK WAIT).
func waitLockWait(t *testing.T, db *mysql.DB) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		n, err := db.QueryInt(context.Background(), `SELECT count(*) FROM information_schema.innodb_trx
WHERE trx_state = 'LOCK WAIT' OR trx_query LIKE '%new_order%FOR UPDATE%'`)
		if err != nil {
			t.Fatal(err)
		}
		if n > 0 {
			return
		}
	}
	t.Fatal("the second Delivery never waited for the first one's lock")
}
