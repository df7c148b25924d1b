package capacity

// walPageBytes is the WAL page a flush writes whole (PostgreSQL's
// XLOG_BLCKSZ).
const walPageBytes = 8192

// limitedWriteBytes are the bytes per transaction that reach a write
// bandwidth limit the base did not have. The server's own write counters
// (Demands.IOSource) count what a limit throttles: on cgroup v1 the direct
// and fsync-driven writes only (buffered writeback escapes to the root
// group), on v2 everything the group dirtied. Of those, the log's bytes
// (Demands.WALBytes) are written once whatever the limit; each flush also
// rewrites the WAL page it ends in part (at most a page per write the base
// made), and those flushes group under a limit: a commit waiting on a slow
// flush joins the next one, so with U users at most one flush in U
// commits rewrites a page. The rest (data pages a checkpoint fsyncs, v2's
// writeback) does not group. Without the log's bytes, or a base that had
// a write bandwidth limit, the measured bytes.
func limitedWriteBytes(d Demands) float64 {
	w := d.WriteBytes
	if d.WALBytes <= 0 || w <= d.WALBytes || d.Users < 2 || d.WriteIOs.Mean <= 0 || d.Config.WriteBps > 0 {
		return w
	}
	flushes := min(1, d.WriteIOs.Mean) // flushes per transaction at the base
	pages := min(w-d.WALBytes, walPageBytes*flushes)
	rest := w - d.WALBytes - pages
	grouped := min(1, 1/(float64(d.Users)*flushes))
	return d.WALBytes + rest + pages*grouped
}
