//go:build !linux

package telemetry

import (
	"errors"
	"time"
)

var errNoCgroups = errors.New("telemetry: cgroups are Linux-only")

type noCgroups struct{}

func (noCgroups) treeCPU(int) (time.Duration, int, error) { return 0, 0, errNoCgroups }

func (noCgroups) readIO(*ioCounters) error { return errNoCgroups }

func newCgroupReader(string) treeReader { return noCgroups{} }

func newCgroupIO(string, string) ioReader { return noCgroups{} }

// CgroupCPU returns the cumulative CPU of every process that ran in a
// cgroup; cgroups exist only on Linux, so elsewhere it always fails.
func CgroupCPU(dir string) (time.Duration, error) { return 0, errNoCgroups }

// CgroupIO returns the cumulative block I/O of every process that ran in
// a cgroup; cgroups exist only on Linux, so elsewhere it always fails.
func CgroupIO(dir string) (reads, writes, readBytes, writeBytes uint64, err error) {
	return 0, 0, 0, 0, errNoCgroups
}
