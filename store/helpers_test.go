package store

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/rightsize/rightsize/figures"
	"github.com/rightsize/rightsize/internal/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

var txnTypes = []string{"new_order", "payment", "order_status", "delivery", "stock_level"}

// sqliteLocation returns a fresh SQLite store path in a temp directory.
func sqliteLocation(t testing.TB) string {
	return filepath.Join(t.TempDir(), "rightsize.db")
}

func openAt(t testing.TB, location string) *Store {
	t.Helper()
	s, err := Open(context.Background(), location)
	if err != nil {
		t.Fatalf("Open(%s): %v", location, err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// backends are the store kinds every backend-neutral test runs on.
var backends = []struct {
	name     string
	location func(t testing.TB) string
}{
	{"sqlite", sqliteLocation},
	{"postgres", func(t testing.TB) string { return pgtest.NewDatabase(t) }},
}

// eachBackend runs f on a fresh store of every backend.
func eachBackend(t *testing.T, f func(t *testing.T, s *Store)) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) { f(t, openAt(t, b.location(t))) })
	}
}

// hist returns an encoded histogram of n latencies (µs) around base.
func hist(tb testing.TB, n int, base int64) HdrHist {
	h := hdrhistogram.New(1, 60_000_000, 3)
	for i := range n {
		_ = h.RecordValue(base + int64(i*37%1000))
	}
	b, err := h.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

var t0 = time.Date(2025, 3, 14, 9, 26, 53, 589793000, time.UTC)

func testRun(label string, started time.Time) *Run {
	return &Run{
		Label: label, Target: "embedded", Engine: "postgres", EngineVersion: "PostgreSQL 15.8", Mode: "procedures",
		Warehouses: 10, Seed: 1<<63 + 12345, KeyingThinking: true, Users: []int{1, 2}, Rampup: 10 * time.Second,
		Duration: time.Minute, Repeats: 2,
		Flags:     map[string]string{"users": "1,2", "repeats": "2"},
		Env:       map[string]string{"shared_buffers": "128MB", "cpu_model": "Test CPU", "cores": "8"},
		StartedAt: started, Note: "a note, with \"quotes\"",
	}
}

// created stores r in s (CreateRun fills its id and defaults) and returns
// it; a failure ends the test.
func created(tb testing.TB, s *Store, r *Run) *Run {
	tb.Helper()
	if err := s.CreateRun(context.Background(), r); err != nil {
		tb.Fatal(err)
	}
	return r
}

// testStep returns a step with every field and child set (values depend on
// repeat and index, so mix-ups show).
func testStep(tb testing.TB, runID string, repeat, index, users, seconds, windows, samples int) Step {
	k := float64(repeat*10 + index)
	start := t0.Add(time.Duration(repeat*1000+index*100) * time.Second)
	st := Step{
		RunID: runID, Repeat: repeat, Index: index, Users: users,
		Start: start, MeasureStart: start.Add(10 * time.Second), MeasureEnd: start.Add(70 * time.Second),
		Partial: repeat == 2 && index == 1,
		TPM:     1000 + k, NOPM: 450 + k, TPMPerUser: (1000 + k) / float64(users),
		DriverCPUUsPerTxn: 12.5 + k, ServerCPUUsPerTxn: 300.25 + k, SkippedDeliveries: int64(k), Reconnects: int64(k) + 1,
		Host: HostSummary{CPUBusyPct: 50 + k, CPUIdlePct: 40 - k, CPUIowaitPct: 10, CPUUserPct: 30, CPUSystemPct: 15, CPUStealPct: 5,
			DiskReadIOPS: 100 + k, DiskWriteIOPS: 200, DiskReadMBps: 1.5, DiskWriteMBps: 2.5, DiskAvgLatencyMs: 0.7,
			MemUsedBytes: 8 << 30, MemCachedBytes: 1<<40 + uint64(k),
			ServerReadIOPS: 80 + k, ServerWriteIOPS: 150, ServerReadMBps: 0.75, ServerWriteMBps: 1.25},
		Procs: figures.Procs{ServerCPUPct: 180 + k, DriverCPUPct: 12 + k},
		DB: DBCounters{Commits: 10000 + int64(k), Rollbacks: 100, BlocksRead: 5000, BlocksHit: 995000, WALBytes: 1 << 33,
			Checkpoints: 1, TPM: 10100 + k, BufferHitPct: 99.5},
	}
	for i, typ := range txnTypes {
		st.Txn = append(st.Txn, TxnSummary{Type: typ, Txn: figures.Txn{Count: int64(1000 * (i + 1)), Rollbacks: int64(i), Retries: int64(2 * i),
			Errors: int64(i % 2), P50Ms: 1.1 + k, P90Ms: 2.2, P95Ms: 3.3, P99Ms: 4.4, MaxMs: 55.5}, MeanMs: 1.7,
			Hist: hist(tb, 200, int64(1000*(i+1))+int64(k))})
	}
	st.Txn[3].FirstError = "ERROR: deadlock detected (SQLSTATE 40P01)"
	for i := range seconds {
		st.Seconds = append(st.Seconds, Second{Offset: i, Txn: int64(100 + i), NewOrders: int64(45 + i%7)})
	}
	for w := range windows {
		for i, typ := range txnTypes {
			st.Windows = append(st.Windows, Window{Offset: time.Duration(w) * 10 * time.Second, Type: typ,
				Hist: hist(tb, 50, int64(900+100*i+w))})
		}
	}
	for i := range samples {
		st.Samples = append(st.Samples, HostSample{At: start.Add(time.Duration(i) * time.Second),
			Host: figures.Host{CPUUserPct: 30 + float64(i%10), CPUSystemPct: 10.25, CPUIowaitPct: 3, CPUIdlePct: 56.75 - float64(i%10), CPUStealPct: 0,
				CPUBusyPct: 40.25 + float64(i%10), DiskReadIOPS: 120, DiskWriteIOPS: 340.5, DiskReadMBps: 0.96, DiskWriteMBps: 5.4,
				DiskAvgLatencyMs: 0.35, MemUsedBytes: 8<<30 + uint64(i), MemCachedBytes: 2 << 30,
				ServerReadIOPS: 90 + float64(i), ServerWriteIOPS: 300, ServerReadMBps: 0.5, ServerWriteMBps: 4.5},
			Procs: figures.Procs{ServerCPUPct: 170, DriverCPUPct: 11},
			Disks: fmt.Sprintf(`[{"name":"sda","read_iops":%d}]`, 120+i)})
	}
	return st
}
