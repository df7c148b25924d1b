package cgroup

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	sd "github.com/coreos/go-systemd/v22/dbus"
	"github.com/godbus/dbus/v5"
)

// scoper moves this process into a delegated systemd scope and returns
// the scope's group directory (placement's step 5).
type scoper func() (string, error)

// scopeUnit is the transient scope rightsize asks systemd for.
func scopeUnit(pid int) string { return fmt.Sprintf("rightsize-%d.scope", pid) }

// systemdScoper is the scoper of this machine: nil unless systemd is PID
// 1 (sd_booted's test).
func systemdScoper() scoper {
	if !exists("/run/systemd/system") {
		return nil
	}
	return func() (string, error) {
		ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
		defer cancel()
		return intoScope(ctx, os.Geteuid() == 0)
	}
}

// intoScope asks systemd's manager (the system's as root, else the
// user's) for rightsize-<pid>.scope with Delegate=yes holding this
// process, as `systemd-run --scope -p Delegate=yes` does for the command
// it runs, and returns the group the process is in afterwards.
func intoScope(ctx context.Context, root bool) (string, error) {
	manager := "the user's systemd manager"
	if root {
		manager = "systemd"
	}
	conn, err := connectManager(ctx, root)
	if err != nil {
		return "", fmt.Errorf("systemd scope: connect to %s: %w", manager, err)
	}
	defer conn.Close()
	pid := os.Getpid()
	props := []sd.Property{
		sd.PropDescription("rightsize: groups for capped servers"),
		sd.PropPids(uint32(pid)),
		{Name: "Delegate", Value: dbus.MakeVariant(true)},
		{Name: "CollectMode", Value: dbus.MakeVariant("inactive-or-failed")},
	}
	done := make(chan string, 1)
	if _, err := conn.StartTransientUnitContext(ctx, scopeUnit(pid), "fail", props, done); err != nil {
		return "", fmt.Errorf("systemd scope: %s refused %s: %w", manager, scopeUnit(pid), err)
	}
	select {
	case r := <-done:
		if r != "done" {
			return "", fmt.Errorf("systemd scope: %s's job for %s ended %q", manager, scopeUnit(pid), r)
		}
	case <-ctx.Done():
		return "", fmt.Errorf("systemd scope: %s did not start %s: %w", manager, scopeUnit(pid), ctx.Err())
	}
	l, err := readLayout()
	if err != nil || l.v2 == nil {
		return "", fmt.Errorf("systemd scope: read the group rightsize is in: %v", err)
	}
	if filepath.Base(l.v2.own) != scopeUnit(pid) {
		return "", fmt.Errorf("systemd scope: %s started but rightsize is in %s", scopeUnit(pid), l.v2.own)
	}
	return l.v2.own, nil
}

// connectManager connects to systemd's private socket (root: PID 1's,
// else the user manager's under $XDG_RUNTIME_DIR), falling back to the
// system or session bus, as systemctl does.
func connectManager(ctx context.Context, root bool) (*sd.Conn, error) {
	if root {
		if c, err := sd.NewSystemdConnectionContext(ctx); err == nil {
			return c, nil
		}
		return sd.NewSystemConnectionContext(ctx)
	}
	dir := os.Getenv("XDG_RUNTIME_DIR")
	if dir == "" {
		dir = "/run/user/" + strconv.Itoa(os.Getuid())
	}
	private := filepath.Join(dir, "systemd", "private")
	c, err := sd.NewConnection(func() (*dbus.Conn, error) { return dialPrivate(ctx, private) })
	if err == nil {
		return c, nil
	}
	if os.Getenv("DBUS_SESSION_BUS_ADDRESS") == "" {
		return nil, fmt.Errorf("%s: %w (and no session bus: DBUS_SESSION_BUS_ADDRESS is unset)", private, err)
	}
	return sd.NewUserConnectionContext(ctx)
}

// dialPrivate opens a manager's private socket: a peer connection,
// authenticated by uid, with no bus Hello.
func dialPrivate(ctx context.Context, path string) (*dbus.Conn, error) {
	c, err := dbus.Dial("unix:path="+path, dbus.WithContext(ctx))
	if err != nil {
		return nil, err
	}
	if err := c.Auth([]dbus.Auth{dbus.AuthExternal(strconv.Itoa(os.Getuid()))}); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}
