package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	_ "modernc.org/sqlite"
)

// schemaV1 is the SQLite schema of version 1 as released, written out
// here on purpose (not taken from migrations) so that an edit of an
// applied migration breaks this test.
const schemaV1 = `
CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at_ns BIGINT NOT NULL);
INSERT INTO schema_migrations VALUES (1, 'runs and steps', 1700000000000000000);
CREATE TABLE runs (
  id TEXT PRIMARY KEY, label TEXT NOT NULL DEFAULT '', source TEXT NOT NULL, status TEXT NOT NULL,
  target TEXT NOT NULL DEFAULT '', engine TEXT NOT NULL DEFAULT '', engine_version TEXT NOT NULL DEFAULT '',
  mode TEXT NOT NULL DEFAULT '', warehouses INTEGER NOT NULL DEFAULT 0, seed TEXT NOT NULL DEFAULT '0',
  keying_thinking INTEGER NOT NULL DEFAULT 0, users TEXT NOT NULL DEFAULT '[]', rampup_ns BIGINT NOT NULL DEFAULT 0,
  duration_ns BIGINT NOT NULL DEFAULT 0, repeats INTEGER NOT NULL DEFAULT 1, flags TEXT NOT NULL DEFAULT '{}',
  env TEXT NOT NULL DEFAULT '{}', started_at_ns BIGINT NOT NULL, ended_at_ns BIGINT, note TEXT NOT NULL DEFAULT '');
CREATE INDEX runs_started ON runs (started_at_ns);
CREATE INDEX runs_label ON runs (label, started_at_ns);
CREATE TABLE steps (
  id INTEGER PRIMARY KEY AUTOINCREMENT, run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  repeat_no INTEGER NOT NULL, step_index INTEGER NOT NULL, users INTEGER NOT NULL,
  start_ns BIGINT NOT NULL, measure_start_ns BIGINT NOT NULL, measure_end_ns BIGINT NOT NULL,
  partial INTEGER NOT NULL DEFAULT 0, tpm REAL NOT NULL DEFAULT 0, nopm REAL NOT NULL DEFAULT 0,
  tpm_per_user REAL NOT NULL DEFAULT 0, driver_cpu_us_per_txn REAL NOT NULL DEFAULT 0,
  server_cpu_us_per_txn REAL NOT NULL DEFAULT 0, skipped_deliveries BIGINT NOT NULL DEFAULT 0,
  reconnects BIGINT NOT NULL DEFAULT 0, cpu_busy_pct REAL NOT NULL DEFAULT 0, cpu_idle_pct REAL NOT NULL DEFAULT 0,
  cpu_iowait_pct REAL NOT NULL DEFAULT 0, cpu_user_pct REAL NOT NULL DEFAULT 0, cpu_system_pct REAL NOT NULL DEFAULT 0,
  cpu_steal_pct REAL NOT NULL DEFAULT 0, disk_read_iops REAL NOT NULL DEFAULT 0, disk_write_iops REAL NOT NULL DEFAULT 0,
  disk_read_mbps REAL NOT NULL DEFAULT 0, disk_write_mbps REAL NOT NULL DEFAULT 0,
  disk_avg_latency_ms REAL NOT NULL DEFAULT 0, mem_used_bytes BIGINT NOT NULL DEFAULT 0,
  mem_cached_bytes BIGINT NOT NULL DEFAULT 0, server_cpu_pct REAL NOT NULL DEFAULT 0,
  driver_cpu_pct REAL NOT NULL DEFAULT 0, db_commits BIGINT NOT NULL DEFAULT 0, db_rollbacks BIGINT NOT NULL DEFAULT 0,
  db_blocks_read BIGINT NOT NULL DEFAULT 0, db_blocks_hit BIGINT NOT NULL DEFAULT 0,
  db_wal_bytes BIGINT NOT NULL DEFAULT 0, db_checkpoints BIGINT NOT NULL DEFAULT 0,
  db_tpm REAL NOT NULL DEFAULT 0, db_buffer_hit_pct REAL NOT NULL DEFAULT 0,
  UNIQUE (run_id, repeat_no, step_index));
CREATE TABLE step_txn (
  step_id BIGINT NOT NULL REFERENCES steps (id) ON DELETE CASCADE, seq INTEGER NOT NULL, txn_type TEXT NOT NULL,
  count BIGINT NOT NULL, rollbacks BIGINT NOT NULL, retries BIGINT NOT NULL, errors BIGINT NOT NULL,
  p50_ms REAL NOT NULL, p90_ms REAL NOT NULL, p95_ms REAL NOT NULL, p99_ms REAL NOT NULL, max_ms REAL NOT NULL,
  mean_ms REAL NOT NULL, first_error TEXT NOT NULL DEFAULT '', hist BLOB, PRIMARY KEY (step_id, seq));
CREATE TABLE step_seconds (
  step_id BIGINT NOT NULL REFERENCES steps (id) ON DELETE CASCADE, seq INTEGER NOT NULL, offset_s INTEGER NOT NULL,
  txn BIGINT NOT NULL, new_orders BIGINT NOT NULL, PRIMARY KEY (step_id, seq));
CREATE TABLE step_windows (
  step_id BIGINT NOT NULL REFERENCES steps (id) ON DELETE CASCADE, seq INTEGER NOT NULL, offset_ns BIGINT NOT NULL,
  txn_type TEXT NOT NULL, hist BLOB, PRIMARY KEY (step_id, seq));
CREATE TABLE host_samples (
  step_id BIGINT NOT NULL REFERENCES steps (id) ON DELETE CASCADE, seq INTEGER NOT NULL, at_ns BIGINT NOT NULL,
  cpu_user_pct REAL NOT NULL, cpu_system_pct REAL NOT NULL, cpu_iowait_pct REAL NOT NULL, cpu_idle_pct REAL NOT NULL,
  cpu_steal_pct REAL NOT NULL, cpu_busy_pct REAL NOT NULL, disk_read_iops REAL NOT NULL, disk_write_iops REAL NOT NULL,
  disk_read_mbps REAL NOT NULL, disk_write_mbps REAL NOT NULL, disk_avg_latency_ms REAL NOT NULL,
  mem_used_bytes BIGINT NOT NULL, mem_cached_bytes BIGINT NOT NULL, server_cpu_pct REAL NOT NULL,
  driver_cpu_pct REAL NOT NULL, disks TEXT NOT NULL DEFAULT '', PRIMARY KEY (step_id, seq));

INSERT INTO runs (id, label, source, status, engine, warehouses, seed, keying_thinking, users, rampup_ns, duration_ns,
  repeats, flags, env, started_at_ns, ended_at_ns)
VALUES ('20240101-120000-abcdef', 'old', 'rightsize', 'complete', 'postgres', 4, '18446744073709551615', 1, '[1,2]',
  10000000000, 60000000000, 1, '{"users":"1,2"}', '{"os":"linux"}', 1704110400000000000, 1704111000000000000);
INSERT INTO steps (id, run_id, repeat_no, step_index, users, start_ns, measure_start_ns, measure_end_ns, tpm, nopm,
  cpu_busy_pct, mem_used_bytes)
VALUES (7, '20240101-120000-abcdef', 1, 0, 1, 1704110400000000000, 1704110410000000000, 1704110470000000000,
  1234.5, 555.25, 42.5, 1073741824);
INSERT INTO step_txn VALUES (7, 0, 'new_order', 600, 6, 1, 0, 1.5, 2.5, 3.5, 4.5, 9.5, 1.75, '', NULL);
INSERT INTO step_seconds VALUES (7, 0, 0, 20, 9), (7, 1, 1, 21, 10);
INSERT INTO step_windows VALUES (7, 0, 0, 'new_order', NULL);
INSERT INTO host_samples VALUES (7, 0, 1704110401000000000, 30, 10, 2, 58, 0, 42, 100, 200, 1, 2, 0.5,
  1073741824, 2147483648, 150, 10, '[]');
`

