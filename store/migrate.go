package store

import (
	"context"
	"database/sql"
	"fmt"
	"hash/fnv"
	"strings"
	"time"
)

// migration is one schema version. Its SQL is written once for both
// dialects with the tokens {{ID}} (an auto-assigned 64-bit primary key),
// {{FLOAT}} and {{BLOB}}; statements are separated by ";". An applied
// migration is never edited: a change is a new migration.
type migration struct {
	version int
	name    string
	sql     string
}

var migrations = []migration{
	{1, "runs and steps", `
CREATE TABLE runs (
  id              TEXT PRIMARY KEY,
  label           TEXT NOT NULL DEFAULT '',
  source          TEXT NOT NULL,
  status          TEXT NOT NULL,
  target          TEXT NOT NULL DEFAULT '',
  engine          TEXT NOT NULL DEFAULT '',
  engine_version  TEXT NOT NULL DEFAULT '',
  mode            TEXT NOT NULL DEFAULT '',
  warehouses      INTEGER NOT NULL DEFAULT 0,
  seed            TEXT NOT NULL DEFAULT '0',
  keying_thinking INTEGER NOT NULL DEFAULT 0,
  users           TEXT NOT NULL DEFAULT '[]',
  rampup_ns       BIGINT NOT NULL DEFAULT 0,
  duration_ns     BIGINT NOT NULL DEFAULT 0,
  repeats         INTEGER NOT NULL DEFAULT 1,
  flags           TEXT NOT NULL DEFAULT '{}',
  env             TEXT NOT NULL DEFAULT '{}',
  started_at_ns   BIGINT NOT NULL,
  ended_at_ns     BIGINT,
  note            TEXT NOT NULL DEFAULT ''
);
CREATE INDEX runs_started ON runs (started_at_ns);
CREATE INDEX runs_label ON runs (label, started_at_ns);
CREATE TABLE steps (
  id                    {{ID}},
  run_id                TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  repeat_no             INTEGER NOT NULL,
  step_index            INTEGER NOT NULL,
  users                 INTEGER NOT NULL,
  start_ns              BIGINT NOT NULL,
  measure_start_ns      BIGINT NOT NULL,
  measure_end_ns        BIGINT NOT NULL,
  partial               INTEGER NOT NULL DEFAULT 0,
  tpm                   {{FLOAT}} NOT NULL DEFAULT 0,
  nopm                  {{FLOAT}} NOT NULL DEFAULT 0,
  tpm_per_user          {{FLOAT}} NOT NULL DEFAULT 0,
  driver_cpu_us_per_txn {{FLOAT}} NOT NULL DEFAULT 0,
  server_cpu_us_per_txn {{FLOAT}} NOT NULL DEFAULT 0,
  skipped_deliveries    BIGINT NOT NULL DEFAULT 0,
  reconnects            BIGINT NOT NULL DEFAULT 0,
  cpu_busy_pct          {{FLOAT}} NOT NULL DEFAULT 0,
  cpu_idle_pct          {{FLOAT}} NOT NULL DEFAULT 0,
  cpu_iowait_pct        {{FLOAT}} NOT NULL DEFAULT 0,
  cpu_user_pct          {{FLOAT}} NOT NULL DEFAULT 0,
  cpu_system_pct        {{FLOAT}} NOT NULL DEFAULT 0,
  cpu_steal_pct         {{FLOAT}} NOT NULL DEFAULT 0,
  disk_read_iops        {{FLOAT}} NOT NULL DEFAULT 0,
  disk_write_iops       {{FLOAT}} NOT NULL DEFAULT 0,
  disk_read_mbps        {{FLOAT}} NOT NULL DEFAULT 0,
  disk_write_mbps       {{FLOAT}} NOT NULL DEFAULT 0,
  disk_avg_latency_ms   {{FLOAT}} NOT NULL DEFAULT 0,
  mem_used_bytes        BIGINT NOT NULL DEFAULT 0,
  mem_cached_bytes      BIGINT NOT NULL DEFAULT 0,
  server_cpu_pct        {{FLOAT}} NOT NULL DEFAULT 0,
  driver_cpu_pct        {{FLOAT}} NOT NULL DEFAULT 0,
  db_commits            BIGINT NOT NULL DEFAULT 0,
  db_rollbacks          BIGINT NOT NULL DEFAULT 0,
  db_blocks_read        BIGINT NOT NULL DEFAULT 0,
  db_blocks_hit         BIGINT NOT NULL DEFAULT 0,
  db_wal_bytes          BIGINT NOT NULL DEFAULT 0,
  db_checkpoints        BIGINT NOT NULL DEFAULT 0,
  db_tpm                {{FLOAT}} NOT NULL DEFAULT 0,
  db_buffer_hit_pct     {{FLOAT}} NOT NULL DEFAULT 0,
  UNIQUE (run_id, repeat_no, step_index)
);
CREATE TABLE step_txn (
  step_id     BIGINT NOT NULL REFERENCES steps (id) ON DELETE CASCADE,
  seq         INTEGER NOT NULL,
  txn_type    TEXT NOT NULL,
  count       BIGINT NOT NULL,
  rollbacks   BIGINT NOT NULL,
  retries     BIGINT NOT NULL,
  errors      BIGINT NOT NULL,
  p50_ms      {{FLOAT}} NOT NULL,
  p90_ms      {{FLOAT}} NOT NULL,
  p95_ms      {{FLOAT}} NOT NULL,
  p99_ms      {{FLOAT}} NOT NULL,
  max_ms      {{FLOAT}} NOT NULL,
  mean_ms     {{FLOAT}} NOT NULL,
  first_error TEXT NOT NULL DEFAULT '',
  hist        {{BLOB}},
  PRIMARY KEY (step_id, seq)
);
CREATE TABLE step_seconds (
  step_id    BIGINT NOT NULL REFERENCES steps (id) ON DELETE CASCADE,
  seq        INTEGER NOT NULL,
  offset_s   INTEGER NOT NULL,
  txn        BIGINT NOT NULL,
  new_orders BIGINT NOT NULL,
  PRIMARY KEY (step_id, seq)
);
CREATE TABLE step_windows (
  step_id   BIGINT NOT NULL REFERENCES steps (id) ON DELETE CASCADE,
  seq       INTEGER NOT NULL,
  offset_ns BIGINT NOT NULL,
  txn_type  TEXT NOT NULL,
  hist      {{BLOB}},
  PRIMARY KEY (step_id, seq)
);
CREATE TABLE host_samples (
  step_id             BIGINT NOT NULL REFERENCES steps (id) ON DELETE CASCADE,
  seq                 INTEGER NOT NULL,
  at_ns               BIGINT NOT NULL,
  cpu_user_pct        {{FLOAT}} NOT NULL,
  cpu_system_pct      {{FLOAT}} NOT NULL,
  cpu_iowait_pct      {{FLOAT}} NOT NULL,
  cpu_idle_pct        {{FLOAT}} NOT NULL,
  cpu_steal_pct       {{FLOAT}} NOT NULL,
  cpu_busy_pct        {{FLOAT}} NOT NULL,
  disk_read_iops      {{FLOAT}} NOT NULL,
  disk_write_iops     {{FLOAT}} NOT NULL,
  disk_read_mbps      {{FLOAT}} NOT NULL,
  disk_write_mbps     {{FLOAT}} NOT NULL,
  disk_avg_latency_ms {{FLOAT}} NOT NULL,
  mem_used_bytes      BIGINT NOT NULL,
  mem_cached_bytes    BIGINT NOT NULL,
  server_cpu_pct      {{FLOAT}} NOT NULL,
  driver_cpu_pct      {{FLOAT}} NOT NULL,
  disks               TEXT NOT NULL DEFAULT '',
  PRIMARY KEY (step_id, seq)
)`},
	{2, "probes", `
CREATE TABLE probes (
  id            TEXT PRIMARY KEY,
  kind          TEXT NOT NULL,
  label         TEXT NOT NULL DEFAULT '',
  host          TEXT NOT NULL DEFAULT '',
  created_at_ns BIGINT NOT NULL,
  result        TEXT NOT NULL
);
CREATE INDEX probes_kind ON probes (kind, created_at_ns);
CREATE INDEX probes_label ON probes (label, created_at_ns)`},
	{3, "sweeps", `
CREATE TABLE sweeps (
  id            TEXT PRIMARY KEY,
  label         TEXT NOT NULL DEFAULT '',
  kind          TEXT NOT NULL,
  vals          TEXT NOT NULL DEFAULT '[]',
  status        TEXT NOT NULL,
  spec          TEXT NOT NULL DEFAULT '{}',
  started_at_ns BIGINT NOT NULL,
  ended_at_ns   BIGINT
);
CREATE INDEX sweeps_label ON sweeps (label, started_at_ns);
CREATE TABLE sweep_runs (
  sweep_id TEXT NOT NULL REFERENCES sweeps (id) ON DELETE CASCADE,
  position INTEGER NOT NULL,
  value    TEXT NOT NULL,
  run_id   TEXT REFERENCES runs (id) ON DELETE SET NULL,
  status   TEXT NOT NULL,
  reason   TEXT NOT NULL DEFAULT '',
  PRIMARY KEY (sweep_id, position)
)`},
	{4, "step waits", `
CREATE TABLE step_waits (
  step_id    BIGINT NOT NULL REFERENCES steps (id) ON DELETE CASCADE,
  seq        INTEGER NOT NULL,
  profile    TEXT NOT NULL DEFAULT '',
  saturation TEXT NOT NULL DEFAULT '',
  verdict    TEXT NOT NULL DEFAULT '',
  PRIMARY KEY (step_id, seq)
)`},
	{5, "workers", `
CREATE TABLE run_workers (
  run_id           TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  worker           INTEGER NOT NULL,
  workers          INTEGER NOT NULL,
  worker_run_id    TEXT NOT NULL DEFAULT '',
  status           TEXT NOT NULL,
  host             TEXT NOT NULL DEFAULT '',
  fingerprint      TEXT NOT NULL DEFAULT '{}',
  registered_at_ns BIGINT NOT NULL,
  heartbeat_ns     BIGINT NOT NULL,
  clock_offset_ns  BIGINT NOT NULL DEFAULT 0,
  step_seq         INTEGER NOT NULL DEFAULT -1,
  driver_cpu_ns    BIGINT NOT NULL DEFAULT 0,
  note             TEXT NOT NULL DEFAULT '',
  PRIMARY KEY (run_id, worker)
);
CREATE TABLE run_barriers (
  run_id    TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  seq       INTEGER NOT NULL,
  at_ns     BIGINT NOT NULL,
  agreed_ns BIGINT NOT NULL,
  PRIMARY KEY (run_id, seq)
)`},
	{6, "validity", `
ALTER TABLE runs ADD COLUMN isolation TEXT NOT NULL DEFAULT '';
ALTER TABLE steps ADD COLUMN order_lines BIGINT NOT NULL DEFAULT 0;
ALTER TABLE steps ADD COLUMN remote_order_lines BIGINT NOT NULL DEFAULT 0;
ALTER TABLE steps ADD COLUMN remote_payments BIGINT NOT NULL DEFAULT 0;
ALTER TABLE steps ADD COLUMN validity TEXT NOT NULL DEFAULT ''`},
	{7, "time to answer", `
ALTER TABLE steps ADD COLUMN rampup_end TEXT NOT NULL DEFAULT '';
ALTER TABLE steps ADD COLUMN rampup_note TEXT NOT NULL DEFAULT '';
ALTER TABLE steps ADD COLUMN measure_end TEXT NOT NULL DEFAULT '';
ALTER TABLE steps ADD COLUMN precision_pct {{FLOAT}} NOT NULL DEFAULT 0;
ALTER TABLE steps ADD COLUMN tpm_ci_half {{FLOAT}} NOT NULL DEFAULT 0;
ALTER TABLE steps ADD COLUMN nopm_ci_half {{FLOAT}} NOT NULL DEFAULT 0;
ALTER TABLE steps ADD COLUMN confidence {{FLOAT}} NOT NULL DEFAULT 0;
ALTER TABLE runs ADD COLUMN repeat_end TEXT NOT NULL DEFAULT ''`},
	{8, "server I/O", `
ALTER TABLE steps ADD COLUMN server_read_iops {{FLOAT}} NOT NULL DEFAULT 0;
ALTER TABLE steps ADD COLUMN server_write_iops {{FLOAT}} NOT NULL DEFAULT 0;
ALTER TABLE steps ADD COLUMN server_read_mbps {{FLOAT}} NOT NULL DEFAULT 0;
ALTER TABLE steps ADD COLUMN server_write_mbps {{FLOAT}} NOT NULL DEFAULT 0;
ALTER TABLE host_samples ADD COLUMN server_read_iops {{FLOAT}} NOT NULL DEFAULT 0;
ALTER TABLE host_samples ADD COLUMN server_write_iops {{FLOAT}} NOT NULL DEFAULT 0;
ALTER TABLE host_samples ADD COLUMN server_read_mbps {{FLOAT}} NOT NULL DEFAULT 0;
ALTER TABLE host_samples ADD COLUMN server_write_mbps {{FLOAT}} NOT NULL DEFAULT 0`},
	{9, "owners", `
ALTER TABLE runs ADD COLUMN owner_process TEXT NOT NULL DEFAULT '';
ALTER TABLE sweeps ADD COLUMN owner_process TEXT NOT NULL DEFAULT ''`},
	{10, "step statements", `
CREATE TABLE step_statements (
  step_id    BIGINT NOT NULL REFERENCES steps (id) ON DELETE CASCADE,
  seq        INTEGER NOT NULL,
  txn_type   TEXT NOT NULL,
  stmt_index INTEGER NOT NULL,
  line       INTEGER NOT NULL,
  text       TEXT NOT NULL DEFAULT '',
  count      BIGINT NOT NULL,
  p50_ms     {{FLOAT}} NOT NULL,
  p90_ms     {{FLOAT}} NOT NULL,
  p95_ms     {{FLOAT}} NOT NULL,
  p99_ms     {{FLOAT}} NOT NULL,
  max_ms     {{FLOAT}} NOT NULL,
  mean_ms    {{FLOAT}} NOT NULL,
  hist       {{BLOB}},
  PRIMARY KEY (step_id, seq)
)`},
	{11, "schedule lag", `
ALTER TABLE steps ADD COLUMN schedule_lag_ms {{FLOAT}} NOT NULL DEFAULT 0;
ALTER TABLE steps ADD COLUMN schedule_lag_max_ms {{FLOAT}} NOT NULL DEFAULT 0`},
	{12, "latency limit", `
ALTER TABLE steps ADD COLUMN late_txns BIGINT NOT NULL DEFAULT 0;
ALTER TABLE steps ADD COLUMN skipped_txns BIGINT NOT NULL DEFAULT 0`},
	{13, "WAL per second", `
ALTER TABLE step_seconds ADD COLUMN wal_bytes BIGINT NOT NULL DEFAULT 0`},
}

