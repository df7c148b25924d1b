package main

import (
	"errors"
	"fmt"
	"runtime"

	"github.com/spf13/cobra"

	"github.com/rightsize/rightsize/caps"
	"github.com/rightsize/rightsize/cgroup"
	"github.com/rightsize/rightsize/internal/units"
)

// capFlags are the caps of a managed server (package caps).
type capFlags struct {
	cpus, driverCPUs, memory, ioLimit, walDir string
	cgroupParent, mode                        string
}

func (f *capFlags) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringVar(&f.cpus, "cpus", "", "cores of a managed server: N whole cores (a cpuset) or a fraction such as 1.5 (a CFS quota); also sizes its parallelism settings")
	fl.StringVar(&f.driverCPUs, "driver-cpus", "", "cores of the driver, a list such as 0 or 0-3 (default with --cpus: the cores the server does not get)")
	fl.StringVar(&f.memory, "memory", "", "memory of a managed server, e.g. 1G: its cache (shared_buffers / innodb_buffer_pool_size) gets what is left after half (PostgreSQL) or a quarter (MariaDB) for its processes, at least 64M / 128M; the whole is a cgroup limit including the page cache")
	fl.StringVar(&f.ioLimit, "io-limit", "", "block I/O limit of a managed server on the devices of its data (and WAL) directory: riops=N,wiops=N,rbps=SIZE,wbps=SIZE")
	fl.StringVar(&f.walDir, "wal-dir", "", "transaction log of a managed server on this path (PostgreSQL pg_wal, MariaDB redo log)")
	fl.StringVar(&f.cgroupParent, "cgroup-parent", "", "cgroup under which the server's group is made, e.g. /rightsize.slice (default: found as the README's Caps section says)")
	fl.StringVar(&f.mode, "caps", "strict", "strict: a --cpus quota, --memory or --io-limit that cannot be applied stops the run before it measures (exit 2); best-effort: run without it, marked 'caps not applied'")
}

// caps parses the flags; problems are one line for badInput.
func (f *capFlags) caps() (caps.Caps, error) {
	var c caps.Caps
	var err error
	if f.cpus != "" {
		if c.CPUs, err = caps.ParseCPUs(f.cpus, runtime.NumCPU()); err != nil {
			return c, err
		}
	}
	c.DriverCPUs = f.driverCPUs
	if f.memory != "" {
		if c.Memory, err = units.ParseSize(f.memory); err != nil {
			return c, fmt.Errorf("--memory %w", err)
		}
	}
	if c.IO, err = caps.ParseIOLimit(f.ioLimit); err != nil {
		return c, err
	}
	c.WALDir = f.walDir
	c.CgroupParent = f.cgroupParent
	c.BestEffort, err = caps.ParseMode(f.mode)
	return c, err
}

// joinIOLimit puts rightsize itself (and the fio it starts) into a new
// cgroup with the I/O limit on path's device, as a managed server's
// --io-limit does; leave moves it back and removes the group. A limit that
// cannot be applied is bad input: the probe would measure no limit.
func joinIOLimit(cmd *cobra.Command, spec, path string) (*cgroup.Report, func(), error) {
	nothing := func() {}
	if spec == "" {
		return nil, nothing, nil
	}
	l, err := caps.ParseIOLimit(spec)
	if err != nil {
		return nil, nothing, badInput(err)
	}
	dev, err := cgroup.DeviceOf("/sys", path)
	if err != nil {
		return nil, nothing, badInput(fmt.Errorf("--io-limit: %w", err))
	}
	limits := caps.Plan{}.Limits(l, []cgroup.Device{dev})
	c, err := cgroup.Confine("probe", limits, cgroup.Options{})
	if errors.Is(err, cgroup.ErrNotApplied) {
		return nil, nothing, badInput(fmt.Errorf("--io-limit: %w", err))
	}
	if err != nil {
		return nil, nothing, err
	}
	r := c.Report()
	leave, err := c.Enter()
	if err != nil {
		_ = c.Close()
		return nil, nothing, fmt.Errorf("--io-limit: join the probe's cgroup: %w", err)
	}
	fmt.Fprintln(cmd.ErrOrStderr(), "io-limit:", r.Summary())
	return &r, func() { _ = errors.Join(leave(), c.Close()) }, nil
}
