package capacity

import (
	"strings"
	"testing"
	"time"

	"github.com/rightsize/rightsize/analysis"
	"github.com/rightsize/rightsize/diagnosis"
	"github.com/rightsize/rightsize/figures"
	"github.com/rightsize/rightsize/store"
	"github.com/rightsize/rightsize/waits"
)

// step is 60 measured seconds of 300 transactions each (18,000 TPM), the
// server at 45 % of a core (1.5 ms per transaction), 150 reads/s (0.5 per
// transaction), after a 10 s ramp-up.
func step(t0 time.Time) store.Step {
	s := store.Step{Index: 0, Users: 4, Start: t0, MeasureStart: t0.Add(10 * time.Second), MeasureEnd: t0.Add(70 * time.Second),
		TPM: 18000, NOPM: 8100, TPMCIHalf: 360, ServerCPUUsPerTxn: 1500, DriverCPUUsPerTxn: 200,
		Host: store.HostSummary{DiskReadIOPS: 150, DiskWriteIOPS: 600, DiskReadMBps: 1.2288, DiskAvgLatencyMs: 0.5, CPUBusyPct: 40},
		DB:   store.DBCounters{Commits: 18000, WALBytes: 18000 * 4096, BlocksRead: 9000},
		Txn:  []store.TxnSummary{{Type: "new_order", Txn: figures.Txn{P90Ms: 6}}}}
	for i := range 70 {
		s.Seconds = append(s.Seconds, store.Second{Offset: i, Txn: 300 + int64(i%3-1)*10})
		s.Samples = append(s.Samples, store.HostSample{At: t0.Add(time.Duration(i+1) * time.Second), Procs: figures.Procs{ServerCPUPct: 45 + float64(i%2)}, Host: figures.Host{DiskReadIOPS: 150, DiskWriteIOPS: 600}})
	}
	return s
}

func TestFromStep(t *testing.T) {
	d, err := FromStep(step(time.Unix(1e9, 0)), Config{CPUs: 2}, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"CPU s/txn", d.CPUSec.Mean, 0.0015}, {"reads/txn", d.ReadIOs.Mean, 0.5}, {"writes/txn", d.WriteIOs.Mean, 2},
		{"read bytes/txn", d.ReadBytes, 4096}, {"I/O s", d.IOSec, 0.0005}, {"driver CPU s/txn", d.DriverCPUSec, 0.0002},
		{"WAL bytes/txn", d.WALBytes, 4096}, {"blocks read/txn", d.BlocksRead, 0.5}, {"New-Order share", d.NewOrderShare, 0.45},
		{"TPM half", d.TPM.Half, 360},
	} {
		if !near(c.got, c.want, 1e-9) {
			t.Errorf("%s: %g, want %g", c.name, c.got, c.want)
		}
	}
	// The per-second CPU varies (45 / 46 % over 290-310 transactions): a
	// half-width, narrow but not zero.
	if d.CPUSec.Half <= 0 || d.CPUSec.Half > 0.05*d.CPUSec.Mean {
		t.Errorf("CPU half-width %g, want within (0, 5 %% of %g]", d.CPUSec.Half, d.CPUSec.Mean)
	}
	if len(d.Caveats()) != 0 {
		t.Errorf("caveats of a quiet CPU-bound step: %v", d.Caveats())
	}
	if d.WALSyncs != 0 {
		t.Errorf("log syncs %g per transaction with none counted, want 0", d.WALSyncs)
	}
	// 4,500 log syncs over the 60 s of 300 transactions a second: one per 4
	synced := step(time.Unix(1e9, 0))
	analysis.Why{Waits: &waits.Profile{Seconds: 60, Counters: map[string]float64{"wal.wal_sync": 4500}}}.Put(&synced)
	if d, err := FromStep(synced, Config{CPUs: 2}, 0); err != nil || !near(d.WALSyncs, 0.25, 1e-9) {
		t.Errorf("log syncs per transaction %g (%v), want 0.25", d.WALSyncs, err)
	}
	partial := step(time.Unix(1e9, 0))
	partial.Partial = true
	if _, err := FromStep(partial, Config{CPUs: 2}, 0); err == nil {
		t.Error("a partial step gave demands")
	}
	remote := step(time.Unix(1e9, 0))
	remote.ServerCPUUsPerTxn = 0
	if _, err := FromStep(remote, Config{CPUs: 2}, 0); err == nil || !strings.Contains(err.Error(), "CPU was not measured") {
		t.Errorf("no server CPU: %v", err)
	}
}

