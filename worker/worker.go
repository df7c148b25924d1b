// Package worker lets N rightsize processes (run --worker i/n) measure one
// run together. They meet in the shared PostgreSQL results store, which is
// the only thing they have in common: each registers (its clock offset
// against the store server checked, its settings compared with the
// others'), every step starts for all at one instant agreed in the store
// (after the last worker is ready, or after the wait, naming the missing),
// a worker that stops sending heartbeats is recorded as lost, and the last
// worker to finish merges everyone's steps into the shared run
// (analysis.MergeWorkerSteps). No other protocol, no other port.
package worker

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/rightsize/rightsize/analysis"
	"github.com/rightsize/rightsize/store"
	"github.com/rightsize/rightsize/validity"
)

// Defaults of Config.
const (
	DefaultWait      = time.Minute
	MaxClockOffset   = 100 * time.Millisecond
	defaultLead      = time.Second
	defaultPoll      = 100 * time.Millisecond
	defaultHeartbeat = time.Second
	defaultStale     = 5 * time.Second
)

// Config describes one worker.
type Config struct {
	RunID           string
	Worker, Workers int // 0-based number, count
	// Wait bounds how long the first registered worker waits for the
	// others before the run starts without them (DefaultWait).
	Wait time.Duration
	// Settings must be equal in every worker (flags, build); a worker whose
	// settings differ from the first one's is refused, naming the difference.
	Settings map[string]string
	Host     string
	// Lead is how far after agreement a step starts (time for every worker
	// to read the agreed instant); Poll how often the store is read;
	// Stale how long without a heartbeat makes a worker lost.
	Lead, Poll, Heartbeat, Stale time.Duration
}

// ErrRefused marks a worker that may not join (bad input: exit code 2).
var ErrRefused = errors.New("worker refused")

type refused struct{ msg string }

func (r refused) Error() string        { return r.msg }
func (r refused) Is(target error) bool { return target == ErrRefused }

func refuse(format string, a ...any) error { return refused{fmt.Sprintf(format, a...)} }

// Name is "i/n", the worker as users give it.
func (c Config) Name() string { return fmt.Sprintf("%d/%d", c.Worker, c.Workers) }

