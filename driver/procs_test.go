package driver

import (
	"testing"
	"time"
)

func TestProcsGovernor(t *testing.T) {
	tests := []struct {
		name  string
		max   int
		busy  []float64 // CPU used per tick, as a share of one core
		procs []int     // GOMAXPROCS after each tick
	}{
		{"idle driver stays at one P", 8, []float64{0.1, 0.3, 0.49}, []int{1, 1, 1}},
		{"busy driver doubles", 8, []float64{0.6, 1.2, 2.1, 4.5}, []int{2, 4, 8, 8}},
		{"capped at the original value", 3, []float64{0.9, 1.5, 3}, []int{2, 3, 3}},
		{"never lowers within a step", 4, []float64{0.8, 0.01}, []int{2, 2}},
		{"one core machine", 1, []float64{1}, []int{1}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			procs := tc.max
			set := func(n int) int {
				old := procs
				if n > 0 {
					procs = n
				}
				return old
			}
			var cpu time.Duration
			g := newProcsGovernor(func() time.Duration { return cpu }, set)
			if procs != 1 {
				t.Fatalf("start: GOMAXPROCS %d, want 1", procs)
			}
			now := g.lastAt
			for i, b := range tc.busy {
				now = now.Add(procsInterval)
				cpu += time.Duration(b * float64(procsInterval))
				g.tick(now)
				if procs != tc.procs[i] {
					t.Fatalf("tick %d (%.2f cores busy): GOMAXPROCS %d, want %d", i, b, procs, tc.procs[i])
				}
			}
			g.restore()
			if procs != tc.max {
				t.Fatalf("restore: GOMAXPROCS %d, want %d", procs, tc.max)
			}
		})
	}
}
