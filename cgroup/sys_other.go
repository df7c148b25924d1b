//go:build !linux

package cgroup

import "errors"

// errNotLinux: control groups, device numbers and CPU affinity are Linux's.
var errNotLinux = errors.New("control groups and CPU affinity exist on Linux only")

func deviceNumbers(string) (uint32, uint32, error) { return 0, 0, errNotLinux }

func isFakeTree(string) bool { return false }

func processAlive(int) bool { return false }

// Pin sets the CPU affinity of pid's threads (Linux only).
func Pin(int, []int) error { return errNotLinux }

// Affinity reads the CPU affinity of pid (Linux only).
func Affinity(int) ([]int, error) { return nil, errNotLinux }