// RunID returns the shared run id for a label and the settings every
// worker shares: the label (or "workers") and a hash of the settings.
func RunID(label string, settings map[string]string) string {
	keys := make([]string, 0, len(settings))
	for k := range settings {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	h := fnv.New32a()
	for _, k := range keys {
		h.Write([]byte(k + "=" + settings[k] + "\n"))
	}
	name := strings.Map(func(r rune) rune {
		if r == ' ' || r == '/' || r == '\\' || r == '\t' || r == '\n' {
			return '-'
		}
		return r
	}, label)
	if name == "" {
		name = "workers"
	}
	return fmt.Sprintf("%s-%08x", name, h.Sum32())
}

// Meeting is one worker's membership of a shared run.
type Meeting struct {
	st     *store.Store
	cfg    Config
	offset time.Duration // local minus store server clock

	mu  sync.Mutex
	seq int // the step it is ready for or in

	stopBeat context.CancelFunc
	beatDone chan struct{}
}

// New returns the meeting of one worker (nothing is written before Join).
func New(st *store.Store, cfg Config) (*Meeting, error) {
	if cfg.Workers < 1 || cfg.Worker < 0 || cfg.Worker >= cfg.Workers {
		return nil, refuse("--worker %d/%d: the worker number must be 0..%d", cfg.Worker, cfg.Workers, cfg.Workers-1)
	}
	if !store.IsPostgres(st.Location()) {
		return nil, refuse("--worker needs a shared PostgreSQL results store (--store postgres://...): the workers meet there")
	}
	if cfg.RunID == "" {
		return nil, refuse("--worker: give --run-id or --label so every worker names the same run")
	}
	for _, d := range []struct {
		p   *time.Duration
		def time.Duration
	}{{&cfg.Wait, DefaultWait}, {&cfg.Lead, defaultLead}, {&cfg.Poll, defaultPoll}, {&cfg.Heartbeat, defaultHeartbeat}, {&cfg.Stale, defaultStale}} {
		if *d.p <= 0 {
			*d.p = d.def
		}
	}
	return &Meeting{st: st, cfg: cfg, seq: -1}, nil
}

// ClockOffset is this machine's clock minus the store server's, measured at Join.
func (m *Meeting) ClockOffset() time.Duration { return m.offset }

// RunID is the shared run's id.
func (m *Meeting) RunID() string { return m.cfg.RunID }

// WorkerRunID is the id of this worker's own run.
func (m *Meeting) WorkerRunID() string { return fmt.Sprintf("%s-w%d", m.cfg.RunID, m.cfg.Worker) }

// Join checks the clock, creates the shared run when it is the first
// (shared.ID is set to the run id) and registers this worker. Every error
// is one line; refusals match ErrRefused.
func (m *Meeting) Join(ctx context.Context, shared *store.Run) error {
	_, off, _, err := m.st.ServerClock(ctx)
	if err != nil {
		return refuse("worker %s: the results store is unreachable: %v", m.cfg.Name(), err)
	}
	if off > MaxClockOffset || off < -MaxClockOffset {
		return refuse("worker %s: this machine's clock is %s off the results store server's (more than %s): steps would not start together; synchronise the clocks (chrony, ntp)",
			m.cfg.Name(), off.Round(time.Millisecond), MaxClockOffset)
	}
	m.offset = off
	settings := fingerprint(m.cfg.Settings)
	shared.ID = m.cfg.RunID
	err = m.st.WithRunLock(ctx, m.cfg.RunID, func(tx *store.RunTx) error {
		run, err := tx.Run()
		if err != nil {
			return err
		}
		if run == nil {
			shared.Status, shared.StartedAt = store.StatusRunning, tx.Now
			if err := tx.CreateRun(shared); err != nil {
				return err
			}
		} else if run.Status != store.StatusRunning {
			return refuse("run %s already ended (%s); give another --run-id (or --label)", m.cfg.RunID, run.Status)
		}
		workers, err := tx.Workers()
		if err != nil {
			return err
		}
		if err := m.check(workers, settings); err != nil {
			return err
		}
		return tx.AddWorker(store.Worker{Worker: m.cfg.Worker, Workers: m.cfg.Workers, WorkerRunID: m.WorkerRunID(), Status: store.WorkerRegistered,
			Host: m.cfg.Host, Fingerprint: settings, RegisteredAt: tx.Now, Heartbeat: tx.Now, ClockOffset: off, StepSeq: -1})
	})
	if err != nil {
		if errors.Is(err, ErrRefused) {
			return err
		}
		return refuse("worker %s: register in the results store: %v", m.cfg.Name(), err)
	}
	beatCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	m.stopBeat, m.beatDone = cancel, make(chan struct{})
	go m.beat(beatCtx)
	return nil
}

// check refuses a worker whose number is taken, whose count differs, or
// whose settings differ from the first registered worker's.
func (m *Meeting) check(workers []store.Worker, settings string) error {
	for _, w := range workers {
		if w.Worker == m.cfg.Worker {
			if w.Status == store.WorkerMissing {
				return refuse("worker %s arrived after run %s started without it (--worker-wait)", m.cfg.Name(), m.cfg.RunID)
			}
			return refuse("worker %s is already registered in run %s (status %s); give each worker its own number", m.cfg.Name(), m.cfg.RunID, w.Status)
		}
		if w.Workers != m.cfg.Workers {
			return refuse("worker %s was started with %d workers, worker %d/%d with %d; start every worker with the same --worker i/N",
				m.cfg.Name(), m.cfg.Workers, w.Worker, w.Workers, w.Workers)
		}
	}
	for _, w := range workers {
		if w.Status == store.WorkerMissing {
			continue
		}
		if diff := difference(settings, w.Fingerprint); diff != "" {
			return refuse("worker %s differs from worker %d/%d: %s; start every worker with the same flags and build", m.cfg.Name(), w.Worker, w.Workers, diff)
		}
		break
	}
	return nil
}

// beat sends a heartbeat every Heartbeat until stopped.
func (m *Meeting) beat(ctx context.Context) {
	defer close(m.beatDone)
	t := time.NewTicker(m.cfg.Heartbeat)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			m.mu.Lock()
			seq := m.seq
			m.mu.Unlock()
			_ = m.st.Heartbeat(ctx, m.cfg.RunID, m.cfg.Worker, seq, 0)
		}
	}
}

