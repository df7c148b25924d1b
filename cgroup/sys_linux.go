//go:build linux

package cgroup

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"
)

// deviceNumbers is the major and minor number of the device holding path.
func deviceNumbers(path string) (uint32, uint32, error) {
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil {
		return 0, 0, err
	}
	return unix.Major(uint64(st.Dev)), unix.Minor(uint64(st.Dev)), nil
}

// isFakeTree reports whether dir is on an ordinary file system (tests),
// not cgroupfs, where rmdir removes a group with its interface files.
func isFakeTree(dir string) bool {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return false
	}
	const cgroupMagic, cgroup2Magic = 0x27e0eb, 0x63677270
	return st.Type != cgroupMagic && st.Type != cgroup2Magic
}

func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// Pin sets the CPU affinity of every thread of pid to cpus (what taskset
// does; the fallback when no cpuset controller can be used). Threads and
// children created later inherit it.
func Pin(pid int, cpus []int) error {
	var set unix.CPUSet
	for _, c := range cpus {
		set.Set(c)
	}
	tasks, err := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	if err != nil {
		return fmt.Errorf("pin pid %d: %w", pid, err)
	}
	for _, t := range tasks {
		tid, err := strconv.Atoi(t.Name())
		if err != nil {
			continue
		}
		if err := unix.SchedSetaffinity(tid, &set); err != nil && !errors.Is(err, unix.ESRCH) {
			return fmt.Errorf("pin thread %d of pid %d to cpus %s: %w", tid, pid, FormatCPUList(cpus), err)
		}
	}
	return nil
}

// Affinity reads the CPU affinity of pid.
func Affinity(pid int) ([]int, error) {
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(pid, &set); err != nil {
		return nil, err
	}
	var out []int
	for i := 0; i < 1024; i++ {
		if set.IsSet(i) {
			out = append(out, i)
		}
	}
	return out, nil
}
