package storage

import (
	"slices"
	"testing"
)

// buckets returns a distribution over LatencyEdgesMs with the given shares
// by lower edge.
func buckets(pct map[float64]float64) LatencyBuckets {
	b := newLatencyBuckets()
	for i := range b {
		b[i].Pct = pct[b[i].FromMs]
	}
	return b
}

// TestDistributionLines: fio's "lat (usec)" and "lat (msec)" lines, each
// range labelled by its upper edge, empty ranges left out.
func TestDistributionLines(t *testing.T) {
	for _, tc := range []struct {
		name string
		b    LatencyBuckets
		want []string
	}{
		{"none", nil, nil},
		{"mixed", buckets(map[float64]float64{0.004: 0.01, 0.250: 1.015576, 0.500: 20.460316, 0.750: 65.345237,
			1: 3.214416, 2: 0.452286, 4: 0.001, 2000: 0.5}),
			[]string{"lat (usec): 10=0.01%, 500=1.02%, 750=20.46%, 1000=65.35%", "lat (msec): 2=3.21%, 4=0.45%, 10=<0.01%, >=2000=0.50%"}},
		{"first range", buckets(map[float64]float64{0: 100}), []string{"lat (usec): 2=100.00%"}},
		{"milliseconds only", buckets(map[float64]float64{1000: 100}), []string{"lat (msec): 2000=100.00%"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := distributionLines(tc.b); !slices.Equal(got, tc.want) {
				t.Errorf("got %q\nwant %q", got, tc.want)
			}
		})
	}
}
