//go:build !linux && !darwin

package storage

import "os"

// openTestFile opens (creating it if create) the test file for reading and
// writing. Direct I/O is not implemented on this platform: the file is
// always buffered and the result says so.
func openTestFile(path string, create, direct bool) (*os.File, bool, error) {
	flag := os.O_RDWR
	if create {
		flag |= os.O_CREATE
	}
	f, err := os.OpenFile(path, flag, 0o600)
	return f, false, err
}
