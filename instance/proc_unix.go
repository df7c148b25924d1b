//go:build unix

package instance

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"

	"github.com/rightsize/rightsize/internal/flock"
)

func platformSupported() error { return nil }

func signalFastShutdown(pid int) error      { return syscall.Kill(pid, syscall.SIGINT) }
func signalImmediateShutdown(pid int) error { return syscall.Kill(pid, syscall.SIGQUIT) }
func signalKill(pid int) error              { return syscall.Kill(pid, syscall.SIGKILL) }

// killGroup SIGKILLs every process in process group pgid.
func killGroup(pgid int) {
	if pgid > 1 {
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
	}
}

func processGroupAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}

// ProcessRunning reports whether pid exists and is not a zombie. Zombies
// matter: an init that does not reap orphans (some containers and VMs)
// keeps a stopped postmaster around as one forever.
func ProcessRunning(pid int) bool {
	if pid <= 0 {
		return false
	}
	if err := syscall.Kill(pid, 0); err != nil && !errors.Is(err, syscall.EPERM) {
		return false
	}
	st, ok := readProcStat(pid)
	return !ok || st.state != 'Z'
}

// procStartTime identifies a process incarnation (Linux); "" when unknown.
func procStartTime(pid int) string {
	st, _ := readProcStat(pid)
	return st.start
}

// groupRunning reports whether a live (non-zombie) process is in group pgid.
func groupRunning(pgid int) bool {
	if pgid <= 1 {
		return false
	}
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return syscall.Kill(-pgid, 0) == nil
	}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if st, ok := readProcStat(pid); ok && st.pgrp == pgid && st.state != 'Z' {
			return true
		}
	}
	return false
}

// dataDirProcesses lists live processes whose working directory is dataDir
// (postgres processes chdir to their data directory); nil where unknown.
func dataDirProcesses(dataDir string) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	if real, err := filepath.EvalSymlinks(dataDir); err == nil {
		dataDir = real
	}
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if cwd, err := os.Readlink(fmt.Sprintf("/proc/%d/cwd", pid)); err == nil && cwd == dataDir && ProcessRunning(pid) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// startupTitle is the process title of a postmaster's startup process
// (which replays WAL: crash recovery), with or without a cluster_name.
var startupTitle = regexp.MustCompile(`^postgres: (?:\S+: )?startup\b`)

// inRecovery reports whether postmaster pid has a live startup process:
// it is starting or recovering from a crash.
func inRecovery(pid int) bool {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return false
	}
	for _, e := range entries {
		child, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if st, ok := readProcStat(child); !ok || st.ppid != pid || st.state == 'Z' {
			continue
		}
		if cmd, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", child)); err == nil && startupTitle.Match(cmd) {
			return true
		}
	}
	return false
}

type procStat struct {
	state byte
	ppid  int
	pgrp  int
	start string
}

func readProcStat(pid int) (procStat, bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return procStat{}, false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return procStat{}, false
	}
	// Fields after "pid (comm)": state ppid pgrp ... starttime is the 22nd field overall.
	f := strings.Fields(s[i+1:])
	if len(f) < 20 || len(f[0]) != 1 {
		return procStat{}, false
	}
	ppid, _ := strconv.Atoi(f[1])
	pgrp, _ := strconv.Atoi(f[2])
	return procStat{state: f[0][0], ppid: ppid, pgrp: pgrp, start: f[19]}, true
}

// lockFile takes an exclusive advisory lock on path (a directory, or a
// file created if missing), waiting for it.
func lockFile(path string) (unlock func(), err error) { return flock.Lock(path) }

func setUmask(m int) { syscall.Umask(m) }