// SchemaVersion is the schema version this binary writes.
var SchemaVersion = migrations[len(migrations)-1].version

// statements returns the migration's statements for the dialect.
func (m migration) statements(d dialect) []string {
	var r *strings.Replacer
	if d == dialectPostgres {
		r = strings.NewReplacer("{{ID}}", "BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY",
			"{{FLOAT}}", "DOUBLE PRECISION", "{{BLOB}}", "BYTEA")
	} else {
		r = strings.NewReplacer("{{ID}}", "INTEGER PRIMARY KEY AUTOINCREMENT",
			"{{FLOAT}}", "REAL", "{{BLOB}}", "BLOB")
	}
	var out []string
	for _, s := range strings.Split(r.Replace(m.sql), ";") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// Version returns the schema version of the open store.
func (s *Store) Version(ctx context.Context) (int, error) {
	var v sql.NullInt64
	err := s.db.QueryRowContext(ctx, "SELECT MAX(version) FROM schema_migrations").Scan(&v)
	return int(v.Int64), err
}

// newerError is the message of a store this binary is too old for.
func (s *Store) newerError(v int) error {
	return fmt.Errorf("results store %s has schema version %d, but this rightsize knows versions up to %d: %w; use a newer rightsize (or another --store)",
		s.location, v, SchemaVersion, ErrNewerStore)
}

// migrate brings the schema up to date. Pending migrations are applied in
// one transaction, under a lock, so that several processes opening a new
// store at once apply them exactly once.
func (s *Store) migrate(ctx context.Context) error {
	// Fast path without a write lock: already up to date (or too new).
	if v, err := s.Version(ctx); err == nil {
		if v > SchemaVersion {
			return s.newerError(v)
		}
		if v == SchemaVersion {
			return nil
		}
	}
	tx, err := s.db.BeginTx(ctx, nil) // SQLite: BEGIN IMMEDIATE
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if s.dialect == dialectPostgres {
		h := fnv.New64a()
		h.Write([]byte("rightsize-store:" + s.schema))
		if _, err := tx.ExecContext(ctx, "SELECT pg_advisory_xact_lock($1)", int64(h.Sum64())); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, "CREATE SCHEMA IF NOT EXISTS "+s.schema); err != nil {
			return fmt.Errorf("create schema %s: %w", s.schema, err)
		}
	}
	tables, err := s.tables(ctx, tx)
	if err != nil {
		return err
	}
	if !tables["schema_migrations"] && len(tables) > 0 {
		where := "the file"
		if s.dialect == dialectPostgres {
			where = "schema " + s.schema
		}
		return fmt.Errorf("results store %s: %w (%s holds other tables and no schema_migrations)", s.location, ErrNotAStore, where)
	}
	if _, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
  version       INTEGER PRIMARY KEY,
  name          TEXT NOT NULL,
  applied_at_ns BIGINT NOT NULL
)`); err != nil {
		return err
	}
	var cur sql.NullInt64
	if err := tx.QueryRowContext(ctx, "SELECT MAX(version) FROM schema_migrations").Scan(&cur); err != nil {
		return err
	}
	if int(cur.Int64) > SchemaVersion {
		return s.newerError(int(cur.Int64))
	}
	now := time.Now().UnixNano()
	for _, m := range migrations {
		if m.version <= int(cur.Int64) {
			continue
		}
		for _, stmt := range m.statements(s.dialect) {
			if _, err := tx.ExecContext(ctx, stmt); err != nil {
				return fmt.Errorf("migration %d (%s): %w", m.version, m.name, err)
			}
		}
		if _, err := tx.ExecContext(ctx, s.rebind("INSERT INTO schema_migrations (version, name, applied_at_ns) VALUES (?, ?, ?)"),
			m.version, m.name, now); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// tables returns the names of the tables in the store's file or schema.
func (s *Store) tables(ctx context.Context, tx *sql.Tx) (map[string]bool, error) {
	q := "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
	if s.dialect == dialectPostgres {
		q = "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()"
	}
	rows, err := tx.QueryContext(ctx, q)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	m := map[string]bool{}
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, err
		}
		m[n] = true
	}
	return m, rows.Err()
}
