package mysql

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/rightsize/rightsize/engine"
	"github.com/rightsize/rightsize/waits"
)

// Wait profile (waits.Source), on one extra connection that is not a
// virtual user's. Every interval it samples the sessions of the benchmark
// database in information_schema.PROCESSLIST (their thread state) joined to
// INNODB_TRX (a transaction in LOCK WAIT waits for a row lock): the profile's
// events, which need no performance_schema. When measuring starts and ends
// it reads the deltas of performance_schema's
// events_waits_summary_global_by_event_name (server-wide: the time and count
// of every instrumented wait) and of InnoDB's status counters (row lock
// waits and time, log waits, buffer pool free waits, fsyncs): the profile's
// timed events. With performance_schema off, or no wait instrument enabled,
// the profile says so and its timed events come from the counters alone.

var _ waits.Source = (*DB)(nil)

// statusNames are the InnoDB status counters of the profile.
var statusNames = []string{"Innodb_row_lock_waits", "Innodb_row_lock_time", "Innodb_log_waits", "Innodb_buffer_pool_wait_free",
	"Innodb_os_log_fsyncs", "Innodb_data_fsyncs", "Innodb_log_write_requests", "Innodb_log_writes", "Innodb_data_reads",
	"Innodb_data_writes", "Innodb_deadlocks"}

// WaitSampler implements waits.Source.
func (db *DB) WaitSampler(ctx context.Context, interval time.Duration) (waits.Sampler, error) {
	c, err := mysql.NewConnector(db.cfg.Clone())
	if err != nil {
		return nil, fmt.Errorf("wait sampler: %w", err)
	}
	conn := sql.OpenDB(c)
	conn.SetMaxOpenConns(1)
	s := &myWaits{db: conn, interval: interval, samples: map[[2]string]float64{}}
	if err := s.probe(ctx); err != nil {
		conn.Close()
		return nil, err
	}
	return s, nil
}

type myWaits struct {
	db       *sql.DB
	interval time.Duration
	samples  map[[2]string]float64 // class, state → samples
	pfs      bool                  // performance_schema readable with wait instruments on
	missing  []string
	events   map[string][2]float64 // at Start: count, picoseconds
	status   map[string]float64    // at Start
}

// probe decides whether performance_schema can be used.
func (s *myWaits) probe(ctx context.Context) error {
	var on sql.NullString
	if err := s.db.QueryRowContext(ctx, "SELECT @@performance_schema").Scan(&on); err != nil {
		return fmt.Errorf("wait sampler: read @@performance_schema: %w", err)
	}
	if on.String != "1" && !strings.EqualFold(on.String, "ON") {
		s.missing = append(s.missing, "performance_schema is off (start the server with performance_schema=ON): InnoDB status counters only")
		return nil
	}
	var n int
	err := s.db.QueryRowContext(ctx, "SELECT COUNT(*) FROM performance_schema.setup_instruments WHERE NAME LIKE 'wait/%' AND ENABLED = 'YES' AND TIMED = 'YES'").Scan(&n)
	switch {
	case err != nil:
		s.missing = append(s.missing, "performance_schema: "+err.Error()+": InnoDB status counters only")
	case n == 0:
		s.missing = append(s.missing, "performance_schema has no timed wait instrument enabled (UPDATE performance_schema.setup_instruments SET ENABLED = 'YES', TIMED = 'YES' WHERE NAME LIKE 'wait/%'): InnoDB status counters only")
	default:
		s.pfs = true
	}
	return nil
}

// Start implements waits.Sampler.
func (s *myWaits) Start(ctx context.Context) error {
	var err error
	if s.status, err = s.readStatus(ctx); err != nil {
		return err
	}
	if s.pfs {
		if s.events, err = s.readEvents(ctx); err != nil {
			s.missing = append(s.missing, "performance_schema: "+err.Error())
			s.pfs = false
		}
	}
	return nil
}