// StepStart announces that this worker is ready for step seq (0-based over
// repeats and steps) and returns the agreed local instant it starts at.
func (m *Meeting) StepStart(ctx context.Context, seq int) (time.Time, error) {
	m.mu.Lock()
	m.seq = seq
	m.mu.Unlock()
	if err := m.st.Heartbeat(ctx, m.cfg.RunID, m.cfg.Worker, seq, 0); err != nil {
		return time.Time{}, err
	}
	t := time.NewTicker(m.cfg.Poll)
	defer t.Stop()
	for {
		var at time.Time
		err := m.st.WithRunLock(ctx, m.cfg.RunID, func(tx *store.RunTx) error {
			var err error
			if at, err = tx.Barrier(seq); err != nil || !at.IsZero() {
				return err
			}
			at, err = m.agree(tx, seq)
			return err
		})
		if err != nil {
			return time.Time{}, err
		}
		if !at.IsZero() {
			return at.Add(m.offset), nil
		}
		select {
		case <-ctx.Done():
			return time.Time{}, ctx.Err()
		case <-t.C:
		}
	}
}

// agree decides, holding the run's lock, whether step seq can start: every
// live worker ready (and, for the first step, every worker registered or
// the wait over). It marks silent workers lost and, at the first step after
// the wait, absent ones missing. It returns the zero time when not yet.
func (m *Meeting) agree(tx *store.RunTx, seq int) (time.Time, error) {
	workers, err := m.markLost(tx)
	if err != nil {
		return time.Time{}, err
	}
	present := map[int]bool{}
	first := tx.Now
	for _, w := range workers {
		if w.Worker == m.cfg.Worker && w.Status == store.WorkerLost {
			return time.Time{}, fmt.Errorf("worker %s was declared lost by the others (no heartbeat for %s)", m.cfg.Name(), m.cfg.Stale)
		}
		present[w.Worker] = true
		if w.RegisteredAt.Before(first) {
			first = w.RegisteredAt
		}
		if w.Status == store.WorkerRegistered && w.StepSeq < seq {
			return time.Time{}, nil // a live worker is not ready yet
		}
	}
	if seq == 0 && len(present) < m.cfg.Workers {
		if tx.Now.Sub(first) < m.cfg.Wait {
			return time.Time{}, nil
		}
		for i := range m.cfg.Workers {
			if !present[i] {
				if err := tx.AddWorker(store.Worker{Worker: i, Workers: m.cfg.Workers, Status: store.WorkerMissing, RegisteredAt: tx.Now, Heartbeat: tx.Now,
					StepSeq: -1, Note: fmt.Sprintf("not registered within --worker-wait %s", m.cfg.Wait)}); err != nil {
					return time.Time{}, err
				}
			}
		}
	}
	at := tx.Now.Add(m.cfg.Lead)
	return at, tx.SetBarrier(seq, at)
}

// markLost records as lost the live workers whose last heartbeat is older
// than Stale, and returns the workers as they now are.
func (m *Meeting) markLost(tx *store.RunTx) ([]store.Worker, error) {
	workers, err := tx.Workers()
	if err != nil {
		return nil, err
	}
	for i, w := range workers {
		if w.Status == store.WorkerRegistered && tx.Now.Sub(w.Heartbeat) > m.cfg.Stale {
			note := fmt.Sprintf("no heartbeat since %s (in step %d)", w.Heartbeat.Format(time.RFC3339), w.StepSeq+1)
			if err := tx.SetWorkerStatus(w.Worker, store.WorkerLost, note); err != nil {
				return nil, err
			}
			workers[i].Status, workers[i].Note = store.WorkerLost, note
		}
	}
	return workers, nil
}

