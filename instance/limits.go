package instance

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/rightsize/rightsize/cgroup"
)

// Join is how the start helper puts itself — and so pg_ctl, the
// postmaster and every backend it forks — under a confinement before it
// starts anything: it writes its pid to the group's cgroup.procs files
// (as root, before dropping to the server user) and, when no cpuset
// applies, pins itself to the cores instead.
type Join struct {
	ProcsFiles []string
	PinCPUs    []int
}

func (j Join) apply() error {
	if err := cgroup.Join(j.ProcsFiles, os.Getpid()); err != nil {
		return err
	}
	if len(j.PinCPUs) > 0 {
		return cgroup.Pin(os.Getpid(), j.PinCPUs)
	}
	return nil
}

// ConfinedPostgres is a managed PostgreSQL under cgroup limits: the group
// is created before the server starts and removed when it stops. Limits
// and OOMKills come from its Confinement.
type ConfinedPostgres struct {
	*Postgres
	*cgroup.Confinement
}

// StartPostgresConfined starts a server like StartPostgres, inside a new
// group (cgroup.Confine) with limits l placed and enforced as o says; the
// group is removed if the start fails.
func StartPostgresConfined(ctx context.Context, cfg PostgresConfig, l cgroup.Limits, o cgroup.Options) (*ConfinedPostgres, error) {
	Reclaim(cmp.Or[io.Writer](cfg.Notices, os.Stderr)) // before Confine, which removes stale groups silently
	c, err := cgroup.Confine("postgres", l, o)
	if err != nil {
		return nil, err
	}
	cfg.Join = Join{ProcsFiles: c.ProcsFiles(), PinCPUs: c.PinCPUs()}
	if c.Report().Version == 2 {
		cfg.Settings = withFreshWALSegments(cfg.Settings)
	}
	p, err := StartPostgres(ctx, cfg)
	if err != nil {
		if kills := c.OOMKills(); kills > 0 {
			err = fmt.Errorf("%w (the kernel's OOM killer killed %d process(es) of the server's memory limit)", err, kills)
		}
		return nil, errors.Join(err, c.Close())
	}
	return &ConfinedPostgres{Postgres: p, Confinement: c}, nil
}

// withFreshWALSegments is settings with WAL segments created anew rather
// than recycled (wal_recycle=off) and not zero-filled first
// (wal_init_zero=off), unless settings name either. On cgroup v2 a
// file's writeback is charged to the group its inode's writeback was
// attached to: a recycled segment written by an earlier step's server
// (whose group is gone, its inodes handed to the parent) escapes the
// limit of the server writing it now, so a 50K write limit let bursts of
// 1-2 MB a second through whenever the log moved into such a segment. A
// segment created by the server is its own group's from its first
// page; zero-filling it first would write 16 MB more under the limit,
// which a recycled segment never does.
func withFreshWALSegments(settings map[string]string) map[string]string {
	out := map[string]string{"wal_recycle": "off", "wal_init_zero": "off"}
	for k, v := range settings {
		delete(out, strings.ToLower(k))
		out[k] = v
	}
	return out
}

// Stop stops the server and removes its group. The group's I/O limits are
// lifted first: the shutdown checkpoint is not measured, and at a 1 MB/s
// write limit it would take a minute per 60 MB of dirty buffers.
func (p *ConfinedPostgres) Stop() error {
	_, _ = p.Confinement.LiftIO() // best effort: a limit left only slows the stop
	return errors.Join(p.Postgres.Stop(), p.Confinement.Close())
}

// prepareWALDir checks the WAL directory: for a new cluster it must be
// missing or empty (it is created and given to the server user); an
// existing cluster must already keep its WAL there (pg_wal a link to it).
func (p *Postgres) prepareWALDir() error {
	if p.walDir == "" {
		return nil
	}
	wal, err := filepath.Abs(p.walDir)
	if err != nil {
		return fmt.Errorf("instance: WAL dir: %w", err)
	}
	p.walDir = wal
	if _, err := os.Stat(filepath.Join(p.dataDir, "PG_VERSION")); err == nil {
		link, _ := os.Readlink(filepath.Join(p.dataDir, "pg_wal"))
		if link != wal {
			return fmt.Errorf("instance: the cluster in %s keeps its WAL in %s, not %s; a WAL directory is chosen when the cluster is created (use a new --data-dir)",
				p.dataDir, orDefault(link, "pg_wal inside the data directory"), wal)
		}
		return nil
	}
	if err := os.MkdirAll(wal, 0o700); err != nil {
		return fmt.Errorf("instance: create WAL dir: %w", err)
	}
	if entries, err := os.ReadDir(wal); err != nil || len(entries) > 0 {
		return fmt.Errorf("instance: WAL dir %s must be empty for a new cluster (%d entries, %v)", wal, len(entries), err)
	}
	return p.chown(wal)
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
