package registry

import (
	"path/filepath"
	"testing"

	"github.com/rightsize/rightsize/instance"
)

// Every managed server says where its data directory is without
// --data-dir, where CheckCaps finds the device of an I/O limit: the
// MariaDB's own directory, not the base directory above it.
func TestManagedDataDir(t *testing.T) {
	want := map[string]string{"postgres": instance.DefaultBaseDir(),
		"mariadb": filepath.Join(instance.DefaultBaseDir(), "data", "mariadb-default")}
	for _, e := range Engines() {
		if e.Managed == nil {
			continue
		}
		if e.Managed.DataDir == nil {
			t.Errorf("%s: no DataDir", e.Managed.Name)
			continue
		}
		if got := e.Managed.DataDir(); got != want[e.Managed.Name] {
			t.Errorf("%s: DataDir %s, want %s", e.Managed.Name, got, want[e.Managed.Name])
		}
	}
}
