package postgres

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/rightsize/rightsize/internal/rawsock"
	"github.com/rightsize/rightsize/waits"
)

// Wait sampling (waits.Source): one extra connection, not a virtual user's,
// samples pg_stat_activity of the benchmark database every interval and,
// after a sample that found lock waits (at most every lockEvery samples),
// the ungranted locks of pg_locks. When the
// pg_wait_sampling extension is installed in the database its profile
// (sampled in the server every 10 ms by default) replaces the
// pg_stat_activity samples. Counter views are read at Start and Profile and
// their numeric columns' deltas kept: pg_stat_wal (14+), pg_stat_bgwriter,
// pg_stat_checkpointer (17+), pg_stat_io summed (16+).

var _ waits.Source = (*DB)(nil)

// lockEvery is the fewest activity samples between two pg_locks samples
// (pg_locks takes the lock manager's partition locks: read it less often).
const lockEvery = 10

// samplerConn opens a connection of a sampler's own (what names it, in
// application_name and errors) that reads the server while the users run:
// with raw reads and writes, as the virtual users', since a syscall of
// the idle driver would wake the runtime's sysmon thread at every read.
func (db *DB) samplerConn(ctx context.Context, what string) (*pgx.Conn, error) {
	cfg, err := pgx.ParseConfig(db.dsn)
	if err != nil {
		return nil, fmt.Errorf("parse PostgreSQL DSN: %w", err)
	}
	cfg.RuntimeParams["application_name"] = "rightsize " + what
	cfg.DialFunc = rawsock.WrapDial(cfg.DialFunc)
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("connect the %s: %w", what, oneLine(err))
	}
	return conn, nil
}

// WaitSampler implements waits.Source.
func (db *DB) WaitSampler(ctx context.Context, interval time.Duration) (waits.Sampler, error) {
	conn, err := db.samplerConn(ctx, "wait sampler")
	if err != nil {
		return nil, err
	}
	s := &pgWaits{interval: interval, counts: map[waitKey]float64{}}
	if err := s.probe(ctx, conn); err != nil {
		conn.Close(ctx)
		return nil, err
	}
	s.prepare(ctx, conn.PgConn())
	if s.sess, err = takeOver(ctx, conn.PgConn()); err != nil {
		conn.Close(ctx)
		return nil, fmt.Errorf("wait sampler: %w", err)
	}
	return s, nil
}

type waitKey struct{ typ, event string }

// pgWaits samples on its own connection: once probe has read the server's
// version and rights through pgx, its statements are prepared and the
// connection taken over (session), so that each sample is one write and
// one read of binary rows on the virtual users' own wire code, not a pgx
// query: at 10 samples a second the pgx path, cold each time, cost the
// driver more CPU than any other thing it does besides the transactions.
type pgWaits struct {
	sess     session
	interval time.Duration
	version  int
	missing  []string
	// wsPeriod is pg_wait_sampling's profile period (0: not used).
	wsPeriod time.Duration
	wsBefore map[waitKey]float64

	ticks    int64
	lockTick int64               // the tick of the last pg_locks sample (0: none yet)
	counts   map[waitKey]float64 // pg_stat_activity samples per event
	locks    map[waits.LockWait]float64
	counters map[string]float64 // at Start
	// counterErr is why a counter view's statement could not be prepared.
	counterErr map[string]error
}

