//go:build unix

package main

import (
	"os"
	"os/signal"
	"syscall"

	"golang.org/x/sys/unix"
)

// brokenPipes calls gone once standard output or error loses its reader.
// Go ends a program that writes to such a pipe on descriptor 1 or 2 with
// SIGPIPE, before any deferred clean-up: a managed server would be left
// running and the run "running". Asking for SIGPIPE turns such writes
// into EPIPE errors; the signal also comes for other broken pipes (a
// database's socket), so each one is checked: only an output whose pipe
// reports an error (no reader) calls gone. It returns the function that
// stops watching.
func brokenPipes(gone func()) (stop func()) {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGPIPE)
	done := make(chan struct{})
	go func() {
		for {
			select {
			case <-done:
				return
			case <-ch:
				if outputGone() {
					gone()
					return
				}
			}
		}
	}()
	return func() {
		signal.Stop(ch)
		close(done)
	}
}

// outputGone reports whether standard output or error is a pipe (or
// socket) whose reader has gone: poll(2) says POLLERR or POLLHUP for it.
func outputGone() bool {
	fds := []unix.PollFd{{Fd: 1, Events: unix.POLLOUT}, {Fd: 2, Events: unix.POLLOUT}}
	if n, err := unix.Poll(fds, 0); err != nil || n == 0 {
		return false
	}
	for _, f := range fds {
		if f.Revents&(unix.POLLERR|unix.POLLHUP) != 0 {
			return true
		}
	}
	return false
}
