//go:build unix

package telemetry

import (
	"syscall"
	"time"
)

// SelfCPU returns this process's own user+system CPU time (all threads),
// from getrusage(RUSAGE_SELF). The driver's CPU per transaction is the
// difference between two calls divided by the transactions in between.
func SelfCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
