package scenario

import (
	"errors"
	"slices"
	"testing"

	"github.com/rightsize/rightsize/engine"
	"github.com/rightsize/rightsize/registry"
	"github.com/rightsize/rightsize/store"
)

func TestKnee(t *testing.T) {
	pt := func(v string, nopm, p90 float64) SweepPoint {
		return SweepPoint{Value: v, RunID: "r-" + v, Status: store.StatusComplete, NOPM: nopm, NewOrderP90Ms: p90}
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
		// a server killed mid-run leaves figures of part of the interval: they decide nothing
		{"partial value skipped", []SweepPoint{pt("2G", 1000, 5), {Value: "1G", RunID: "r-1G", Status: store.StatusPartial, NOPM: 1500, NewOrderP90Ms: 2}, pt("512M", 990, 5)}, 2, false},
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

// registered is the registry's engine called name.
func registered(t *testing.T, name string) registry.Engine {
	t.Helper()
	for _, e := range registry.Engines() {
		if e.Name == name {
			return e
		}
	}
	t.Fatalf("no engine %s in the registry", name)
	return registry.Engine{}
}

func TestSweepKindsAndValues(t *testing.T) {
	if _, err := LookupSweepKind("bogus"); !errors.Is(err, ErrBadOptions) {
		t.Fatalf("unknown kind: %v", err)
	}
	v, err := LookupSweepKind("version")
	if err != nil || !v.Rebuild {
		t.Fatalf("version: %v (rebuild %v), want available, each value building its own database", err, v.Rebuild)
	}
	if _, err := v.Order([]string{"17", "11"}); !errors.Is(err, ErrBadOptions) {
		t.Fatalf("version 11: %v, want bad options (not downloadable)", err)
	}
	opt, err := v.Apply(registered(t, "postgres"), "13", registry.Options{DataDir: "/data/pg"})
	if err != nil || opt.PGVersion != "13" || opt.DataDir != "/data/pg-pg13" {
		t.Fatalf("Apply version 13: %+v, %v; want PGVersion 13 in /data/pg-pg13", opt, err)
	}
	if _, err := v.Apply(registered(t, "mysql"), "13", registry.Options{}); !errors.Is(err, ErrBadOptions) {
		t.Fatalf("version on MariaDB: %v, want bad options", err)
	}
	k, err := LookupSweepKind("memory")
	if err != nil {
		t.Fatal(err)
	}
	got, err := k.Order([]string{"256M", "1G", "512MiB", "1.5G"})
	if err != nil || !slices.Equal(got, []string{"1.5G", "1G", "512MiB", "256M"}) {
		t.Fatalf("Order = %v, %v", got, err)
	}
	for _, bad := range [][]string{{"lots"}, {"-1G"}} {
		if _, err := k.Order(bad); !errors.Is(err, ErrBadOptions) {
			t.Errorf("Order(%v) = %v, want ErrBadOptions", bad, err)
		}
	}
	opt, err = k.Apply(registered(t, "postgres"), "256M", registry.Options{Settings: map[string]string{"max_connections": "100"}})
	if err != nil || opt.Caps.Memory != 256<<20 || opt.Settings["max_connections"] != "100" {
		t.Fatalf("postgres: %+v, %v", opt, err)
	}
	if _, err := k.Apply(registered(t, "sqlite"), "1G", registry.Options{}); !errors.Is(err, ErrBadOptions) {
		t.Fatalf("sqlite: %v", err)
	}
}

func TestSweepCPUsAndIO(t *testing.T) {
	cpus, err := LookupSweepKind("cpus")
	if err != nil {
		t.Fatal(err)
	}
	got, err := cpus.Order([]string{"0.5", "1", "1.5"})
	if err != nil || !slices.Equal(got, []string{"1.5", "1", "0.5"}) {
		t.Fatalf("cpus Order = %v, %v", got, err)
	}
	for _, bad := range [][]string{{"0"}, {"1000"}, {"x"}} {
		if _, err := cpus.Order(bad); !errors.Is(err, ErrBadOptions) {
			t.Errorf("cpus Order(%v) = %v", bad, err)
		}
	}
	opt, err := cpus.Apply(registered(t, "postgres"), "0.5", registry.Options{})
	if err != nil || opt.Caps.CPUs != 0.5 {
		t.Fatalf("cpus Apply: %+v, %v", opt.Caps, err)
	}
	io, err := LookupSweepKind("io")
	if err != nil {
		t.Fatal(err)
	}
	got, err = io.Order([]string{"riops=2000:wiops=500", "none", "riops=200:wiops=100"})
	if err != nil || !slices.Equal(got, []string{"none", "riops=2000:wiops=500", "riops=200:wiops=100"}) {
		t.Fatalf("io Order = %v, %v", got, err)
	}
	if _, err := io.Order([]string{"fast"}); !errors.Is(err, ErrBadOptions) {
		t.Errorf("io Order(fast) = %v", err)
	}
	opt, err = io.Apply(registered(t, "postgres"), "riops=2000:wiops=500", registry.Options{})
	if err != nil || opt.Caps.IO.ReadIOPS != 2000 || opt.Caps.IO.WriteIOPS != 500 {
		t.Fatalf("io Apply: %+v, %v", opt.Caps, err)
	}
}

// TestWarnFits: a memory sweep warns only when the database fits in the
// engine's cache at its smallest value, not merely in the memory.
func TestWarnFits(t *testing.T) {
	tuning := engine.Tuning{Reserve: 64 << 20, RestShare: 2} // PostgreSQL's split: half is cache
	memory := SweepKind{Name: "memory"}
	for _, tc := range []struct {
		name   string
		kind   SweepKind
		values []string
		db     int64
		warn   bool
	}{
		{"fits the smallest cache", memory, []string{"1G", "512M"}, 200 << 20, true},
		{"fits the memory, not the cache", memory, []string{"1G", "256M"}, 212 << 20, false},
		{"larger than every value", memory, []string{"1G", "256M"}, 2 << 30, false},
		{"not a memory sweep", SweepKind{Name: "cpus"}, []string{"2", "1"}, 1 << 20, false},
		{"size unknown", memory, []string{"1G"}, 0, false},
	} {
		var got []string
		warnFits(tc.kind, tc.values, tc.db, tuning, func(s string) { got = append(got, s) })
		if (len(got) > 0) != tc.warn {
			t.Errorf("%s: warnings %q, want a warning: %v", tc.name, got, tc.warn)
		}
	}
}
