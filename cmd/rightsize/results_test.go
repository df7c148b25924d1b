package main

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rightsize/rightsize/analysis"
	"github.com/rightsize/rightsize/figures"
	"github.com/rightsize/rightsize/store"
)

func seedStore(t *testing.T, path string) []string {
	t.Helper()
	ctx := context.Background()
	st, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var ids []string
	for i, label := range []string{"baseline", "8 cores", "baseline"} {
		r := &store.Run{Label: label, Engine: "postgres", EngineVersion: "PostgreSQL 15.8", Target: "embedded", Mode: "procedures",
			Warehouses: 4, Users: []int{1, 2}, Rampup: 10 * time.Second, Duration: time.Minute, Repeats: 2,
			Flags: map[string]string{"users": "1,2"}, Env: map[string]string{"shared_buffers": "128MB", "cpu_cores": "8"},
			StartedAt: time.Date(2025, 3, 14, 9, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Hour)}
		if err := st.CreateRun(ctx, r); err != nil {
			t.Fatal(err)
		}
		for rep := 1; rep <= 2; rep++ {
			for idx, u := range r.Users {
				start := r.StartedAt.Add(time.Duration(rep*10+idx) * time.Minute)
				s := store.Step{RunID: r.ID, Repeat: rep, Index: idx, Users: u, Start: start, MeasureStart: start.Add(10 * time.Second),
					MeasureEnd: start.Add(70 * time.Second), TPM: 1000*float64(u) + float64(rep*100*idx), NOPM: 450 * float64(u),
					TPMPerUser: 1000, Host: store.HostSummary{CPUBusyPct: 40, DiskReadIOPS: 100}, Procs: figures.Procs{ServerCPUPct: 150, DriverCPUPct: 5},
					Txn: []store.TxnSummary{{Type: "new_order", Txn: figures.Txn{Count: 100, P50Ms: 1, P99Ms: 5, MaxMs: 9}, MeanMs: 1.5, FirstError: "ERROR: boom"},
						{Type: "payment", Txn: figures.Txn{Count: 90, P50Ms: 0.5, P99Ms: 2, MaxMs: 4}, MeanMs: 0.7}},
					Seconds: []store.Second{{Offset: 0, Txn: 10, NewOrders: 4}, {Offset: 1, Txn: 11, NewOrders: 5}},
					Samples: []store.HostSample{{At: start, Host: store.HostSummary{CPUBusyPct: 40}}}}
				if label == "8 cores" { // a server in a cgroup: its own I/O measured
					s.ServerCPUUsPerTxn, s.Host.ServerReadIOPS, s.Host.ServerWriteIOPS = 900, 20, 50
				}
				if err := st.AddStep(ctx, &s); err != nil {
					t.Fatal(err)
				}
			}
		}
		if err := st.FinishRun(ctx, r.ID, store.StatusComplete, r.StartedAt.Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, r.ID)
	}
	return ids
}

