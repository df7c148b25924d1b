//go:build !unix

package instance

import (
	"errors"
	"runtime"
	"syscall"
)

var errUnsupported = errors.New("instance: managed PostgreSQL is not supported on " + runtime.GOOS)

func platformSupported() error { return errUnsupported }

func signalFastShutdown(int) error           { return errUnsupported }
func signalImmediateShutdown(int) error      { return errUnsupported }
func signalKill(int) error                   { return errUnsupported }
func killGroup(int)                          {}
func processGroupAttr() *syscall.SysProcAttr { return nil }

// ProcessRunning reports whether pid exists (unknown on this platform: false).
func ProcessRunning(int) bool         { return false }
func procStartTime(int) string        { return "" }
func groupRunning(int) bool           { return false }
func dataDirProcesses(string) []int   { return nil }
func inRecovery(int) bool             { return false }
func lockFile(string) (func(), error) { return nil, errUnsupported }
func setUmask(int)                    {}
