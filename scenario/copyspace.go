package scenario

import (
	"context"

	"github.com/rightsize/rightsize/diskspace"
	"github.com/rightsize/rightsize/registry"
)

// snapshotter is a Restorer that can say whether its copy exists already
// (the PostgreSQL engine's template database).
type snapshotter interface {
	HasSnapshot(ctx context.Context) (bool, error)
}

// checkCopySpace refuses, before it is made, the copy of the built
// database that sweeps and fit restore from between points when the
// embedded server's file system cannot hold it (diskspace.PostgresCopy:
// its files and the WAL CREATE DATABASE writes for them). A copy that
// exists is replaced, and so counts as free.
func checkCopySpace(ctx context.Context, t *registry.Target) error {
	if t.Server == nil || t.Registered.Name != "postgres" {
		return nil
	}
	room, err := diskspace.Of(t.Server.DataDir())
	if err != nil {
		return nil // nothing known: the copy says why if it fails
	}
	db := databaseBytes(ctx, t)
	need := diskspace.PostgresCopy(db)
	var reclaim int64
	if s, ok := t.DB.(snapshotter); ok {
		if has, err := s.HasSnapshot(ctx); err == nil && has {
			reclaim = db
		}
	}
	if need <= room.Free+reclaim {
		return nil
	}
	return &diskspace.ShortError{What: "the copy of the database that sweeps and fit restore from needs", Need: need, Room: room,
		Parts: []string{diskspace.MiBs(db) + " of tables and indexes", diskspace.MiBs(need-db) + " of WAL"},
		Fix:   "free space there, or build into a --data-dir on a file system with more room"}
}

// checkCopySpaceUnlessResumed is checkCopySpace for a sweep or fit that
// makes its copy: one resumed (resume names it) has it already.
func checkCopySpaceUnlessResumed(ctx context.Context, t *registry.Target, resume string) error {
	if resume != "" {
		return nil
	}
	return checkCopySpace(ctx, t)
}
