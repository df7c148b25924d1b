package engine

// Tuning is how a managed server of an engine follows its caps (package
// caps reads it): how --memory divides between the engine's cache and
// everything else its processes use, and the settings that size its
// cache and its parallelism. The zero value tunes nothing.
type Tuning struct {
	// Engine names the engine in messages ("postgres", "mysql").
	Engine string
	// Reserve is the least memory the server's processes need besides
	// the cache.
	Reserve int64
	// RestShare is N when 1/N of --memory (at least Reserve) is left
	// besides the cache.
	RestShare int64
	// Cache are the settings that give the engine a cache of n bytes
	// (nil: no cache setting known, --memory cannot apply).
	Cache func(n int64) map[string]string
	// Parallelism are the settings of a server with cores whole cores
	// (nil: none).
	Parallelism func(cores int) map[string]string
}
