package report

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"

	"github.com/rightsize/rightsize/analysis"
	"github.com/rightsize/rightsize/figures"
	"github.com/rightsize/rightsize/store"
)

func TestWriteRunSummary(t *testing.T) {
	st, ids := studyStore(t)
	r, steps, err := st.LoadRun(context.Background(), ids[1])
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	WriteRunSummary(&buf, *r, steps)
	out := buf.String()
	if os.Getenv("RIGHTSIZE_SUMMARY_OUT") != "" {
		t.Log("\n" + out)
	}
	rs := NewRunStats(steps)
	peak, _ := rs.Peak()
	for _, want := range []string{
		"rightsize run " + r.ID + " · SSD/4 cores",
		"peak TPM ",
		fmtInt(peak.TPM.Mean) + " at 13 users",
		"average over all steps",
		"users", "min–max", "CV", "TPM/user", "CPU busy", "idle", "iowait", "disk ms", "IOPS", "driver CPU",
		"transaction", "p99 ms", "new_order", "stock_level",
		"✗ payment: 9 errors, first: ERROR: could not serialize access",
		"✓ peak driver CPU ", "of one core at ",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}
	// Key numbers come first.
	if strings.Index(out, "peak TPM") > strings.Index(out, "CPU busy") {
		t.Error("the key numbers are not first")
	}
}

// An imported HammerDB run has no host telemetry, no histograms and no p90.
func TestWriteRunSummaryImported(t *testing.T) {
	run := store.Run{ID: "20250304-100941-9664fc", Label: "hammerdb:timed.log", Source: store.SourceHammerDB, Status: store.StatusComplete,
		Target: "hammerdb", Engine: "postgres", EngineVersion: "PostgreSQL 16.4", Warehouses: 50, Users: []int{4, 8}, Repeats: 1}
	steps := []store.Step{
		{Repeat: 1, Index: 0, Users: 4, TPM: 26934, NOPM: 11573, TPMPerUser: 6733.5,
			Txn: []store.TxnSummary{{Type: "new_order", Txn: figures.Txn{Count: 82130, P50Ms: 6.101, P95Ms: 13.904, P99Ms: 24.301, MaxMs: 212.871}, MeanMs: 7.402}}},
		{Repeat: 1, Index: 1, Users: 8, TPM: 40100, NOPM: 17200, TPMPerUser: 5012.5},
	}
	var buf bytes.Buffer
	WriteRunSummary(&buf, run, steps)
	out := buf.String()
	if os.Getenv("RIGHTSIZE_SUMMARY_OUT") != "" {
		t.Log("\n" + out)
	}
	for _, want := range []string{"peak TPM ................. 40,100 at 8 users", "average over all steps ... TPM 33,517 · NOPM 14,387",
		"new_order    82,130            0       0        0    6.10       -    13.9    24.3   212.9", "✓ no transaction failed"} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}
	for _, unwanted := range []string{"CPU busy", "disk ms", "min–max", "driver CPU"} {
		if strings.Contains(out, unwanted) {
			t.Errorf("summary shows %q without data:\n%s", unwanted, out)
		}
	}
}

// A keyed run's summary has an efficiency column: NOPM over the users'
// keyed maximum (tpcc.KeyedEfficiency); a run without keying has none.
func TestWriteRunSummaryEfficiency(t *testing.T) {
	for _, keyed := range []bool{true, false} {
		run := store.Run{ID: "20261125-220000-abcdef", Status: store.StatusComplete, Warehouses: 10, KeyingThinking: keyed, Users: []int{100}, Repeats: 1}
		steps := []store.Step{{Repeat: 1, Index: 0, Users: 100, TPM: 260, NOPM: 113.4, TPMPerUser: 2.6}}
		var buf bytes.Buffer
		WriteRunSummary(&buf, run, steps)
		out := buf.String()
		// 113.4 NOPM of 100 users × 600/476 = 126.05: 90 %
		if got := strings.Contains(out, "efficiency") && strings.Contains(out, "90.0 %"); got != keyed {
			t.Errorf("keyed %v: efficiency column shown %v, want %v:\n%s", keyed, got, keyed, out)
		}
	}
}

