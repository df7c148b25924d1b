package main

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/rightsize/rightsize/analysis"
	"github.com/rightsize/rightsize/store"
)

// TestFiguresSameInEveryView: one measured run's peak TPM, peak NOPM and
// peak driver CPU (analysis.RunFigures, one definition) appear with the same
// name, value and unit in the end-of-run summary, results show, results
// list (text and JSON), the JSON and CSV exports and the HTML report.
func TestFiguresSameInEveryView(t *testing.T) {
	dsn := built(t)
	st := tempStore(t)
	ctx := context.Background()
	summary, errOut, code := cli(t, ctx, "run", "--target", dsn, "--users", "1,2", "--rampup", "500ms", "--duration", "2s",
		"--store", st, "--label", "views", "--seed", "7")
	if code != 0 {
		t.Fatalf("run: %d\n%s%s", code, summary, errOut)
	}
	s, err := store.Open(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	id, err := s.Resolve(ctx, "views")
	if err != nil {
		t.Fatal(err)
	}
	_, steps, err := s.LoadRun(ctx, id)
	s.Close()
	if err != nil {
		t.Fatal(err)
	}
	fig := analysis.RunFigures(analysis.Aggregate(steps))
	if fig.PeakTPM <= 0 || fig.PeakDriverCPUPct <= 0 || fig.PeakDriverCPUUsPerTxn <= 0 {
		t.Fatalf("figures not measured: %+v", fig)
	}
	peakTPM := fmt.Sprintf("%.0f at %d users", fig.PeakTPM, fig.PeakTPMUsers)
	peakNOPM := fmt.Sprintf("%.0f at %d users", fig.PeakNOPM, fig.PeakNOPMUsers)
	driver := fmt.Sprintf("%.1f %% of one core at %d users (%.1f µs/txn)", fig.PeakDriverCPUPct, fig.PeakDriverCPUUsers, fig.PeakDriverCPUUsPerTxn)
	plain := func(s string) string { return strings.ReplaceAll(s, ",", "") }
	raw := func(args ...string) string {
		out, errOut, code := cli(t, ctx, append(args, "--store", st)...)
		if code != 0 {
			t.Fatalf("%v: %d\n%s", args, code, errOut)
		}
		return out
	}
	view := func(args ...string) string { return plain(raw(args...)) }
	has := func(where, text, pattern string) {
		t.Helper()
		if !regexp.MustCompile(pattern).MatchString(text) {
			t.Errorf("%s lacks %q:\n%s", where, pattern, text)
		}
	}
	q := regexp.QuoteMeta
	// the end-of-run summary
	sum := plain(summary)
	has("summary", sum, `peak TPM \.* `+q(peakTPM))
	has("summary", sum, `peak NOPM \.* `+q(peakNOPM))
	has("summary", sum, `peak driver CPU `+q(driver))
	// results show
	show := view("results", "show", "views")
	has("results show", show, `peak TPM `+q(peakTPM))
	has("results show", show, `peak NOPM `+q(peakNOPM))
	has("results show", show, `peak driver CPU `+q(driver))
	has("results show", show, `driver CPU % of one core`)
	// results list: the same peak, by the same name
	list := view("results", "list")
	has("results list", list, `PEAK TPM\s+PEAK NOPM`)
	has("results list", list, q(id)+`.*\s`+fmt.Sprintf("%.0f  +%.0f", fig.PeakTPM, fig.PeakNOPM)+`\s`)
	var js []analysis.RunSummary
	if err := json.Unmarshal([]byte(raw("results", "list", "--json")), &js); err != nil || len(js) != 1 {
		t.Fatalf("results list --json: %v", err)
	}
	if js[0].Figures != fig {
		t.Errorf("results list --json figures %+v, want %+v", js[0].Figures, fig)
	}
	// the JSON export (and results show --json): the same figures by the same names
	var doc analysis.Document
	if err := json.Unmarshal([]byte(raw("results", "export", "views", "--format", "json")), &doc); err != nil {
		t.Fatalf("export --format json: %v", err)
	}
	if doc.Figures != fig {
		t.Errorf("exported figures %+v, want %+v", doc.Figures, fig)
	}
	// the CSV export: driver_cpu_pct per step (% of one core), whose largest is the peak driver CPU
	dir := t.TempDir()
	raw("results", "export", "views", "--format", "csv", "-o", dir)
	f, err := os.Open(filepath.Join(dir, store.StepsCSV))
	if err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(f).ReadAll()
	f.Close()
	if err != nil || len(recs) != 3 {
		t.Fatalf("steps.csv: %v, %d rows", err, len(recs))
	}
	col := slices.Index(recs[0], "driver_cpu_pct")
	if col < 0 {
		t.Fatalf("steps.csv has no driver_cpu_pct column: %v", recs[0])
	}
	peak := 0.0
	for _, r := range recs[1:] {
		v, err := strconv.ParseFloat(r[col], 64)
		if err != nil {
			t.Fatal(err)
		}
		peak = max(peak, v)
	}
	if math.Abs(peak-fig.PeakDriverCPUPct) > 1e-9 {
		t.Errorf("steps.csv's largest driver_cpu_pct %v, the peak driver CPU %v", peak, fig.PeakDriverCPUPct)
	}
	// the report
	rawHTML := raw("report", "views", "-o", "-")
	html := plain(rawHTML)
	has("report", html, `peak TPM`)
	has("report", html, q(peakTPM))
	has("report", html, q(peakNOPM))
	has("report", rawHTML, `peak driver CPU, % of one core`)
	has("report", html, q(strings.Replace(driver, " of one core", "", 1)))
}