// Finish records this worker's end (status is a store.Worker* state) and,
// when every worker has ended, merges their steps into the shared run and
// finishes it. It waits for the others only when this worker completed
// (they end together then). It returns whether the shared run is finished.
func (m *Meeting) Finish(ctx context.Context, status, note string, driverCPU time.Duration) (bool, error) {
	if m.stopBeat != nil {
		m.stopBeat()
		<-m.beatDone
	}
	if err := m.st.SetWorkerStatus(ctx, m.cfg.RunID, m.cfg.Worker, status, note, driverCPU); err != nil {
		return false, fmt.Errorf("record the end of worker %s: %w", m.cfg.Name(), err)
	}
	t := time.NewTicker(m.cfg.Poll)
	defer t.Stop()
	for {
		finished := false
		err := m.st.WithRunLock(ctx, m.cfg.RunID, func(tx *store.RunTx) error {
			run, err := tx.Run()
			if err != nil || run == nil {
				return err
			}
			if run.Status != store.StatusRunning {
				finished = true
				return nil
			}
			workers, err := m.markLost(tx)
			if err != nil {
				return err
			}
			for _, w := range workers {
				if !w.Terminal() {
					return nil
				}
			}
			finished = true
			return m.merge(ctx, tx, workers)
		})
		if err != nil || finished || status != store.WorkerDone {
			return finished, err
		}
		select {
		case <-ctx.Done():
			return false, ctx.Err()
		case <-t.C:
		}
	}
}

// merge stores the merged steps and finishes the shared run.
func (m *Meeting) merge(ctx context.Context, tx *store.RunTx, workers []store.Worker) error {
	type key struct{ repeat, index int }
	parts := map[key][]*store.Step{}
	var keys []key
	took := 0 // workers that took part (registered in time)
	var notes []string
	var judged *store.Run // a worker's run: what the merged steps' validity is judged by
	complete := true
	for _, w := range workers {
		if w.Status != store.WorkerDone {
			complete = false
			notes = append(notes, fmt.Sprintf("worker %d/%d %s", w.Worker, w.Workers, strings.TrimSpace(w.Status+" "+w.Note)))
		}
		if w.Status == store.WorkerMissing {
			continue
		}
		took++
		wrun, steps, err := m.st.LoadRun(ctx, w.WorkerRunID)
		if err != nil {
			if errors.Is(err, store.ErrNotFound) {
				continue
			}
			return err
		}
		if judged == nil {
			judged = wrun // the workers share warehouses, isolation and keying
		}
		for i := range steps {
			k := key{steps[i].Repeat, steps[i].Index}
			if _, ok := parts[k]; !ok {
				keys = append(keys, k)
			}
			parts[k] = append(parts[k], &steps[i])
		}
	}
	sort.Slice(keys, func(i, j int) bool {
		return keys[i].repeat < keys[j].repeat || keys[i].repeat == keys[j].repeat && keys[i].index < keys[j].index
	})
	for _, k := range keys {
		merged := analysis.MergeWorkerSteps(m.cfg.RunID, parts[k])
		if len(parts[k]) < took {
			merged.Partial = true
		}
		if judged != nil && !isWorkload(judged) { // TPC-C's verdict only
			v := validity.Step(judged, &merged)
			merged.Validity = &v
		}
		complete = complete && !merged.Partial
		if err := tx.AddStep(&merged); err != nil {
			return err
		}
	}
	status := store.StatusComplete
	if !complete || len(keys) == 0 {
		status = store.StatusPartial
	}
	return tx.Finish(status, strings.Join(notes, "; "), tx.Now)
}

// isWorkload says whether run measured a workload other than TPC-C,
// which has no validity verdict.
func isWorkload(run *store.Run) bool {
	name, _ := run.Workload()
	return name != ""
}

// fingerprint encodes settings in a stable form for comparison.
func fingerprint(settings map[string]string) string {
	keys := make([]string, 0, len(settings))
	for k := range settings {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, "%s=%s\n", k, settings[k])
	}
	return b.String()
}

// difference names the first setting that differs between two fingerprints.
func difference(a, b string) string {
	parse := func(s string) map[string]string {
		m := map[string]string{}
		for _, line := range strings.Split(s, "\n") {
			if k, v, ok := strings.Cut(line, "="); ok {
				m[k] = v
			}
		}
		return m
	}
	ma, mb := parse(a), parse(b)
	keys := make([]string, 0, len(ma)+len(mb))
	for k := range ma {
		keys = append(keys, k)
	}
	for k := range mb {
		if _, ok := ma[k]; !ok {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		if ma[k] != mb[k] {
			return fmt.Sprintf("%s is %q here, %q there", k, ma[k], mb[k])
		}
	}
	return ""
}
