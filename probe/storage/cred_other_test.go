//go:build !unix

package storage

import "os/exec"

// setCredential cannot switch users on this platform; the child runs as the
// caller.
func setCredential(cmd *exec.Cmd, uid, gid uint32) {}
