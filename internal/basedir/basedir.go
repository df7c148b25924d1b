// Package basedir names the directory where rightsize keeps downloads,
// managed servers' runtime files, logs and password files.
package basedir

import (
	"fmt"
	"os"
	"path/filepath"
)

// Default is os.UserCacheDir()/rightsize, or /var/cache/rightsize when
// running as root (never under /root, which the unprivileged server user
// cannot reach).
func Default() string {
	if os.Geteuid() == 0 {
		return "/var/cache/rightsize"
	}
	if d, err := os.UserCacheDir(); err == nil && d != "" {
		return filepath.Join(d, "rightsize")
	}
	return filepath.Join(os.TempDir(), fmt.Sprintf("rightsize-%d", os.Getuid()))
}

// Secrets is the directory of the managed servers' password files.
func Secrets() string { return filepath.Join(Default(), "secrets") }
