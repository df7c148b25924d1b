package scenario

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/rightsize/rightsize/caps"
	"github.com/rightsize/rightsize/cgroup"
	"github.com/rightsize/rightsize/store"
)

// DriverShare says which values of a cpus sweep left the driver
// (rightsize, on the same host) no core of its own (caps.DriverShares),
// so that their figures include the driver's own CPU use and do not
// compare fairly with values that left it one, and how to measure fairly.
// It is derived from what the values' runs stored — the value, the host's
// cores (host.logical_cpus) and the driver's cores (caps.asked, else the
// --driver-cpus flag) — so sweeps stored before it existed have it too.
type DriverShare struct {
	// Values are the values that left the driver no core of its own.
	Values []string `json:"values"`
	// HostCores is how many cores the sweep's host has.
	HostCores int `json:"host_cores"`
	// DriverCPUs is --driver-cpus as given ("": not given).
	DriverCPUs string `json:"driver_cpus,omitempty"`
	// FairValues is a --values list that leaves the driver a core on that
	// host ("" when it has none to spare).
	FairValues string `json:"fair_values,omitempty"`
	// FairDriverCPUs are the driver's cores with FairValues ("0").
	FairDriverCPUs string `json:"fair_driver_cpus,omitempty"`
}

// Note says which values shared the driver's cores, why that is unfair and
// how to measure fairly.
func (d *DriverShare) Note() string {
	s := fmt.Sprintf("cpus %s leaves the driver (rightsize) no core of its own on the sweep's %d-core host: the server runs on the driver's cores too, "+
		"so the figures include the driver's own CPU use and do not compare fairly with values that leave it a core", joinAnd(d.Values), d.HostCores)
	if d.FairValues == "" {
		return s + fmt.Sprintf(". A %d-core host has no core to spare for the driver: sweep cpus on a host with more cores", d.HostCores)
	}
	cores := "core " + d.FairDriverCPUs
	if strings.ContainsAny(d.FairDriverCPUs, ",-") {
		cores = "cores " + d.FairDriverCPUs
	}
	return s + fmt.Sprintf(". To measure fairly, keep a core for the driver: --values %s there, the driver then on %s, which the server does not get (--driver-cpus %s)",
		d.FairValues, cores, d.FairDriverCPUs)
}

// KneeNote is what the knee line adds: the knee compares values of which
// some shared the driver's cores.
func (d *DriverShare) KneeNote() string {
	return fmt.Sprintf("cpus %s left the driver no core of its own: not a fair comparison (see the note)", joinAnd(d.Values))
}

// joinAnd joins "2", "1.5" as "2 and 1.5".
func joinAnd(vs []string) string {
	if len(vs) < 2 {
		return strings.Join(vs, "")
	}
	return strings.Join(vs[:len(vs)-1], ", ") + " and " + vs[len(vs)-1]
}

// newDriverShare is the DriverShare of a cpus sweep of values on a host of
// ncpu cores where shared values left the driver none of its own (nil
// when none did).
func newDriverShare(values, shared []string, ncpu int, driverCPUs string) *DriverShare {
	if len(shared) == 0 {
		return nil
	}
	d := &DriverShare{Values: shared, HostCores: ncpu, DriverCPUs: driverCPUs}
	need := caps.Caps{DriverCPUs: driverCPUs}.DriverNeed()
	if d.FairValues = fairValues(values, ncpu, need); d.FairValues != "" {
		cores := make([]int, need)
		for i := range cores {
			cores[i] = i
		}
		d.FairDriverCPUs = cgroup.FormatCPUList(cores)
	}
	return d
}

// fairValues is a --values list for a host of ncpu cores that leaves the
// driver need cores (the lowest, which the server's cpuset of the highest
// never takes): the values given of at most ncpu-need cores, led by
// ncpu-need itself, with its half when that leaves one value only; "" when
// the host has no core to spare.
func fairValues(values []string, ncpu, need int) string {
	most := ncpu - need
	if most < 1 {
		return ""
	}
	var fair []string
	has := false
	for _, v := range values {
		f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err != nil || f <= 0 || f > float64(most) {
			continue
		}
		has = has || f == float64(most)
		fair = append(fair, strings.TrimSpace(v))
	}
	if !has {
		fair = append([]string{strconv.Itoa(most)}, fair...)
	}
	if len(fair) == 1 {
		fair = append(fair, strconv.FormatFloat(float64(most)/2, 'f', -1, 64))
	}
	return strings.Join(fair, ",")
}

// markDriverShares marks the measured points of a cpus sweep whose run
// left the driver no core of its own (runs[i] is point i's run, nil when
// it has none) and returns what they share (nil when none did).
func markDriverShares(values []string, points []SweepPoint, runs []*store.Run) *DriverShare {
	var shared []string
	ncpu, driverCPUs := 0, ""
	for i := range points {
		p := &points[i]
		if runs[i] == nil || !p.Measured() {
			continue
		}
		if c, n, ok := pointCaps(p.Value, runs[i]); ok && c.DriverShares(n) {
			p.DriverShares, ncpu, driverCPUs = true, n, c.DriverCPUs
			shared = append(shared, p.Value)
		}
	}
	return newDriverShare(values, shared, ncpu, driverCPUs)
}

// pointCaps are the cpus caps the run of a cpus sweep's value was measured
// under, and the cores of its host, from what the run stored (ok false
// when it did not store the host's cores).
func pointCaps(value string, run *store.Run) (c caps.Caps, ncpu int, ok bool) {
	c, ncpu, _ = runCaps(run) // unreadable caps: the --driver-cpus flag alone
	if ncpu <= 0 {
		return c, 0, false
	}
	var err error
	if c.CPUs, err = strconv.ParseFloat(strings.TrimSpace(value), 64); err != nil {
		return c, 0, false
	}
	return c, ncpu, true
}

// runCaps are the caps a stored run asked (caps.asked; the driver's cores
// from its --driver-cpus flag when the caps do not name them) and the
// cores of its host (host.logical_cpus; 0 when it did not store them).
// err says the stored caps were unreadable; the flag is applied anyway.
func runCaps(run *store.Run) (c caps.Caps, ncpu int, err error) {
	if s := run.Env["caps.asked"]; s != "" {
		if uerr := json.Unmarshal([]byte(s), &c); uerr != nil {
			err = fmt.Errorf("run %s: stored caps: %w", run.ID, uerr)
		}
	}
	if c.DriverCPUs == "" {
		c.DriverCPUs = run.Flags["driver-cpus"]
	}
	if n, aerr := strconv.Atoi(run.Env["host.logical_cpus"]); aerr == nil && n > 0 {
		ncpu = n
	}
	return c, ncpu, err
}

// warnDriverShare warns before a cpus sweep starts when some of its values
// will leave the driver no core of its own on this host.
func warnDriverShare(kind SweepKind, values []string, driverCPUs string, ncpu int, warn func(string)) {
	if kind.Name != "cpus" || warn == nil {
		return
	}
	var shared []string
	for _, v := range values {
		if f, err := strconv.ParseFloat(v, 64); err == nil && (caps.Caps{CPUs: f, DriverCPUs: driverCPUs}).DriverShares(ncpu) {
			shared = append(shared, v)
		}
	}
	if d := newDriverShare(values, shared, ncpu, driverCPUs); d != nil {
		warn(d.Note())
	}
}
