//go:build !unix && !windows

package storage

import (
	"math"
	"os"
	"time"
)

// checkWritable reports why dir cannot be written to, if it cannot, by
// creating and removing a temporary file.
func checkWritable(dir string) error {
	f, err := os.CreateTemp(dir, ".rightsize-probe-*")
	if err != nil {
		return err
	}
	name := f.Name()
	f.Close()
	return os.Remove(name)
}

// freeSpace is unknown on this platform: it does not limit the test file.
func freeSpace(dir string) (uint64, error) { return math.MaxInt64, nil }

// processCPU is unknown on this platform.
func processCPU() (time.Duration, bool) { return 0, false }
