package instance

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/rightsize/rightsize/internal/basedir"
	"github.com/rightsize/rightsize/internal/secret"
)

// CloneDataDir copies the data directory src of a stopped server to dst
// (which must not exist), keeping modes and owners, without the lock and
// pid files a running server leaves (postmaster.pid, MariaDB's lock). A
// symbolic link (pg_wal kept elsewhere with --wal-dir) cannot be cloned:
// the clones would share it. The copy gets the passwords of src (its
// secrets file under the default secrets directory), as its users do. The
// copy is recorded as a temporary one of this process (owner.go): should
// the process die without removing it, the next start removes it.
func CloneDataDir(src, dst string) error {
	if _, err := os.Lstat(dst); err == nil {
		return fmt.Errorf("instance: clone %s: %s already exists", src, dst)
	}
	if err := recordClone(dst); err != nil { // before the copy: a kill mid-copy leaves it reclaimable
		return err
	}
	if err := copyTree(src, dst); err != nil {
		return err
	}
	if s, err := secret.Load(basedir.Secrets(), src); err == nil {
		s.DataDir = dst
		if err := secret.Save(basedir.Secrets(), s); err != nil {
			return fmt.Errorf("instance: clone the passwords of %s: %w", src, err)
		}
	}
	return nil
}

// copyTree copies src to dst with modes and owners, without lock and pid files.
func copyTree(src, dst string) error {
	skip := map[string]bool{"postmaster.pid": true, "postmaster.opts": true, "rightsize-mariadb.lock": true}
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		if skip[rel] {
			return nil
		}
		to := filepath.Join(dst, rel)
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			return fmt.Errorf("instance: clone %s: %s is a link (a WAL directory elsewhere); clones would share it", src, path)
		case d.IsDir():
			if err := os.Mkdir(to, info.Mode().Perm()); err != nil {
				return fmt.Errorf("instance: clone: %w", err)
			}
		default:
			if err := copyFile(path, to, info.Mode().Perm()); err != nil {
				return fmt.Errorf("instance: clone %s: %w", path, err)
			}
		}
		if uid, gid, ok := fileIDs(info); ok {
			if err := os.Lchown(to, uid, gid); err != nil {
				return fmt.Errorf("instance: clone: %w", err)
			}
		}
		return os.Chmod(to, info.Mode().Perm())
	})
}

func copyFile(src, dst string, mode fs.FileMode) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_EXCL|os.O_WRONLY, mode)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
