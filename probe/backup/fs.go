package backup

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// testNoSync, set by tests only, skips the fsync of backups and restored
// copies: the tests' clusters are small and their machines busy.
var testNoSync bool

// owner is the user a server runs as when rightsize is root (nil: keep
// the files' owner).
type owner struct{ uid, gid int }

func (o *owner) chown(path string) error {
	if o == nil {
		return nil
	}
	if err := os.Lchown(path, o.uid, o.gid); err != nil {
		return fmt.Errorf("give %s to uid %d: %w", path, o.uid, err)
	}
	return nil
}

// chownTree gives every file under root to o.
func (o *owner) chownTree(root string) error {
	if o == nil {
		return nil
	}
	return filepath.WalkDir(root, func(path string, _ fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return o.chown(path)
	})
}

// dirSize is the total size of the regular files under root.
func dirSize(root string) (int64, error) {
	var n int64
	err := filepath.WalkDir(root, func(_ string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() {
			info, err := d.Info()
			if err != nil {
				return err
			}
			n += info.Size()
		}
		return nil
	})
	return n, err
}

// copyTree copies the directory src to the new directory dst: regular
// files (written and fsynced), directories and symbolic links, with their
// permissions, owned by o. It stops when ctx is done.
//
// The bytes go through a buffer on purpose: io.Copy between files would
// ask the kernel (copy_file_range), which may share extents on XFS or btrfs
// and write nothing, and a restore must write its data.
func copyTree(ctx context.Context, src, dst string, o *owner) error {
	buf := make([]byte, 1<<20)
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		to := filepath.Join(dst, rel)
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
			if err := os.Mkdir(to, info.Mode().Perm()); err != nil {
				return err
			}
			if err := os.Chmod(to, info.Mode().Perm()); err != nil { // umask
				return err
			}
			return o.chown(to)
		case d.Type()&fs.ModeSymlink != 0:
			link, err := os.Readlink(path)
			if err != nil {
				return err
			}
			if err := os.Symlink(link, to); err != nil {
				return err
			}
			return o.chown(to)
		case d.Type().IsRegular():
			return copyFile(ctx, path, to, info.Mode().Perm(), buf, o)
		}
		return fmt.Errorf("copy %s: unsupported file type %v", path, d.Type())
	})
}

func copyFile(ctx context.Context, from, to string, perm fs.FileMode, buf []byte, o *owner) (err error) {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := out.Close(); err == nil {
			err = cerr
		}
	}()
	if err := o.chown(to); err != nil {
		return err
	}
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		n, rerr := in.Read(buf)
		if n > 0 {
			if _, err := out.Write(buf[:n]); err != nil {
				return fmt.Errorf("write %s: %w", to, err)
			}
		}
		if rerr == io.EOF {
			break
		}
		if rerr != nil {
			return fmt.Errorf("read %s: %w", from, rerr)
		}
	}
	if testNoSync {
		return nil
	}
	if err := out.Sync(); err != nil && !errors.Is(err, os.ErrInvalid) {
		return fmt.Errorf("sync %s: %w", to, err)
	}
	return nil
}

// isExecutable reports whether path is an executable regular file.
func isExecutable(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0
}
