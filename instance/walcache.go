package instance

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/jackc/pgx/v5"
)

// LiftIO lifts the server group's I/O limits (cgroup.Confinement.LiftIO)
// for work that is not measured, such as restoring the built database.
// On cgroup v2 what it returns settles that work (settle) before it puts
// the limits back.
func (p *ConfinedPostgres) LiftIO() (restore func() error, err error) {
	put, err := p.Confinement.LiftIO()
	if err != nil || p.Confinement.Report().Version != 2 {
		return put, err
	}
	return func() error { return errors.Join(p.settle(), put()) }, nil
}

// settleTimeout bounds settle's checkpoint.
const settleTimeout = 10 * time.Minute

// settle writes what the unmeasured work left dirty to disk (a CHECKPOINT
// as the administrator) and drops the WAL's cached pages
// (dropWALCache). On cgroup v2 a write limit throttles the writeback of
// every page the server's group dirtied: a restore (CREATE DATABASE, which
// writes each page of the database through shared buffers and leaves
// them to the checkpointer and the kernel) would otherwise be written
// back under the limit during the step measured next, and each commit's
// flush queued behind it. On v1 buffered writeback escapes the limits,
// and nothing is settled: the steps start as they always did. The
// checkpoint makes each page's first change in the step log its whole
// image; the WAL curve (capacity.WALCurve) sees that in the base as in
// the limited steps.
func (p *ConfinedPostgres) settle() error {
	ctx, cancel := context.WithTimeout(context.Background(), settleTimeout)
	defer cancel()
	conn, err := pgx.Connect(ctx, p.AdminDSN("postgres"))
	if err != nil {
		return fmt.Errorf("instance: connect to checkpoint before the limits return: %w", err)
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(ctx, "CHECKPOINT"); err != nil {
		return fmt.Errorf("instance: checkpoint before the limits return: %w", err)
	}
	return p.dropWALCache()
}

// dropWALCache drops the WAL segment files' clean pages from the page
// cache. On cgroup v2 a dirty page's writeback is charged to the group
// the page was first cached by, and a file's writeback follows the group
// most of its pages belong to: a recycled segment still cached from an
// earlier server (whose group is gone, its pages handed to the parent)
// escapes the server's write limit, one written from cold is throttled,
// so how much a write bandwidth limit held back varied from step to step
// (the same limit measured 16 and 2,674 NOPM). Dropped, every segment's
// pages are cached again by the server that writes them, in its own
// group. The WAL is flushed at every commit (clean by then) and read
// only by recovery and replication, so nothing the steps measure reads
// it again.
func (p *Postgres) dropWALCache() error {
	dir := filepath.Join(p.dataDir, "pg_wal")
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("instance: list the WAL's segments: %w", err)
	}
	for _, e := range entries {
		if !e.Type().IsRegular() {
			continue
		}
		if err := dropFileCache(filepath.Join(dir, e.Name())); err != nil {
			return fmt.Errorf("instance: %w", err)
		}
	}
	return nil
}
