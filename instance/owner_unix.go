//go:build unix

package instance

import "github.com/rightsize/rightsize/internal/flock"

// tryLock takes the data directory's start lock without waiting.
func tryLock(dataDir string) (unlock func(), err error) { return flock.TryLock(dataDir) }
