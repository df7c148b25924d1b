//go:build !linux

package telemetry

import "time"

func newHostReader() hostReader { return newPsutilHost() }

func newTreeReader() treeReader { return psutilTree{} }

// ProcessTreeCPU returns the cumulative user+system CPU of pid and its
// descendants, as reported by gopsutil. Outside Linux only live processes
// are summed: the CPU of descendants that exited between two calls is lost,
// so with short-lived backends the difference between two calls is a lower
// bound.
func ProcessTreeCPU(pid int) (time.Duration, error) {
	d, _, err := psutilTree{}.treeCPU(pid)
	return d, err
}
