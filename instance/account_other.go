//go:build !linux

package instance

import (
	"errors"
	"fmt"
)

// account is the unprivileged user the server runs as when we are root.
type account struct {
	uid, gid int
}

func ensureAccount() (*account, error) {
	return nil, fmt.Errorf("instance: PostgreSQL refuses to run as root, and switching to the %q user is only supported on Linux; run rightsize as a non-root user", SystemUser)
}

func dropPrivileges(uid, gid int) error {
	return errors.New("dropping privileges is only supported on Linux")
}
