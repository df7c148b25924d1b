package scenario

import (
	"testing"

	"github.com/rightsize/rightsize/fit"
)

// TestNextPosition: a candidate's first run is stored at its index among
// the candidates, each run again (fit.Criteria.Runs) one count of
// candidates further, so a resumed or replayed fit finds each run.
func TestNextPosition(t *testing.T) {
	cands := []fit.Priced{{Candidate: fit.Candidate{Cpus: 0.25}}, {Candidate: fit.Candidate{Cpus: 0.5}}, {Candidate: fit.Candidate{Cpus: 1}}}
	calls := map[int]int{}
	var got []int
	for _, c := range []float64{1, 0.25, 0.25, 0.25, 0.5, 2} {
		got = append(got, nextPosition(cands, calls, fit.Candidate{Cpus: c}))
	}
	want := []int{2, 0, 3, 6, 1, -1}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("positions %v, want %v", got, want)
		}
	}
}
