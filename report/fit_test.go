package report

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/rightsize/rightsize/cost"
	"github.com/rightsize/rightsize/fit"
	"github.com/rightsize/rightsize/steady"
	"github.com/rightsize/rightsize/store"
)

// priced is a candidate of cpus cores costing total.
func priced(cpus float64, total int64) fit.Priced {
	return fit.Priced{Candidate: fit.Candidate{Cpus: cpus}, Cost: cost.Breakdown{Total: cost.Money{Decimal: decimal.NewFromInt(total)}}}
}

// testFit is a fit of three candidates, the second of which meets.
func testFit() *Fit {
	return &Fit{ID: "20261124-140000-abcdef", Status: "complete", Currency: "USD", TargetNOPM: 12000, Best: 1,
		Answer: "cpus 1 meets NOPM 12,000 for USD 21,000.00 (2 of 3 candidates measured)",
		Trials: []fit.Trial{
			{Priced: priced(0.5, 17000), Verdict: "misses", Reason: "NOPM 6,000 < target 12,000", RunID: "r1", Users: 4, NOPM: 6000, P90Ms: 9},
			{Priced: priced(1, 21000), Verdict: "meets", Reason: "NOPM 13,000 ≥ target 12,000", RunID: "r2", Users: 4, NOPM: 13000, Interval: steady.Interval{Half: 400}, P90Ms: 5},
			{Priced: priced(2, 28000), Verdict: "not needed", Reason: "cpus 1 meets the target for less"},
		},
		Indistinct: []string{"cpus 1 (NOPM 13,000 ± 400) and cpus 1.5 (NOPM 13,200 ± 300): not distinguishable at this precision"}}
}

// A report of a fit alone has the fit section: the answer, every candidate
// with its verdict, and the cost/NOPM chart; Chromium loads it with no
// console message and draws the chart.
func TestFitSection(t *testing.T) {
	f := testFit()
	var buf bytes.Buffer
	if err := HTML(&buf, nil, Options{Version: "test", Generated: time.Date(2026, 11, 24, 14, 0, 0, 0, time.UTC), Fit: f}); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	for _, want := range []string{`id="fit"`, "cpus 1 meets NOPM 12,000", "not needed", "21,000.00", "Cost against NOPM", `"frontier"`, `"target"`,
		"13,000 ± 400", "cpus 1.5 (NOPM 13,200 ± 300): not distinguishable at this precision."} {
		if !strings.Contains(page, want) {
			t.Errorf("fit section lacks %q", want)
		}
	}
	if n := strings.Count(page, "echarts.init("); n != 1 {
		t.Errorf("%d charts, want 1", n)
	}
	bin := chromium(t)
	file := filepath.Join(t.TempDir(), "fit.html")
	if err := os.WriteFile(file, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	dom, logs := runChromium(t, bin, file, "--dump-dom")
	if msgs := consoleRE.FindAll(logs, -1); len(msgs) > 0 {
		t.Errorf("console messages while loading the fit report:\n%s", bytes.Join(msgs, []byte("\n")))
	}
	if n := len(instanceRE.FindAll(dom, -1)); n != 1 {
		t.Errorf("%d of 1 chart initialised", n)
	}
}

// TestFitSectionNamesWorkloadFigure: a pgbench workload's fit names its
// judged figure and p90 as every other view does (store.Merit's name, not
// TPC-C's NOPM and New-Order p90) in the table, the chart and the note.
func TestFitSectionNamesWorkloadFigure(t *testing.T) {
	for _, tc := range []struct {
		name  string
		merit *store.Merit
		want  []string
		not   []string
	}{
		{"TPC-C", nil, []string{"<th>NOPM</th>", "<th>New-Order p90 ms</th>", "Cost against NOPM", "NOPM is the figure judged"}, []string{"TPM of"}},
		{"every script", &store.Merit{PerMinute: "TPM"}, []string{"<th>TPM of every script</th>", "<th>p90 ms</th>", "Cost against TPM of every script",
			"TPM of every script is the figure judged"}, []string{"<th>NOPM</th>", "New-Order"}},
		{"one script", &store.Merit{Txn: "update", PerMinute: "TPM"}, []string{"<th>TPM of update</th>", "Cost against TPM of update"}, []string{"<th>NOPM</th>", "New-Order"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := testFit()
			f.Merit = tc.merit
			var buf bytes.Buffer
			if err := HTML(&buf, nil, Options{Version: "test", Generated: time.Date(2026, 11, 24, 14, 0, 0, 0, time.UTC), Fit: f}); err != nil {
				t.Fatal(err)
			}
			page := buf.String()
			for _, w := range tc.want {
				if !strings.Contains(page, w) {
					t.Errorf("page lacks %q", w)
				}
			}
			for _, w := range tc.not {
				if strings.Contains(page, w) {
					t.Errorf("page has %q", w)
				}
			}
		})
	}
}
