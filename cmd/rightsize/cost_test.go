package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rightsize/rightsize/internal/costtest"
	"github.com/rightsize/rightsize/store"
)

// writeCostFile writes a cost file in a temp directory.
func writeCostFile(t *testing.T, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "costs.yaml")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

const cliCostFile = `baseline: old
configs:
  - name: old
    host_cores: 20
    vm_cores: 16
    hardware: [{item: server, price: 7595.62}]
    licences: [{use: windows-server-2022-datacenter}, {use: sqlserver-2019-standard}]
  - name: new-4vc-ssd
    run: new-4vc
` + costtest.SSD4

// costStore makes a store holding the run cliCostFile links, new-4vc (one
// step of 3 users: TPM 9000, NOPM 4000), and returns its location.
func costStore(t *testing.T, ctx context.Context) string {
	t.Helper()
	loc := tempStore(t)
	st, err := store.Open(ctx, loc)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	r := &store.Run{Label: "new-4vc", Users: []int{3}, Warehouses: 1}
	if err := st.CreateRun(ctx, r); err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	if err := st.AddStep(ctx, &store.Step{RunID: r.ID, Repeat: 1, Users: 3, TPM: 9000, NOPM: 4000, Start: now,
		MeasureStart: now, MeasureEnd: now.Add(time.Minute)}); err != nil {
		t.Fatal(err)
	}
	return loc
}

func TestCostCommand(t *testing.T) {
	ctx := context.Background()
	loc := costStore(t, ctx)
	file := writeCostFile(t, cliCostFile)

	out, errOut, code := cli(t, ctx, "cost", file, "--store", loc)
	if code != 0 {
		t.Fatalf("cost: exit %d\n%s", code, errOut)
	}
	for _, want := range []string{"14,331.30", "12,310.00", "7,434.00", "34,075.30", "peak NOPM per licensed core (4 cores)", "1,000", "8.52"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}

	out, errOut, code = cli(t, ctx, "cost", file, "--store", loc, "--json")
	if code != 0 {
		t.Fatalf("cost --json: exit %d\n%s", code, errOut)
	}
	var doc struct {
		Configs []struct {
			Name    string          `json:"name"`
			Total   json.RawMessage `json:"total"`
			PerNOPM json.RawMessage `json:"price_per_nopm"`
			Run     struct {
				PeakNOPM float64 `json:"peak_nopm"`
			} `json:"run"`
		} `json:"configs"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("JSON: %v\n%s", err, out)
	}
	if c := doc.Configs[1]; string(c.Total) != "34075.3" || c.Run.PeakNOPM != 4000 || !strings.HasPrefix(string(c.PerNOPM), "8.518825") {
		t.Errorf("JSON config %s: total %s, peak NOPM %v, $/NOPM %s; want 34075.3, 4000, 8.518825", c.Name, c.Total, c.Run.PeakNOPM, c.PerNOPM)
	}

	for _, c := range []struct {
		name, text, want string
	}{
		{"unknown run", strings.Replace(cliCostFile, "run: new-4vc", "run: nope", 1), "costs.yaml:9:10: configs[1].run: no run or label \"nope\""},
		{"negative price", strings.Replace(cliCostFile, "price: 226.99", "price: -226.99", 1), "costs.yaml:15:50: configs[1].hardware[2].price: must not be negative"},
		{"unknown field", strings.Replace(cliCostFile, "vm_cores: 4", "vm_core: 4", 1), "costs.yaml:11:5: vm_core: unknown field"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, errOut, code := cli(t, ctx, "cost", writeCostFile(t, c.text), "--store", loc)
			if code != 2 || !strings.Contains(errOut, c.want) || strings.Count(strings.TrimSpace(errOut), "\n") != 0 {
				t.Errorf("exit %d, stderr %q; want 2 and one line containing %q", code, errOut, c.want)
			}
		})
	}
	if _, errOut, code := cli(t, ctx, "cost", filepath.Join(t.TempDir(), "missing.yaml")); code != 2 {
		t.Errorf("missing file: exit %d (%s), want 2", code, errOut)
	}
}

func TestReportWithCost(t *testing.T) {
	ctx := context.Background()
	loc := costStore(t, ctx)
	out := filepath.Join(t.TempDir(), "cost.html")
	_, errOut, code := cli(t, ctx, "report", "--cost", writeCostFile(t, cliCostFile), "--store", loc, "-o", out)
	if code != 0 {
		t.Fatalf("report --cost: exit %d\n%s", code, errOut)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	page := string(b)
	for _, want := range []string{`<section id="cost">`, `<section id="summary">`, "34,075.30", "8.52", "new-4vc"} {
		if !strings.Contains(page, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	if !strings.Contains(errOut, "cost model") {
		t.Errorf("stderr %q does not name the cost model", errOut)
	}
	bad := strings.Replace(cliCostFile, "pack: 2,", "pack: 0,", 1)
	if _, errOut, code := cli(t, ctx, "report", "--cost", writeCostFile(t, bad), "--store", loc, "-o", out); code != 2 || !strings.Contains(errOut, "pack: must be at least 1") {
		t.Errorf("bad cost file: exit %d, %q; want 2 naming the pack", code, errOut)
	}
}
