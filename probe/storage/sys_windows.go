//go:build windows

package storage

import (
	"os"

	"golang.org/x/sys/windows"
)

// checkWritable reports why dir cannot be written to, if it cannot, by
// creating and removing a temporary file (Windows has no access(2)).
func checkWritable(dir string) error {
	f, err := os.CreateTemp(dir, ".rightsize-probe-*")
	if err != nil {
		return err
	}
	name := f.Name()
	f.Close()
	return os.Remove(name)
}

// freeSpace returns the bytes available to the caller in dir's volume.
func freeSpace(dir string) (uint64, error) {
	p, err := windows.UTF16PtrFromString(dir)
	if err != nil {
		return 0, err
	}
	var avail, total, free uint64
	if err := windows.GetDiskFreeSpaceEx(p, &avail, &total, &free); err != nil {
		return 0, err
	}
	return avail, nil
}
