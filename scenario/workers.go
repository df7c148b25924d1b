package scenario

import (
	"context"
	"time"

	"github.com/rightsize/rightsize/store"
)

// Meeting coordinates this process with the other workers of one run
// (run --worker i/n); package worker implements it over the results store.
type Meeting interface {
	// Join registers the worker, creating the shared run from shared when
	// it is the first; its errors are bad input.
	Join(ctx context.Context, shared *store.Run) error
	// RunID is the shared run's id; WorkerRunID this worker's own run's.
	RunID() string
	WorkerRunID() string
	// StepStart returns the instant step seq (0-based over repeats and
	// steps) starts at for every worker.
	StepStart(ctx context.Context, seq int) (time.Time, error)
	// Finish records the worker's end (a store.Worker* state) and its
	// driver CPU; when every worker has ended it merges their steps into
	// the shared run and reports true.
	Finish(ctx context.Context, status, note string, driverCPU time.Duration) (bool, error)
}

// Share is worker i's part of n of a count: count/n, one more for the
// first count%n workers.
func Share(count, i, n int) int {
	s := count / n
	if i < count%n {
		s++
	}
	return s
}

// FirstShare is where worker i's Share of count starts: the shares of
// the workers before it added up.
func FirstShare(count, i, n int) int {
	first := 0
	for j := range i {
		first += Share(count, j, n)
	}
	return first
}

// HomeSlice is worker i's slice of n of the warehouses 1..w: its first
// warehouse and how many.
func HomeSlice(w, i, n int) (first, count int) {
	lo, hi := i*w/n, (i+1)*w/n
	return lo + 1, hi - lo
}

// workerStatus maps a run status to the worker's end state.
func workerStatus(runStatus string) string {
	switch runStatus {
	case store.StatusComplete:
		return store.WorkerDone
	case store.StatusPartial:
		return store.WorkerPartial
	}
	return store.WorkerFailed
}

// validateWorkers checks the worker options of o.
func (o *RunOptions) validateWorkers() error {
	if o.Workers == 0 {
		return nil
	}
	if o.Meeting == nil || o.Worker < 0 || o.Worker >= o.Workers {
		return bad("--worker %d/%d: the worker number must be 0..%d", o.Worker, o.Workers, o.Workers-1)
	}
	for _, u := range o.Users {
		if u < o.Workers {
			return bad("--users: a step of %d users cannot be shared by %d workers; give every step at least %d users", u, o.Workers, o.Workers)
		}
	}
	if o.RebuildBetweenRepeats {
		return bad("--rebuild-between-repeats cannot be used with --worker: one worker would rebuild under the others")
	}
	return nil
}
