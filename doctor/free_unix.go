//go:build unix

package doctor

import "golang.org/x/sys/unix"

// freeBytes is the space left to an unprivileged user on path's file system.
func freeBytes(path string) uint64 {
	var st unix.Statfs_t
	if unix.Statfs(path, &st) != nil {
		return 0
	}
	return st.Bavail * uint64(st.Bsize)
}
