//go:build linux || darwin || freebsd

package backup

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// ownGroup runs cmd in a process group of its own and, when its context is
// cancelled, kills the whole group: pg_basebackup forks a WAL streaming
// child that would outlive its parent.
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { killTree(cmd); return nil }
	cmd.WaitDelay = 10 * time.Second
}

// killTree SIGKILLs cmd's process group.
func killTree(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}

// procExe is the executable of process pid ("" where unknown).
func procExe(pid int) string {
	p, err := os.Readlink(fmt.Sprintf("/proc/%d/exe", pid))
	if err != nil {
		return ""
	}
	return strings.TrimSuffix(p, " (deleted)")
}

// fileOwner returns the owner of path.
func fileOwner(path string) (uid, gid int, ok bool) {
	st, err := os.Stat(path)
	if err != nil {
		return 0, 0, false
	}
	s, ok := st.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, 0, false
	}
	return int(s.Uid), int(s.Gid), true
}

// reachable checks that user uid/gid can search every directory from / to
// dir (inclusive).
func reachable(dir string, uid, gid int) error {
	dir = filepath.Clean(dir)
	for p := dir; ; p = filepath.Dir(p) {
		st, err := os.Stat(p)
		if err != nil {
			return err
		}
		s, ok := st.Sys().(*syscall.Stat_t)
		if ok {
			mode := st.Mode().Perm()
			var can bool
			switch {
			case int(s.Uid) == uid:
				can = mode&0o100 != 0
			case int(s.Gid) == gid:
				can = mode&0o010 != 0
			default:
				can = mode&0o001 != 0
			}
			if !can {
				return fmt.Errorf("%s (mode %v, owner uid %d) is not searchable by uid %d", p, mode, s.Uid, uid)
			}
		}
		if p == filepath.Dir(p) {
			return nil
		}
	}
}

// freeBytes is the space available to unprivileged users on dir's file
// system (-1 when unknown).
func freeBytes(dir string) int64 {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return -1
	}
	return int64(st.Bavail) * int64(st.Bsize)
}
