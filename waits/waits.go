// Package waits owns why a database server waits during a step: the wait
// classes every engine's events fold into, the per-step wait Profile (from
// sampled sessions or from server counter deltas), the resource Saturation
// beside it, the Sampler interface engines implement and Run, the loop that
// samples at a fixed interval without ever delaying the virtual users.
//
// # Classes
//
// Every engine's wait events fold into seven classes, so that steps, runs and
// engines compare:
//
//   - CPU: a session was active and waiting on nothing (PostgreSQL), or the
//     time a runnable task waited for a CPU (SQL Server signal waits,
//     SOS_SCHEDULER_YIELD).
//   - I/O: data file reads and writes (DataFileRead, PAGEIOLATCH_*,
//     wait/io/file/innodb/innodb_data_file).
//   - Lock: row, tuple, transaction and table locks (Lock:*, LCK_M_*, InnoDB
//     row lock time).
//   - Latch: lightweight locks, latches, mutexes and buffer pins (LWLock:*
//     except the WAL ones, PAGELATCH_*, wait/synch/*).
//   - Log: writing and flushing the WAL or redo log (IO:WALWrite, IO:WALSync,
//     LWLock:WALWrite, WRITELOG, innodb_log_file, InnoDB log waits).
//   - Client: a session waits for the client (ClientRead, ASYNC_NETWORK_IO).
//   - Other: everything else (IPC, timeouts, extensions, parallel query).
//
// # Why it stops
//
// "Why a step's throughput stops rising" is four layers, each in the package
// of its layer, with no package above its own (so they stay apart):
// measuring is this package (the types, the sampling loop; it imports no
// other part of rightsize); wiring into a step is scenario's
// autopilot_waits.go (the engine's sampler opened and stopped around the
// measured interval, Saturation derived from the step's host telemetry);
// judging is package diagnosis (the verdict rules over Profile and
// Saturation); reading stored steps is analysis/why.go (the step's JSON
// documents decoded, repeats averaged and diagnosed, waits.csv).
package waits

import (
	"context"
	"sort"
	"strings"
	"time"
)

// Class is a wait class (see the package doc).
type Class string

// The wait classes, in the order reports stack them.
const (
	CPU    Class = "CPU"
	IO     Class = "I/O"
	Lock   Class = "Lock"
	Latch  Class = "LWLock/latch"
	Log    Class = "WAL/log"
	Client Class = "Client"
	Other  Class = "Other"
)

// Classes lists every class in report order.
var Classes = []Class{CPU, IO, Lock, Latch, Log, Client, Other}

// Event is one wait event's share of a step.
type Event struct {
	// Class is the event's wait class.
	Class Class `json:"class"`
	// Name is the engine's event name, e.g. "IO:WALSync",
	// "Lock:transactionid", "WRITELOG", "wait/io/file/innodb/innodb_log_file".
	Name string `json:"name"`
	// Seconds is the session time spent in the event over the measured
	// interval: samples × interval for sampled sources, the server's own
	// timer for counter sources.
	Seconds float64 `json:"seconds"`
	// Count is the number of waits (counter sources) or of samples that saw
	// the event (sampled sources).
	Count float64 `json:"count"`
}

// LockWait is one kind of ungranted lock seen while sampling.
type LockWait struct {
	// Type is the lock type (relation, tuple, transactionid ...).
	Type string `json:"type"`
	// Relation is the table or index the lock is on ("" when it has none).
	Relation string `json:"relation,omitempty"`
	// Mode is the lock mode requested.
	Mode string `json:"mode"`
	// Samples counts the waiting sessions summed over the lock samples.
	Samples float64 `json:"samples"`
}

// Profile is a step's waits: where the sessions of the benchmark database
// spent their active time over the measured interval.
type Profile struct {
	// Source names where the events come from: "pg_stat_activity",
	// "pg_wait_sampling", "information_schema.processlist" (with
	// ", performance_schema" when its timed events are there),
	// "sys.dm_os_wait_stats", "sqlite writer lock", "none".
	Source string `json:"source"`
	// Sampled tells the events are sampled sessions (Seconds estimated from
	// samples × interval) rather than the server's timers.
	Sampled bool `json:"sampled"`
	// IntervalMs is the sampling interval; 0 for counter sources.
	IntervalMs float64 `json:"interval_ms,omitempty"`
	// Ticks is the number of samples taken, Skipped the ticks skipped
	// because a sample was still running (the sampler fell behind).
	Ticks   int64 `json:"ticks"`
	Skipped int64 `json:"skipped"`
	// Seconds is the measured interval's length.
	Seconds float64 `json:"seconds"`
	// Missing says which source was missing and why (no permission to see
	// other sessions, performance_schema off ...); the profile holds what
	// the remaining sources gave.
	Missing []string `json:"missing,omitempty"`
	// Events holds every event seen, by Seconds descending: the session
	// time the shares, classes and verdicts are computed from.
	Events []Event `json:"events"`
	// Timed holds events the server timed itself (performance_schema,
	// InnoDB counters) beside sampled Events: shown, but not added to the
	// active time (the two overlap). Server-wide, by Seconds descending.
	Timed []Event `json:"timed,omitempty"`
	// Locks holds the ungranted locks sampled, by Samples descending.
	Locks []LockWait `json:"locks,omitempty"`
	// Counters are server counter deltas over the interval, by name
	// ("wal.wal_sync", "bgwriter.buffers_backend_fsync", "io.read_time" ...).
	Counters map[string]float64 `json:"counters,omitempty"`
}

