package scenario

import (
	"encoding/json"
	"math"
	"testing"
	"time"

	"github.com/rightsize/rightsize/figures"
	"github.com/rightsize/rightsize/store"
)

// TestBuildReportEfficiency: a keyed run's steps carry efficiency_pct
// (tpcc.KeyedEfficiency), a run without keying's do not.
func TestBuildReportEfficiency(t *testing.T) {
	for _, keyed := range []bool{true, false} {
		run := &store.Run{ID: "r", Status: store.StatusComplete, Warehouses: 10, KeyingThinking: keyed, Users: []int{100}, Repeats: 1}
		rep := BuildReport(run, []store.Step{{Repeat: 1, Index: 0, Users: 100, TPM: 260, NOPM: 113.4, TPMPerUser: 2.6}})
		e := rep.Steps[0].EfficiencyPct()
		switch {
		case keyed && (e == nil || math.Abs(*e-90) > 0.05):
			t.Errorf("keyed: efficiency_pct %v, want 90 (113.4 NOPM of 100 users × 600/476)", e)
		case !keyed && e != nil:
			t.Errorf("not keyed: efficiency_pct %v, want none", *e)
		}
	}
}

// run --json says which caps the server ran without, as every view does.
func TestBuildReportCapsNotApplied(t *testing.T) {
	run := &store.Run{ID: "r", Status: store.StatusComplete, Env: map[string]string{store.EnvCapsNotApplied: "memory, I/O"}}
	if got := BuildReport(run, nil).CapsNotApplied; got != "memory, I/O" {
		t.Errorf("caps_not_applied %q", got)
	}
	run.Env = nil
	if got := BuildReport(run, nil).CapsNotApplied; got != "" {
		t.Errorf("caps_not_applied %q with every cap applied", got)
	}
}

// TestReportStepJSON pins a step of run --json: every key in its order,
// read from the aggregate of the repeats.
func TestReportStepJSON(t *testing.T) {
	run := &store.Run{ID: "r", Status: store.StatusComplete, Warehouses: 10, KeyingThinking: true, Users: []int{100}, Repeats: 2}
	t0 := time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)
	var steps []store.Step
	for rep := 1; rep <= 2; rep++ {
		s := store.Step{Repeat: rep, Users: 100, TPM: 250 + 10*float64(rep), NOPM: 110 + float64(rep), TPMPerUser: 2.6,
			MeasureStart: t0, MeasureEnd: t0.Add(time.Minute), DriverCPUUsPerTxn: 120, ServerCPUUsPerTxn: 900,
			SkippedDeliveries: 1, Reconnects: 2, Procs: figures.Procs{ServerCPUPct: 150, DriverCPUPct: 5}, PrecisionPct: 1.5,
			Validity: &store.Validity{Valid: rep == 1, Violations: []string{}}}
		if rep == 2 {
			s.Validity.Violations = []string{"short"}
		}
		s.Host.CPUBusyPct, s.Host.DiskReadIOPS, s.Host.MemUsedBytes = 40, 100, 1<<30
		s.DB.TPM = 270
		var x store.TxnSummary
		x.Type, x.Count, x.Errors, x.P50Ms, x.P99Ms, x.MaxMs, x.MeanMs, x.FirstError = "new_order", 100, 1, 1.5, 9, 12, 2, "ERROR: a < b"
		s.Txn = []store.TxnSummary{x}
		steps = append(steps, s)
	}
	b, err := json.Marshal(BuildReport(run, steps).Steps)
	if err != nil {
		t.Fatal(err)
	}
	// what the typed StepReport wrote before the column table
	const want = `[{"users":100,"tpm":265,"nopm":111.5,"tpm_per_user":2.6,"efficiency_pct":88.45666666666668,"txn":{"new_order":{"count":200,"rollbacks":0,"retries":0,"errors":2,"p50_ms":1.5,"p90_ms":0,"p95_ms":0,"p99_ms":9,"max_ms":12,"first_error":"ERROR: a \u003c b"}},"driver_cpu_us_per_txn":120,"server_cpu_us_per_txn":900,"measured_seconds":120,"skipped_deliveries":2,"reconnects":4,"partial":false,"repeats":2,"tpm_cv":0.026683274761756512,"nopm_cv":0.00634176485369101,"tpm_min":260,"tpm_max":270,"unstable":false,"host":{"cpu_busy_pct":40,"cpu_idle_pct":0,"cpu_iowait_pct":0,"cpu_user_pct":0,"cpu_system_pct":0,"cpu_steal_pct":0,"disk_read_iops":100,"disk_write_iops":0,"disk_read_mbps":0,"disk_write_mbps":0,"disk_avg_latency_ms":0,"mem_used_bytes":1073741824,"mem_cached_bytes":0},"server_cpu_pct":150,"driver_cpu_pct":5,"db_tpm":270,"validity":{"valid":false,"violations":["short"]},"precision_pct":1.5,"tpm_ci_half":63.53102368087347}]`
	if string(b) != want {
		t.Errorf("run --json steps:\n%s\nwant\n%s", b, want)
	}
}

// run --json says what --prewarm loaded, and nothing for a run without it;
// the run's views say it in words.
func TestBuildReportPrewarmed(t *testing.T) {
	run := &store.Run{ID: "r", Status: store.StatusComplete, Env: map[string]string{store.EnvPrewarmBlocks: "27520", store.EnvPrewarmBytes: "225443840"}}
	if got := BuildReport(run, nil).Prewarmed; got == nil || *got != (PrewarmReport{Blocks: 27520, Bytes: 225443840}) {
		t.Errorf("prewarmed %+v", got)
	}
	if got := run.Prewarmed(); got != "cache prewarmed: 215 MiB (27520 blocks)" {
		t.Errorf("Prewarmed() = %q", got)
	}
	run.Env = nil
	if got := BuildReport(run, nil).Prewarmed; got != nil || run.Prewarmed() != "" {
		t.Errorf("prewarmed %+v, %q without a prewarm", got, run.Prewarmed())
	}
}
