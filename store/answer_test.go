package store

import (
	"context"
	"testing"
)

// TestStepEndingsRoundTrip: how a step's phases ended and its achieved
// precision survive the store, and SetRepeatEnd records --repeat auto.
func TestStepEndingsRoundTrip(t *testing.T) {
	eachBackend(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		r := created(t, s, testRun("auto", t0))
		st := testStep(t, r.ID, 1, 0, 4, 3, 1, 1)
		st.RampupEnd, st.RampupNote, st.MeasureEndHow = "steady", "steady: MSER-5 truncation at 10 s", "precision"
		st.PrecisionPct, st.TPMCIHalf, st.NOPMCIHalf, st.Confidence = 1.8, 210.5, 95.25, 0.95
		if err := s.AddStep(ctx, &st); err != nil {
			t.Fatal(err)
		}
		if err := s.SetRepeatEnd(ctx, r.ID, 3, "agreed: CV 2.1 % ≤ 5 %"); err != nil {
			t.Fatal(err)
		}
		got, steps, err := s.LoadRun(ctx, r.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.Repeats != 3 || got.RepeatEnd != "agreed: CV 2.1 % ≤ 5 %" {
			t.Errorf("run repeats %d, repeat end %q", got.Repeats, got.RepeatEnd)
		}
		g := steps[0]
		if g.RampupEnd != st.RampupEnd || g.RampupNote != st.RampupNote || g.MeasureEndHow != st.MeasureEndHow ||
			g.PrecisionPct != 1.8 || g.TPMCIHalf != 210.5 || g.NOPMCIHalf != 95.25 || g.Confidence != 0.95 {
			t.Errorf("step endings after the store: %+v", g)
		}
	})
}
