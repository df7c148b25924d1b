package scenario

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rightsize/rightsize/diskspace"
)

func TestCheckCloneSpace(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "f"), make([]byte, 4*diskspace.MiB), 0o600); err != nil {
		t.Fatal(err)
	}
	room, err := diskspace.Of(dir)
	if err != nil {
		t.Skip(err)
	}
	each := diskspace.Used(dir)
	fits := int(room.Free / each)
	for _, tc := range []struct {
		n    int
		want string // "" for no error
	}{
		{1, ""},
		{2*fits + 10, " MiB data directory need about "}, // others may free space meanwhile
	} {
		err := checkCloneSpace(dir, tc.n)
		var short *diskspace.ShortError
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%d copies: %v, want none", tc.n, err)
		case tc.want != "" && (!errors.As(err, &short) || !strings.Contains(err.Error(), tc.want) ||
			!strings.Contains(err.Error(), "--instances ")):
			t.Errorf("%d copies: %v, want %q and the instances that fit", tc.n, err, tc.want)
		}
	}
}
