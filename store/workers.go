package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"hash/fnv"
	"time"
)

// Worker states in run_workers.
const (
	WorkerRegistered = "registered" // waiting for the start
	WorkerDone       = "done"       // measured every step
	WorkerPartial    = "partial"    // stopped early (Ctrl-C, server lost), what it measured is stored
	WorkerFailed     = "failed"     // ended with an error
	WorkerLost       = "lost"       // stopped sending heartbeats
	WorkerMissing    = "missing"    // never registered within the wait
)

// Worker is one worker of a multi-worker run: a process driving a share of
// the users, storing its steps in its own run (WorkerRunID) until they are
// merged into the shared run.
type Worker struct {
	RunID        string        `json:"-"`
	Worker       int           `json:"worker"`  // 0-based
	Workers      int           `json:"workers"` // how many take part
	WorkerRunID  string        `json:"worker_run_id,omitempty"`
	Status       string        `json:"status"`
	Host         string        `json:"host,omitempty"`
	Fingerprint  string        `json:"-"` // the settings all workers must share (JSON)
	RegisteredAt time.Time     `json:"registered_at"`
	Heartbeat    time.Time     `json:"heartbeat"`
	ClockOffset  time.Duration `json:"clock_offset_ns"` // worker clock minus the store server's
	StepSeq      int           `json:"-"`               // last step (over repeats) it is ready for or in
	DriverCPU    time.Duration `json:"driver_cpu_ns"`   // its CPU over the measured intervals
	Note         string        `json:"note,omitempty"`
}

// Terminal tells whether the worker will not write again.
func (w Worker) Terminal() bool { return w.Status != WorkerRegistered }

const workerColumns = `run_id, worker, workers, worker_run_id, status, host, fingerprint, registered_at_ns, heartbeat_ns,
clock_offset_ns, step_seq, driver_cpu_ns, note`

func scanWorker(sc scanner) (Worker, error) {
	var w Worker
	var reg, hb, off, cpu int64
	err := sc.Scan(&w.RunID, &w.Worker, &w.Workers, &w.WorkerRunID, &w.Status, &w.Host, &w.Fingerprint, &reg, &hb, &off, &w.StepSeq, &cpu, &w.Note)
	w.RegisteredAt, w.Heartbeat, w.ClockOffset, w.DriverCPU = fromNS(reg), fromNS(hb), time.Duration(off), time.Duration(cpu)
	return w, err
}

// ErrNeedsPostgres is returned by the worker methods on a SQLite store:
// workers on several machines meet in a shared PostgreSQL store.
var ErrNeedsPostgres = errors.New("workers meet in a shared PostgreSQL results store; give --store postgres://...")

// clockQuery reads the store server's clock, in Unix microseconds.
const clockQuery = "SELECT (EXTRACT(EPOCH FROM clock_timestamp()) * 1000000)::bigint"

// clockSamples is how many round trips ServerClock makes; the one with the
// shortest round trip gives the offset (its error is at most half of it).
const clockSamples = 7

// ServerClock reads the store server's clock and returns it with this
// machine's offset from it (local minus server, at the round trip's
// middle) and the round trip, from the shortest of a few round trips.
func (s *Store) ServerClock(ctx context.Context) (server time.Time, offset, rtt time.Duration, err error) {
	if s.dialect != dialectPostgres {
		return time.Time{}, 0, 0, ErrNeedsPostgres
	}
	conn, err := s.db.Conn(ctx) // one connection: no connection set-up inside a sample
	if err != nil {
		return time.Time{}, 0, 0, fmt.Errorf("read the results store's clock: %w", err)
	}
	defer conn.Close()
	for i := range clockSamples {
		t0 := time.Now()
		var us int64
		if err := conn.QueryRowContext(ctx, clockQuery).Scan(&us); err != nil {
			return time.Time{}, 0, 0, fmt.Errorf("read the results store's clock: %w", err)
		}
		d := time.Since(t0)
		if i == 0 || d < rtt {
			rtt, server = d, time.UnixMicro(us).UTC()
			offset = t0.Add(d / 2).Sub(server)
		}
	}
	return server, offset, rtt, nil
}

