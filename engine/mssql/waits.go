package mssql

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	gomssql "github.com/microsoft/go-mssqldb"

	"github.com/rightsize/rightsize/waits"
)

// Wait profile (waits.Source) from sys.dm_os_wait_stats, read on one
// connection when measuring starts and when it ends: the deltas of every
// wait type that is not benign (idle and background waits, the usual
// list), split into resource time (wait_time_ms − signal_wait_time_ms:
// waiting for the resource, classed by the wait type) and signal time (the
// task was runnable and waited for a CPU: CPU class, one event). The view
// is server-wide and needs VIEW SERVER STATE (VIEW SERVER PERFORMANCE STATE
// from SQL Server 2022). Written from the documentation and unit-tested on
// rows of the view's shape: not verified against a live server.

var _ waits.Source = (*DB)(nil)

// WaitSampler implements waits.Source.
func (db *DB) WaitSampler(ctx context.Context, _ time.Duration) (waits.Sampler, error) {
	conn, err := db.pool.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("wait sampler: %w", err)
	}
	return &msWaits{conn: conn}, nil
}

// waitStat is one row of sys.dm_os_wait_stats.
type waitStat struct {
	Tasks, WaitMs, SignalMs float64
}

type msWaits struct {
	conn    *sql.Conn
	before  map[string]waitStat
	missing string
}

const waitStatsSQL = `SELECT wait_type, waiting_tasks_count, wait_time_ms, signal_wait_time_ms
FROM sys.dm_os_wait_stats WHERE wait_time_ms > 0 OR waiting_tasks_count > 0`

func (s *msWaits) read(ctx context.Context) (map[string]waitStat, error) {
	rows, err := s.conn.QueryContext(ctx, waitStatsSQL)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	m := map[string]waitStat{}
	for rows.Next() {
		var name string
		var w waitStat
		if err := rows.Scan(&name, &w.Tasks, &w.WaitMs, &w.SignalMs); err != nil {
			return nil, err
		}
		m[name] = w
	}
	return m, rows.Err()
}

// Start implements waits.Sampler. Missing permission is recorded, not
// returned: the run goes on without the profile's events.
func (s *msWaits) Start(ctx context.Context) error {
	m, err := s.read(ctx)
	if err != nil {
		s.missing = "sys.dm_os_wait_stats: " + permissionHint(err)
		return nil
	}
	s.before = m
	return nil
}

// permissionHint explains error 300 (permission denied on a server view).
func permissionHint(err error) string {
	var e gomssql.Error
	if errors.As(err, &e) && e.Number == 300 {
		return "permission denied: GRANT VIEW SERVER STATE (SQL Server 2022: VIEW SERVER PERFORMANCE STATE) to the benchmark login"
	}
	return err.Error()
}

// Sample implements waits.Sampler: the counters need no samples.
func (s *msWaits) Sample(context.Context) error { return nil }

// Profile implements waits.Sampler.
func (s *msWaits) Profile(ctx context.Context) (*waits.Profile, error) {
	p := &waits.Profile{Source: "sys.dm_os_wait_stats"}
	if s.before == nil {
		p.Missing = []string{s.missing}
		return p, nil
	}
	after, err := s.read(ctx)
	if err != nil {
		return nil, fmt.Errorf("read sys.dm_os_wait_stats: %w", err)
	}
	p.Events, p.Counters = waitStatsProfile(s.before, after)
	return p, nil
}

// Close implements waits.Sampler.
func (s *msWaits) Close() error { return s.conn.Close() }

