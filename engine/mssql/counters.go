package mssql

import (
	"context"
	"fmt"

	"github.com/rightsize/rightsize/engine"
)

// sqlPerfCounters reads cumulative counters from
// sys.dm_os_performance_counters (needs VIEW SERVER STATE). The "/sec"
// counters of type 272696576 are cumulative totals; rates are the
// difference of two snapshots, as HammerDB computes TPM from the delta of
// 'Batch Requests/sec'. object_name is padded nchar, hence RTRIM before LIKE;
// '%:' also matches named instances (MSSQL$NAME:...).
const sqlPerfCounters = `SELECT RTRIM(object_name), RTRIM(counter_name), CAST(cntr_value AS bigint)
FROM sys.dm_os_performance_counters
WHERE (RTRIM(object_name) LIKE N'%:SQL Statistics' AND counter_name = N'Batch Requests/sec')
   OR (RTRIM(object_name) LIKE N'%:Databases' AND instance_name = DB_NAME()
       AND counter_name IN (N'Transactions/sec', N'Write Transactions/sec', N'Log Bytes Flushed/sec', N'Log Flushes/sec'))
   OR (RTRIM(object_name) LIKE N'%:Buffer Manager'
       AND counter_name IN (N'Page lookups/sec', N'Page reads/sec', N'Page writes/sec', N'Checkpoint pages/sec'))
   OR (RTRIM(object_name) LIKE N'%:Locks' AND instance_name = N'_Total'
       AND counter_name IN (N'Number of Deadlocks/sec', N'Lock Waits/sec'))`

// perfCounterKeys maps counter names to Extra keys.
var perfCounterKeys = map[string]string{
	"Batch Requests/sec":      "batch_requests",
	"Transactions/sec":        "transactions",
	"Write Transactions/sec":  "write_transactions",
	"Log Bytes Flushed/sec":   "log_bytes_flushed",
	"Log Flushes/sec":         "log_flushes",
	"Page lookups/sec":        "page_lookups",
	"Page reads/sec":          "page_reads",
	"Page writes/sec":         "page_writes",
	"Checkpoint pages/sec":    "checkpoint_pages",
	"Number of Deadlocks/sec": "deadlocks",
	"Lock Waits/sec":          "lock_waits",
}

// sqlFileStats sums sys.dm_io_virtual_file_stats over the benchmark
// database's files, and separately over its log file(s) (type 1).
const sqlFileStats = `SELECT
  CAST(SUM(v.io_stall_read_ms) AS bigint), CAST(SUM(v.io_stall_write_ms) AS bigint),
  CAST(SUM(v.num_of_reads) AS bigint), CAST(SUM(v.num_of_writes) AS bigint),
  CAST(SUM(v.num_of_bytes_read) AS bigint), CAST(SUM(v.num_of_bytes_written) AS bigint),
  CAST(SUM(CASE WHEN f.type = 1 THEN v.io_stall_write_ms ELSE 0 END) AS bigint),
  CAST(SUM(CASE WHEN f.type = 1 THEN v.num_of_writes ELSE 0 END) AS bigint),
  CAST(SUM(CASE WHEN f.type = 1 THEN v.num_of_bytes_written ELSE 0 END) AS bigint)
FROM sys.dm_io_virtual_file_stats(DB_ID(), NULL) AS v
JOIN sys.database_files AS f ON f.file_id = v.file_id`

// fileStatKeys name the columns of sqlFileStats in Extra.
var fileStatKeys = []string{"io_stall_read_ms", "io_stall_write_ms", "num_of_reads", "num_of_writes",
	"num_of_bytes_read", "num_of_bytes_written", "log_io_stall_write_ms", "log_num_of_writes", "log_num_of_bytes_written"}

// Counters implements engine.DB. SQL Server has no per-database commit and
// rollback counts: Commits holds the database's 'Transactions/sec' total
// (transactions started) and Rollbacks stays 0. BlocksRead is the Buffer
// Manager's 'Page reads/sec' total, BlocksHit 'Page lookups/sec' minus it,
// WALBytes the database's 'Log Bytes Flushed/sec' total; Checkpoints stays 0
// (Extra["checkpoint_pages"] counts pages written by checkpoints). Extra
// holds every counter read (batch_requests is the basis of HammerDB-style
// TPM) and the file latency totals of sys.dm_io_virtual_file_stats
// (io_stall_read_ms, io_stall_write_ms, num_of_reads, num_of_writes, ...).
func (db *DB) Counters(ctx context.Context) (engine.Counters, error) {
	c := engine.Counters{Extra: map[string]int64{}}
	rows, err := db.pool.QueryContext(ctx, sqlPerfCounters)
	if err != nil {
		return c, fmt.Errorf("read sys.dm_os_performance_counters (needs VIEW SERVER STATE): %w", err)
	}
	for rows.Next() {
		var object, name string
		var v int64
		if err := rows.Scan(&object, &name, &v); err != nil {
			rows.Close()
			return c, err
		}
		if k, ok := perfCounterKeys[name]; ok {
			c.Extra[k] += v
		}
	}
	if err := rows.Close(); err != nil {
		return c, err
	}
	if err := rows.Err(); err != nil {
		return c, err
	}
	applyPerfCounters(&c)

	vals := make([]int64, len(fileStatKeys))
	ptrs := make([]any, len(vals))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	if err := db.pool.QueryRowContext(ctx, sqlFileStats).Scan(ptrs...); err != nil {
		return c, fmt.Errorf("read sys.dm_io_virtual_file_stats (needs VIEW SERVER STATE): %w", err)
	}
	for i, k := range fileStatKeys {
		c.Extra[k] = vals[i]
	}
	return c, nil
}

// applyPerfCounters fills the engine-neutral fields from Extra.
func applyPerfCounters(c *engine.Counters) {
	c.Commits = c.Extra["transactions"]
	c.BlocksRead = c.Extra["page_reads"]
	if hit := c.Extra["page_lookups"] - c.Extra["page_reads"]; hit > 0 {
		c.BlocksHit = hit
	}
	c.WALBytes = c.Extra["log_bytes_flushed"]
}
