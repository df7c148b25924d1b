package driver

import (
	"math/rand/v2"
	"testing"
	"time"
)

// TestRetryBackoff checks the waits before retries grow with the attempt,
// stay under their ceiling and the cap, and are spread (not one value).
func TestRetryBackoff(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, tc := range []struct {
		attempt int
		ceil    time.Duration
	}{
		{0, time.Millisecond},
		{1, 2 * time.Millisecond},
		{3, 8 * time.Millisecond},
		{6, maxRetryBackoff},
		{40, maxRetryBackoff},
	} {
		lo, hi := time.Hour, time.Duration(0)
		for range 1000 {
			d := retryBackoff(tc.attempt, r)
			lo, hi = min(lo, d), max(hi, d)
		}
		if lo <= 0 || hi > tc.ceil {
			t.Errorf("attempt %d: waits %v..%v, want within (0, %v]", tc.attempt, lo, hi, tc.ceil)
		}
		if hi-lo < tc.ceil/2 {
			t.Errorf("attempt %d: waits %v..%v spread less than half of %v", tc.attempt, lo, hi, tc.ceil)
		}
	}
}
