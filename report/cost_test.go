package report

import (
	"bytes"
	"context"
	"html"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/rightsize/rightsize/cost"
	"github.com/rightsize/rightsize/internal/costtest"
)

const studyCosts = `baseline: hdd-16
configs:
  - name: hdd-16
    run: HDD/16 cores
` + costtest.HDD16 + `  - name: ssd-4 <b>
    run: SSD/4 cores
` + costtest.SSD4 + `  - name: unlinked
    hardware: [{item: box, price: 1000}]
    licences: [{use: postgresql}, {name: support, per: instance, price: 500, yearly: true, kind: other}]
`

// renderCostStudy renders the study's runs with a cost model linking both.
func renderCostStudy(t *testing.T, withRuns bool) (*cost.Result, string, []RunData) {
	t.Helper()
	ctx := context.Background()
	st, ids := studyStore(t)
	f, err := cost.Parse("costs.yaml", []byte(studyCosts))
	if err != nil {
		t.Fatal(err)
	}
	res, err := cost.Evaluate(ctx, f, st)
	if err != nil {
		t.Fatal(err)
	}
	runs, err := Load(ctx, st, ids...)
	if err != nil {
		t.Fatal(err)
	}
	shown := runs
	if !withRuns {
		shown = nil
	}
	var buf bytes.Buffer
	if err := HTML(&buf, shown, Options{Version: "test", Generated: time.Date(2025, 3, 5, 9, 0, 0, 0, time.UTC), Cost: res}); err != nil {
		t.Fatal(err)
	}
	return res, buf.String(), runs
}

func TestCostSection(t *testing.T) {
	res, page, runs := renderCostStudy(t, true)
	sec := section(t, page, "cost")
	ssd := res.Configs[1]
	for _, want := range []string{
		"Cost per configuration (USD)", "34,075.30", "56,073.38", "21,998.08", fmtPct(*ssd.SavingsPct),
		fmtInt(ssd.Run.PeakNOPM), fmtInt(ssd.Run.AvgNOPM), ssd.PerNOPM.Cents(), ssd.PerTPM.Cents(),
		"Total cost per configuration", "Price per peak NOPM", "other licences", // the unlinked config's support
		"ssd-4 &lt;b&gt;", "20 host cores → 2 × 16-core packs",
		html.EscapeString(ssd.Headline("hdd-16")), "ssd-4 &lt;b&gt; beats hdd-16: ",
	} {
		if !strings.Contains(sec, want) {
			t.Errorf("cost section lacks %q", want)
		}
	}
	outside := regexp.MustCompile(`(?s)<script[^>]*>.*?</script>`).ReplaceAllString(page, "")
	if strings.Contains(outside, "ssd-4 <b>") {
		t.Error("a config name is not escaped")
	}
	// The same figures the table prints come from the one aggregation.
	_, avg := NewRunStats(runs[0].Steps).Average(nil)
	if !strings.Contains(sec, fmtInt(avg)) {
		t.Errorf("cost section lacks the HDD run's average NOPM %s that the summary shows", fmtInt(avg))
	}

	_, noCost := renderStudy(t)
	if strings.Contains(string(noCost), `<section id="cost">`) {
		t.Error("a report without a cost model has a cost section")
	}
}

// TestCostReportInBrowser opens a cost-only report (no run sections) and
// a full one in headless Chromium: no console message, every chart drawn.
func TestCostReportInBrowser(t *testing.T) {
	bin := chromium(t)
	for _, withRuns := range []bool{false, true} {
		_, page, _ := renderCostStudy(t, withRuns)
		if !withRuns && (strings.Contains(page, `<section id="summary">`) || strings.Contains(page, `<section id="storage">`)) {
			t.Error("a cost-only report has run or probe sections")
		}
		file := filepath.Join(t.TempDir(), "report.html")
		if err := os.WriteFile(file, []byte(page), 0o644); err != nil {
			t.Fatal(err)
		}
		dom, logs := runChromium(t, bin, file, "--dump-dom")
		if msgs := consoleRE.FindAll(logs, -1); len(msgs) > 0 {
			t.Errorf("console messages (runs %v):\n%s", withRuns, bytes.Join(msgs, []byte("\n")))
		}
		if n, want := len(instanceRE.FindAll(dom, -1)), strings.Count(page, "echarts.init("); n != want {
			t.Errorf("runs %v: %d of %d charts initialised", withRuns, n, want)
		}
	}
}
