package mysql_test

import (
	"context"
	"testing"
	"time"

	"github.com/rightsize/rightsize/engine/enginetest"
	"github.com/rightsize/rightsize/engine/mysql"
)

// TestDeliveryNeverSkipsWrongly runs two Deliveries on one warehouse at
// once: the second must wait for the first and then deliver the next
// order, never count the district as skipped (clause 2.7.4.2).
func TestDeliveryNeverSkipsWrongly(t *testing.T) {
	db := open(t).(*mysql.DB)
	enginetest.Build(t, db)
	ctx := context.Background()
	enginetest.DeliveryNeverSkipsWrongly(t, db, enginetest.DeliveryRace{
		Hold: func(t *testing.T) func() {
			first, err := db.Pool().BeginTx(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { first.Rollback() })
			if _, err := first.ExecContext(ctx, `DELETE FROM new_order WHERE no_w_id = 1 AND no_d_id = 1 ORDER BY no_o_id LIMIT 1`); err != nil {
				t.Fatal(err)
			}
			return func() {
				if err := first.Commit(); err != nil {
					t.Fatal(err)
				}
			}
		},
		Blocked: func(t *testing.T) { waitLockWait(t, db) },
	})
}

// waitLockWait waits until the second Delivery runs its locking read of the
// oldest NEW-ORDER row, which the first transaction holds (MariaDB does not
// always show such a transaction as LOCK WAIT, so the statement or the
// procedure call in the process list counts too).
func waitLockWait(t *testing.T, db *mysql.DB) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		n, err := db.QueryInt(context.Background(), `SELECT
  (SELECT count(*) FROM information_schema.innodb_trx
    WHERE trx_state = 'LOCK WAIT' OR trx_wait_started IS NOT NULL OR trx_query LIKE '%new_order%FOR UPDATE%')
+ (SELECT count(*) FROM information_schema.processlist
    WHERE info LIKE '%new_order%FOR UPDATE%' OR info LIKE 'CALL rs_delivery%' OR state LIKE '%lock%')`)
		if err != nil {
			t.Fatal(err)
		}
		if n > 0 {
			time.Sleep(100 * time.Millisecond) // a procedure call: let it reach its locking read
			return
		}
	}
	t.Fatal("the second Delivery never waited for the first one's lock")
}
