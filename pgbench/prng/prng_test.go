package prng

import (
	"math"
	"testing"
)

// The stream itself is checked against pgbench's, value for value, by
// pgbench/expr's TestConformanceWithPgbench; these check the bounds.
func TestRangeAndFloatBounds(t *testing.T) {
	s := New(1)
	for _, r := range [][2]uint64{{0, 0}, {5, 5}, {0, 1}, {0, 7}, {0, 8}, {10, 1000}, {0, math.MaxUint64}, {math.MaxUint64 - 3, math.MaxUint64}} {
		seen := map[uint64]bool{}
		for range 2000 {
			v := s.Range(r[0], r[1])
			if v < r[0] || v > r[1] {
				t.Fatalf("Range(%d, %d) = %d", r[0], r[1], v)
			}
			seen[v] = true
		}
		if want := min(r[1]-r[0]+1, 9); r[1]-r[0] < 8 && uint64(len(seen)) != want {
			t.Errorf("Range(%d, %d) drew %d distinct values, want %d", r[0], r[1], len(seen), want)
		}
	}
	if got := s.Range(7, 3); got != 7 {
		t.Errorf("empty range gave %d, want its low end", got)
	}
	for range 100000 {
		if f := s.Float64(); f < 0 || f >= 1 {
			t.Fatalf("Float64 = %v", f)
		}
	}
	a, b := New(42), New(42)
	for range 100 {
		if a.Uint64() != b.Uint64() {
			t.Fatal("one seed, two streams")
		}
	}
}
