package main

import (
	"cmp"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/rightsize/rightsize/diskspace"
	"github.com/rightsize/rightsize/instance"
	"github.com/rightsize/rightsize/registry"
)

// embedded reports whether the flags name the embedded PostgreSQL, whose
// data directory rightsize owns (space checks, build marks, --replace).
func (f *targetFlags) embedded() bool {
	e, managed, err := registry.EngineOf(f.spec)
	return err == nil && managed && e.Name == "postgres"
}

// embeddedDataDir is the embedded target's data directory: --data-dir,
// else the default one of --pg-version (instance.PostgresConfig.DataDir);
// with --pg-bin, whose version is known only once started, their parent
// (its file system is theirs).
func (f *targetFlags) embeddedDataDir() string {
	switch {
	case f.dataDir != "":
		return f.dataDir
	case f.pgBin == "":
		return filepath.Join(instance.DefaultBaseDir(), "data", "pg"+cmp.Or(f.pgVersion, instance.DefaultVersion)+"-default")
	}
	return filepath.Join(instance.DefaultBaseDir(), "data")
}

// checkBuildSpace refuses (exit 2, with the numbers) a build of the
// embedded target whose tables, WAL and server files the data directory's
// file system cannot hold. When the load's WAL would not fit as it grows
// toward max_wal_size, the load runs with max_wal_size bounded
// (diskspace.BoundedMaxWAL) unless --set gives one; when the copy sweeps
// and fit make would not fit afterwards, a note says so.
func (f *targetFlags) checkBuildSpace(errOut io.Writer, warehouses int, replace bool) error {
	if !f.embedded() {
		return nil
	}
	dir := f.embeddedDataDir()
	room, err := diskspace.Of(dir)
	if err != nil {
		return nil // nothing known: the build says why when it fails
	}
	var reclaim int64
	switch {
	case !hasCluster(dir):
	case replace: // removed first
		reclaim = diskspace.Used(dir)
	default: // its tables dropped and loaded again (a copy sweeps made stays: about)
		reclaim = diskspace.PostgresDatabases(diskspace.Used(filepath.Join(dir, "base")))
	}
	need := diskspace.PostgresBuild(warehouses, false)
	bound := need.Total() > room.Free+reclaim && !f.hasSetting("max_wal_size")
	if bound {
		need = diskspace.PostgresBuild(warehouses, true)
	}
	if err := need.Short(room, reclaim); err != nil {
		return badInput(err)
	}
	if bound {
		f.boundBuildWAL(errOut, room)
	}
	if cp := diskspace.PostgresCopy(need.Tables); need.Total()+cp > room.Free+reclaim {
		fmt.Fprintf(errOut, "note: sweeps and fit copy the database first (about %s more): %s will not hold that copy\n",
			diskspace.MiBs(cp), room)
	}
	return nil
}

// boundBuildWAL sets what holds a build's WAL near diskspace.BoundedMaxWAL
// on room, unless --set names it, and says so.
func (f *targetFlags) boundBuildWAL(errOut io.Writer, room diskspace.Room) {
	f.settings = append(f.settings, "max_wal_size="+diskspace.BoundedMaxWAL)
	if !f.hasSetting("checkpoint_completion_target") {
		// a checkpoint paced over the next 64 MB of WAL lagged on a
		// loaded host while the index builds wrote WAL fast, and pg_wal
		// filled a 480 MB disk (TestBuildBoundsItsWAL): flat out, it
		// frees the old segments as soon as it can
		f.settings = append(f.settings, "checkpoint_completion_target=0")
	}
	fmt.Fprintf(errOut, "note: the load runs with max_wal_size=%s (a checkpoint every %s of WAL, unpaced) to fit %s\n",
		diskspace.BoundedMaxWAL, diskspace.BoundedMaxWAL, room)
}

// hasSetting reports whether --set names the server setting.
func (f *targetFlags) hasSetting(name string) bool {
	opt, err := f.options(false, 1)
	if err != nil {
		return false
	}
	_, ok := opt.Settings[name]
	return ok
}

// hasCluster reports whether dir holds a PostgreSQL cluster.
func hasCluster(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, "PG_VERSION"))
	return err == nil
}

// markBuild marks the embedded target's data directory while the build
// loads it (instance.MarkBuild): a later start that fails there says the
// build did not complete. done is a no-op for other targets.
func markBuild(t *registry.Target) (done func() error, err error) {
	if t.Server == nil || t.Registered.Name != "postgres" {
		return func() error { return nil }, nil
	}
	return instance.MarkBuild(t.Server.DataDir())
}
