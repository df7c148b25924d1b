package cgroup

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Existing is dir made absolute, or its nearest parent that exists: where
// a directory not created yet (a data directory before the first start)
// will be, for DeviceOf and free-space checks.
func Existing(dir string) string {
	dir, _ = filepath.Abs(dir)
	for {
		if _, err := os.Stat(dir); err == nil || dir == filepath.Dir(dir) {
			return dir
		}
		dir = filepath.Dir(dir)
	}
}

// DeviceOf returns the block device that holds path, as the I/O
// controllers want it: a partition is resolved to its whole disk (the
// kernel throttles disks, not partitions). sysRoot is normally "/sys".
func DeviceOf(sysRoot, path string) (Device, error) {
	major, minor, err := deviceNumbers(path)
	if err != nil {
		return Device{}, fmt.Errorf("find the device of %s: %w", path, err)
	}
	d := Device{Major: major, Minor: minor}
	if d.Major == 0 {
		return d, fmt.Errorf("%s is on a file system without a block device (device %s: tmpfs, overlay or network); I/O limits cannot apply there", path, d)
	}
	return diskOf(sysRoot, d, path)
}

// diskOf maps a partition to its disk through /sys/dev/block/MAJ:MIN.
func diskOf(sysRoot string, d Device, path string) (Device, error) {
	link := filepath.Join(sysRoot, "dev", "block", d.String())
	if _, err := os.Stat(link); err != nil {
		return d, fmt.Errorf("%s is on device %s, which is not a block device known to %s/dev/block; I/O limits cannot apply there", path, d, sysRoot)
	}
	if _, err := os.Stat(filepath.Join(link, "partition")); errors.Is(err, os.ErrNotExist) {
		return d, nil
	}
	real, err := filepath.EvalSymlinks(link)
	if err != nil {
		return d, fmt.Errorf("resolve partition %s: %w", d, err)
	}
	b, err := os.ReadFile(filepath.Join(filepath.Dir(real), "dev"))
	if err != nil {
		return d, fmt.Errorf("find the disk of partition %s: %w", d, err)
	}
	var disk Device
	if err := disk.UnmarshalText([]byte(strings.TrimSpace(string(b)))); err != nil {
		return d, err
	}
	return disk, nil
}

// ParseCPUList reads a cpuset list such as "0-3,6".
func ParseCPUList(s string) ([]int, error) {
	var out []int
	for _, part := range strings.Split(strings.TrimSpace(s), ",") {
		if part == "" {
			continue
		}
		lo, hi, isRange := strings.Cut(part, "-")
		a, err1 := strconv.Atoi(lo)
		b := a
		var err2 error
		if isRange {
			b, err2 = strconv.Atoi(hi)
		}
		if err1 != nil || err2 != nil || a < 0 || b < a {
			return nil, fmt.Errorf("cpu list %q: want numbers and ranges such as 0-3,6", s)
		}
		for i := a; i <= b; i++ {
			out = append(out, i)
		}
	}
	return out, nil
}

// FormatCPUList writes cpus (ascending) as a cpuset list.
func FormatCPUList(cpus []int) string {
	var parts []string
	for i := 0; i < len(cpus); {
		j := i
		for j+1 < len(cpus) && cpus[j+1] == cpus[j]+1 {
			j++
		}
		if i == j {
			parts = append(parts, strconv.Itoa(cpus[i]))
		} else {
			parts = append(parts, fmt.Sprintf("%d-%d", cpus[i], cpus[j]))
		}
		i = j + 1
	}
	return strings.Join(parts, ",")
}
