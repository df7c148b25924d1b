package engine

import "errors"

// Warmed is what a prewarm loaded into the server's cache (run --prewarm):
// the blocks read into it and their size. Blocks beyond the cache's size
// evict earlier ones, so Bytes can exceed what stays.
type Warmed struct {
	Relations int   // tables and indexes loaded
	Blocks    int64 // in the engine's block size
	Bytes     int64
}

// ErrCannotPrewarm marks a target that cannot load its cache ahead of a
// run: an engine without a way to, or a server that lacks the extension
// or the privilege it needs. The user must fix it or drop --prewarm (the
// CLI exits with code 2).
var ErrCannotPrewarm = errors.New("cannot load the cache ahead of the run")
