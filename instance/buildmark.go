package instance

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// A build that dies half-way (a full disk, a killed process) can leave a
// data directory whose server no longer starts, and whose schema nobody
// can then ask whether it is complete. The build marks the data directory
// while it loads (MarkBuild); a start that fails on a marked directory
// says the build did not complete and how to rebuild, instead of pg_ctl's
// error.

// buildMarker is the file in the data directory of a build in progress
// (or one that did not complete). PostgreSQL ignores files it does not
// know of.
const buildMarker = "rightsize.build-incomplete"

// ErrIncompleteBuild marks a start that failed on a data directory whose
// build did not complete.
var ErrIncompleteBuild = errors.New("the build of this database did not complete")

// MarkBuild marks dataDir as holding a build in progress; done removes
// the mark once the build completed.
func MarkBuild(dataDir string) (done func() error, err error) {
	path := filepath.Join(dataDir, buildMarker)
	if err := os.WriteFile(path, []byte("a rightsize build began here and has not completed\n"), 0o600); err != nil {
		return nil, fmt.Errorf("instance: mark the build in %s: %w", dataDir, err)
	}
	return func() error {
		if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("instance: the build completed, but its mark stays: %w", err)
		}
		return nil
	}, nil
}

// BuildIncomplete reports whether a build began in dataDir and did not
// complete.
func BuildIncomplete(dataDir string) bool {
	_, err := os.Stat(filepath.Join(dataDir, buildMarker))
	return err == nil
}

// incompleteError is the start error of a marked data directory.
type incompleteError struct{ *startError }

func (e incompleteError) Error() string {
	why := fmt.Sprintf(" (%v)", e.err)
	if e.reason != "" {
		why = "; the server's log says: " + e.reason
	}
	return fmt.Sprintf("%v: the server on %s does not start%s\n  fix: rebuild it with build --replace (and the same --data-dir)", ErrIncompleteBuild, e.dataDir, why)
}

func (e incompleteError) Is(target error) bool { return target == ErrIncompleteBuild }

// replaceCluster empties a data directory that holds a cluster of this
// version (build --replace); the lock is held and no server runs on it.
// Its passwords are kept.
func (p *Postgres) replaceCluster() error {
	has, err := inspectDataDir(p.dataDir, p.major)
	if err != nil || !has {
		return err
	}
	if err := emptyDir(p.dataDir); err != nil {
		return fmt.Errorf("instance: empty %s to replace its cluster: %w", p.dataDir, err)
	}
	return nil
}
