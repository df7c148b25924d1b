package mariadb

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/user"
	"strconv"

	"github.com/rightsize/rightsize/cgroup"
	"github.com/rightsize/rightsize/instance"
)

// Confined is a managed MariaDB under cgroup limits: mariadbd is added to
// the group right after it is started (before it allocates its buffer
// pool), and the group is removed when it stops. Limits and OOMKills come
// from its Confinement.
type Confined struct {
	*Server
	*cgroup.Confinement
}

// StartConfined starts a server like Start, inside a new group
// (cgroup.Confine) with limits l placed and enforced as o says.
func StartConfined(ctx context.Context, cfg Config, l cgroup.Limits, o cgroup.Options) (*Confined, error) {
	instance.Reclaim(cmp.Or[io.Writer](cfg.Notices, os.Stderr)) // before Confine, which removes stale groups silently
	c, err := cgroup.Confine("mariadb", l, o)
	if err != nil {
		return nil, err
	}
	cfg.OnStart = c.Add
	s, err := Start(ctx, cfg)
	if err != nil {
		return nil, errors.Join(err, c.Close())
	}
	return &Confined{Server: s, Confinement: c}, nil
}

// Stop stops the server and removes its group.
func (s *Confined) Stop() error { return errors.Join(s.Server.Stop(), s.Confinement.Close()) }

// PrepareLogDir creates dir for the redo log (innodb_log_group_home_dir)
// and, as root, gives it to the mysql user the server runs as when it can.
func PrepareLogDir(dir string) error {
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return fmt.Errorf("mariadb: create the log directory: %w", err)
	}
	if os.Geteuid() != 0 {
		return nil
	}
	u, err := user.Lookup("mysql")
	if err != nil {
		return nil // the server runs as root
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	return chownTree(dir, uid, gid)
}
