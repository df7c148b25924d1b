package store

import (
	"context"
	"math"
	"testing"
)

// TestStepEndingsRoundTrip: how a step's phases ended and its achieved
// precision survive the store, and SetRepeatEnd records --repeat auto.
func TestStepEndingsRoundTrip(t *testing.T) {
	eachBackend(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		r := testRun("auto", t0)
		if err := s.CreateRun(ctx, r); err != nil {
			t.Fatal(err)
		}
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

func TestAggregateIntervalAcrossRepeats(t *testing.T) {
	steps := []Step{
		{Index: 0, Users: 1, TPM: 100, NOPM: 40, PrecisionPct: 1.5},
		{Index: 0, Users: 1, TPM: 110, NOPM: 44, PrecisionPct: 2.5},
		{Index: 0, Users: 1, TPM: 120, NOPM: 48, PrecisionPct: 1},
		{Index: 1, Users: 2, TPM: 200, NOPM: 80},
	}
	a := Aggregate(steps)
	// mean 110, s = 10, t(0.975, 2) = 4.302653
	if want := 4.302653 * 10 / math.Sqrt(3); a[0].TPMCI.Mean != 110 || math.Abs(a[0].TPMCI.Half-want) > 1e-4 || a[0].PrecisionPct != 2.5 {
		t.Errorf("3 repeats: CI %+v precision %v, want 110 ± %.3f and 2.5", a[0].TPMCI, a[0].PrecisionPct, want)
	}
	if a[1].TPMCI.N != 0 {
		t.Errorf("one repeat gave an interval %+v", a[1].TPMCI)
	}
}
