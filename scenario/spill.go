package scenario

import (
	"fmt"
	"time"

	"github.com/rightsize/rightsize/store"
)

// A run whose results store fills up keeps measuring: the steps the
// store cannot take are kept in memory, and at the end the run and those
// steps go to a spill file (store.WriteSpill) that results import brings back.

// storeStep stores a measured step, or keeps it for the spill once the
// store could not be written for lack of space.
func (r *runner) storeStep(s *store.Step) error {
	if r.storeFull == nil {
		err := r.st.AddStep(r.bg, s)
		if !store.Full(err) {
			return err
		}
		r.storeFull = err
	}
	r.unstored = append(r.unstored, *s)
	return nil
}

// StoreFullError is a run whose store could not be written: what it
// measured is in File (import it with results import), and Run is what
// ended the run itself, if anything.
type StoreFullError struct {
	Err   error  // the store's error
	File  string // the spill file
	Steps int
	Run   error
}

func (e *StoreFullError) Error() string {
	s := fmt.Sprintf("the results store could not be written (%v): what was measured (%d step(s) not stored) is in %s\n  fix: free space for the store, then: rightsize results import %s",
		e.Err, e.Steps, e.File, e.File)
	if e.Run != nil {
		s = fmt.Sprintf("%v; and %s", e.Run, s)
	}
	return s
}

func (e *StoreFullError) Unwrap() []error { return []error{e.Err, e.Run} }

// spill writes the run, ended with status, and its measured steps to a
// spill file, and returns the result of the run with the error that says
// where the spill is.
func (r *runner) spill(status string, storeErr, runErr error) (*Result, error) {
	run := *r.run
	run.Status, run.EndedAt = status, time.Now().UTC()
	path, err := r.st.WriteSpill(run, r.unstored)
	if err != nil {
		err = fmt.Errorf("the results store could not be written (%v), nor could what was measured be kept: %w", storeErr, err)
		if runErr != nil {
			err = fmt.Errorf("%v; and %w", runErr, err)
		}
	} else {
		err = &StoreFullError{Err: storeErr, File: path, Steps: len(r.unstored), Run: runErr}
	}
	_, steps, lerr := r.st.LoadRun(r.bg, run.ID) // reading a full store works
	if lerr != nil {
		steps = nil
	}
	steps = append(steps, r.unstored...)
	return &Result{Run: &run, Steps: steps, Report: BuildReport(&run, steps), Err: err}, err
}
