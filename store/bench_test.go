package store

import (
	"context"
	"testing"
)

// A full step: 300 seconds, 30 windows × 5 types, 300 host samples.
const (
	benchSeconds = 300
	benchWindows = 30
	benchSamples = 300
)

func benchAddStep(b *testing.B, location string) {
	s := openAt(b, location)
	ctx := context.Background()
	r := created(b, s, &Run{Label: "bench"})
	st := testStep(b, r.ID, 1, 0, 8, benchSeconds, benchWindows, benchSamples)
	b.ReportAllocs()
	b.ResetTimer()
	i := 0
	for b.Loop() {
		st.Index = i
		i++
		if err := s.AddStep(ctx, &st); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAddStep stores full steps (see the constants above), each in its
// own transaction.
func BenchmarkAddStep(b *testing.B) {
	for _, be := range backends {
		b.Run(be.name, func(b *testing.B) { benchAddStep(b, be.location(b)) })
	}
}

// BenchmarkLoadRun loads a run of 2 repeats × 5 full steps.
func BenchmarkLoadRun(b *testing.B) {
	s := openAt(b, sqliteLocation(b))
	ctx := context.Background()
	r := created(b, s, &Run{Label: "bench"})
	for rep := 1; rep <= 2; rep++ {
		for idx := range 5 {
			st := testStep(b, r.ID, rep, idx, idx+1, benchSeconds, benchWindows, benchSamples)
			if err := s.AddStep(ctx, &st); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ResetTimer()
	for b.Loop() {
		if _, steps, err := s.LoadRun(ctx, r.ID); err != nil || len(steps) != 10 {
			b.Fatal(err)
		}
	}
}

// TestAddStepFast checks a full step stores in well under a second.
