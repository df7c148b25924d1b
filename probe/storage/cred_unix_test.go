//go:build unix

package storage

import (
	"os/exec"
	"syscall"
)

// setCredential makes cmd run as uid:gid.
func setCredential(cmd *exec.Cmd, uid, gid uint32) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uid, Gid: gid}}
}
