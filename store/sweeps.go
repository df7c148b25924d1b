package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// Sweep groups the runs of one configuration sweep: the same workload
// measured once per value of one changed setting (memory, cpus, io,
// version).
type Sweep struct {
	ID     string   `json:"id"`
	Label  string   `json:"label,omitempty"`
	Kind   string   `json:"kind"`   // "memory", "cpus", "io", "version"
	Values []string `json:"values"` // in the order they are measured
	// Status is StatusRunning, StatusComplete, StatusPartial (interrupted:
	// --resume continues it) or StatusFailed.
	Status string `json:"status"`
	// Spec is what the sweep needs to resume (flags, threshold ...), as
	// the sweep's owner encodes it.
	Spec      map[string]string `json:"spec,omitempty"`
	StartedAt time.Time         `json:"started_at"`
	EndedAt   time.Time         `json:"ended_at,omitzero"`
	Points    []SweepPoint      `json:"points"`
}

// SweepPoint is one value of a sweep and what became of it.
type SweepPoint struct {
	Position int    `json:"position"` // index into Sweep.Values
	Value    string `json:"value"`
	RunID    string `json:"run_id,omitempty"` // empty when no run could start
	Status   string `json:"status"`           // the run's status, or StatusFailed
	Reason   string `json:"reason,omitempty"` // why it failed
}

// CreateSweep stores a new sweep (ID and StartedAt are filled if empty).
func (s *Store) CreateSweep(ctx context.Context, sw *Sweep) error {
	if sw.StartedAt.IsZero() {
		sw.StartedAt = time.Now().UTC()
	}
	if sw.ID == "" {
		sw.ID = newID(sw.StartedAt)
	}
	if sw.Status == "" {
		sw.Status = StatusRunning
	}
	if sw.Kind == "" || len(sw.Values) == 0 {
		return errors.New("store: a sweep needs a kind and values")
	}
	vals, _ := json.Marshal(sw.Values)
	spec, _ := json.Marshal(orEmptyMap(sw.Spec))
	_, err := s.db.ExecContext(ctx, s.rebind(`INSERT INTO sweeps (id, label, kind, vals, status, spec, started_at_ns, ended_at_ns)
VALUES (?, ?, ?, ?, ?, ?, ?, ?)`), sw.ID, sw.Label, sw.Kind, string(vals), sw.Status, string(spec), ns(sw.StartedAt), nullNS(sw.EndedAt))
	if err != nil {
		return fmt.Errorf("store sweep %s: %w", sw.ID, err)
	}
	return s.setOwner(ctx, s.db, "sweeps", sw.ID, sw.Status)
}

// SetSweepPoint records (or replaces, on resume) the outcome of one value.
func (s *Store) SetSweepPoint(ctx context.Context, sweepID string, p SweepPoint) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, s.rebind("DELETE FROM sweep_runs WHERE sweep_id = ? AND position = ?"), sweepID, p.Position); err != nil {
		return fmt.Errorf("store sweep %s value %s: %w", sweepID, p.Value, err)
	}
	run := sql.NullString{String: p.RunID, Valid: p.RunID != ""}
	if _, err := tx.ExecContext(ctx, s.rebind("INSERT INTO sweep_runs (sweep_id, position, value, run_id, status, reason) VALUES (?, ?, ?, ?, ?, ?)"),
		sweepID, p.Position, p.Value, run, p.Status, p.Reason); err != nil {
		return fmt.Errorf("store sweep %s value %s: %w", sweepID, p.Value, err)
	}
	return tx.Commit()
}

// FinishSweep sets a sweep's final status and end time.
func (s *Store) FinishSweep(ctx context.Context, id, status string, ended time.Time) error {
	res, err := s.db.ExecContext(ctx, s.rebind("UPDATE sweeps SET status = ?, ended_at_ns = ? WHERE id = ?"), status, ns(ended), id)
	if err != nil {
		return fmt.Errorf("finish sweep %s: %w", id, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return notFoundf("no sweep %s in results store %s", id, s.location)
	}
	return nil
}

// LoadSweep reads a sweep by id, id prefix or label, with its points in
// value order.
func (s *Store) LoadSweep(ctx context.Context, idOrLabel string) (*Sweep, error) {
	id, err := s.resolve(ctx, "sweeps", "started_at_ns", "sweep", idOrLabel)
	if err != nil {
		return nil, err
	}
	sw := &Sweep{ID: id}
	var vals, spec string
	var started int64
	var ended sql.NullInt64
	err = s.db.QueryRowContext(ctx, s.rebind("SELECT label, kind, vals, status, spec, started_at_ns, ended_at_ns FROM sweeps WHERE id = ?"), id).
		Scan(&sw.Label, &sw.Kind, &vals, &sw.Status, &spec, &started, &ended)
	if err != nil {
		return nil, fmt.Errorf("load sweep %s: %w", id, err)
	}
	if err := json.Unmarshal([]byte(vals), &sw.Values); err != nil {
		return nil, fmt.Errorf("load sweep %s: values: %w", id, err)
	}
	if err := json.Unmarshal([]byte(spec), &sw.Spec); err != nil {
		return nil, fmt.Errorf("load sweep %s: spec: %w", id, err)
	}
	sw.StartedAt, sw.EndedAt = fromNS(started), fromNS(ended.Int64)
	rows, err := s.db.QueryContext(ctx, s.rebind("SELECT position, value, run_id, status, reason FROM sweep_runs WHERE sweep_id = ? ORDER BY position"), id)
	if err != nil {
		return nil, fmt.Errorf("load sweep %s points: %w", id, err)
	}
	sw.Points, err = scanAll(rows, func(sc scanner) (SweepPoint, error) {
		var p SweepPoint
		var run sql.NullString
		err := sc.Scan(&p.Position, &p.Value, &run, &p.Status, &p.Reason)
		p.RunID = run.String
		return p, err
	})
	if err != nil {
		return nil, err
	}
	return sw, nil
}