// waitStatsProfile turns two snapshots into events: each non-benign wait
// type's resource time, and the signal time of them all as one CPU event;
// the counters hold the totals.
func waitStatsProfile(before, after map[string]waitStat) ([]waits.Event, map[string]float64) {
	var out []waits.Event
	var signal, resource float64
	for name, a := range after {
		if benignWait(name) {
			continue
		}
		b := before[name]
		tasks, wait, sig := a.Tasks-b.Tasks, a.WaitMs-b.WaitMs, a.SignalMs-b.SignalMs
		if wait <= 0 || tasks < 0 {
			continue
		}
		sig = min(max(sig, 0), wait)
		signal += sig
		resource += wait - sig
		if wait-sig > 0 {
			out = append(out, waits.Event{Class: msClass(name), Name: name, Seconds: (wait - sig) / 1000, Count: tasks})
		}
	}
	if signal > 0 {
		out = append(out, waits.Event{Class: waits.CPU, Name: "signal wait (runnable, waiting for a CPU)", Seconds: signal / 1000})
	}
	return out, map[string]float64{"signal_wait_ms": signal, "resource_wait_ms": resource}
}

// msClass folds a wait type into a class by the classic categories.
func msClass(name string) waits.Class {
	switch {
	case name == "WRITELOG" || name == "LOGBUFFER" || strings.HasPrefix(name, "LOGMGR") || name == "HADR_SYNC_COMMIT":
		return waits.Log
	case strings.HasPrefix(name, "PAGEIOLATCH_") || name == "IO_COMPLETION" || name == "ASYNC_IO_COMPLETION" || name == "WRITE_COMPLETION":
		return waits.IO
	case strings.HasPrefix(name, "LCK_M_"):
		return waits.Lock
	case strings.HasPrefix(name, "PAGELATCH_") || strings.HasPrefix(name, "LATCH_"):
		return waits.Latch
	case name == "SOS_SCHEDULER_YIELD" || name == "THREADPOOL":
		return waits.CPU
	case name == "ASYNC_NETWORK_IO":
		return waits.Client
	}
	return waits.Other // CXPACKET and the other parallelism waits among them
}

// benignWait reports the idle and background wait types left out of every
// wait-statistics analysis (the list commonly used with the view).
func benignWait(name string) bool {
	if benignWaits[name] {
		return true
	}
	for _, p := range []string{"SLEEP_", "BROKER_", "XE_", "QDS_", "PARALLEL_REDO_", "WAIT_XTP_", "HADR_FILESTREAM", "FT_IFTS", "SQLTRACE_", "PREEMPTIVE_XE_"} {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

var benignWaits = map[string]bool{}

func init() {
	for _, n := range strings.Fields(`CHECKPOINT_QUEUE CHKPT CLR_AUTO_EVENT CLR_MANUAL_EVENT CLR_SEMAPHORE CXCONSUMER
DBMIRROR_DBM_EVENT DBMIRROR_EVENTS_QUEUE DBMIRROR_WORKER_QUEUE DBMIRRORING_CMD DIRTY_PAGE_POLL DISPATCHER_QUEUE_SEMAPHORE
EXECSYNC FSAGENT HADR_CLUSAPI_CALL HADR_LOGCAPTURE_WAIT HADR_NOTIFICATION_DEQUEUE HADR_TIMER_TASK HADR_WORK_QUEUE
KSOURCE_WAKEUP LAZYWRITER_SLEEP LOGMGR_QUEUE MEMORY_ALLOCATION_EXT ONDEMAND_TASK_QUEUE PREEMPTIVE_OS_FLUSHFILEBUFFERS
PVS_PREALLOCATE PWAIT_ALL_COMPONENTS_INITIALIZED PWAIT_DIRECTLOGCONSUMER_GETNEXT PWAIT_EXTENSIBILITY_CLEANUP_TASK
REDO_THREAD_PENDING_WORK REQUEST_FOR_DEADLOCK_SEARCH RESOURCE_QUEUE SERVER_IDLE_CHECK SNI_HTTP_ACCEPT SOS_WORK_DISPATCHER
SP_SERVER_DIAGNOSTICS_SLEEP UCS_SESSION_REGISTRATION VDI_CLIENT_OTHER WAIT_FOR_RESULTS WAITFOR WAITFOR_TASKSHUTDOWN`) {
		benignWaits[n] = true
	}
}