// Normalize merges events of the same class and name and sorts events and
// locks, largest first.
func (p *Profile) Normalize() {
	p.Events = mergeEvents(p.Events)
	p.Timed = mergeEvents(p.Timed)
	sort.SliceStable(p.Locks, func(i, j int) bool { return p.Locks[i].Samples > p.Locks[j].Samples })
}

// mergeEvents sums events of the same class and name and sorts them by
// Seconds descending (then by name).
func mergeEvents(events []Event) []Event {
	type key struct {
		c Class
		n string
	}
	idx := map[key]int{}
	var out []Event
	for _, e := range events {
		k := key{e.Class, e.Name}
		if i, ok := idx[k]; ok {
			out[i].Seconds += e.Seconds
			out[i].Count += e.Count
			continue
		}
		idx[k] = len(out)
		out = append(out, e)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Seconds != out[j].Seconds {
			return out[i].Seconds > out[j].Seconds
		}
		return out[i].Name < out[j].Name
	})
	return out
}

// ByClass returns the seconds of every class (all classes present).
func (p *Profile) ByClass() map[Class]float64 {
	m := make(map[Class]float64, len(Classes))
	for _, c := range Classes {
		m[c] = 0
	}
	for _, e := range p.Events {
		m[e.Class] += e.Seconds
	}
	return m
}

// Active is the session time over all events but Client: the time sessions
// worked or waited inside the server.
func (p *Profile) Active() float64 {
	var t float64
	for _, e := range p.Events {
		if e.Class != Client {
			t += e.Seconds
		}
	}
	return t
}

// Share returns the share (0..1) of active time spent in class c.
func (p *Profile) Share(c Class) float64 {
	a := p.Active()
	if a <= 0 {
		return 0
	}
	return p.ByClass()[c] / a
}

// Top returns the largest event of class c (ok false when there is none).
func (p *Profile) Top(c Class) (Event, bool) {
	for _, e := range p.Events {
		if e.Class == c {
			return e, true
		}
	}
	return Event{}, false
}

// AverageActive is the mean number of sessions active in the server over
// the interval (active session time / interval); 0 when unknown.
func (p *Profile) AverageActive() float64 {
	if p.Seconds <= 0 {
		return 0
	}
	return p.Active() / p.Seconds
}

// Mean averages profiles of the same step across repeats: event seconds,
// counts, counters and locks are means (an event missing from a repeat
// counts 0 there), ticks and skipped ticks are sums, Missing the union.
// Nil profiles are ignored; nil is returned when there is none.
func Mean(ps []*Profile) *Profile {
	var have []*Profile
	for _, p := range ps {
		if p != nil {
			have = append(have, p)
		}
	}
	if len(have) == 0 {
		return nil
	}
	n := float64(len(have))
	out := &Profile{Source: have[0].Source, Sampled: have[0].Sampled, IntervalMs: have[0].IntervalMs}
	seen := map[string]bool{}
	locks := map[LockWait]float64{}
	for _, p := range have {
		if p.Source != out.Source && !strings.Contains(out.Source, p.Source) {
			out.Source += ", " + p.Source
		}
		out.Ticks += p.Ticks
		out.Skipped += p.Skipped
		out.Seconds += p.Seconds / n
		for _, m := range p.Missing {
			if !seen[m] {
				seen[m] = true
				out.Missing = append(out.Missing, m)
			}
		}
		for _, e := range p.Events {
			out.Events = append(out.Events, Event{Class: e.Class, Name: e.Name, Seconds: e.Seconds / n, Count: e.Count / n})
		}
		for _, e := range p.Timed {
			out.Timed = append(out.Timed, Event{Class: e.Class, Name: e.Name, Seconds: e.Seconds / n, Count: e.Count / n})
		}
		for _, l := range p.Locks {
			k := l
			k.Samples = 0
			locks[k] += l.Samples / n
		}
		for k, v := range p.Counters {
			if out.Counters == nil {
				out.Counters = map[string]float64{}
			}
			out.Counters[k] += v / n
		}
	}
	for k, v := range locks {
		k.Samples = v
		out.Locks = append(out.Locks, k)
	}
	sort.Slice(out.Locks, func(i, j int) bool {
		a, b := out.Locks[i], out.Locks[j]
		return a.Type+a.Relation+a.Mode < b.Type+b.Relation+b.Mode
	})
	out.Normalize()
	return out
}

// Sampler observes one database's waits over one step's measured interval.
// Start, Sample and Profile are called from one goroutine, never at once.
type Sampler interface {
	// Start takes the baseline of the counter sources when measuring
	// begins.
	Start(ctx context.Context) error
	// Sample records the sessions' state now (a no-op for counter-only
	// sources).
	Sample(ctx context.Context) error
	// Profile returns the profile since Start: the samples taken and the
	// counters' deltas. Ticks, Skipped and Seconds are filled by Run.
	Profile(ctx context.Context) (*Profile, error)
	// Close releases the sampler's connection.
	Close() error
}

// Source is implemented by engines that can sample their waits: it opens a
// sampler on its own connection, which is not a virtual user's.
type Source interface {
	// WaitSampler opens a sampler that will Sample every interval.
	WaitSampler(ctx context.Context, interval time.Duration) (Sampler, error)
}