// Sample implements waits.Sampler.
func (s *myWaits) Sample(ctx context.Context) error {
	rows, err := s.db.QueryContext(ctx, `SELECT COALESCE(p.STATE, ''), COALESCE(t.trx_state, '') = 'LOCK WAIT', COUNT(*)
FROM information_schema.PROCESSLIST p LEFT JOIN information_schema.INNODB_TRX t ON t.trx_mysql_thread_id = p.ID
WHERE p.DB = DATABASE() AND p.COMMAND NOT IN ('Sleep', 'Daemon') AND p.ID <> CONNECTION_ID()
GROUP BY 1, 2`)
	if err != nil {
		return fmt.Errorf("sample the processlist: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var state string
		var lockWait bool
		var n float64
		if err := rows.Scan(&state, &lockWait, &n); err != nil {
			return err
		}
		c, name := stateClass(state, lockWait)
		s.samples[[2]string{string(c), name}] += n
	}
	return rows.Err()
}

// stateClass folds a session's thread state into a wait class: a row lock
// wait (its transaction in LOCK WAIT) is Lock whatever the state; a commit
// waits for the redo log flush, and so does "Starting cleanup", where a
// stored procedure's commits are made durable at the end of the CALL
// (measured on MariaDB 10.11, 8 users on 1 warehouse: 85 samples in that
// state with innodb_flush_log_at_trx_commit=1, 11 with 2, under the same
// load); table and metadata locks are Lock; network states are Client;
// every other state is work on a CPU.
func stateClass(state string, lockWait bool) (waits.Class, string) {
	if lockWait {
		return waits.Lock, "innodb row lock wait"
	}
	name := "state:" + state
	if state == "" {
		name = "state:(none)"
	}
	s := strings.ToLower(state)
	switch {
	case s == "commit" || s == "starting cleanup" || strings.HasPrefix(s, "committing") || strings.Contains(s, "prior transaction to commit"):
		return waits.Log, name
	case strings.Contains(s, "lock") && (strings.HasPrefix(s, "waiting") || s == "locked" || s == "system lock" || s == "table lock"):
		return waits.Lock, name
	case strings.Contains(s, "net") || strings.Contains(s, "to client"):
		return waits.Client, name
	}
	return waits.CPU, name
}

func (s *myWaits) readStatus(ctx context.Context) (map[string]float64, error) {
	rows, err := s.db.QueryContext(ctx, "SHOW GLOBAL STATUS WHERE Variable_name IN ('"+strings.Join(statusNames, "','")+"')")
	if err != nil {
		return nil, fmt.Errorf("read InnoDB status: %w", err)
	}
	defer rows.Close()
	m := map[string]float64{}
	if err := engine.ScanNamed(rows, func(k, v string) {
		if f, err := strconv.ParseFloat(v, 64); err == nil {
			m[k] = f
		}
	}); err != nil {
		return nil, err
	}
	return m, nil
}

func (s *myWaits) readEvents(ctx context.Context) (map[string][2]float64, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT EVENT_NAME, COUNT_STAR, SUM_TIMER_WAIT
FROM performance_schema.events_waits_summary_global_by_event_name WHERE COUNT_STAR > 0`)
	if err != nil {
		return nil, fmt.Errorf("read events_waits_summary_global_by_event_name: %w", err)
	}
	defer rows.Close()
	m := map[string][2]float64{}
	for rows.Next() {
		var name string
		var n, ps float64
		if err := rows.Scan(&name, &n, &ps); err != nil {
			return nil, err
		}
		m[name] = [2]float64{n, ps}
	}
	return m, rows.Err()
}

// Profile implements waits.Sampler.
func (s *myWaits) Profile(ctx context.Context) (*waits.Profile, error) {
	status, err := s.readStatus(ctx)
	if err != nil {
		return nil, err
	}
	p := &waits.Profile{Source: "information_schema.processlist", Sampled: true, IntervalMs: float64(s.interval) / float64(time.Millisecond),
		Counters: map[string]float64{}}
	for k, n := range s.samples {
		p.Events = append(p.Events, waits.Event{Class: waits.Class(k[0]), Name: k[1], Seconds: n * s.interval.Seconds(), Count: n})
	}
	for k, v := range status {
		p.Counters[k] = v - s.status[k]
	}
	p.Timed = append(p.Timed, statusEvents(p.Counters)...)
	if s.pfs {
		after, err := s.readEvents(ctx)
		if err != nil {
			return nil, err
		}
		p.Source += ", performance_schema"
		p.Timed = append(p.Timed, eventDeltas(s.events, after)...)
	}
	p.Missing = append(p.Missing, s.missing...)
	return p, nil
}

// statusEvents turns InnoDB status counter deltas into events: the row
// lock time (ms) with its waits, and the log and free-buffer waits (counts
// only: the server keeps no time for them).
func statusEvents(d map[string]float64) []waits.Event {
	var out []waits.Event
	if d["Innodb_row_lock_waits"] > 0 || d["Innodb_row_lock_time"] > 0 {
		out = append(out, waits.Event{Class: waits.Lock, Name: "innodb row lock", Seconds: d["Innodb_row_lock_time"] / 1000, Count: d["Innodb_row_lock_waits"]})
	}
	if d["Innodb_log_waits"] > 0 {
		out = append(out, waits.Event{Class: waits.Log, Name: "innodb log waits (log buffer full)", Count: d["Innodb_log_waits"]})
	}
	if d["Innodb_buffer_pool_wait_free"] > 0 {
		out = append(out, waits.Event{Class: waits.IO, Name: "innodb buffer pool wait free", Count: d["Innodb_buffer_pool_wait_free"]})
	}
	return out
}

// eventDeltas returns the performance_schema events that grew, their time
// converted from picoseconds.
func eventDeltas(before, after map[string][2]float64) []waits.Event {
	var out []waits.Event
	for name, a := range after {
		b := before[name]
		n, ps := a[0]-b[0], a[1]-b[1]
		if n <= 0 || idleEvents[name] {
			continue
		}
		out = append(out, waits.Event{Class: myClass(name), Name: name, Seconds: ps / 1e12, Count: n})
	}
	return out
}

// idleEvents are waits of sessions or background threads with nothing to
// do, left out of the profile.
var idleEvents = map[string]bool{"idle": true, "wait/synch/cond/mysys/COND_timer": true, "wait/synch/cond/sql/COND_thread_cache": true,
	"wait/synch/cond/sql/COND_manager": true, "wait/synch/cond/sql/COND_flush_thread_cache": true,
	"wait/synch/cond/sql/Item_func_sleep::cond": true, "wait/synch/cond/innodb/srv_threads_cond": true}

// myClass folds a performance_schema instrument name into a wait class.
// Table I/O (wait/io/table: handler calls, rows served mostly from the
// buffer pool) counts as CPU.
func myClass(name string) waits.Class {
	switch {
	case strings.Contains(name, "innodb_log_file") || strings.Contains(name, "/log_") || strings.Contains(name, "redo") ||
		strings.HasSuffix(name, "/log_sys_mutex") || strings.Contains(name, "innodb/log"):
		return waits.Log
	case strings.HasPrefix(name, "wait/io/table/"):
		return waits.CPU
	case strings.HasPrefix(name, "wait/io/socket/"):
		return waits.Client
	case strings.HasPrefix(name, "wait/io/"):
		return waits.IO
	case strings.HasPrefix(name, "wait/lock/"):
		return waits.Lock
	case strings.HasPrefix(name, "wait/synch/"):
		return waits.Latch
	}
	return waits.Other
}

// Close implements waits.Sampler.
func (s *myWaits) Close() error { return s.db.Close() }
