package capacity

// walPageBytes is the WAL page a flush writes whole (PostgreSQL's
// XLOG_BLCKSZ).
const walPageBytes = 8192

// limitedWriteBytes are the bytes per transaction that reach a write
// bandwidth limit the base did not have, when a flush groups commits
// commits and each transaction logs wal bytes (the base's
// Demands.WALBytes, or more where the limited step completes fewer
// transactions after the checkpoint it starts from: WALCurve.perTxn).
// The server's own write counters (Demands.IOSource) count what a limit
// throttles: on cgroup v1 the direct and fsync-driven writes only
// (buffered writeback escapes to the root group), on v2 everything the
// group dirtied. Of those, the log's bytes are written once whatever the
// limit; each flush also writes the WAL page it ends in whole, so a flush
// that groups k commits writes that page once for the k; the rest (data
// pages a checkpoint fsyncs, v2's writeback) does not group. The base's
// flushes per transaction are its measured log syncs (Demands.WALSyncs: a
// log-bound base already grouped its commits, and a limit groups them no
// further until its queue outgrows that), else estimated as a page per
// write the base made, a flush per commit at most (the base's flushes
// were fast). Without the log's bytes, or with a base that had a write
// bandwidth limit, the measured bytes (with the log's change).
func limitedWriteBytes(d Demands, commits, wal float64) float64 {
	w := d.WriteBytes
	switch {
	case d.WALBytes <= 0:
		return w
	case w <= d.WALBytes: // the log escaped the counters in part: as much more
		return w * wal / d.WALBytes
	}
	if d.WriteIOs.Mean <= 0 || d.Config.WriteBps > 0 || commits <= 1 {
		return w + wal - d.WALBytes
	}
	flushes := min(1, d.WriteIOs.Mean) // flushes per transaction at the base
	if d.WALSyncs > 0 {
		flushes = min(1, d.WALSyncs)
	}
	pages := min(w-d.WALBytes, walPageBytes*flushes)
	rest := min(w-d.WALBytes-pages, restShare*d.WALBytes)
	return wal + rest + pages*min(1, 1/(commits*flushes))
}

// restShare caps the data-page bytes per transaction (beyond the log and
// its flushes' pages) that a limited step writes, as a share of its log
// bytes. A limit slows the dirtying of pages with the log, and the steps
// measured under limits wrote 0.2-0.33 of their log bytes as data pages
// (cgroup v1, bench/PREDICT.md), while an unlimited base's window may hold
// a checkpoint's or the writeback's burst: up to 1.2 times its log bytes.
const restShare = 1.0 / 3
