package store

import (
	"fmt"
	"strconv"
)

// EnvPrewarmBlocks and EnvPrewarmBytes are the Run.Env keys of what run
// --prewarm loaded into the server's cache after it started and before the
// first ramp-up (absent: the cache started as the server left it).
const (
	EnvPrewarmBlocks = "prewarm.blocks"
	EnvPrewarmBytes  = "prewarm.bytes"
)

// Prewarmed is "cache prewarmed: 215 MiB (27520 blocks)" for a run whose
// server's cache was loaded before it (--prewarm), "" otherwise: the run
// summary, results show and run --json say it.
func (r Run) Prewarmed() string {
	b, err := strconv.ParseInt(r.Env[EnvPrewarmBytes], 10, 64)
	if err != nil {
		return ""
	}
	s := fmt.Sprintf("cache prewarmed: %.0f MiB", float64(b)/(1<<20))
	if n := r.Env[EnvPrewarmBlocks]; n != "" {
		s += " (" + n + " blocks)"
	}
	return s
}
