// Package storetest stores in a results store the fixtures that the tests
// of several packages need. Only tests import it.
package storetest

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/rightsize/rightsize/store"
)

// Open opens a new store in a temporary directory, closed when the test
// ends.
func Open(t testing.TB) *store.Store {
	t.Helper()
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "rightsize.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// Sweep stores sw complete, with one complete run per value of sw.Values,
// as a sweep stores them: run(i, value) is the run to create (sw.ID is set
// when it is called), step(i) its one step (its RunID is set here). It
// returns the sweep's id.
func Sweep(t testing.TB, st *store.Store, sw *store.Sweep, run func(i int, value string) *store.Run, step func(i int) store.Step) string {
	t.Helper()
	ctx := context.Background()
	if err := st.CreateSweep(ctx, sw); err != nil {
		t.Fatal(err)
	}
	for i, v := range sw.Values {
		r := run(i, v)
		if err := st.CreateRun(ctx, r); err != nil {
			t.Fatal(err)
		}
		s := step(i)
		s.RunID = r.ID
		if err := st.AddStep(ctx, &s); err != nil {
			t.Fatal(err)
		}
		if err := st.FinishRun(ctx, r.ID, store.StatusComplete, time.Now()); err != nil {
			t.Fatal(err)
		}
		if err := st.SetSweepPoint(ctx, sw.ID, store.SweepPoint{Position: i, Value: v, RunID: r.ID, Status: store.StatusComplete}); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.FinishSweep(ctx, sw.ID, store.StatusComplete, time.Now()); err != nil {
		t.Fatal(err)
	}
	return sw.ID
}
