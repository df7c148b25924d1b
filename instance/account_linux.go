package instance

import (
	"fmt"
	"os/exec"
	"os/user"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

// account is the unprivileged user the server runs as when we are root.
type account struct {
	uid, gid int
}

var accountMu sync.Mutex

// ensureAccount returns SystemUser, creating it (and its group) if missing.
func ensureAccount() (*account, error) {
	accountMu.Lock()
	defer accountMu.Unlock()
	if a, err := lookupAccount(); err == nil {
		return a, nil
	}
	args := []string{"--system", "--no-create-home", "--home-dir", "/nonexistent", "--shell", "/usr/sbin/nologin"}
	if _, err := user.LookupGroup(SystemUser); err == nil {
		args = append(args, "--gid", SystemUser)
	} else {
		args = append(args, "--user-group")
	}
	args = append(args, SystemUser)
	var why string
	if path := findUseradd(); path == "" {
		why = "useradd not found"
	} else if out, err := exec.Command(path, args...).CombinedOutput(); err != nil {
		why = fmt.Sprintf("useradd: %v: %s", err, strings.TrimSpace(string(out)))
	}
	// Another process may have created it concurrently.
	if a, err := lookupAccount(); err == nil {
		return a, nil
	}
	return nil, fmt.Errorf("instance: PostgreSQL refuses to run as root, and the system user %q could not be created (%s); "+
		"run rightsize as a non-root user, or create the user: useradd --system --user-group --no-create-home --shell /usr/sbin/nologin %s",
		SystemUser, why, SystemUser)
}

func lookupAccount() (*account, error) {
	u, err := user.Lookup(SystemUser)
	if err != nil {
		return nil, err
	}
	uid, err := strconv.Atoi(u.Uid)
	if err != nil {
		return nil, err
	}
	gid, err := strconv.Atoi(u.Gid)
	if err != nil {
		return nil, err
	}
	if uid == 0 {
		return nil, fmt.Errorf("instance: user %s has uid 0", SystemUser)
	}
	return &account{uid: uid, gid: gid}, nil
}

func findUseradd() string {
	if p, err := exec.LookPath("useradd"); err == nil {
		return p
	}
	for _, p := range []string{"/usr/sbin/useradd", "/sbin/useradd"} {
		if _, err := exec.LookPath(p); err == nil {
			return p
		}
	}
	return ""
}

// dropPrivileges permanently switches the (helper) process to uid/gid. Real,
// effective and saved ids all change: postgres also refuses to run when the
// real and effective uid differ. Go applies these calls to every thread.
func dropPrivileges(uid, gid int) error {
	if err := syscall.Setgroups([]int{}); err != nil {
		return fmt.Errorf("setgroups: %w", err)
	}
	if err := syscall.Setresgid(gid, gid, gid); err != nil {
		return fmt.Errorf("setresgid: %w", err)
	}
	if err := syscall.Setresuid(uid, uid, uid); err != nil {
		return fmt.Errorf("setresuid: %w", err)
	}
	return nil
}
