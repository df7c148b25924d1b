package enginetest

import (
	"errors"
	"sync"
	"testing"
)

// Deadlock provokes a real deadlock for a Harness's RetryableError: open
// transactions a and b each lock a district row (a district 1, b district
// 2), then at once the other's, each rolling back when its lock returns.
// lock(tx, d) locks district d of warehouse 1 in tx. It returns the errors
// of the second locks joined: the victim's is among them.
func Deadlock[Tx any](t testing.TB, a, b Tx, lock func(tx Tx, d int32) error, rollback func(tx Tx)) error {
	t.Helper()
	if err := lock(a, 1); err != nil {
		t.Fatal(err)
	}
	if err := lock(b, 2); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make([]error, 2)
	wg.Add(2)
	go func() { defer wg.Done(); errs[0] = lock(a, 2); rollback(a) }()
	go func() { defer wg.Done(); errs[1] = lock(b, 1); rollback(b) }()
	wg.Wait()
	return errors.Join(errs[0], errs[1])
}
