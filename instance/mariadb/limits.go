package mariadb

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/user"
	"strconv"

	"github.com/rightsize/rightsize/cgroup"
)

// Confined is a managed MariaDB under cgroup limits: mariadbd is added to
// the group right after it is started (before it allocates its buffer
// pool), and the group is removed when it stops.
type Confined struct {
	*Server
	confinement *cgroup.Confinement
}

// StartConfined starts a server like Start, inside a new group
// (cgroup.Confine) with limits l.
func StartConfined(ctx context.Context, cfg Config, l cgroup.Limits) (*Confined, error) {
	c, err := cgroup.Confine("mariadb", l)
	if err != nil {
		return nil, err
	}
	cfg.OnStart = c.Add
	s, err := Start(ctx, cfg)
	if err != nil {
		return nil, errors.Join(err, c.Close())
	}
	return &Confined{Server: s, confinement: c}, nil
}

// Stop stops the server and removes its group.
func (s *Confined) Stop() error {
	err := s.Server.Stop()
	if cerr := s.confinement.Close(); cerr != nil && err == nil {
		err = cerr
	}
	return err
}

// Limits says what the server runs under, read back from its group.
func (s *Confined) Limits() cgroup.Report { return s.confinement.Report() }

// OOMKills is how many of the server's processes the OOM killer killed.
func (s *Confined) OOMKills() int64 { return s.confinement.OOMKills() }

// Confinement is the server's group.
func (s *Confined) Confinement() *cgroup.Confinement { return s.confinement }

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
