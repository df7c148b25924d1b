package figures

// The step columns, defined once: each figure's Name is its stored SQL
// column, its JSON key (store.Step's, analysis.StepAggregate's and run
// --json's), its CSV heading (store's export) and the name analysis'
// view columns carry; Head is its heading in every table (results show,
// the summary, compare, the report) and Unit what it counts, by which
// the views format it. Host and Procs figures are above; these are a
// step's own (store.Step) and a transaction type's (Txn).

// A step's throughput and the driver's and server's CPU per transaction.
var (
	TPM               = Figure{"tpm", "TPM", Count}
	NOPM              = Figure{"nopm", "NOPM", Count}
	TPMPerUser        = Figure{"tpm_per_user", "TPM/user", Count}
	DriverCPUPerTxn   = Figure{"driver_cpu_us_per_txn", "driver µs/txn", Us}
	ServerCPUPerTxn   = Figure{"server_cpu_us_per_txn", "server µs/txn", Us}
	SkippedDeliveries = Figure{"skipped_deliveries", "skipped deliveries", Count}
	Reconnects        = Figure{"reconnects", "reconnects", Count}
)

// A paced step's schedule lag (run --rate, pgbench -R): how long after
// its scheduled start a transaction began, the mean and the largest over
// the measured interval; 0 when the step was not paced.
var (
	ScheduleLag    = Figure{"schedule_lag_ms", "lag ms", Ms}
	ScheduleLagMax = Figure{"schedule_lag_max_ms", "max lag ms", Ms}
)

// A step's transactions over its latency limit (run --latency-limit,
// pgbench -L): those completed late, and, when paced, those skipped (not
// sent, already too far behind their schedule); 0 without a limit.
var (
	LateTxns    = Figure{"late_txns", "late", Count}
	SkippedTxns = Figure{"skipped_txns", "skipped", Count}
)

// The database server's counters over a step (store.DBCounters): Name is
// the stored column and CSV heading; their JSON keys under a step's "db"
// drop the "db_".
var (
	DBCommits     = Figure{"db_commits", "commits", Count}
	DBRollbacks   = Figure{"db_rollbacks", "rollbacks", Count}
	DBBlocksRead  = Figure{"db_blocks_read", "blocks read", Count}
	DBBlocksHit   = Figure{"db_blocks_hit", "blocks hit", Count}
	DBWALBytes    = Figure{"db_wal_bytes", "WAL", Bytes}
	DBCheckpoints = Figure{"db_checkpoints", "checkpoints", Count}
	DBTPM         = Figure{"db_tpm", "db TPM", Count} // (commits + rollbacks) per minute, as HammerDB counts
	DBBufferHit   = Figure{"db_buffer_hit_pct", "buffer hit", Percent}
)

// The figures of a transaction type, in Txn's order, then the mean.
var (
	TxnCount     = Figure{"count", "count", Count}
	TxnRollbacks = Figure{"rollbacks", "rolled back", Count}
	TxnRetries   = Figure{"retries", "retries", Count}
	TxnErrors    = Figure{"errors", "errors", Count}
	TxnP50       = Figure{"p50_ms", "p50", Ms}
	TxnP90       = Figure{"p90_ms", "p90", Ms}
	TxnP95       = Figure{"p95_ms", "p95", Ms}
	TxnP99       = Figure{"p99_ms", "p99", Ms}
	TxnMax       = Figure{"max_ms", "max", Ms}
	TxnMean      = Figure{"mean_ms", "mean", Ms}
)

// Columns lists t's figures in their stored order.
func (t *Txn) Columns() []Column {
	return []Column{
		{TxnCount.Name, &t.Count}, {TxnRollbacks.Name, &t.Rollbacks}, {TxnRetries.Name, &t.Retries}, {TxnErrors.Name, &t.Errors},
		{TxnP50.Name, &t.P50Ms}, {TxnP90.Name, &t.P90Ms}, {TxnP95.Name, &t.P95Ms}, {TxnP99.Name, &t.P99Ms}, {TxnMax.Name, &t.MaxMs},
	}
}