// A run whose server ran without caps it asked (--caps best-effort) says
// which in its summary; one with every cap applied says nothing of it.
func TestWriteRunSummaryCapsNotApplied(t *testing.T) {
	for _, missing := range []string{"memory, I/O", ""} {
		run := store.Run{ID: "20261127-010000-abcdef", Status: store.StatusComplete, Warehouses: 1, Users: []int{2}, Repeats: 1,
			Env: map[string]string{}}
		if missing != "" {
			run.Env[store.EnvCapsNotApplied] = missing
		}
		var buf bytes.Buffer
		WriteRunSummary(&buf, run, []store.Step{{Repeat: 1, Users: 2, TPM: 100, NOPM: 45}})
		if got, want := strings.Contains(buf.String(), "caps not applied: memory, I/O"), missing != ""; got != want {
			t.Errorf("caps.not_applied %q: said %v, want %v:\n%s", missing, got, want, buf.String())
		}
	}
}

// The driver verdict of an engine inside the driver's process (SQLite)
// says the figure is the database's CPU too and that more cores, not
// another machine, is the way; a server engine keeps the driver advice.
func TestDriverVerdictInProcess(t *testing.T) {
	sqlite := store.Run{Engine: "sqlite", Env: map[string]string{"host.logical_cpus": "2", store.EnvEngineInProcess: "true"}}
	postgres := store.Run{Engine: "postgres", Env: map[string]string{"host.logical_cpus": "2"}}
	unknown := store.Run{Engine: "sqlite", Env: map[string]string{store.EnvEngineInProcess: "true"}}
	const fig = "peak driver CPU 109.9 % of one core at 4 users (120.0 µs/txn)"
	for _, c := range []struct {
		name string
		run  store.Run
		pct  float64
		want string
	}{
		{"sqlite at 4 users", sqlite, 109.9, "  · " + fig + ", 55.0 % of the host's 2 CPUs: sqlite runs inside the driver's process, so this is the database's own CPU as well as the driver's; " +
			"what can limit the result is the cores the process gets (more cores, not another machine for the driver)\n"},
		{"sqlite using the host", sqlite, 190, "  ✗ peak driver CPU 190.0 % of one core at 4 users (120.0 µs/txn), nearly all of the host's 2 CPUs: sqlite runs inside the driver's process, " +
			"so this is the database's own CPU as well as the driver's; the cores the process gets limit the result: give it more (a machine or container with more cores), another machine for the driver is not possible\n"},
		{"sqlite, CPUs unknown", unknown, 109.9, "  · " + fig + ": sqlite runs inside the driver's process, so this is the database's own CPU as well as the driver's; host CPU count unknown\n"},
		{"postgres", postgres, 109.9, "  ✗ " + fig + ", more than a quarter of the host's 2 CPUs: the load generator may limit the result; run it on another machine\n"},
		{"postgres below a quarter", postgres, 40, "  ✓ peak driver CPU 40.0 % of one core at 4 users (120.0 µs/txn), less than a quarter of the host's 2 CPUs: not the bottleneck\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var buf bytes.Buffer
			writeDriverVerdict(&buf, c.run, analysis.Headline{PeakDriverCPUPct: c.pct, PeakDriverCPUUsers: 4, PeakDriverCPUUsPerTxn: 120})
			if got := buf.String(); got != c.want {
				t.Errorf("verdict\n%q\nwant\n%q", got, c.want)
			}
			if DriverBottleneck(c.run, c.pct) && c.run.EngineInProcess() {
				t.Error("DriverBottleneck holds for an engine inside the driver's process")
			}
		})
	}
}
