package scenario

import (
	"slices"
	"testing"
	"time"
)

func TestPerSecondWAL(t *testing.T) {
	t0 := time.Date(2026, 11, 30, 23, 0, 0, 0, time.UTC)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	// 1,000 bytes a second for two seconds, then 3,000, read every 500 ms
	// from 500 ms before the step's start to 3.5 s after it
	var steady []walReading
	for ms := -500; ms <= 3500; ms += 500 {
		pos := int64(10_000 + ms)
		if ms > 2000 {
			pos = 12_000 + int64(ms-2000)*3
		}
		steady = append(steady, walReading{at(ms), pos})
	}
	for _, c := range []struct {
		name  string
		reads []walReading
		n     int
		want  []int64
	}{
		{"interpolated at each second's bounds", steady, 3, []int64{1000, 1000, 3000}},
		{"the last second cut at the last reading", steady, 4, []int64{1000, 1000, 3000, 1500}},
		{"between readings", steady, 1, []int64{1000}},
		{"readings that begin after the start", steady[2:], 3, nil},
		{"a single reading", steady[:1], 1, nil},
		{"no seconds", steady, 0, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := perSecondWAL(c.reads, t0, c.n); !slices.Equal(got, c.want) {
				t.Fatalf("perSecondWAL = %v, want %v", got, c.want)
			}
		})
	}
}
