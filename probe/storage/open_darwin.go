package storage

import (
	"os"

	"golang.org/x/sys/unix"
)

// openTestFile opens (creating it if create) the test file for reading and
// writing, with the page cache disabled (F_NOCACHE, macOS's O_DIRECT) if
// direct and the file system accepts it; it reports whether it did.
func openTestFile(path string, create, direct bool) (*os.File, bool, error) {
	flag := os.O_RDWR
	if create {
		flag |= os.O_CREATE
	}
	f, err := os.OpenFile(path, flag, 0o600)
	if err != nil || !direct {
		return f, false, err
	}
	if _, err := unix.FcntlInt(f.Fd(), unix.F_NOCACHE, 1); err != nil {
		return f, false, nil
	}
	return f, true, nil
}
