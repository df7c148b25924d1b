//go:build !linux

package storage

import (
	"errors"
	"os"
	"sync/atomic"
	"time"
)

// openQueues finds no asynchronous interface outside Linux: jobs run on
// goroutines (an error if cfg forces io_uring or libaio).
func openQueues(f *os.File, j Job, direct bool, cfg builtinConfig) ([]asyncQueue, string, string, error) {
	return openQueuesWith(f, j, direct, cfg, nil)
}

// asyncThread exists on Linux only.
type asyncThread struct{ t *tally }

var errNoAsync = errors.New("no asynchronous I/O interface on this platform")

// ioArena exists on Linux only.
type ioArena struct {
	huge bool
	why  string
}

func (a *ioArena) free() {}

func newAsyncThreads([]asyncQueue, []*thread, Job, uint64, builtinConfig) ([]*asyncThread, *ioArena, error) {
	return nil, nil, errNoAsync
}

func (at *asyncThread) run(Job, int, int64, time.Time, *atomic.Bool) error { return errNoAsync }