// WithRunLock runs fn in one transaction holding the run's advisory lock,
// with the server's clock read inside it: the meeting point of workers.
func (s *Store) WithRunLock(ctx context.Context, runID string, fn func(tx *RunTx) error) error {
	if s.dialect != dialectPostgres {
		return ErrNeedsPostgres
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	h := fnv.New64a()
	h.Write([]byte("rightsize-run:" + s.schema + ":" + runID))
	if _, err := tx.ExecContext(ctx, "SELECT pg_advisory_xact_lock($1)", int64(h.Sum64())); err != nil {
		return fmt.Errorf("lock run %s: %w", runID, err)
	}
	rt := &RunTx{s: s, tx: tx, ctx: ctx, runID: runID}
	var us int64
	if err := tx.QueryRowContext(ctx, clockQuery).Scan(&us); err != nil {
		return fmt.Errorf("read the results store's clock: %w", err)
	}
	rt.Now = time.UnixMicro(us).UTC()
	if err := fn(rt); err != nil {
		return err
	}
	return tx.Commit()
}

// RunTx is a transaction holding a run's lock (WithRunLock).
type RunTx struct {
	s     *Store
	tx    *sql.Tx
	ctx   context.Context
	runID string
	// Now is the store server's clock when the lock was taken.
	Now time.Time
}

// Run returns the run, nil when it does not exist yet.
func (t *RunTx) Run() (*Run, error) {
	r, err := scanRun(t.tx.QueryRowContext(t.ctx, "SELECT "+runColumns+" FROM runs WHERE id = $1", t.runID))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read run %s: %w", t.runID, err)
	}
	return &r, nil
}

// Workers returns the run's workers by number.
func (t *RunTx) Workers() ([]Worker, error) {
	return t.s.workers(t.ctx, t.tx, t.runID)
}

// AddWorker inserts a worker row.
func (t *RunTx) AddWorker(w Worker) error {
	_, err := t.tx.ExecContext(t.ctx, `INSERT INTO run_workers (`+workerColumns+`) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`,
		t.runID, w.Worker, w.Workers, w.WorkerRunID, w.Status, w.Host, w.Fingerprint, ns(w.RegisteredAt), ns(w.Heartbeat),
		int64(w.ClockOffset), w.StepSeq, int64(w.DriverCPU), w.Note)
	if err != nil {
		return fmt.Errorf("register worker %d of run %s: %w", w.Worker, t.runID, err)
	}
	return nil
}

// SetWorkerStatus sets a worker's status and note.
func (t *RunTx) SetWorkerStatus(worker int, status, note string) error {
	_, err := t.tx.ExecContext(t.ctx, "UPDATE run_workers SET status = $1, note = $2 WHERE run_id = $3 AND worker = $4", status, note, t.runID, worker)
	return err
}

// Barrier returns the agreed instant of step seq (zero when not agreed yet).
func (t *RunTx) Barrier(seq int) (time.Time, error) {
	var at int64
	err := t.tx.QueryRowContext(t.ctx, "SELECT at_ns FROM run_barriers WHERE run_id = $1 AND seq = $2", t.runID, seq).Scan(&at)
	if errors.Is(err, sql.ErrNoRows) {
		return time.Time{}, nil
	}
	return fromNS(at), err
}

// SetBarrier records the agreed instant of step seq.
func (t *RunTx) SetBarrier(seq int, at time.Time) error {
	_, err := t.tx.ExecContext(t.ctx, "INSERT INTO run_barriers (run_id, seq, at_ns, agreed_ns) VALUES ($1, $2, $3, $4)",
		t.runID, seq, ns(at), ns(t.Now))
	return err
}

