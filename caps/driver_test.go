package caps

import "testing"

// The driver shares a core with the server when the server's cpus and the
// driver's cores are more than the host has, or when --driver-cpus names
// one of the server's cores.
func TestDriverShares(t *testing.T) {
	for _, c := range []struct {
		name   string
		caps   Caps
		ncpu   int
		shares bool
	}{
		{"every core of two", Caps{CPUs: 2}, 2, true},
		{"one of two", Caps{CPUs: 1}, 2, false},
		{"half of two", Caps{CPUs: 0.5}, 2, false},
		{"a fraction spanning both", Caps{CPUs: 1.5}, 2, true},
		{"the only core", Caps{CPUs: 1}, 1, true},
		{"half of the only core", Caps{CPUs: 0.5}, 1, true},
		{"four of eight", Caps{CPUs: 4}, 8, false},
		{"seven of eight", Caps{CPUs: 7}, 8, false},
		{"every core of eight", Caps{CPUs: 8}, 8, true},
		{"driver on the server's core", Caps{CPUs: 1, DriverCPUs: "1"}, 2, true},
		{"driver on the other core", Caps{CPUs: 1, DriverCPUs: "0"}, 2, false},
		{"driver pinned, server on every core", Caps{CPUs: 2, DriverCPUs: "0"}, 2, true},
		{"two driver cores, seven server cores", Caps{CPUs: 7, DriverCPUs: "0-1"}, 8, true},
		{"two driver cores, six server cores", Caps{CPUs: 6, DriverCPUs: "0-1"}, 8, false},
		{"server cores chosen", Caps{CPUs: 1, Cores: []int{0}}, 2, false},
		{"no cpus cap", Caps{}, 4, true},
		{"more cores than the host", Caps{CPUs: 3}, 2, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := c.caps.DriverShares(c.ncpu); got != c.shares {
				t.Errorf("%+v on %d cores: DriverShares = %v, want %v", c.caps, c.ncpu, got, c.shares)
			}
		})
	}
}

func TestDriverNeed(t *testing.T) {
	for _, c := range []struct {
		driver string
		need   int
	}{{"", 1}, {"0", 1}, {"0-1", 2}, {"0,2-3", 3}, {"junk", 1}} {
		if got := (Caps{DriverCPUs: c.driver}).DriverNeed(); got != c.need {
			t.Errorf("DriverNeed(%q) = %d, want %d", c.driver, got, c.need)
		}
	}
}
