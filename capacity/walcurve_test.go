package capacity

import (
	"testing"
	"time"

	"github.com/rightsize/rightsize/store"
)

// TestWALCurve reads the WAL of the first n transactions along a curve
// whose WAL a transaction falls from 10,000 to 2,000 bytes (closed form:
// linear between its points, its last half's slope past its end), and a
// limited step's WAL a transaction over its window.
func TestWALCurve(t *testing.T) {
	c := WALCurve{Points: []WALPoint{{100, 1e6}, {200, 1.5e6}, {300, 1.8e6}, {400, 2e6}}, RampupSec: 5}
	const window = 20
	for _, tc := range []struct {
		n, want float64
	}{
		{0, 0}, {50, 5e5}, {100, 1e6}, {250, 1.65e6}, {400, 2e6}, {500, 2.2e6},
	} {
		if got := c.at(tc.n); !near(got, tc.want, 1e-9) {
			t.Errorf("at(%g) = %g, want %g", tc.n, got, tc.want)
		}
	}
	for _, tc := range []struct {
		name    string
		x, want float64
	}{
		{"a slow step stays where the images are", 10, (1.65e6 - 5e5) / 200},
		{"a fast one logs its records alone", 100, 2000},
	} {
		if got, ok := c.perTxn(tc.x, window); !ok || !near(got, tc.want, 1e-9) {
			t.Errorf("%s: perTxn(%g) = %g, %v; want %g", tc.name, tc.x, got, ok, tc.want)
		}
	}
	if _, ok := (WALCurve{}).perTxn(10, window); ok {
		t.Error("an empty curve gave a WAL per transaction")
	}
}

func TestWALCurveOf(t *testing.T) {
	start := time.Date(2026, 11, 30, 23, 0, 0, 0, time.UTC)
	s := store.Step{Start: start, MeasureStart: start.Add(2 * time.Second), MeasureEnd: start.Add(5 * time.Second),
		Seconds: []store.Second{{Offset: 0, Txn: 10, WALBytes: 80000}, {Offset: 1, Txn: 20, WALBytes: 60000}, {Offset: 2, Txn: 20, WALBytes: 40000}}}
	c := walCurveOf(s)
	want := []WALPoint{{10, 80000}, {30, 140000}, {50, 180000}}
	if len(c.Points) != len(want) || c.RampupSec != 2 {
		t.Fatalf("walCurveOf = %+v, want points %v, ramp-up 2 s", c, want)
	}
	for i := range want {
		if c.Points[i] != want[i] {
			t.Fatalf("point %d = %v, want %v", i, c.Points[i], want[i])
		}
	}
	for i := range s.Seconds {
		s.Seconds[i].WALBytes = 0
	}
	if c := walCurveOf(s); len(c.Points) != 0 {
		t.Fatalf("a step without WAL per second gave a curve: %+v", c)
	}
}