// CreateRun creates the shared run inside the lock's transaction: it is
// committed with its first worker, so no one opening the store between
// the two sees a running run without workers, which a dead owner's would
// be (Store.Open marks those partial).
func (t *RunTx) CreateRun(r *Run) error { return t.s.createRun(t.ctx, t.tx, r) }

// Heartbeat records that a worker is alive and ready for (or in) step seq;
// the time is the store server's. cpu is its driver CPU so far.
func (s *Store) Heartbeat(ctx context.Context, runID string, worker, seq int, cpu time.Duration) error {
	_, err := s.db.ExecContext(ctx, `UPDATE run_workers SET heartbeat_ns = (EXTRACT(EPOCH FROM clock_timestamp()) * 1000000000)::bigint,
step_seq = GREATEST(step_seq, $1), driver_cpu_ns = GREATEST(driver_cpu_ns, $2) WHERE run_id = $3 AND worker = $4`, seq, int64(cpu), runID, worker)
	if err != nil {
		return fmt.Errorf("heartbeat of worker %d: %w", worker, err)
	}
	return nil
}

// SetWorkerStatus records a worker's final status (unless it was already
// declared lost), its note and its driver CPU.
func (s *Store) SetWorkerStatus(ctx context.Context, runID string, worker int, status, note string, cpu time.Duration) error {
	_, err := s.db.ExecContext(ctx, s.rebind("UPDATE run_workers SET status = ?, note = ?, driver_cpu_ns = ? WHERE run_id = ? AND worker = ? AND status <> ?"),
		status, note, int64(cpu), runID, worker, WorkerLost)
	return err
}

// Workers returns a run's workers by number (none for a single-process run).
func (s *Store) Workers(ctx context.Context, runID string) ([]Worker, error) {
	return s.workers(ctx, s.db, runID)
}

type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

func (s *Store) workers(ctx context.Context, q querier, runID string) ([]Worker, error) {
	rows, err := q.QueryContext(ctx, s.rebind("SELECT "+workerColumns+" FROM run_workers WHERE run_id = ? ORDER BY worker"), runID)
	if err != nil {
		return nil, fmt.Errorf("read the workers of run %s: %w", runID, err)
	}
	out, err := scanAll(rows, scanWorker)
	if err != nil {
		return nil, fmt.Errorf("read the workers of run %s: %w", runID, err)
	}
	return out, nil
}

// Barriers returns the agreed start instants of a run's steps by sequence
// number, with when each was agreed (both on the store server's clock).
func (s *Store) Barriers(ctx context.Context, runID string) (at, agreed []time.Time, err error) {
	rows, err := s.db.QueryContext(ctx, s.rebind("SELECT at_ns, agreed_ns FROM run_barriers WHERE run_id = ? ORDER BY seq"), runID)
	if err != nil {
		return nil, nil, fmt.Errorf("read the step barriers of run %s: %w", runID, err)
	}
	defer rows.Close()
	for rows.Next() {
		var a, g int64
		if err := rows.Scan(&a, &g); err != nil {
			return nil, nil, err
		}
		at, agreed = append(at, fromNS(a)), append(agreed, fromNS(g))
	}
	return at, agreed, rows.Err()
}

// Finish sets the shared run's final status, note and end time.
func (t *RunTx) Finish(status, note string, ended time.Time) error {
	if err := checkStatus(status, false); err != nil {
		return err
	}
	_, err := t.tx.ExecContext(t.ctx, "UPDATE runs SET status = $1, note = $2, ended_at_ns = $3 WHERE id = $4", status, note, ns(ended), t.runID)
	if err != nil {
		return fmt.Errorf("finish run %s: %w", t.runID, err)
	}
	return nil
}

// AddStep stores a merged step of the shared run (in its own transaction).
func (t *RunTx) AddStep(st *Step) error { return t.s.AddStep(t.ctx, st) }
