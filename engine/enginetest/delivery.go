package enginetest

import (
	"context"
	"testing"

	"github.com/rightsize/rightsize/engine"
	"github.com/rightsize/rightsize/tpcc"
)

// DeliveryRace is a two-session Delivery race on warehouse 1 of a built
// database.
type DeliveryRace struct {
	// Hold deletes the oldest NEW-ORDER row of district 1 in a transaction
	// it leaves open (as a first Delivery would) and returns its commit.
	Hold func(t *testing.T) (commit func())
	// Blocked waits until the second Delivery waits for that row's lock.
	Blocked func(t *testing.T)
}

// DeliveryNeverSkipsWrongly runs, at each isolation and in each mode of db
// (which must implement engine.IsolationSetter), a Delivery while another
// session holds the oldest NEW-ORDER row of district 1: once that commits,
// the Delivery (retried on a retryable error, as the driver does) must
// deliver all ten districts, never count one with undelivered orders as
// skipped (clause 2.7.4.2).
func DeliveryNeverSkipsWrongly(t *testing.T, db engine.DB, race DeliveryRace) {
	ctx := context.Background()
	setter := db.(engine.IsolationSetter)
	for _, iso := range []engine.Isolation{engine.IsolationSpec, engine.IsolationReadCommitted} {
		for _, mode := range db.Caps().Modes() {
			t.Run(string(iso)+"-"+string(mode), func(t *testing.T) {
				setter.SetIsolation(iso)
				defer setter.SetIsolation(engine.IsolationSpec)
				ex, err := db.NewExecutor(ctx, mode)
				if err != nil {
					t.Fatal(err)
				}
				defer ex.Close(ctx)
				commit := race.Hold(t)
				in := tpcc.DeliveryInput{WID: 1, CarrierID: 3}
				var out tpcc.DeliveryResult
				done := make(chan error, 1)
				go func() { done <- ex.Delivery(ctx, &in, &out) }()
				race.Blocked(t)
				commit()
				err = <-done
				retries := 0
				for err != nil && db.Classify(err) == engine.ErrRetry && retries < 3 {
					retries++
					err = ex.Delivery(ctx, &in, &out)
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
