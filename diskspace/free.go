// Package diskspace says how much room a file system has left and what a
// TPC-C database of a number of warehouses takes on it, so that a build, a
// sweep or a fit refuses up front what would fill the disk half-way, and
// messages about a full disk can say where and how full.
package diskspace

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// MiB is one mebibyte.
const MiB = 1 << 20

// Room is the free space of the file system holding a path.
type Room struct {
	// Mount is the file system's mount point ("/mnt").
	Mount string
	// Free is what an unprivileged user may still write there (statfs'
	// available blocks: the server runs as one).
	Free int64
}

// String is "/mnt, 230 MiB free".
func (r Room) String() string { return fmt.Sprintf("%s, %s free", r.Mount, MiBs(r.Free)) }

// Of returns the room of the file system that holds path, or would hold it:
// a path not made yet is looked up at its nearest existing parent.
func Of(path string) (Room, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return Room{}, err
	}
	for {
		if _, err := os.Stat(abs); err == nil || !errors.Is(err, os.ErrNotExist) {
			break
		}
		parent := filepath.Dir(abs)
		if parent == abs {
			break
		}
		abs = parent
	}
	free, err := available(abs)
	if err != nil {
		return Room{}, fmt.Errorf("free space of %s: %w", abs, err)
	}
	return Room{Mount: mountPoint(abs), Free: free}, nil
}

// mountPoint walks up from path while the device stays the same.
func mountPoint(path string) string {
	dev, ok := device(path)
	if !ok {
		return path
	}
	for {
		parent := filepath.Dir(path)
		if parent == path {
			return path
		}
		if d, ok := device(parent); !ok || d != dev {
			return path
		}
		path = parent
	}
}

// MiBs formats bytes as "230 MiB", rounded up.
func MiBs(b int64) string {
	if b < 0 {
		b = 0
	}
	return fmt.Sprintf("%d MiB", (b+MiB-1)/MiB)
}

// Used is the bytes the files under dir take on disk (0 when it cannot
// be read): what a rebuild of a data directory frees.
func Used(dir string) int64 {
	var n int64
	_ = filepath.WalkDir(dir, func(_ string, d os.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if info, err := d.Info(); err == nil {
			n += onDisk(info)
		}
		return nil
	})
	return n
}
