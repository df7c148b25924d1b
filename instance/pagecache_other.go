//go:build !linux

package instance

// dropFileCache does nothing where there is no cgroup writeback to charge.
func dropFileCache(string) error { return nil }
