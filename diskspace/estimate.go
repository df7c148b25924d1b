package diskspace

import (
	"fmt"
	"strings"
)

// What a TPC-C database takes in PostgreSQL 15, measured on this project's
// machine (2026-11-28) with
//
//	rightsize build --warehouses 1 (and 4) --pg-bin /usr/lib/postgresql/15/bin --data-dir DIR
//
// whose summary reports pg_table_size + pg_indexes_size of the TPC-C
// tables: 112.2 MiB for 1 warehouse, 410.8 MiB for 4, hence 99.5 MiB a
// warehouse and 12.7 MiB that do not grow with them (the item table). du
// of a cluster fresh from initdb: 39 MiB, 17 of them pg_wal. The peak of du
// pg_wal during the builds (sampled every 0.3 s): 113 MiB for 1 and for 4
// warehouses with max_wal_size=64MB; 113 MiB for 1 warehouse with the
// embedded target's max_wal_size of 4GB, where the WAL of a load grows
// with the data until max_wal_size. The peak of du of the whole data
// directory passed tables + WAL + server files by 8 MiB for 1 warehouse and
// 22 MiB for 4 (5.4 %): the sorts of the index builds spill to
// base/pgsql_tmp.
//
// On a busy host the checkpoints lag the load and pg_wal passes
// max_wal_size: 2 warehouses built on a 480 MB loop file system beside
// four busy loops and a writer fsyncing 64 MB files (2026-11-29, du
// sampled every 0.1 s) peaked at 113-177 MiB of pg_wal, at the end of the
// load, and a build in CI ran out of room there. pgBoundedWAL is that
// peak with a segment to spare.
const (
	pgWarehouseBytes = 99.5 * MiB
	pgFixedBytes     = 12.7 * MiB
	// pgServerBytes are a new cluster's own files besides its WAL.
	pgServerBytes = 23 * MiB
	// pgSortShare is the index builds' sort files, a share of the tables.
	pgSortShare = 0.06
	// pgBoundedWAL is the most WAL a load keeps at BoundedMaxWAL.
	pgBoundedWAL = 192 * MiB
	// pgMaxWAL is the embedded target's max_wal_size (4GB) plus the
	// segments a checkpoint in progress keeps.
	pgMaxWAL = 4*1024*MiB + 512*MiB
)

// BoundedMaxWAL is the max_wal_size a load runs with when its WAL would
// not otherwise fit: checkpoints every 64 MB of WAL keep pg_wal below
// pgBoundedWAL.
const BoundedMaxWAL = "64MB"

// Need is what a build takes on the file system of the data directory.
type Need struct {
	Warehouses int
	Tables     int64 // tables and indexes
	WAL        int64 // the WAL the load writes at its peak
	Sorts      int64 // the index builds' sort files
	Server     int64 // the server's own files
}

// Total is everything the build takes.
func (n Need) Total() int64 { return n.Tables + n.WAL + n.Sorts + n.Server }

// PostgresTables is what the tables and indexes of a PostgreSQL TPC-C
// database of warehouses take.
func PostgresTables(warehouses int) int64 {
	return int64(pgFixedBytes + float64(warehouses)*pgWarehouseBytes)
}

// PostgresBuild is what building warehouses into a new PostgreSQL cluster
// takes; bounded says the load's WAL is held near BoundedMaxWAL, else it
// grows with the data up to the embedded target's max_wal_size.
func PostgresBuild(warehouses int, bounded bool) Need {
	n := Need{Warehouses: warehouses, Tables: PostgresTables(warehouses), Server: pgServerBytes, WAL: pgBoundedWAL}
	n.Sorts = int64(float64(n.Tables) * pgSortShare)
	if !bounded {
		n.WAL = min(max(n.Tables+16*MiB, pgBoundedWAL), pgMaxWAL)
	}
	return n
}

// PostgresFits is how many warehouses fit in free bytes with a bounded WAL.
func PostgresFits(free int64) int {
	left := free - pgServerBytes - pgBoundedWAL - int64(float64(PostgresTables(0))*(1+pgSortShare))
	if left <= 0 {
		return 0
	}
	return int(float64(left) / (pgWarehouseBytes * (1 + pgSortShare)))
}

// PostgresCopy is what a copy of a database of dbBytes takes (the
// template sweeps and fit restore from): its files, and the WAL
// CREATE DATABASE writes for it (PostgreSQL 15's WAL_LOG strategy logs
// every block: CREATE DATABASE ... TEMPLATE of a 4-warehouse database of
// 418 MiB wrote 405 MiB of WAL, pg_current_wal_lsn before and after in a
// single-user postgres 15), which checkpoints bound at the embedded
// target's max_wal_size.
func PostgresCopy(dbBytes int64) int64 { return dbBytes + min(dbBytes, pgMaxWAL) }

// ShortError is a file system too small for what is asked.
type ShortError struct {
	What  string // "4 warehouses need", "the copy sweeps restore from needs"
	Need  int64
	Parts []string // "410 MiB of tables and indexes", ...
	Room  Room
	Fix   string // "" or what to do
}

func (e *ShortError) Error() string {
	s := fmt.Sprintf("%s about %s here", e.What, MiBs(e.Need))
	if len(e.Parts) > 0 {
		s += ": " + strings.Join(e.Parts, ", ")
	}
	s += fmt.Sprintf("; %s has %s free", e.Room.Mount, MiBs(e.Room.Free))
	if e.Fix != "" {
		s += "\n  fix: " + e.Fix
	}
	return s
}

// Short is the error of a build that needs n where room is: nil when it
// fits in room.Free plus reclaim (what the build frees first).
func (n Need) Short(room Room, reclaim int64) error {
	if n.Total() <= room.Free+reclaim {
		return nil
	}
	what := fmt.Sprintf("%d warehouses need", n.Warehouses)
	if n.Warehouses == 1 {
		what = "1 warehouse needs"
	}
	fix := "choose a --data-dir on a file system with more room"
	if fits := PostgresFits(room.Free + reclaim); fits > 0 {
		fix += fmt.Sprintf(", or build at most %d warehouses there", fits)
	}
	return &ShortError{What: what, Need: n.Total(), Room: room, Fix: fix, Parts: []string{
		MiBs(n.Tables) + " of tables and indexes", MiBs(n.WAL) + " of WAL", MiBs(n.Sorts) + " of index build sorts",
		MiBs(n.Server) + " of the server's own files"}}
}

// PostgresDatabases is what the databases rightsize made take of a
// cluster whose base directory takes baseBytes (initdb's own databases
// are most of the server's own files).
func PostgresDatabases(baseBytes int64) int64 { return max(baseBytes-pgServerBytes, 0) }
