package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

const runColumns = `id, label, source, status, target, engine, engine_version, mode, warehouses, seed, keying_thinking,
  users, rampup_ns, duration_ns, repeats, flags, env, started_at_ns, ended_at_ns, note, isolation`

// CreateRun stores a new run. It fills in the defaults it applies: ID
// ("YYYYMMDD-HHMMSS-xxxxxx") when empty, StartedAt (now) when zero, Source
// SourceRightsize, Status StatusRunning and Repeats 1 when unset.
func (s *Store) CreateRun(ctx context.Context, r *Run) error {
	return s.createRun(ctx, s.db, r)
}

// execer is what creating a run needs of a connection pool or of a
// transaction.
type execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// createRun is CreateRun through db, the store's pool or a transaction.
func (s *Store) createRun(ctx context.Context, db execer, r *Run) error {
	if r == nil {
		return errors.New("store: nil run")
	}
	if r.StartedAt.IsZero() {
		r.StartedAt = time.Now()
	}
	if r.ID == "" {
		r.ID = newID(r.StartedAt)
	}
	if r.Source == "" {
		r.Source = SourceRightsize
	}
	if r.Status == "" {
		r.Status = StatusRunning
	}
	if r.Repeats == 0 {
		r.Repeats = 1
	}
	if err := checkRun(r); err != nil {
		return err
	}
	users, _ := json.Marshal(orEmpty(r.Users))
	flags, _ := json.Marshal(orEmptyMap(r.Flags))
	env, _ := json.Marshal(orEmptyMap(r.Env))
	_, err := db.ExecContext(ctx, s.rebind(`INSERT INTO runs (`+runColumns+`)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
		r.ID, r.Label, r.Source, r.Status, r.Target, r.Engine, r.EngineVersion, r.Mode, r.Warehouses,
		strconv.FormatUint(r.Seed, 10), b2i(r.KeyingThinking), string(users), int64(r.Rampup), int64(r.Duration), r.Repeats,
		string(flags), string(env), ns(r.StartedAt), nullNS(r.EndedAt), r.Note, r.Isolation)
	if err != nil {
		if exists, _ := s.runExists(ctx, r.ID); exists {
			return fmt.Errorf("run %s already exists in %s", r.ID, s.location)
		}
		return fmt.Errorf("store run %s: %w", r.ID, err)
	}
	return s.setOwner(ctx, db, "runs", r.ID, r.Status)
}

func checkRun(r *Run) error {
	switch r.Source {
	case SourceRightsize, SourceHammerDB:
	default:
		return fmt.Errorf("store: unknown run source %q (want %s or %s)", r.Source, SourceRightsize, SourceHammerDB)
	}
	if err := checkStatus(r.Status, true); err != nil {
		return err
	}
	if strings.ContainsAny(r.ID, " \t\n/\\") {
		return fmt.Errorf("store: run id %q has spaces or slashes", r.ID)
	}
	return nil
}

func checkStatus(status string, running bool) error {
	switch status {
	case StatusComplete, StatusPartial, StatusFailed:
		return nil
	case StatusRunning:
		if running {
			return nil
		}
	}
	return fmt.Errorf("store: invalid run status %q (want %s, %s or %s)", status, StatusComplete, StatusPartial, StatusFailed)
}

func orEmpty(v []int) []int {
	if v == nil {
		return []int{}
	}
	return v
}

func orEmptyMap(m map[string]string) map[string]string {
	if m == nil {
		return map[string]string{}
	}
	return m
}

func (s *Store) runExists(ctx context.Context, id string) (bool, error) {
	var one int
	err := s.db.QueryRowContext(ctx, s.rebind("SELECT 1 FROM runs WHERE id = ?"), id).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	return err == nil, err
}

// FinishRun sets a run's final status (StatusComplete, StatusPartial or
// StatusFailed) and end time. Call it with a context that is not cancelled
// (context.WithoutCancel) when the run was interrupted.
func (s *Store) FinishRun(ctx context.Context, id, status string, ended time.Time) error {
	if err := checkStatus(status, false); err != nil {
		return err
	}
	if ended.IsZero() {
		ended = time.Now()
	}
	res, err := s.db.ExecContext(ctx, s.rebind("UPDATE runs SET status = ?, ended_at_ns = ? WHERE id = ?"), status, ns(ended), id)
	if err != nil {
		return fmt.Errorf("finish run %s: %w", id, err)
	}
	if n, err := res.RowsAffected(); err == nil && n == 0 {
		return notFoundf("no run %s in results store %s", id, s.location)
	}
	return nil
}

// scanner is *sql.Row or *sql.Rows.
type scanner interface{ Scan(dest ...any) error }

// scanRun reads the runColumns.
func scanRun(sc scanner) (Run, error) {
	var r Run
	var seed, users, flags, env string
	var kt int
	var rampup, duration, started int64
	var ended sql.NullInt64
	if err := sc.Scan(&r.ID, &r.Label, &r.Source, &r.Status, &r.Target, &r.Engine, &r.EngineVersion, &r.Mode, &r.Warehouses,
		&seed, &kt, &users, &rampup, &duration, &r.Repeats, &flags, &env, &started, &ended, &r.Note, &r.Isolation); err != nil {
		return r, err
	}
	r.Seed, _ = strconv.ParseUint(seed, 10, 64)
	r.KeyingThinking = kt != 0
	r.Rampup, r.Duration = time.Duration(rampup), time.Duration(duration)
	r.StartedAt = fromNS(started)
	if ended.Valid {
		r.EndedAt = fromNS(ended.Int64)
	}
	if err := json.Unmarshal([]byte(users), &r.Users); err != nil {
		return r, fmt.Errorf("run %s: users: %w", r.ID, err)
	}
	if err := json.Unmarshal([]byte(flags), &r.Flags); err != nil {
		return r, fmt.Errorf("run %s: flags: %w", r.ID, err)
	}
	if err := json.Unmarshal([]byte(env), &r.Env); err != nil {
		return r, fmt.Errorf("run %s: env: %w", r.ID, err)
	}
	if len(r.Users) == 0 {
		r.Users = nil
	}
	if len(r.Flags) == 0 {
		r.Flags = nil
	}
	if len(r.Env) == 0 {
		r.Env = nil
	}
	return r, nil
}

// ListRuns returns every run, newest first (without steps). The runs of
// the workers of a multi-worker run are left out: the shared run shows them.
func (s *Store) ListRuns(ctx context.Context) ([]Run, error) {
	rows, err := s.db.QueryContext(ctx, "SELECT "+runColumns+" FROM runs WHERE id NOT IN (SELECT worker_run_id FROM run_workers) ORDER BY started_at_ns DESC, id DESC")
	if err != nil {
		return nil, fmt.Errorf("list runs: %w", err)
	}
	return scanAll(rows, scanRun)
}

// scanAll reads every row of rows with scan, then closes them.
func scanAll[T any](rows *sql.Rows, scan func(scanner) (T, error)) ([]T, error) {
	defer rows.Close()
	var out []T
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

// RunSteps is a run with the throughput rows of its steps, for listings.
type RunSteps struct {
	Run
	// Steps holds each stored step's Index, Users, Partial, TPM, NOPM,
	// DriverCPUUsPerTxn and DriverCPUPct (no children), by repeat then
	// index.
	Steps []Step
}

// ListRunSteps is ListRuns (newest first), each run with the throughput
// rows of its steps: what a listing's headline figures are computed from.
func (s *Store) ListRunSteps(ctx context.Context) ([]RunSteps, error) {
	runs, err := s.ListRuns(ctx)
	if err != nil {
		return nil, err
	}
	rows, err := s.db.QueryContext(ctx, `SELECT run_id, step_index, users, partial, tpm, nopm, driver_cpu_us_per_txn, driver_cpu_pct
FROM steps ORDER BY run_id, repeat_no, step_index`)
	if err != nil {
		return nil, fmt.Errorf("list runs: %w", err)
	}
	defer rows.Close()
	byRun := map[string][]Step{}
	for rows.Next() {
		var id string
		var st Step
		var partial int
		if err := rows.Scan(&id, &st.Index, &st.Users, &partial, &st.TPM, &st.NOPM, &st.DriverCPUUsPerTxn, &st.DriverCPUPct); err != nil {
			return nil, fmt.Errorf("list runs: %w", err)
		}
		st.Partial = partial != 0
		byRun[id] = append(byRun[id], st)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list runs: %w", err)
	}
	out := make([]RunSteps, 0, len(runs))
	for _, r := range runs {
		out = append(out, RunSteps{Run: r, Steps: byRun[r.ID]})
	}
	return out, nil
}

// Resolve returns the id of the run named by idOrLabel: a run id, else the
// latest run with that label, else the only run whose id starts with it.
// The error matches ErrNotFound when there is none.
func (s *Store) Resolve(ctx context.Context, idOrLabel string) (string, error) {
	return s.resolve(ctx, "runs", "started_at_ns", "run", idOrLabel)
}

// resolve implements Resolve and LoadProbe's lookup on table.
func (s *Store) resolve(ctx context.Context, table, timeCol, what, key string) (string, error) {
	if strings.TrimSpace(key) == "" {
		return "", fmt.Errorf("empty %s id or label", what)
	}
	var id string
	err := s.db.QueryRowContext(ctx, s.rebind("SELECT id FROM "+table+" WHERE id = ?"), key).Scan(&id)
	if err == nil {
		return id, nil
	} else if !errors.Is(err, sql.ErrNoRows) {
		return "", err
	}
	err = s.db.QueryRowContext(ctx, s.rebind("SELECT id FROM "+table+" WHERE label = ? ORDER BY "+timeCol+" DESC, id DESC LIMIT 1"), key).Scan(&id)
	if err == nil {
		return id, nil
	} else if !errors.Is(err, sql.ErrNoRows) {
		return "", err
	}
	// A unique id prefix (at least the date).
	if len(key) >= 8 && !strings.ContainsAny(key, "%_") {
		rows, err := s.db.QueryContext(ctx, s.rebind("SELECT id FROM "+table+" WHERE id LIKE ? ORDER BY id LIMIT 4"), key+"%")
		if err != nil {
			return "", err
		}
		ids, err := scanAll(rows, func(sc scanner) (string, error) {
			var id string
			err := sc.Scan(&id)
			return id, err
		})
		if err != nil {
			return "", err
		}
		switch len(ids) {
		case 1:
			return ids[0], nil
		case 0:
		default:
			more := ""
			if len(ids) > 3 {
				ids, more = ids[:3], ", ..."
			}
			return "", fmt.Errorf("%s %q is ambiguous: it matches %s%s; give more of the id", what, key, strings.Join(ids, ", "), more)
		}
	}
	return "", notFoundf("no %s with id or label %q in results store %s", what, key, s.location)
}

// LoadRun returns a run and its steps, with all their children, ordered by
// repeat then index. The error matches ErrNotFound for an unknown id.
func (s *Store) LoadRun(ctx context.Context, id string) (*Run, []Step, error) {
	r, err := scanRun(s.db.QueryRowContext(ctx, s.rebind("SELECT "+runColumns+" FROM runs WHERE id = ?"), id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil, notFoundf("no run %s in results store %s", id, s.location)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("load run %s: %w", id, err)
	}
	if err := s.db.QueryRowContext(ctx, s.rebind("SELECT repeat_end FROM runs WHERE id = ?"), id).Scan(&r.RepeatEnd); err != nil {
		return nil, nil, fmt.Errorf("load run %s: %w", id, err)
	}
	steps, err := s.loadSteps(ctx, id)
	if err != nil {
		return nil, nil, fmt.Errorf("load run %s: %w", id, err)
	}
	return &r, steps, nil
}

// SetRepeatEnd records how many repeats a --repeat auto run made and why
// it stopped there.
func (s *Store) SetRepeatEnd(ctx context.Context, id string, repeats int, how string) error {
	_, err := s.db.ExecContext(ctx, s.rebind("UPDATE runs SET repeats = ?, repeat_end = ? WHERE id = ?"), repeats, how, id)
	if err != nil {
		return fmt.Errorf("record the repeats of run %s: %w", id, err)
	}
	return nil
}

// DeleteRun deletes a run, its steps and all their children in one
// transaction. The error matches ErrNotFound for an unknown id.
func (s *Store) DeleteRun(ctx context.Context, id string) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	workers, err := s.workers(ctx, tx, id)
	if err != nil {
		return err
	}
	for _, q := range []string{"DELETE FROM run_workers WHERE run_id = ?", "DELETE FROM run_barriers WHERE run_id = ?"} {
		if _, err := tx.ExecContext(ctx, s.rebind(q), id); err != nil {
			return fmt.Errorf("delete run %s: %w", id, err)
		}
	}
	for _, w := range workers { // the workers' own runs go with the shared one
		if _, err := s.deleteRun(ctx, tx, w.WorkerRunID); err != nil {
			return err
		}
	}
	n, err := s.deleteRun(ctx, tx, id)
	if err != nil {
		return err
	}
	if n == 0 {
		return notFoundf("no run %s in results store %s", id, s.location)
	}
	return tx.Commit()
}

// deleteRun deletes one run and its steps in tx; it returns the runs deleted.
func (s *Store) deleteRun(ctx context.Context, tx *sql.Tx, id string) (int64, error) {
	for _, t := range childTables {
		if _, err := tx.ExecContext(ctx, s.rebind("DELETE FROM "+t+" WHERE step_id IN (SELECT id FROM steps WHERE run_id = ?)"), id); err != nil {
			return 0, fmt.Errorf("delete run %s: %w", id, err)
		}
	}
	if _, err := tx.ExecContext(ctx, s.rebind("DELETE FROM steps WHERE run_id = ?"), id); err != nil {
		return 0, fmt.Errorf("delete run %s: %w", id, err)
	}
	res, err := tx.ExecContext(ctx, s.rebind("DELETE FROM runs WHERE id = ?"), id)
	if err != nil {
		return 0, fmt.Errorf("delete run %s: %w", id, err)
	}
	return res.RowsAffected()
}

// AddProbe stores a probe result. It assigns ID when empty and CreatedAt
// (now) when zero. Result must be a JSON document.
func (s *Store) AddProbe(ctx context.Context, p *Probe) error {
	if p == nil {
		return errors.New("store: nil probe")
	}
	switch p.Kind {
	case ProbeStorage, ProbeCPU, ProbeBackup:
	default:
		return fmt.Errorf("store: unknown probe kind %q (want %s, %s or %s)", p.Kind, ProbeStorage, ProbeCPU, ProbeBackup)
	}
	if !json.Valid(p.Result) {
		return fmt.Errorf("store: probe result is not a JSON document")
	}
	if p.CreatedAt.IsZero() {
		p.CreatedAt = time.Now()
	}
	if p.ID == "" {
		p.ID = newID(p.CreatedAt)
	}
	_, err := s.db.ExecContext(ctx, s.rebind("INSERT INTO probes (id, kind, label, host, created_at_ns, result) VALUES (?, ?, ?, ?, ?, ?)"),
		p.ID, p.Kind, p.Label, p.Host, ns(p.CreatedAt), string(p.Result))
	if err != nil {
		return fmt.Errorf("store probe %s: %w", p.ID, err)
	}
	return nil
}

const probeColumns = "id, kind, label, host, created_at_ns, result"

func scanProbe(sc scanner) (Probe, error) {
	var p Probe
	var created int64
	var result string
	err := sc.Scan(&p.ID, &p.Kind, &p.Label, &p.Host, &created, &result)
	p.CreatedAt = fromNS(created)
	p.Result = []byte(result)
	return p, err
}

// ListProbes returns the probes of one kind ("" for all), newest first.
func (s *Store) ListProbes(ctx context.Context, kind string) ([]Probe, error) {
	q, args := "SELECT "+probeColumns+" FROM probes", []any{}
	if kind != "" {
		q += " WHERE kind = ?"
		args = append(args, kind)
	}
	rows, err := s.db.QueryContext(ctx, s.rebind(q+" ORDER BY created_at_ns DESC, id DESC"), args...)
	if err != nil {
		return nil, fmt.Errorf("list probes: %w", err)
	}
	return scanAll(rows, scanProbe)
}

// LoadProbe returns the probe with that id, else the latest with that
// label, else the only one whose id starts with it. The error matches
// ErrNotFound when there is none.
func (s *Store) LoadProbe(ctx context.Context, idOrLabel string) (*Probe, error) {
	id, err := s.resolve(ctx, "probes", "created_at_ns", "probe", idOrLabel)
	if err != nil {
		return nil, err
	}
	p, err := scanProbe(s.db.QueryRowContext(ctx, s.rebind("SELECT "+probeColumns+" FROM probes WHERE id = ?"), id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, notFoundf("no probe %s in results store %s", id, s.location)
	}
	if err != nil {
		return nil, fmt.Errorf("load probe %s: %w", id, err)
	}
	return &p, nil
}

// DeleteProbe deletes the probe with that id. The error matches
// ErrNotFound for an unknown id.
func (s *Store) DeleteProbe(ctx context.Context, id string) error {
	res, err := s.db.ExecContext(ctx, s.rebind("DELETE FROM probes WHERE id = ?"), id)
	if err != nil {
		return fmt.Errorf("delete probe %s: %w", id, err)
	}
	if n, err := res.RowsAffected(); err == nil && n == 0 {
		return notFoundf("no probe %s in results store %s", id, s.location)
	}
	return nil
}
