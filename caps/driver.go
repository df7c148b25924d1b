package caps

import (
	"slices"

	"github.com/rightsize/rightsize/cgroup"
	"github.com/rightsize/rightsize/engine"
)

// DriverShares reports whether caps c on a machine of ncpu cores leave the
// driver (rightsize) no core of its own: a core it runs on is also one of
// the server's. That is so when the server's cpuset (WholeCores(CPUs) of
// the highest cores, or Cores) takes every core, so the driver is not
// pinned and runs where the server does — the server's cpus plus the
// driver's one core are more than the machine has —, when --driver-cpus
// names a core of the server's, and without a cpus cap (the server runs on
// every core). Caps that cannot apply here (Plan refuses them) share
// nothing: they were not measured.
func (c Caps) DriverShares(ncpu int) bool {
	if c.CPUs == 0 {
		return true
	}
	p, err := Caps{CPUs: c.CPUs, Cores: c.Cores, DriverCPUs: c.DriverCPUs}.Plan(engine.Tuning{}, ncpu)
	if err != nil {
		return false
	}
	if p.DriverCPUs == nil {
		return true
	}
	for _, d := range p.DriverCPUs {
		if slices.Contains(p.ServerCPUs, d) {
			return true
		}
	}
	return false
}

// DriverNeed is how many cores the driver needs to itself under c: those
// --driver-cpus names, else one.
func (c Caps) DriverNeed() int {
	if c.DriverCPUs == "" {
		return 1
	}
	cpus, err := cgroup.ParseCPUList(c.DriverCPUs)
	if err != nil || len(cpus) == 0 {
		return 1
	}
	return len(cpus)
}