// probe finds the server version, the role's right to see other sessions
// and whether pg_wait_sampling can be used.
func (s *pgWaits) probe(ctx context.Context, conn *pgx.Conn) error {
	var all bool
	err := conn.QueryRow(ctx, `SELECT current_setting('server_version_num')::int,
  (SELECT rolsuper FROM pg_roles WHERE rolname = current_user) OR pg_has_role(current_user, 'pg_read_all_stats', 'MEMBER')`).
		Scan(&s.version, &all)
	if err != nil {
		return fmt.Errorf("wait sampler: read the server version and role: %w", err)
	}
	if !all {
		s.missing = append(s.missing, "pg_read_all_stats: this role is not a member, so sessions of other roles show no wait event; "+
			"only this role's sessions are sampled (GRANT pg_read_all_stats TO the benchmark user)")
	}
	var ext bool
	if err := conn.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'pg_wait_sampling')`).Scan(&ext); err != nil {
		return fmt.Errorf("wait sampler: look for pg_wait_sampling: %w", err)
	}
	if ext {
		var ms float64
		if err := conn.QueryRow(ctx, `SELECT current_setting('pg_wait_sampling.profile_period')::float8`).Scan(&ms); err != nil {
			s.missing = append(s.missing, "pg_wait_sampling is installed but not loaded (shared_preload_libraries): sampling pg_stat_activity instead")
		} else {
			s.wsPeriod = time.Duration(ms * float64(time.Millisecond))
		}
	}
	return nil
}

// Start implements waits.Sampler.
func (s *pgWaits) Start(ctx context.Context) error {
	s.counters = s.readCounters(ctx)
	if s.wsPeriod > 0 {
		m, err := s.waitSamplingProfile(ctx)
		if err != nil {
			s.missing = append(s.missing, "pg_wait_sampling profile: "+err.Error()+"; sampling pg_stat_activity instead")
			s.wsPeriod = 0
		}
		s.wsBefore = m
	}
	return nil
}

// Sample implements waits.Sampler. With pg_wait_sampling, pg_locks is
// read every lockEvery ticks. Otherwise pg_stat_activity is read every
// tick and pg_locks right after one that found sessions waiting on a
// heavyweight lock (wait_event_type Lock), at most every lockEvery ticks:
// the lock samples land where there are locks to name (at fixed ticks,
// four samples of a short step could all miss the waiters of a hot row),
// and a step without lock waits never reads pg_locks.
func (s *pgWaits) Sample(ctx context.Context) error {
	s.ticks++
	if s.wsPeriod > 0 {
		if s.ticks%lockEvery == 1 {
			return s.sampleLocks(ctx)
		}
		return nil
	}
	lockWaiters, err := s.sampleActivity(ctx)
	if err != nil || lockWaiters == 0 || s.lockTick > 0 && s.ticks-s.lockTick < lockEvery {
		return err
	}
	s.lockTick = s.ticks
	return s.sampleLocks(ctx)
}

// The sampler's prepared statements.
const (
	waitsActivity = "rs_waits_activity"
	waitsLocks    = "rs_waits_locks"
	waitsProfile  = "rs_waits_profile"
)

// waitStmts are the sampler's statements but the counter views', with the
// kinds of their result columns (columnKind; 'n' is a name, read as text).
var waitStmts = []struct{ name, sql, cols string }{
	{waitsActivity, `SELECT coalesce(wait_event_type, ''), coalesce(wait_event, ''), count(*)::float8
FROM pg_stat_activity
WHERE datname = current_database() AND pid <> pg_backend_pid() AND backend_type = 'client backend'
  AND state IN ('active', 'idle in transaction', 'idle in transaction (aborted)')
GROUP BY 1, 2`, "ssf"},
	// A transaction-id wait is named after the table of the tuple lock its
	// session holds (the row it wants to change).
	{waitsLocks, `SELECT l.locktype, coalesce(c.relname, ''), l.mode, count(*)::float8
FROM pg_locks l
JOIN pg_stat_activity a ON a.pid = l.pid AND a.datname = current_database()
LEFT JOIN pg_class c ON c.oid = coalesce(l.relation,
  (SELECT t.relation FROM pg_locks t WHERE t.pid = l.pid AND t.locktype = 'tuple' LIMIT 1))
WHERE NOT l.granted
GROUP BY 1, 2, 3`, "snsf"},
	{waitsProfile, `SELECT coalesce(p.event_type, ''), coalesce(p.event, ''), sum(p.count)::float8
