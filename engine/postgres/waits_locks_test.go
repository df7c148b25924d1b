package postgres_test

import (
	"context"
	"testing"
	"time"

	"github.com/rightsize/rightsize/engine/postgres"
	"github.com/rightsize/rightsize/waits"
)

// TestLockSampleFollowsLockWaits: pg_locks is read right after an
// activity sample that found a session waiting on a lock, whatever the
// tick, so a waiter that appears between two fixed lock ticks is named.
func TestLockSampleFollowsLockWaits(t *testing.T) {
	ctx := context.Background()
	db := open(t).(*postgres.DB)
	execSQL(t, db, "CREATE TABLE hot (id int PRIMARY KEY, v int)")
	execSQL(t, db, "INSERT INTO hot VALUES (1, 0)")
	s, err := db.WaitSampler(ctx, 100*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Start(ctx); err != nil {
		t.Fatal(err)
	}
	if err := s.Sample(ctx); err != nil { // tick 1: nobody waits
		t.Fatal(err)
	}

	holder, err := db.Pool().Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Rollback(ctx)
	if _, err := holder.Exec(ctx, "UPDATE hot SET v = 1 WHERE id = 1"); err != nil {
		t.Fatal(err)
	}
	blocked := make(chan error, 1)
	go func() {
		_, err := db.Pool().Exec(ctx, "UPDATE hot SET v = 2 WHERE id = 1")
		blocked <- err
	}()
	waitBlocked(t, db)
	if err := s.Sample(ctx); err != nil { // tick 2: one session waits
		t.Fatal(err)
	}
	if err := holder.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	if err := <-blocked; err != nil {
		t.Fatal(err)
	}

	p, err := s.Profile(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := waits.LockWait{Type: "transactionid", Relation: "hot", Mode: "ShareLock", Samples: 1}
	if len(p.Locks) != 1 || p.Locks[0] != want {
		t.Errorf("locks %+v, want [%+v]", p.Locks, want)
	}
}
