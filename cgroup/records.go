package cgroup

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/rightsize/rightsize/internal/basedir"
	"github.com/rightsize/rightsize/internal/procid"
)

// Group records: CleanStale finds a dead rightsize's groups by name under
// its own parent groups, which misses those a rightsize in another parent
// left (another CI job's, a test binary killed by go test's timeout). So
// Create records each group (its directories and its maker, pid and start
// time) in <base dir>/cgroups, Remove drops the record, and CleanStale
// also removes the groups of dead makers recorded there, wherever they are.

// recordsDir holds the group records of the current user's rightsize.
func recordsDir() string { return filepath.Join(basedir.Default(), "cgroups") }

// groupRecord is a group's directories and the process that made it.
type groupRecord struct {
	Owner procid.ID `json:"owner"`
	Dirs  []string  `json:"dirs"`
}

// record writes g's record (best effort: without it only the name-based
// cleanup applies).
func (g *Group) record() {
	r := groupRecord{Owner: procid.Self()}
	for _, c := range Controllers {
		if d, ok := g.dirs[c]; ok && !isFakeTree(d) && !slices.Contains(r.Dirs, d) {
			r.Dirs = append(r.Dirs, d)
		}
	}
	if len(r.Dirs) == 0 || os.MkdirAll(recordsDir(), 0o700) != nil {
		return
	}
	if b, err := json.Marshal(r); err == nil {
		_ = os.WriteFile(filepath.Join(recordsDir(), g.Name+".json"), b, 0o600)
	}
}

// dropRecord removes g's record.
func (g *Group) dropRecord() { _ = os.Remove(filepath.Join(recordsDir(), g.Name+".json")) }

// cleanRecorded removes the recorded groups whose maker is gone and their
// records; it returns the directories removed.
func cleanRecorded() ([]string, error) {
	entries, err := os.ReadDir(recordsDir())
	if err != nil {
		return nil, nil // no records
	}
	var removed []string
	var errs []error
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		path := filepath.Join(recordsDir(), e.Name())
		b, err := os.ReadFile(path)
		var r groupRecord
		if err != nil || json.Unmarshal(b, &r) != nil {
			continue
		}
		if !r.Owner.Gone() {
			continue
		}
		left := false
		for _, d := range r.Dirs {
			if !exists(d) {
				continue
			}
			if err := removeDir(d); err != nil {
				errs = append(errs, err)
				left = true
				continue
			}
			removed = append(removed, d)
		}
		if !left {
			_ = os.Remove(path)
		}
	}
	return removed, errors.Join(errs...)
}
