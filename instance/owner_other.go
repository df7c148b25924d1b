//go:build !unix

package instance

// tryLock fails: there are no managed servers on this platform.
func tryLock(string) (func(), error) { return nil, errUnsupported }
