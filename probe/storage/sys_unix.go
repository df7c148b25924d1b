//go:build unix

package storage

import (
	"time"

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

// processCPU returns the CPU time (user plus system) the process has used,
// all its threads together.
func processCPU() (time.Duration, bool) {
	var ru unix.Rusage
	if err := unix.Getrusage(unix.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