func TestResultsCommands(t *testing.T) {
	ctx := context.Background()
	path := tempStore(t)

	// No store yet: list says so, show is bad input, nothing is created.
	out, errOut, code := cli(t, ctx, "results", "list", "--store", path)
	t.Logf("list (no store): %d\n%s%s", code, out, errOut)
	if code != 0 || !strings.Contains(out, "no runs yet") {
		t.Errorf("list on missing store: %d %q %q", code, out, errOut)
	}
	if _, err := os.Stat(path); err == nil {
		t.Error("list created the store")
	}
	out, _, _ = cli(t, ctx, "results", "list", "--json", "--store", path)
	if strings.TrimSpace(out) != "[]" {
		t.Errorf("list --json on missing store: %q", out)
	}
	_, errOut, code = cli(t, ctx, "results", "show", "x", "--store", path)
	t.Logf("show (no store): %d %s", code, errOut)
	if code != 2 {
		t.Errorf("show on missing store: %d", code)
	}

	ids := seedStore(t, path)
	out, errOut, code = cli(t, ctx, "results", "list", "--store", path)
	t.Logf("list:\n%s%s", out, errOut)
	if code != 0 || strings.Count(out, "\n") != 4 || !strings.HasPrefix(strings.Split(out, "\n")[1], ids[2]) {
		t.Errorf("list: %d", code)
	}
	out, _, code = cli(t, ctx, "results", "list", "--json", "--store", path)
	var sums []analysis.RunSummary
	if err := json.Unmarshal([]byte(out), &sums); err != nil || len(sums) != 3 || code != 0 {
		t.Errorf("list --json: %v %d", err, len(sums))
	}

	// RIGHTSIZE_STORE is used without --store.
	t.Setenv("RIGHTSIZE_STORE", path)
	out, errOut, code = cli(t, ctx, "results", "show", "baseline")
	t.Logf("show:\n%s%s", out, errOut)
	if code != 0 || !strings.Contains(out, ids[2]) || !strings.Contains(out, "latency per transaction") {
		t.Errorf("show baseline: %d", code)
	}
	// the server's own I/O: a column of its own, and the demands' source
	out, _, code = cli(t, ctx, "results", "show", "8 cores")
	t.Logf("show 8 cores:\n%s", out)
	if code != 0 || !strings.Contains(out, "server write IOPS") || !strings.Contains(out, "server cgroup") {
		t.Errorf("show 8 cores: %d, no server I/O column or demands from the server's cgroup\n%s", code, out)
	}
	if base, _, _ := cli(t, ctx, "results", "show", ids[2]); strings.Contains(base, "server write IOPS") {
		t.Error("show baseline: a server I/O column for a run that measured none")
	}
	out, _, code = cli(t, ctx, "results", "show", ids[0], "--json")
	var doc analysis.Document
	if err := json.Unmarshal([]byte(out), &doc); err != nil || doc.Run.ID != ids[0] || len(doc.Steps) != 4 || code != 0 {
		t.Errorf("show --json: %v", err)
	}

	dir := filepath.Join(t.TempDir(), "x")
	out, errOut, code = cli(t, ctx, "results", "export", "8 cores", "--format", "csv", "-o", dir)
	t.Logf("export: %d\n%s%s", code, out, errOut)
	if code != 0 || strings.Count(out, "\n") != 5 {
		t.Errorf("export csv: %d", code)
	}
	f, _ := os.Open(filepath.Join(dir, "steps.csv"))
	recs, err := csv.NewReader(f).ReadAll()
	f.Close()
	if err != nil || len(recs) != 5 {
		t.Errorf("steps.csv: %v, %d rows", err, len(recs))
	}
	out, _, code = cli(t, ctx, "results", "export", ids[1], "--format", "json", "-o", dir)
	if code != 0 || strings.TrimSpace(out) != filepath.Join(dir, ids[1]+".json") {
		t.Errorf("export json: %d %q", code, out)
	}
	// JSON goes to standard output by default and with -o -: the document results show --json prints.
	shown, _, _ := cli(t, ctx, "results", "show", ids[1], "--json")
	for _, args := range [][]string{{"--format", "json"}, {"--format", "json", "-o", "-"}} {
		out, errOut, code = cli(t, ctx, append([]string{"results", "export", ids[1]}, args...)...)
		if code != 0 || out != shown {
			t.Errorf("export %v: %d, %d bytes, want the %d of results show --json\n%s", args, code, len(out), len(shown), errOut)
		}
	}

	// Bad input: one clear line, exit code 2.
	file := filepath.Join(t.TempDir(), "file")
	os.WriteFile(file, []byte("x"), 0o644)
	garbage := filepath.Join(t.TempDir(), "garbage.db")
	os.WriteFile(garbage, []byte(strings.Repeat("garbage! ", 1000)), 0o644)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"results", "show", "nope"}, `no run with id or label "nope"`},
		{[]string{"results", "show"}, "give one RUN"},
		{[]string{"results", "export", ids[0], "--format", "xlsx"}, `--format "xlsx"`},
		{[]string{"results", "export", ids[0], "-o", filepath.Join(file, "sub")}, "not a directory"},
		{[]string{"results", "export", ids[0], "-o", "-"}, "CSV is several files"},
		{[]string{"results", "delete", "nope"}, "no run"},
		{[]string{"results", "list", "--store", garbage}, "not a rightsize results store"},
		{[]string{"results", "list", "--store", t.TempDir()}, "is a directory"},
		{[]string{"results", "show", "2025", "--store", path}, "no run"},
		{[]string{"results", "show", "20250314", "--store", path}, "ambiguous"},
	} {
		_, errOut, code := cli(t, ctx, c.args...)
		t.Logf("%v: %d %s", c.args, code, errOut)
		if code != 2 || !strings.Contains(errOut, c.want) || strings.Count(strings.TrimSpace(errOut), "\n") > 0 {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q on one line", c.args, code, errOut, c.want)
		}
	}

	out, errOut, code = cli(t, ctx, "results", "delete", "baseline")
	if code != 0 || !strings.Contains(out, "deleted run "+ids[2]) {
		t.Errorf("delete: %d %q %q", code, out, errOut)
	}
	out, _, _ = cli(t, ctx, "results", "list")
	if strings.Contains(out, ids[2]) || !strings.Contains(out, ids[0]) {
		t.Errorf("after delete:\n%s", out)
	}
}