func TestCaveats(t *testing.T) {
	s := step(time.Unix(1e9, 0))
	analysis.Why{Verdict: &diagnosis.Verdict{Kind: "lock-bound"}}.Put(&s)
	s.Host.CPUBusyPct = 97
	d, err := FromStep(s, Config{CPUs: 2}, 0)
	if err != nil {
		t.Fatal(err)
	}
	c := strings.Join(d.Caveats(), " | ")
	if !strings.Contains(c, "lock-bound") || !strings.Contains(c, "97 % busy") {
		t.Errorf("caveats %q: want the lock-bound base and the busy host", c)
	}
}

// TestFromStepIOSource: the server's own I/O (its cgroup's counters) is
// preferred to the host's disks, which count every process's; without it
// the host's are used, as before.
func TestFromStepIOSource(t *testing.T) {
	server := step(time.Unix(1e9, 0))
	// the server did 60 of the host's 150 reads/s and 300 of its 600
	// writes/s (0.2 and 1 per transaction), 2.4 MB/s of writes
	server.Host.ServerReadIOPS, server.Host.ServerWriteIOPS, server.Host.ServerWriteMBps = 60, 300, 2.4
	// each second the server reads 0.2 per transaction of that second
	// exactly (sample i covers second i), while the host's 150 reads/s
	// over 290-310 transactions vary
	for i := range server.Samples {
		server.Samples[i].ServerReadIOPS = 0.2 * float64(server.Seconds[i].Txn)
		server.Samples[i].ServerWriteIOPS = 300
	}
	tests := []struct {
		name                  string
		s                     store.Step
		source                string
		reads, writes, wbytes float64
	}{
		{"server cgroup", server, IOServer, 0.2, 1, 8000},
		{"host disks", step(time.Unix(1e9, 0)), IOHost, 0.5, 2, 0},
	}
	for _, tc := range tests {
		d, err := FromStep(tc.s, Config{CPUs: 2}, 0)
		if err != nil {
			t.Fatal(err)
		}
		if d.IOSource != tc.source || !near(d.ReadIOs.Mean, tc.reads, 1e-9) || !near(d.WriteIOs.Mean, tc.writes, 1e-9) ||
			!near(d.WriteBytes, tc.wbytes, 1e-9) {
			t.Errorf("%s: source %q, %g reads, %g writes, %g bytes written per txn; want %q, %g, %g, %g",
				tc.name, d.IOSource, d.ReadIOs.Mean, d.WriteIOs.Mean, d.WriteBytes, tc.source, tc.reads, tc.writes, tc.wbytes)
		}
	}
	// the spread is the server's samples': none, where the host's has one
	own, _ := FromStep(server, Config{CPUs: 2}, 0)
	host, _ := FromStep(step(time.Unix(1e9, 0)), Config{CPUs: 2}, 0)
	if own.ReadIOs.Half > 1e-12 || host.ReadIOs.Half <= 0 {
		t.Errorf("reads' half-width %g from the server's samples (want 0), %g from the host's (want > 0)", own.ReadIOs.Half, host.ReadIOs.Half)
	}
}

// A cache that fills during the window: 3 reads per transaction in the
// first 15 measured seconds, 0.5 in the 45 after (the step's 300
// transactions a second): SteadyReads keeps the 0.5 and says it dropped
// the warm-up; a flat series keeps the window's mean.
func TestSteadyReads(t *testing.T) {
	s := step(time.Unix(1e9, 0))
	for i := range s.Samples {
		s.Samples[i].DiskReadIOPS = 150
		if sec := i - 10; sec >= 0 && sec < 15 { // measured seconds 0..14 (samples at the end of each)
			s.Samples[i].DiskReadIOPS = 900
		}
	}
	got, dropped, ok := SteadyReads(s)
	if !ok || dropped < 15 || dropped > 20 || !near(got, 0.5, 0.02) {
		t.Errorf("warm-up: %.3f reads per transaction after %d s dropped (ok %v), want 0.5 after 15-20", got, dropped, ok)
	}
	flat := step(time.Unix(1e9, 0))
	if got, _, ok := SteadyReads(flat); !ok || !near(got, 0.5, 0.02) {
		t.Errorf("flat: %.3f reads per transaction (ok %v), want 0.5", got, ok)
	}
}
