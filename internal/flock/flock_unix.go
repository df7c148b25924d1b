//go:build unix

// Package flock takes exclusive advisory locks on files (flock(2)), which
// the kernel releases when the holder exits, even if it crashes.
package flock

import (
	"errors"
	"os"
	"syscall"
)

// open opens path for locking: an existing file or directory as it is, a
// missing path as a new empty file.
func open(path string) (*os.File, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		f, err = os.OpenFile(path, os.O_CREATE|os.O_RDONLY, 0o644)
	}
	return f, err
}

// Lock takes an exclusive lock on path, waiting for it.
func Lock(path string) (unlock func(), err error) {
	f, err := open(path)
	if err != nil {
		return nil, err
	}
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if !errors.Is(err, syscall.EINTR) {
			break
		}
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return func() {
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}

// TryLock takes an exclusive lock on path without waiting; it fails with
// syscall.EWOULDBLOCK when another process holds it.
func TryLock(path string) (unlock func(), err error) {
	f, err := open(path)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		return nil, err
	}
	return func() { f.Close() }, nil
}
