//go:build unix

package instance

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// safeToExecute fails unless path (after resolving symbolic links) and
// every directory above it can be changed only by root or the current
// user: a program another user could replace must never run as root.
// Directories writable by others pass only with the sticky bit (as /tmp),
// which stops others from replacing what they do not own.
func safeToExecute(path string) error {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return fmt.Errorf("instance: %s: %w", path, err)
	}
	st, err := os.Stat(real)
	if err != nil {
		return fmt.Errorf("instance: %s: %w", real, err)
	}
	if err := trusted(real, st, false); err != nil {
		return err
	}
	for dir := filepath.Dir(real); ; dir = filepath.Dir(dir) {
		st, err := os.Stat(dir)
		if err != nil {
			return fmt.Errorf("instance: %s: %w", dir, err)
		}
		if err := trusted(dir, st, true); err != nil {
			return err
		}
		if dir == "/" || dir == "." {
			return nil
		}
	}
}

// safeDir fails unless dir can be changed only by root or the current user.
func safeDir(dir string) error {
	st, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("instance: %s: %w", dir, err)
	}
	return trusted(dir, st, true)
}

func trusted(path string, st os.FileInfo, dir bool) error {
	sys, ok := st.Sys().(*syscall.Stat_t)
	if !ok {
		return nil
	}
	me := uint32(os.Geteuid())
	if sys.Uid != 0 && sys.Uid != me {
		return fmt.Errorf("instance: refusing to run %s: it belongs to uid %d, who could change what runs (only root or uid %d may own it)", path, sys.Uid, me)
	}
	if st.Mode().Perm()&0o022 != 0 && !(dir && st.Mode()&os.ModeSticky != 0) {
		return fmt.Errorf("instance: refusing to run %s: %s is writable by other users (mode %#o); remove their write permission", path, path, st.Mode().Perm())
	}
	return nil
}

const oNoFollow = syscall.O_NOFOLLOW

// closedAncestor returns the first directory above path that the user
// uid/gid cannot enter ("" when every one can be entered).
func closedAncestor(path string, uid, gid int) string {
	for dir := filepath.Dir(path); ; dir = filepath.Dir(dir) {
		var st syscall.Stat_t
		if err := syscall.Stat(dir, &st); err == nil {
			bit := uint32(0o001)
			switch {
			case int(st.Uid) == uid:
				bit = 0o100
			case int(st.Gid) == gid:
				bit = 0o010
			}
			if uint32(st.Mode)&bit == 0 {
				return dir
			}
		}
		if dir == "/" || dir == filepath.Dir(dir) {
			return ""
		}
	}
}

// fileOwner is the uid owning path (not following a last symbolic link).
func fileOwner(path string) (int, bool) {
	var st syscall.Stat_t
	if err := syscall.Lstat(path, &st); err != nil {
		return 0, false
	}
	return int(st.Uid), true
}

// fileIDs is the owner and group of a file.
func fileIDs(fi os.FileInfo) (uid, gid int, ok bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, 0, false
	}
	return int(st.Uid), int(st.Gid), true
}
