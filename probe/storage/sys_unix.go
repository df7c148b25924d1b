//go:build unix

package storage

import (
	"golang.org/x/sys/unix"
)

// checkWritable reports why dir cannot be written to, if it cannot: missing
// permission or a read-only file system.
func checkWritable(dir string) error {
	return unix.Access(dir, unix.W_OK)
}

// freeSpace returns the bytes available to an unprivileged user in dir's
// file system.
func freeSpace(dir string) (uint64, error) {
	var st unix.Statfs_t
	if err := unix.Statfs(dir, &st); err != nil {
		return 0, err
	}
	return uint64(st.Bavail) * uint64(st.Bsize), nil
}
