package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// A run whose results store cannot be written (its disk full) keeps what
// it measured in a spill file, a JSON document of the run and its steps,
// which ImportSpill (results import FILE) brings into a store later.

// spillFormat names the spill file's format.
const spillFormat = "rightsize-spill-v1"

// Spill is what a run measured that its store could not hold.
type Spill struct {
	Format string `json:"format"`
	// Store is the store it was meant for (password redacted).
	Store string `json:"store"`
	Run   Run    `json:"run"`
	Steps []Step `json:"steps"`
}

// Full reports whether err is a write that failed because the store's
// disk (or database) is full: SQLite's SQLITE_FULL, PostgreSQL's
// disk_full (53100), or the file system's ENOSPC.
func Full(err error) bool {
	if err == nil {
		return false
	}
	var se *sqlite.Error
	if errors.As(err, &se) && se.Code()&0xff == sqlite3.SQLITE_FULL {
		return true
	}
	msg := err.Error()
	return strings.Contains(msg, "No space left on device") || strings.Contains(msg, "SQLSTATE 53100") ||
		strings.Contains(msg, "database or disk is full")
}

// WriteSpill writes the run and steps the store s could not hold to a
// spill file beside a SQLite store (else in the working directory), or
// when that cannot be written either, in the temporary directory; it
// returns the file's path.
func (s *Store) WriteSpill(run Run, steps []Step) (string, error) {
	sp := Spill{Format: spillFormat, Store: s.location, Run: run, Steps: steps}
	b, err := json.Marshal(sp)
	if err != nil {
		return "", fmt.Errorf("store: encode the spill: %w", err)
	}
	name := fmt.Sprintf("rightsize-spill-%s.json", run.ID)
	dirs := []string{".", os.TempDir()}
	if s.dialect == dialectSQLite {
		dirs[0] = filepath.Dir(sqlitePath(s.location))
	}
	var errs []error
	for _, dir := range dirs {
		path, err := filepath.Abs(filepath.Join(dir, name))
		if err == nil {
			if err = writeNew(path, b); err == nil {
				return path, nil
			}
		}
		errs = append(errs, err)
	}
	return "", fmt.Errorf("store: write the spill of run %s: %w", run.ID, errors.Join(errs...))
}

// writeNew writes b to a new file at path (0600), removing what it could
// not finish.
func writeNew(path string, b []byte) error {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	_, err = f.Write(b)
	if serr := f.Sync(); err == nil {
		err = serr
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
	}
	return err
}

// ReadSpill reads a spill file.
func ReadSpill(path string) (*Spill, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var sp Spill
	if err := json.Unmarshal(b, &sp); err != nil || sp.Format != spillFormat {
		return nil, fmt.Errorf("%s is not a rightsize spill file (%s): %v", path, spillFormat, err)
	}
	return &sp, nil
}

// ImportSpill stores a spilled run: the run when the store lacks it, the
// steps it lacks (a step stored before the disk filled is kept), and the
// run's final status. It returns how many steps it added; importing a
// spill twice adds nothing.
func (s *Store) ImportSpill(ctx context.Context, sp *Spill) (int, error) {
	run := sp.Run
	_, stored, err := s.LoadRun(ctx, run.ID)
	if errors.Is(err, ErrNotFound) {
		r := run
		r.Status, r.EndedAt = StatusRunning, time.Time{}
		err = s.CreateRun(ctx, &r)
	}
	if err != nil {
		return 0, err
	}
	have := map[[2]int]bool{}
	for _, st := range stored {
		have[[2]int{st.Repeat, st.Index}] = true
	}
	added := 0
	for i := range sp.Steps {
		st := sp.Steps[i]
		if have[[2]int{st.Repeat, st.Index}] {
			continue
		}
		st.ID, st.RunID = 0, run.ID
		if err := s.AddStep(ctx, &st); err != nil {
			return added, err
		}
		added++
	}
	if run.Status != StatusRunning {
		if err := s.FinishRun(ctx, run.ID, run.Status, run.EndedAt); err != nil {
			return added, err
		}
	}
	return added, nil
}
