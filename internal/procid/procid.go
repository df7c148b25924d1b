// Package procid names one incarnation of a process on one host — host
// name, pid and the process's start time from /proc/PID/stat — so that a
// record of who started something (a managed server, a run being
// measured) can later tell whether that process is gone, without being
// fooled by a new process that reuses the pid.
package procid

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// ID is one process incarnation: its host, pid and start time (clock
// ticks after boot, field 22 of /proc/PID/stat; "" where unknown).
type ID struct {
	Host  string `json:"host"`
	PID   int    `json:"pid"`
	Start string `json:"start"`
}

// Self is the running process.
func Self() ID { return Of(os.Getpid()) }

// Of is process pid of this host as it runs now (Start "" when there is
// no such process).
func Of(pid int) ID {
	host, _ := os.Hostname()
	start, _ := startTime(pid)
	return ID{Host: host, PID: pid, Start: start}
}

// String is "host pid start", the form Parse reads.
func (id ID) String() string {
	return fmt.Sprintf("%s %d %s", id.Host, id.PID, id.Start)
}

// Parse reads String's form; ok is false for anything else (an empty
// owner stored before owners were recorded).
func Parse(s string) (id ID, ok bool) {
	f := strings.Fields(s)
	if len(f) != 3 {
		return ID{}, false
	}
	pid, err := strconv.Atoi(f[1])
	if err != nil || pid <= 0 {
		return ID{}, false
	}
	return ID{Host: f[0], PID: pid, Start: f[2]}, true
}

// Gone reports whether the process is known to have ended: it ran on this
// host and its pid now names no process, a zombie, or a process started at
// another time. A process of another host, or one this host cannot look up
// (no /proc), is never gone: nothing may be taken from a live owner.
func (id ID) Gone() bool {
	if host, _ := os.Hostname(); id.PID <= 0 || id.Host != host {
		return false
	}
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		return false
	}
	start, zombie := startTime(id.PID)
	return start == "" || zombie || (id.Start != "" && start != id.Start)
}

// startTime reads pid's start time from /proc and whether it is a zombie;
// "" when there is no such process.
func startTime(pid int) (start string, zombie bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return "", false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return "", false
	}
	// after "pid (comm)": state ppid pgrp ...; starttime is the 22nd field overall
	f := strings.Fields(s[i+1:])
	if len(f) < 20 {
		return "", false
	}
	return f[19], f[0] == "Z"
}