FROM pg_wait_sampling_profile p JOIN pg_stat_activity a ON a.pid = p.pid
WHERE a.datname = current_database() AND a.backend_type = 'client backend' AND a.pid <> pg_backend_pid()
GROUP BY 1, 2`, "ssf"},
}

// prepare prepares the sampler's statements on pg before the take-over:
// pg_wait_sampling's only when probe found it loaded, the counter views'
// only those of the server's version. A statement that cannot be
// prepared is recorded (counterErr, or missing for pg_wait_sampling's);
// the activity and lock samples then fail as a query would.
func (s *pgWaits) prepare(ctx context.Context, pg *pgconn.PgConn) {
	s.counterErr = map[string]error{}
	for _, st := range waitStmts {
		if st.name == waitsProfile && s.wsPeriod == 0 {
			continue
		}
		err := prepareRows(ctx, pg, st.name, st.sql, st.cols)
		if err != nil && st.name == waitsProfile {
			s.missing = append(s.missing, "pg_wait_sampling profile: "+err.Error()+"; sampling pg_stat_activity instead")
			s.wsPeriod = 0
		}
	}
	for _, v := range counterViews {
		if s.version >= v.version {
			if err := prepareRows(ctx, pg, "rs_waits_"+v.name, v.sql, "s"); err != nil {
				s.counterErr[v.name] = err
			}
		}
	}
}

// prepareRows prepares sql as name and checks its result columns' kinds.
func prepareRows(ctx context.Context, pg *pgconn.PgConn, name, sql, cols string) error {
	sd, err := pg.Prepare(ctx, name, sql, nil)
	if err != nil {
		return oneLine(err)
	}
	if len(sd.Fields) != len(cols) {
		return fmt.Errorf("%s: %d result columns, want %d", name, len(sd.Fields), len(cols))
	}
	for i, f := range sd.Fields {
		k := columnKind(f.DataTypeOID)
		if f.DataTypeOID == pgtype.NameOID {
			k = 'n'
		}
		if k != cols[i] {
			return fmt.Errorf("%s: column %s has type OID %d", name, f.Name, f.DataTypeOID)
		}
	}
	return nil
}

// sampleActivity counts the database's active sessions by wait event and
// returns how many wait on a heavyweight lock.
func (s *pgWaits) sampleActivity(ctx context.Context) (lockWaiters float64, err error) {
	err = s.sess.rows(ctx, waitsActivity, func(c *columns) {
		typ, event, n := c.bytes(), c.bytes(), c.float64()
		if c.err == nil {
			s.counts[waitKey{string(typ), string(event)}] += n
			if string(typ) == "Lock" {
				lockWaiters += n
			}
		}
	})
	if err != nil {
		return 0, fmt.Errorf("sample pg_stat_activity: %w", err)
	}
	return lockWaiters, nil
}

// sampleLocks counts the ungranted locks of the database's sessions.
func (s *pgWaits) sampleLocks(ctx context.Context) error {
	if s.locks == nil {
		s.locks = map[waits.LockWait]float64{}
	}
	err := s.sess.rows(ctx, waitsLocks, func(c *columns) {
		typ, rel, mode, n := c.bytes(), c.bytes(), c.bytes(), c.float64()
		if c.err == nil {
			s.locks[waits.LockWait{Type: string(typ), Relation: string(rel), Mode: string(mode)}] += n
		}
	})
	if err != nil {
		return fmt.Errorf("sample pg_locks: %w", err)
	}
	return nil
}

// waitSamplingProfile sums pg_wait_sampling's profile over the sessions of
// the benchmark database.
func (s *pgWaits) waitSamplingProfile(ctx context.Context) (map[waitKey]float64, error) {
	m := map[waitKey]float64{}
	err := s.sess.rows(ctx, waitsProfile, func(c *columns) {
		typ, event, n := c.bytes(), c.bytes(), c.float64()
		if c.err == nil {
			m[waitKey{string(typ), string(event)}] = n
		}
	})
	return m, err
}

// counterViews are the statistics views whose numeric columns are kept as
// deltas, with the first server version that has them.
var counterViews = []struct {
	name    string
	version int
	sql     string
}{
	{"wal", 140000, `SELECT row_to_json(s)::text FROM pg_stat_wal s`},
	{"bgwriter", 0, `SELECT row_to_json(s)::text FROM pg_stat_bgwriter s`},
	{"checkpointer", 170000, `SELECT row_to_json(s)::text FROM pg_stat_checkpointer s`},
	{"io", 160000, `SELECT json_build_object('reads', sum(reads), 'read_time', sum(read_time), 'writes', sum(writes),
  'write_time', sum(write_time), 'extends', sum(extends), 'fsyncs', sum(fsyncs), 'fsync_time', sum(fsync_time),
  'hits', sum(hits), 'evictions', sum(evictions))::text FROM pg_stat_io`},
}

// readCounters reads every counter view the server has; a view that
// cannot be read is recorded in missing.
func (s *pgWaits) readCounters(ctx context.Context) map[string]float64 {
	out := map[string]float64{}
	for _, v := range counterViews {
		if s.version < v.version {
			continue
		}
		var doc []byte
		err := s.counterErr[v.name]
		if err == nil {
			err = s.sess.rows(ctx, "rs_waits_"+v.name, func(c *columns) { doc = append(doc[:0], c.bytes()...) })
		}
		if err != nil {
			s.noteMissing(fmt.Sprintf("pg_stat_%s: %v", v.name, oneLine(err)))
			continue
		}
		var m map[string]any
		if err := json.Unmarshal(doc, &m); err != nil {
			continue
		}
		for k, x := range m {
			if f, ok := x.(float64); ok {
				out[v.name+"."+k] = f
			}
		}
	}
	return out
}

func (s *pgWaits) noteMissing(m string) {
	for _, x := range s.missing {
		if x == m {
			return
		}
	}
	s.missing = append(s.missing, m)
}

// Profile implements waits.Sampler.
func (s *pgWaits) Profile(ctx context.Context) (*waits.Profile, error) {
	p := &waits.Profile{Source: "pg_stat_activity", Sampled: true, IntervalMs: float64(s.interval) / float64(time.Millisecond)}
	counts, unit := s.counts, s.interval.Seconds()
	if s.wsPeriod > 0 {
		after, err := s.waitSamplingProfile(ctx)
		if err != nil {
			return nil, fmt.Errorf("read pg_wait_sampling_profile: %w", err)
		}
		counts, unit = map[waitKey]float64{}, s.wsPeriod.Seconds()
		for k, v := range after {
			if d := v - s.wsBefore[k]; d > 0 {
				counts[k] = d
			}
		}
		p.Source, p.IntervalMs = "pg_wait_sampling", float64(s.wsPeriod)/float64(time.Millisecond)
	}
	for k, n := range counts {
		c, name := pgClass(k.typ, k.event)
		p.Events = append(p.Events, waits.Event{Class: c, Name: name, Seconds: n * unit, Count: n})
	}
	for l, n := range s.locks {
		l.Samples = n
		p.Locks = append(p.Locks, l)
	}
	after := s.readCounters(ctx)
	for k, v := range after {
		if b, ok := s.counters[k]; ok && v != b {
			if p.Counters == nil {
				p.Counters = map[string]float64{}
			}
			p.Counters[k] = v - b
		}
	}
	p.Missing = append(p.Missing, s.missing...)
	return p, nil
}

// Close implements waits.Sampler.
func (s *pgWaits) Close() error { return s.sess.Close(context.Background()) }

// pgClass folds a PostgreSQL wait event into a class and names it
// "Type:Event" ("CPU" for an active session waiting on nothing).
func pgClass(typ, event string) (waits.Class, string) {
	if typ == "" {
		return waits.CPU, "CPU"
	}
	name := typ + ":" + event
	if event == "CommitDelay" { // commit_delay's sleep before a WAL flush
		return waits.Log, name
	}
	switch typ {
	case "Lock":
		return waits.Lock, name
	case "LWLock", "IO":
		switch {
		case strings.HasPrefix(event, "WAL"):
			return waits.Log, name
		case typ == "IO":
			return waits.IO, name
		}
		return waits.Latch, name
	case "BufferPin":
		return waits.Latch, name
	case "Client":
		return waits.Client, name
	case "IPC":
		if event == "SyncRep" {
			return waits.Log, name
		}
	}
	return waits.Other, name
}
