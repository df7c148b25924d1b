//go:build linux

package mariadb

import (
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"github.com/rightsize/rightsize/internal/flock"
)

// sysProcAttr puts the server in its own process group (a Ctrl-C on the
// terminal reaches rightsize, which then stops the server cleanly) and asks
// the kernel to send it SIGTERM if rightsize dies without stopping it. A
// non-nil run switches to that user before exec: the kernel clears the
// parent-death signal when a process changes its uid (as mariadbd --user
// does), while Go sets it after the switch, so it survives.
func sysProcAttr(run *account) *syscall.SysProcAttr {
	a := &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
	if run != nil {
		a.Credential = &syscall.Credential{Uid: uint32(run.uid), Gid: uint32(run.gid), Groups: []uint32{}}
	}
	return a
}

// lockFile takes an exclusive advisory lock on path (created if missing).
func lockFile(path string) (unlock func(), err error) { return flock.Lock(path) }

// tryLockFile takes an exclusive advisory lock on path (created if
// missing) without waiting; the lock lasts until unlock or process exit.
func tryLockFile(path string) (unlock func(), err error) { return flock.TryLock(path) }

// searchable reports whether user uid/gid can reach path: every ancestor
// directory must grant it search (x) permission.
func searchable(path string, uid, gid int) bool {
	abs, err := filepath.Abs(path)
	if err != nil {
		return false
	}
	for dir := filepath.Dir(abs); ; dir = filepath.Dir(dir) {
		var st syscall.Stat_t
		if err := syscall.Stat(dir, &st); err != nil {
			return false
		}
		var ok bool
		switch {
		case int(st.Uid) == uid:
			ok = st.Mode&0o100 != 0
		case int(st.Gid) == gid:
			ok = st.Mode&0o010 != 0
		default:
			ok = st.Mode&0o001 != 0
		}
		if !ok {
			return false
		}
		if dir == "/" || dir == filepath.Dir(dir) {
			return true
		}
	}
}

// chownTree gives path and everything below it to uid/gid.
func chownTree(path string, uid, gid int) error {
	return filepath.WalkDir(path, func(p string, _ fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(p, uid, gid)
	})
}
