package driver

import (
	"runtime"
	"testing"
	"time"
)

// TestLoopCount: one loop per 16 users able to wait in one, at most one
// per core; an explicit count caps at the users; -1 and no users: none.
func TestLoopCount(t *testing.T) {
	cores := runtime.NumCPU()
	for _, tc := range []struct{ loops, users, want int }{
		{0, 0, 0}, {0, 1, 1}, {0, 4, 1}, {0, 16, 1}, {0, 17, min(2, cores)}, {0, 1000, cores},
		{-1, 4, 0}, {3, 2, 2}, {3, 8, 3},
	} {
		if got := loopCount(tc.loops, tc.users); got != tc.want {
			t.Errorf("loopCount(%d, %d) = %d, want %d", tc.loops, tc.users, got, tc.want)
		}
	}
}

// TestProcsFloor: the governor keeps the loops' floor, above the value
// found if need be, and restores the value found.
func TestProcsFloor(t *testing.T) {
	procs := 2
	set := func(n int) int {
		old := procs
		if n > 0 {
			procs = n
		}
		return old
	}
	g := newProcsGovernor(func() time.Duration { return 0 }, set)
	if procs != 1 {
		t.Fatalf("governor started at %d Ps, want 1", procs)
	}
	g.raiseFloor(3)
	if procs != 3 {
		t.Fatalf("after raiseFloor(3): %d Ps", procs)
	}
	g.restore()
	if procs != 2 {
		t.Fatalf("restored %d Ps, want 2", procs)
	}
}
