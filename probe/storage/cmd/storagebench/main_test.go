package main

import (
	"math"
	"testing"
)

func p99s(v ...float64) []figures {
	fs := make([]figures, len(v))
	for i, x := range v {
		fs[i] = figures{p99Ms: x}
	}
	return fs
}

func TestPairTails(t *testing.T) {
	for _, tc := range []struct {
		name         string
		a, b         []figures
		onlyA, onlyB int
		rounds       int
	}{
		{"none", p99s(0.8, 0.9, 0.85), p99s(0.7, 0.75, 0.8), 0, 0, 3},
		// Round 2 is a tail for both (one host episode over both runs):
		// it counts for neither.
		{"both in one round", p99s(0.8, 2.0, 0.8, 0.8), p99s(0.7, 2.1, 2.2, 0.7), 0, 1, 4},
		{"lopsided", p99s(0.8, 0.8, 1.9, 0.8), p99s(2.0, 2.1, 0.7, 0.7), 1, 2, 4},
		// Only the rounds both ran are compared.
		{"unequal lengths", p99s(0.8, 0.8, 2.0), p99s(0.7, 0.7), 0, 0, 2},
		{"empty", nil, p99s(0.7), 0, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := pairTails(tc.a, tc.b)
			if got.onlyA != tc.onlyA || got.onlyB != tc.onlyB || got.rounds != tc.rounds {
				t.Fatalf("pairTails = %+v, want onlyA %d onlyB %d rounds %d", got, tc.onlyA, tc.onlyB, tc.rounds)
			}
		})
	}
}

func TestSignP(t *testing.T) {
	for _, tc := range []struct {
		onlyA, onlyB int
		want         float64
	}{
		{0, 0, 1},
		{1, 1, 1},
		{0, 5, 2.0 / 32},         // 2 * (1/2)^5
		{1, 4, 2 * 6.0 / 32},     // 2 * (C(5,4)+C(5,5)) / 2^5
		{7, 3, 2 * 176.0 / 1024}, // 2 * (C(10,7)+C(10,8)+C(10,9)+C(10,10)) / 2^10
	} {
		got := tailPairs{onlyA: tc.onlyA, onlyB: tc.onlyB}.signP()
		if math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("signP(%d, %d) = %v, want %v", tc.onlyA, tc.onlyB, got, tc.want)
		}
	}
}

func TestTailRounds(t *testing.T) {
	if got := tailRounds(p99s(0.7, 1.5, 1.39, 2.2)); got != 2 {
		t.Errorf("tailRounds = %d, want 2 (over twice the lowest 0.7 ms)", got)
	}
	if got := tailRounds(nil); got != 0 {
		t.Errorf("tailRounds(nil) = %d", got)
	}
}
