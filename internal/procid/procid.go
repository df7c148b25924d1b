// Package procid names one incarnation of a process on one host — host
// name, PID namespace, pid and the process's start time from
// /proc/PID/stat — so that a record of who started something (a managed
// server, a run being measured) can later tell whether that process is
// gone, without being fooled by a new process that reuses the pid, nor by
// a process of another container that shares the host's name (a
// Kubernetes pod on the host network) and whose pids are not ours.
package procid

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// ID is one process incarnation: its host, pid, start time (clock ticks
// after boot, field 22 of /proc/PID/stat; "" where unknown) and the PID
// namespace its pid is a number of ("pid:[INODE]", /proc/self/ns/pid;
// "" where unknown, as in records written before it was recorded).
type ID struct {
	Host  string `json:"host"`
	PID   int    `json:"pid"`
	Start string `json:"start"`
	PIDNS string `json:"pidns,omitempty"`
}

// Self is the running process.
func Self() ID { return Of(os.Getpid()) }

// Of is process pid of this host as it runs now, pid as this process's
// PID namespace numbers it (Start "" when there is no such process).
func Of(pid int) ID {
	host, _ := os.Hostname()
	start, _ := startTime(pid)
	return ID{Host: host, PID: pid, Start: start, PIDNS: pidNamespace()}
}

// pidNamespace is this process's PID namespace, "" where /proc cannot
// tell.
func pidNamespace() string {
	ns, err := os.Readlink("/proc/self/ns/pid")
	if err != nil || strings.ContainsAny(ns, " \t\n") {
		return ""
	}
	return ns
}

// String is "host pid start pidns" (start "-" when unknown; without
// pidns when unknown), the form Parse reads.
func (id ID) String() string {
	start := id.Start
	if start == "" {
		start = "-"
	}
	s := fmt.Sprintf("%s %d %s", id.Host, id.PID, start)
	if id.PIDNS != "" {
		s += " " + id.PIDNS
	}
	return s
}

// Parse reads String's form, and the "host pid start" of owners stored
// before the namespace was recorded; ok is false for anything else (an
// empty owner stored before owners were recorded).
func Parse(s string) (id ID, ok bool) {
	f := strings.Fields(s)
	if len(f) != 3 && len(f) != 4 {
		return ID{}, false
	}
	pid, err := strconv.Atoi(f[1])
	if err != nil || pid <= 0 {
		return ID{}, false
	}
	id = ID{Host: f[0], PID: pid, Start: f[2]}
	if id.Start == "-" {
		id.Start = ""
	}
	if len(f) == 4 {
		id.PIDNS = f[3]
	}
	return id, true
}

// Gone reports whether the process is known to have ended: it ran on this
// host, in this PID namespace, and its pid now names no process, a
// zombie, or a process started at another time. A process of another
// host or of another PID namespace (another container with the host's
// name: its pid 1 is not ours), or one this host cannot look up (no
// /proc), is never gone: nothing may be taken from a live owner.
func (id ID) Gone() bool {
	if host, _ := os.Hostname(); id.PID <= 0 || id.Host != host {
		return false
	}
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		return false
	}
	if id.PIDNS != "" && id.PIDNS != pidNamespace() {
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
