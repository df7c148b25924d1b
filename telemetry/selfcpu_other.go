//go:build !unix

package telemetry

import (
	"context"
	"os"
	"sync"
	"time"

	"github.com/shirou/gopsutil/v4/process"
)

var (
	selfOnce sync.Once
	selfProc *process.Process
)

// SelfCPU returns this process's own user+system CPU time (all threads),
// as reported by gopsutil. The driver's CPU per transaction is the
// difference between two calls divided by the transactions in between.
func SelfCPU() time.Duration {
	ctx := context.Background()
	selfOnce.Do(func() {
		selfProc, _ = process.NewProcessWithContext(ctx, int32(os.Getpid()))
	})
	if selfProc == nil {
		return 0
	}
	t, err := selfProc.TimesWithContext(ctx)
	if err != nil {
		return 0
	}
	return secs(t.User + t.System)
}
