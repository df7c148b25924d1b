package registry

import (
	"errors"
	"testing"

	"github.com/rightsize/rightsize/caps"
)

// The messages that send a user to a managed target name every managed
// form of the registry.
func TestManagedForms(t *testing.T) {
	if got, want := ManagedForms(), "embedded or mariadb"; got != want {
		t.Errorf("ManagedForms() = %q, want %q", got, want)
	}
}

// --wal-dir is refused for a managed server that cannot keep its log
// elsewhere, and taken by every registered one, which says how for doctor.
func TestWALDirNeedsAServerThatMovesItsLog(t *testing.T) {
	opt := Options{Caps: caps.Caps{WALDir: "/tmp/wal"}}
	cannot := Engine{Name: "x", Managed: &ManagedServer{Display: "managed X"}}
	if err := checkWALDir(cannot, opt); !errors.Is(err, caps.ErrBad) {
		t.Errorf("--wal-dir on a server without WALDir: %v, want caps.ErrBad", err)
	}
	if err := checkWALDir(cannot, Options{}); err != nil {
		t.Errorf("no --wal-dir: %v", err)
	}
	for _, e := range Engines() {
		if e.Managed == nil {
			continue
		}
		if e.Managed.WALDir == "" {
			t.Errorf("%s: managed server says nothing of --wal-dir", e.Name)
		}
		if err := checkWALDir(e, opt); err != nil {
			t.Errorf("%s: %v", e.Name, err)
		}
	}
}