// TestMigrateFromV1 builds a version-1 store by hand, opens it with the
// current code and checks that it is upgraded with its data intact.
func TestMigrateFromV1(t *testing.T) {
	ctx := context.Background()
	path := sqliteLocation(t)
	raw, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := raw.Exec(schemaV1); err != nil {
		t.Fatal(err)
	}
	raw.Close()

	s := openAt(t, path)
	if v, err := s.Version(ctx); err != nil || v != SchemaVersion {
		t.Fatalf("version after upgrade: %d, %v; want %d", v, err, SchemaVersion)
	}
	r, steps, err := s.LoadRun(ctx, "20240101-120000-abcdef")
	if err != nil {
		t.Fatal(err)
	}
	if r.Label != "old" || r.Seed != 18446744073709551615 || !r.KeyingThinking || len(r.Users) != 2 ||
		r.Duration != time.Minute || r.Env["os"] != "linux" || r.EndedAt.IsZero() {
		t.Errorf("run after upgrade: %+v", r)
	}
	if len(steps) != 1 {
		t.Fatalf("%d steps", len(steps))
	}
	st := steps[0]
	if st.ID != 7 || st.TPM != 1234.5 || st.NOPM != 555.25 || st.Host.CPUBusyPct != 42.5 || st.Host.MemUsedBytes != 1<<30 ||
		len(st.Txn) != 1 || st.Txn[0].P99Ms != 4.5 || st.Txn[0].Hist != nil || len(st.Seconds) != 2 || st.Seconds[1].Txn != 21 ||
		len(st.Windows) != 1 || len(st.Samples) != 1 || st.Samples[0].ServerCPUPct != 150 {
		t.Errorf("step after upgrade: %+v", st)
	}
	// Version 2 works on the upgraded store, and new steps continue the ids.
	if err := s.AddProbe(ctx, &Probe{Kind: ProbeCPU, Result: []byte(`{}`)}); err != nil {
		t.Errorf("AddProbe on upgraded store: %v", err)
	}
	nst := testStep(t, r.ID, 1, 1, 2, 5, 1, 5)
	if err := s.AddStep(ctx, &nst); err != nil || nst.ID <= 7 {
		t.Errorf("AddStep on upgraded store: id %d, %v", nst.ID, err)
	}
	var names []string
	rows, _ := s.db.Query("SELECT name FROM schema_migrations ORDER BY version")
	for rows.Next() {
		var n string
		rows.Scan(&n)
		names = append(names, n)
	}
	rows.Close()
	var want []string
	for _, m := range migrations {
		want = append(want, m.name)
	}
	if strings.Join(names, ",") != strings.Join(want, ",") {
		t.Errorf("schema_migrations: %v", names)
	}
}

