//go:build linux

// Package testuser gives tests a local user that is neither root nor the
// servers' user: the hostile neighbour of the security tests, and the
// unprivileged user rightsize itself runs as in the tests of its
// without-root fallbacks.
package testuser

import (
	"os"
	"os/exec"
	"os/user"
	"strconv"
	"syscall"
	"testing"
)

// Name is the user's name.
const Name = "rightsize-neighbour"

// Neighbour returns the credential of Name, creating the user when
// missing (a system user without a home or login shell). It skips the
// test without root, or when the user cannot be had.
func Neighbour(t testing.TB) *syscall.Credential {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root: creates a second local user and acts as it")
	}
	if _, err := user.Lookup(Name); err != nil {
		if out, err := exec.Command("useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", Name).CombinedOutput(); err != nil {
			t.Skipf("no second local user: useradd %s: %v: %s", Name, err, out)
		}
	}
	u, err := user.Lookup(Name)
	if err != nil {
		t.Skipf("no second local user: %v", err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
}
