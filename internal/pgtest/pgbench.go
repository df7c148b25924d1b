package pgtest

import (
	"os"
	"path/filepath"
	"testing"
)

// Pgbench is the pgbench of the binaries Bin names, for tests that compare
// rightsize's pgbench workloads with pgbench's own; it skips the test when
// there is none.
func Pgbench(t testing.TB) string {
	t.Helper()
	if Bin() == "" {
		t.Skip("no PostgreSQL binaries with a pgbench to compare with (set RIGHTSIZE_PG_BIN)")
	}
	p := filepath.Join(Bin(), "pgbench")
	if _, err := os.Stat(p); err != nil {
		t.Skipf("no pgbench to compare with: %v", err)
	}
	return p
}
