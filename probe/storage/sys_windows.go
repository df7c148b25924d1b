//go:build windows

package storage

import (
	"os"
	"time"

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

// processCPU returns the CPU time (user plus kernel) the process has used.
func processCPU() (time.Duration, bool) {
	var created, exited, kernel, user windows.Filetime
	if err := windows.GetProcessTimes(windows.CurrentProcess(), &created, &exited, &kernel, &user); err != nil {
		return 0, false
	}
	ticks := func(f windows.Filetime) int64 { return int64(f.HighDateTime)<<32 | int64(f.LowDateTime) }
	return time.Duration((ticks(kernel) + ticks(user)) * 100), true
}