// TestNewerStoreRefused: a store with a schema version this binary does
// not know is refused with a clear message, and left untouched.
func TestNewerStoreRefused(t *testing.T) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			loc := b.location(t)
			s := openAt(t, loc)
			future := SchemaVersion + 1
			if _, err := s.db.Exec(s.rebind("INSERT INTO schema_migrations (version, name, applied_at_ns) VALUES (?, 'future', 0)"), future); err != nil {
				t.Fatal(err)
			}
			s.Close()
			_, err := Open(context.Background(), loc)
			if !errors.Is(err, ErrNewerStore) {
				t.Fatalf("Open(newer store) = %v, want ErrNewerStore", err)
			}
			for _, want := range []string{fmt.Sprintf("schema version %d", future), fmt.Sprintf("up to %d", SchemaVersion), "newer rightsize"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("message %q lacks %q", err, want)
				}
			}
		})
	}
}

// TestMigrationsAreWellFormed checks that versions are 1..N in order.
func TestMigrationsAreWellFormed(t *testing.T) {
	for i, m := range migrations {
		if m.version != i+1 || m.name == "" {
			t.Errorf("migration %d: version %d name %q", i, m.version, m.name)
		}
		for _, d := range []dialect{dialectSQLite, dialectPostgres} {
			for _, stmt := range m.statements(d) {
				if strings.Contains(stmt, "{{") {
					t.Errorf("migration %d: untranslated token in %q", m.version, stmt)
				}
			}
		}
	}
}

// TestValidityRoundTrip: a step's verdict, its remote counts and the run's
// isolation come back as stored; a step without a verdict reads back nil.
func TestValidityRoundTrip(t *testing.T) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) { testValidityRoundTrip(t, openAt(t, b.location(t))) })
	}
}

func testValidityRoundTrip(t *testing.T, s *Store) {
	ctx := context.Background()
	r := created(t, s, &Run{Mode: "procedures", Warehouses: 2, Users: []int{1, 2}, Isolation: "read-committed"})
	a := testStep(t, r.ID, 1, 0, 1, 5, 1, 5)
	a.OrderLines, a.RemoteOrderLines, a.RemotePayments = 1000, 10, 15
	a.Validity = &Validity{Violations: []string{"isolation read-committed is not level 3 (3.4)"}}
	b := testStep(t, r.ID, 1, 1, 2, 5, 1, 5)
	for _, st := range []*Step{&a, &b} {
		if err := s.AddStep(ctx, st); err != nil {
			t.Fatal(err)
		}
	}
	got, steps, err := s.LoadRun(ctx, r.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Isolation != "read-committed" {
		t.Errorf("isolation %q", got.Isolation)
	}
	if v := steps[0].Validity; v == nil || v.Valid || len(v.Violations) != 1 || steps[0].RemoteOrderLines != 10 || steps[0].OrderLines != 1000 {
		t.Errorf("step 0: %+v %+v", steps[0].Validity, steps[0])
	}
	if steps[1].Validity != nil {
		t.Errorf("step without a verdict read back %+v", steps[1].Validity)
	}
}
