package scenario

import (
	"errors"
	"slices"
	"testing"

	"github.com/rightsize/rightsize/target"
)

func TestKnee(t *testing.T) {
	pt := func(v string, nopm, p90 float64) SweepPoint {
		return SweepPoint{Value: v, RunID: "r-" + v, NOPM: nopm, NewOrderP90Ms: p90}
	}
	cases := []struct {
		name   string
		points []SweepPoint
		knee   int
		found  bool
	}{
		{"NOPM falls at the third value", []SweepPoint{pt("2G", 1000, 5), pt("1G", 980, 5.2), pt("512M", 700, 9), pt("256M", 400, 20)}, 1, true},
		{"p90 rises though NOPM holds", []SweepPoint{pt("2G", 1000, 5), pt("1G", 995, 6)}, 0, true},
		{"every value holds", []SweepPoint{pt("2G", 1000, 5), pt("1G", 950, 5.4)}, 1, false},
		{"best is not the first", []SweepPoint{pt("2G", 950, 5), pt("1G", 1000, 5), pt("512M", 880, 5)}, 1, true},
		{"failed value skipped", []SweepPoint{pt("2G", 1000, 5), {Value: "1G", Status: "failed"}, pt("512M", 990, 5)}, 2, false},
		{"the largest value already fails", []SweepPoint{pt("2G", 500, 5), pt("1G", 1000, 5)}, -1, true},
		{"nothing measured", []SweepPoint{{Value: "1G"}}, -1, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			knee, found := Knee(c.points, 0.10)
			if knee != c.knee || found != c.found {
				t.Fatalf("Knee = %d, %v; want %d, %v", knee, found, c.knee, c.found)
			}
		})
	}
}

func TestSweepKindsAndValues(t *testing.T) {
	if _, err := LookupSweepKind("bogus"); !errors.Is(err, ErrBadOptions) {
		t.Fatalf("unknown kind: %v", err)
	}
	if _, err := LookupSweepKind("cpus"); !errors.Is(err, ErrBadOptions) {
		t.Fatalf("cpus without caps: %v", err)
	}
	k, err := LookupSweepKind("memory")
	if err != nil {
		t.Fatal(err)
	}
	got, err := k.Order([]string{"256M", "1G", "512MiB", "1.5G"})
	if err != nil || !slices.Equal(got, []string{"1.5G", "1G", "512MiB", "256M"}) {
		t.Fatalf("Order = %v, %v", got, err)
	}
	for _, bad := range [][]string{{"lots"}, {"512k"}, {"-1G"}} {
		if _, err := k.Order(bad); !errors.Is(err, ErrBadOptions) {
			t.Errorf("Order(%v) = %v, want ErrBadOptions", bad, err)
		}
	}
	opt, err := k.Apply("postgres", "256M", target.Options{Settings: map[string]string{"max_connections": "100"}})
	if err != nil || opt.Settings["shared_buffers"] != "262144kB" || opt.Settings["effective_cache_size"] != "262144kB" ||
		opt.Settings["max_connections"] != "100" {
		t.Fatalf("postgres: %v, %v", opt.Settings, err)
	}
	opt, err = k.Apply("mysql", "1G", target.Options{})
	if err != nil || opt.Settings["innodb_buffer_pool_size"] != "1073741824" {
		t.Fatalf("mysql: %v, %v", opt.Settings, err)
	}
	if _, err := k.Apply("sqlite", "1G", target.Options{}); !errors.Is(err, ErrBadOptions) {
		t.Fatalf("sqlite: %v", err)
	}
}
