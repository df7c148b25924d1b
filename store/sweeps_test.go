package store

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"
)

// A sweep keeps its values and one point per value; a resumed value
// replaces its earlier point; deleting a run keeps the point without it.
func TestSweepRoundTrip(t *testing.T) {
	eachBackend(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		run := created(t, s, testRun("sweep-memory-1G", time.Now()))
		sw := &Sweep{Label: "mem", Kind: "memory", Values: []string{"1G", "256M"}, Spec: map[string]string{"knee_threshold": "10"}}
		if err := s.CreateSweep(ctx, sw); err != nil {
			t.Fatal(err)
		}
		points := []SweepPoint{
			{Position: 0, Value: "1G", RunID: run.ID, Status: StatusComplete},
			{Position: 1, Value: "256M", Status: StatusFailed, Reason: "server did not start"},
			{Position: 1, Value: "256M", RunID: run.ID, Status: StatusPartial}, // resumed
		}
		for _, p := range points {
			if err := s.SetSweepPoint(ctx, sw.ID, p); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.FinishSweep(ctx, sw.ID, StatusPartial, time.Now()); err != nil {
			t.Fatal(err)
		}
		got, err := s.LoadSweep(ctx, "mem")
		if err != nil {
			t.Fatal(err)
		}
		if got.ID != sw.ID || got.Kind != "memory" || !slices.Equal(got.Values, sw.Values) || got.Status != StatusPartial ||
			got.Spec["knee_threshold"] != "10" || got.EndedAt.IsZero() {
			t.Fatalf("loaded %+v", got)
		}
		if len(got.Points) != 2 || got.Points[1].Status != StatusPartial || got.Points[1].RunID != run.ID || got.Points[1].Reason != "" {
			t.Fatalf("points %+v", got.Points)
		}
		if err := s.FinishSweep(ctx, "nope", StatusComplete, time.Now()); !errors.Is(err, ErrNotFound) {
			t.Fatalf("FinishSweep of an unknown sweep: %v", err)
		}
	})
}
