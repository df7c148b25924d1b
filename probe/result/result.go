// Package result holds the stored shapes of the CPU and backup probes'
// results. It depends on nothing but the standard library, so readers of
// stored probes (the report) do not link the probes' database drivers.
package result

import "time"

// CPU is the outcome of one single-thread CPU probe (probe/cpu). It is stored as the Result JSON
// of a store.Probe of kind "cpu".
type CPU struct {
	// Engine is the engine probed: "postgres", "mysql" or "mssql".
	Engine string `json:"engine"`
	// Version is the server's version string.
	Version string `json:"version"`
	// Language names the procedural language the loop ran in ("PL/pgSQL",
	// "T-SQL", "MySQL stored procedure").
	Language string `json:"language"`
	// Iterations is the loop length of each run.
	Iterations int64 `json:"iterations"`
	// Runs is the number of measured runs.
	Runs int `json:"runs"`
	// ServerMs is each run's elapsed time measured by the server around
	// the loop, in milliseconds (lower is faster).
	ServerMs []float64 `json:"server_ms"`
	// BestMs is the smallest of ServerMs.
	BestMs float64 `json:"best_ms"`
	// MedianMs is the median of ServerMs.
	MedianMs float64 `json:"median_ms"`
	// ClientGoMs is the time of the same arithmetic as a compiled Go loop
	// on the client machine, in milliseconds (best of Runs).
	ClientGoMs float64 `json:"client_go_ms"`
	// Host is the name of the machine the probe ran from (the client).
	Host string `json:"host"`
	// StartedAt is when the probe started.
	StartedAt time.Time `json:"started_at"`
}

// BackupCycle is one backup and restore of a backup probe.
type BackupCycle struct {
	// N numbers the cycle from 1.
	N int `json:"n"`
	// Start and End bound the cycle (backup start to restore checked).
	Start time.Time `json:"start"`
	End   time.Time `json:"end"`
	// BackupSeconds is the backup's wall time.
	BackupSeconds float64 `json:"backup_seconds"`
	// BackupMBps is Bytes / BackupSeconds in MB/s (10^6 bytes).
	BackupMBps float64 `json:"backup_mbps"`
	// RestoreSeconds is the restore's wall time (copy, start, check).
	RestoreSeconds float64 `json:"restore_seconds"`
	// RestoreMBps is Bytes / RestoreSeconds in MB/s.
	RestoreMBps float64 `json:"restore_mbps"`
	// RestoreStartSeconds is the part of RestoreSeconds spent starting
	// the restored server (recovery) and checking it; 0 where the method
	// restores into the running server.
	RestoreStartSeconds float64 `json:"restore_start_seconds,omitempty"`
	// Bytes is the size of the backup.
	Bytes int64 `json:"bytes"`
	// RestoreChecked is true when the restored database answered and
	// every table that had rows in the source had rows.
	RestoreChecked bool `json:"restore_checked"`
	// DiskLatencyMs is the host's disk latency per telemetry sample during
	// the cycle (I/O-weighted over disks; 0 for a second without I/O).
	DiskLatencyMs []float64 `json:"disk_latency_ms"`
	// DiskMBps is the host's disk throughput (read + write, all disks) per
	// telemetry sample during the cycle.
	DiskMBps []float64 `json:"disk_mbps"`
	// DiskAvgLatencyMs is the I/O-weighted disk latency over the cycle.
	DiskAvgLatencyMs float64 `json:"disk_avg_latency_ms"`
	// Note explains a failed check or a late start.
	Note string `json:"note,omitempty"`
}

// Backup is the outcome of a backup probe (probe/backup.Run). It is stored as the Result JSON of a
// store.Probe of kind "backup".
type Backup struct {
	// Engine is "postgres", "mysql" or "mssql".
	Engine string `json:"engine"`
	// Version is the server's version string.
	Version string `json:"version"`
	// Method is the tool used ("pg_basebackup", "mariadb-backup", "mysqldump", "mssql").
	Method string `json:"method"`
	// Dir is the directory the backups went to.
	Dir string `json:"dir"`
	// EverySeconds is the probe's Every option in seconds (0: back to back).
	EverySeconds float64 `json:"every_seconds"`
	// Cycles are the completed cycles.
	Cycles []BackupCycle `json:"cycles"`
	// Host is the machine the probe ran on.
	Host string `json:"host"`
	// StartedAt is when the first cycle started.
	StartedAt time.Time `json:"started_at"`
	// Partial is true when Run stopped before all cycles completed.
	Partial bool `json:"partial,omitempty"`
	// Kept is the path of the kept backup (the Keep option).
	Kept string `json:"kept,omitempty"`
	// Notes are remarks about the method (what is copied, fallbacks).
	Notes []string `json:"notes,omitempty"`
}
