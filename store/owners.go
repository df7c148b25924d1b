package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/rightsize/rightsize/internal/procid"
)

// Orphan is a run or sweep that a process left running when it died
// (killed with SIGKILL, say): Open marks it partial, as Ctrl-C would have,
// keeping what was stored.
type Orphan struct {
	// Kind is "run", or the sweep's kind (memory, cpus, fit, neighbour ...).
	Kind  string
	ID    string
	Label string
	// Steps is how many steps a run had stored.
	Steps int
	// Owner is the process that was measuring it.
	Owner procid.ID
}

// Recovered lists the runs and sweeps of dead processes this Open marked
// partial (another process opening the store at the same time may have
// marked some of them: each is reported once).
func (s *Store) Recovered() []Orphan { return s.recovered }

// setOwner records the running process as the owner of a running run or
// sweep (table runs or sweeps), so that a later Open can tell it died.
func (s *Store) setOwner(ctx context.Context, db execer, table, id, status string) error {
	if status != StatusRunning {
		return nil
	}
	if _, err := db.ExecContext(ctx, s.rebind("UPDATE "+table+" SET owner_process = ? WHERE id = ?"), procid.Self().String(), id); err != nil {
		return fmt.Errorf("store the owner of %s: %w", id, err)
	}
	return nil
}

// recoverOrphans marks partial the runs, then the sweeps, left running by
// a process of this host that is gone. Runs of several workers are left
// to their own heartbeats (package worker).
func (s *Store) recoverOrphans(ctx context.Context) ([]Orphan, error) {
	runs, err := s.orphans(ctx, `SELECT id, label, 'run', owner_process FROM runs r WHERE status = 'running' AND owner_process <> ''
AND NOT EXISTS (SELECT 1 FROM run_workers w WHERE w.run_id = r.id) ORDER BY started_at_ns, id`)
	if err != nil {
		return nil, err
	}
	sweeps, err := s.orphans(ctx, `SELECT id, label, kind, owner_process FROM sweeps WHERE status = 'running' AND owner_process <> '' ORDER BY started_at_ns, id`)
	if err != nil {
		return nil, err
	}
	var out []Orphan
	for _, o := range runs {
		ok, err := s.interruptRun(ctx, &o)
		if err != nil {
			return nil, err
		}
		if ok {
			out = append(out, o)
		}
	}
	for _, o := range sweeps {
		ok, err := s.interrupt(ctx, "sweeps", o.ID, `SELECT MAX(r.ended_at_ns) FROM sweep_runs p JOIN runs r ON r.id = p.run_id WHERE p.sweep_id = ?`)
		if err != nil {
			return nil, err
		}
		if ok {
			out = append(out, o)
		}
	}
	return out, nil
}

// orphans runs query (id, label, kind, owner of running rows) and keeps
// the rows whose owner is gone.
func (s *Store) orphans(ctx context.Context, query string) ([]Orphan, error) {
	rows, err := s.db.QueryContext(ctx, query)
	if err != nil {
		return nil, fmt.Errorf("find what dead processes left running: %w", err)
	}
	defer rows.Close()
	var out []Orphan
	for rows.Next() {
		var o Orphan
		var owner string
		if err := rows.Scan(&o.ID, &o.Label, &o.Kind, &owner); err != nil {
			return nil, fmt.Errorf("find what dead processes left running: %w", err)
		}
		if id, ok := procid.Parse(owner); ok && id.Gone() {
			o.Owner = id
			out = append(out, o)
		}
	}
	return out, rows.Err()
}

// interruptRun marks the run partial, ended with its last stored step,
// and counts its steps.
func (s *Store) interruptRun(ctx context.Context, o *Orphan) (bool, error) {
	if err := s.db.QueryRowContext(ctx, s.rebind("SELECT COUNT(*) FROM steps WHERE run_id = ?"), o.ID).Scan(&o.Steps); err != nil {
		return false, fmt.Errorf("count the steps of run %s: %w", o.ID, err)
	}
	return s.interrupt(ctx, "runs", o.ID, "SELECT MAX(measure_end_ns) FROM steps WHERE run_id = ?")
}

// interrupt sets the status of row id of table (runs or sweeps) from
// running to partial, its end time to what lastEnd finds (else its start);
// false when another process did it first.
func (s *Store) interrupt(ctx context.Context, table, id, lastEnd string) (bool, error) {
	var end sql.NullInt64
	if err := s.db.QueryRowContext(ctx, s.rebind(lastEnd), id).Scan(&end); err != nil {
		return false, fmt.Errorf("interrupt %s: %w", id, err)
	}
	if !end.Valid {
		if err := s.db.QueryRowContext(ctx, s.rebind("SELECT started_at_ns FROM "+table+" WHERE id = ?"), id).Scan(&end); err != nil {
			return false, fmt.Errorf("interrupt %s: %w", id, err)
		}
	}
	if end.Int64 == 0 {
		end.Int64 = ns(time.Now())
	}
	res, err := s.db.ExecContext(ctx, s.rebind("UPDATE "+table+" SET status = ?, ended_at_ns = ? WHERE id = ? AND status = ?"),
		StatusPartial, end.Int64, id, StatusRunning)
	if err != nil {
		return false, fmt.Errorf("interrupt %s: %w", id, err)
	}
	n, err := res.RowsAffected()
	return n == 1, err
}
