// Package procidtest gives tests the identity of a process that is gone.
package procidtest

import (
	"os/exec"
	"testing"

	"github.com/rightsize/rightsize/internal/procid"
)

// Killed starts a process of this host, takes its identity while it runs,
// then kills and reaps it: an owner that is gone (Gone is true). The test
// is skipped where no sleep command can be started.
func Killed(tb testing.TB) procid.ID {
	tb.Helper()
	c := exec.Command("sleep", "60")
	if err := c.Start(); err != nil {
		tb.Skip("no sleep command:", err)
	}
	id := procid.Of(c.Process.Pid)
	_ = c.Process.Kill()
	_ = c.Wait()
	return id
}
