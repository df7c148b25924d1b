package storage

import (
	"errors"
	"os"
	"syscall"
)

// openTestFile opens (creating it if create) the test file for reading and
// writing, with O_DIRECT if direct and the file system accepts it; it
// reports whether the file is open for direct I/O.
func openTestFile(path string, create, direct bool) (*os.File, bool, error) {
	flag := os.O_RDWR
	if create {
		flag |= os.O_CREATE
	}
	if direct {
		f, err := os.OpenFile(path, flag|syscall.O_DIRECT, 0o600)
		if err == nil {
			return f, true, nil
		}
		if !errors.Is(err, syscall.EINVAL) && !errors.Is(err, syscall.EOPNOTSUPP) {
			return nil, false, err
		}
	}
	f, err := os.OpenFile(path, flag, 0o600)
	return f, false, err
}
