package postgres_test

import (
	"context"
	"errors"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/rightsize/rightsize/engine"
	"github.com/rightsize/rightsize/engine/enginetest"
	"github.com/rightsize/rightsize/engine/postgres"
	"github.com/rightsize/rightsize/tpcc"
)

// TestCancelEndsABlockedCall: a transaction waiting on a lock in a server
// process that does not answer (stopped with SIGSTOP) returns soon after
// its context is cancelled, with the cancellation in its error; once the
// process runs again it stops waiting too (a cancel request reached it).
func TestCancelEndsABlockedCall(t *testing.T) {
	db := open(t).(*postgres.DB)
	enginetest.Build(t, db)
	bg := context.Background()
	pool := db.Pool()
	waiting := func() (pids []int32) {
		rows, err := pool.Query(bg, "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'")
		if err != nil {
			t.Fatal(err)
		}
		pids, err = pgx.CollectRows(rows, pgx.RowTo[int32])
		if err != nil {
			t.Fatal(err)
		}
		return pids
	}
	for _, mode := range []engine.Mode{engine.Procedures, engine.Statements} {
		t.Run(string(mode), func(t *testing.T) {
			ex, err := db.NewExecutor(bg, mode)
			if err != nil {
				t.Fatal(err)
			}
			defer ex.Close(bg)
			lock, err := pool.Begin(bg)
			if err != nil {
				t.Fatal(err)
			}
			defer lock.Rollback(bg)
			if _, err := lock.Exec(bg, "UPDATE district SET d_ytd = d_ytd WHERE d_w_id = 1 AND d_id = 1"); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(bg)
			defer cancel()
			done := make(chan error, 1)
			go func() {
				in := tpcc.PaymentInput{WID: 1, DID: 1, CWID: 1, CDID: 1, CID: 1, Amount: 10}
				var out tpcc.PaymentResult
				done <- ex.Payment(ctx, &in, &out)
			}()
			deadline := time.Now().Add(10 * time.Second)
			var pids []int32
			for pids = waiting(); len(pids) == 0; pids = waiting() {
				if time.Now().After(deadline) {
					t.Fatal("the payment never waited on the locked district")
				}
				time.Sleep(20 * time.Millisecond)
			}
			backend := int(pids[0])
			if err := syscall.Kill(backend, syscall.SIGSTOP); err != nil {
				t.Skipf("cannot stop the server process %d: %v", backend, err)
			}
			stopped := true
			defer func() {
				if stopped {
					syscall.Kill(backend, syscall.SIGCONT)
				}
			}()
			cancel()
			select {
			case err := <-done:
				if !errors.Is(err, context.Canceled) {
					t.Fatalf("cancelled payment returned %v, want context.Canceled", err)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("the payment did not return within 5 s of its context's cancellation")
			}
			syscall.Kill(backend, syscall.SIGCONT)
			stopped = false
			for len(waiting()) > 0 {
				if time.Now().After(deadline) {
					t.Fatal("the server still waits on the lock: the cancel request did not reach it")
				}
				time.Sleep(20 * time.Millisecond)
			}
		})
	}
}
