//go:build race

package mysql_test

// raceEnabled: the race detector multiplies this process's CPU time, so
// TestLoadMethods does not judge it.
const raceEnabled = true
