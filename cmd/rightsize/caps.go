package main

import (
	"fmt"
	"runtime"

	"github.com/spf13/cobra"

	"github.com/rightsize/rightsize/caps"
)

// capFlags are the caps of a managed server (package caps).
type capFlags struct {
	cpus, driverCPUs, memory, ioLimit, walDir string
}

func (f *capFlags) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringVar(&f.cpus, "cpus", "", "cores of a managed server: N whole cores (a cpuset) or a fraction such as 1.5 (a CFS quota); also sizes its parallelism settings")
	fl.StringVar(&f.driverCPUs, "driver-cpus", "", "cores of the driver, a list such as 0 or 0-3 (default with --cpus: the cores the server does not get)")
	fl.StringVar(&f.memory, "memory", "", fmt.Sprintf("memory of a managed server, e.g. 1G: %.0f %% to its cache (shared_buffers / innodb_buffer_pool_size), the whole as a cgroup limit including the page cache", caps.CacheShare*100))
	fl.StringVar(&f.ioLimit, "io-limit", "", "block I/O limit of a managed server on the devices of its data (and WAL) directory: riops=N,wiops=N,rbps=SIZE,wbps=SIZE")
	fl.StringVar(&f.walDir, "wal-dir", "", "transaction log of a managed server on this path (PostgreSQL pg_wal, MariaDB redo log)")
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
		if c.Memory, err = caps.ParseSize(f.memory); err != nil {
			return c, fmt.Errorf("--memory %w", err)
		}
	}
	if c.IO, err = caps.ParseIOLimit(f.ioLimit); err != nil {
		return c, err
	}
	c.WALDir = f.walDir
	return c, nil
}
