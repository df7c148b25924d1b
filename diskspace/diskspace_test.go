package diskspace

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestOfMissingPath(t *testing.T) {
	dir := t.TempDir()
	r, err := Of(filepath.Join(dir, "not", "made", "yet"))
	if err != nil {
		t.Fatal(err)
	}
	if r.Free <= 0 || r.Mount == "" || !strings.HasPrefix(dir, r.Mount) {
		t.Fatalf("Of = %+v for a path under %s", r, dir)
	}
}

func TestShort(t *testing.T) {
	room := Room{Mount: "/mnt", Free: 230 * MiB}
	err := PostgresBuild(4, true).Short(room, 0)
	var se *ShortError
	if !errors.As(err, &se) {
		t.Fatalf("4 warehouses in 230 MiB: %v", err)
	}
	want := "4 warehouses need about 651 MiB here: 411 MiB of tables and indexes, 192 MiB of WAL, 25 MiB of index build sorts, 23 MiB of the server's own files; /mnt has 230 MiB free"
	if !strings.HasPrefix(err.Error(), want) {
		t.Errorf("got %q\nwant %q", err, want)
	}
	if err := PostgresBuild(1, true).Short(Room{Mount: "/big", Free: 400 * MiB}, 0); err != nil {
		t.Errorf("1 warehouse in 400 MiB: %v", err)
	}
	if err := PostgresBuild(4, true).Short(room, 430*MiB); err != nil {
		t.Errorf("4 warehouses in 230 MiB plus 430 MiB freed first: %v", err)
	}
	if n := PostgresFits(450 * MiB); n != 2 {
		t.Errorf("PostgresFits(450 MiB) = %d, want 2", n)
	}
}

func TestUsed(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "f"), make([]byte, 1<<20), 0o600); err != nil {
		t.Fatal(err)
	}
	if u := Used(dir); u < 1<<20 {
		t.Errorf("Used = %d, want at least 1 MiB", u)
	}
}
