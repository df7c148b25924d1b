//go:build linux

package telemetry

import (
	"fmt"
	"testing"
)

// benchServerTree starts a shell with n sleeping children (a stand-in for a
// postmaster and its backends) and returns its pid once the tree is whole.
func benchServerTree(tb testing.TB, n int) (int, bool) {
	cmd := startTree(tb, fmt.Sprintf(`for i in $(seq %d); do sleep 600 & done; wait`, n))
	waitProcs(tb, cmd.Process.Pid, n+1)
	return cmd.Process.Pid, true
}
