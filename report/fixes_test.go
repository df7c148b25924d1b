package report

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/rightsize/rightsize/figures"
	"github.com/rightsize/rightsize/internal/storetest"
	"github.com/rightsize/rightsize/store"
)

// mixedStudy renders a measured run (users 1, 2, 3, three repeats, the 2-user
// step unstable) next to an imported HammerDB run (users 1, 3, 8, few
// settings recorded).
func mixedStudy(t *testing.T) []byte {
	t.Helper()
	ctx := context.Background()
	st := storetest.Open(t)
	start := time.Date(2025, 3, 4, 10, 0, 0, 0, time.UTC)
	measured := buildRun(t, st, start, fixtureRun{label: "measured", users: []int{1, 2, 3}, repeats: 3, jitter: 0.02,
		tpm:   func(u int) float64 { return 30000 * float64(u) },
		latMs: func(u int) float64 { return 4 + float64(u) }, cpus: 4, unstableAt: 2})
	imp := &store.Run{Label: "hammerdb:timed.log", Source: store.SourceHammerDB, Status: store.StatusComplete, Target: "hammerdb",
		Engine: "mariadb", Warehouses: 20, Users: []int{1, 3, 8}, Repeats: 1, StartedAt: start.Add(time.Hour),
		Env: map[string]string{"source.file": "timed.log"}}
	if err := st.CreateRun(ctx, imp); err != nil {
		t.Fatal(err)
	}
	for i, u := range imp.Users {
		s := store.Step{RunID: imp.ID, Repeat: 1, Index: i, Users: u, TPM: 20000 * float64(u), NOPM: 9000 * float64(u),
			Txn: []store.TxnSummary{{Type: "new_order", Txn: figures.Txn{Count: 5000, Rollbacks: 77, P50Ms: 5, P95Ms: 9, P99Ms: 12, MaxMs: 40}, MeanMs: 6}}}
		if err := st.AddStep(ctx, &s); err != nil {
			t.Fatal(err)
		}
	}
	runs, err := Load(ctx, st, measured, imp.ID)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := HTML(&buf, runs, Options{Version: "test", Generated: start}); err != nil {
		t.Fatal(err)
	}
	if out := os.Getenv("RIGHTSIZE_REPORT_OUT"); out != "" {
		os.WriteFile(out, buf.Bytes(), 0o644)
	}
	return buf.Bytes()
}

// row returns the HTML table row whose first cell is key.
func row(t *testing.T, page, key string) string {
	t.Helper()
	m := regexp.MustCompile(`<tr[^>]*>\s*<td class="key">` + regexp.QuoteMeta(key) + `</td>.*?</tr>`).FindString(page)
	if m == "" {
		t.Fatalf("no row %q", key)
	}
	return m
}

func TestReportFixes(t *testing.T) {
	page := string(mixedStudy(t))
	// The latency table has the rolled-back column.
	if !strings.Contains(page, "<th>count</th><th>rolled back</th><th>errors</th>") || !strings.Contains(page, `<td class="num">77</td>`) {
		t.Error("the per-transaction latency table lacks the rolled-back column")
	}
	// A setting the imported run lacks is unknown there, not a difference;
	// settings both runs have and that differ are.
	if r := row(t, page, "env setting.shared_buffers"); strings.Contains(r, `class="diff"`) || !strings.Contains(r, "unknown") {
		t.Errorf("a setting missing in one run is shown as different or not as unknown: %s", r)
	}
	if r := row(t, page, "seed"); strings.Contains(r, `class="diff"`) {
		t.Errorf("the imported run's missing seed counts as a difference: %s", r)
	}
	if r := row(t, page, "engine"); !strings.Contains(r, `class="diff"`) {
		t.Errorf("postgres vs mariadb not highlighted: %s", r)
	}
	// Steps only one run measured: the union axis, and "not measured".
	if !strings.Contains(page, `"data":["1","2","3","8"]`) {
		t.Error("the throughput axis is not the union of the runs' steps")
	}
	if n := strings.Count(page, `"formatter":"not measured"`); n < 2*3 { // 2 missing steps x TPM, NOPM, TPM per user
		t.Errorf("%d not-measured bar labels, want at least 6", n)
	}
	if n := strings.Count(page, `<td class="muted">not measured</td>`); n != 2 {
		t.Errorf("%d not-measured rows in the throughput table, want 2", n)
	}
}

// TestReportLabelsInBrowser lays the report out in Chromium and checks
// where the labels land: each unstable bar's "CV n%" above its whisker (so
// above the bar) and clear of the x axis; the "not measured" labels drawn.
func TestReportLabelsInBrowser(t *testing.T) {
	bin := chromium(t)
	page := mixedStudy(t)
	const probe = `<script>
(function () {
  var out = {cv: [], notMeasured: 0};
  Array.prototype.forEach.call(document.querySelectorAll('.item'), function (el) {
    var c = echarts.getInstanceByDom(el);
    if (!c) { return; }
    var axisY = c.convertToPixel({gridIndex: 0}, [0, 0]);
    var opt = c.getOption();
    c.getZr().storage.getDisplayList(true).forEach(function (e) {
      var text = e.style && e.style.text;
      if (text === 'not measured') { out.notMeasured++; }
      if (typeof text !== 'string' || text.indexOf('CV ') !== 0) { return; }
      var r = e.getBoundingRect().clone();
      if (e.transform) { r.applyTransform(e.transform); }
      out.cv.push({chart: el.id, text: text, bottom: r.y + r.height, axis: axisY ? axisY[1] : null});
    });
    opt.series.forEach(function (s, si) {
      if (s.type !== 'custom') { return; }
      s.data.forEach(function (d) {
        var v = d.value || d;
        if (v[3] >= 0) { out.cv.push({chart: el.id, whiskerTop: c.convertToPixel({seriesIndex: si}, [v[0], v[2]])[1], barTop: null}); }
      });
    });
  });
  document.body.setAttribute('data-check', JSON.stringify(out));
})();
</script>`
	end := bytes.LastIndex(page, []byte("</body>")) // the embedded library holds the string too
	page = append(page[:end:end], append([]byte(probe), page[end:]...)...)
	file := filepath.Join(t.TempDir(), "report.html")
	if err := os.WriteFile(file, page, 0o644); err != nil {
		t.Fatal(err)
	}
	dom, logs := runChromium(t, bin, file, "--dump-dom", "--window-size=1400,3000")
	if msgs := consoleRE.FindAll(logs, -1); len(msgs) > 0 {
		t.Errorf("console messages:\n%s", bytes.Join(msgs, []byte("\n")))
	}
	m := regexp.MustCompile(`data-check="([^"]*)"`).FindSubmatch(dom)
	if m == nil {
		t.Fatalf("the check script did not run:\n%.2000s", dom)
	}
	raw := strings.NewReplacer("&quot;", `"`, "&amp;", "&").Replace(string(m[1]))
	var res struct {
		CV []struct {
			Chart      string   `json:"chart"`
			Text       string   `json:"text"`
			Bottom     float64  `json:"bottom"`
			Axis       *float64 `json:"axis"`
			WhiskerTop *float64 `json:"whiskerTop"`
		} `json:"cv"`
		NotMeasured int `json:"notMeasured"`
	}
	if err := json.Unmarshal([]byte(raw), &res); err != nil {
		t.Fatalf("check result %q: %v", raw, err)
	}
	labels, tops := map[string][]float64{}, map[string][]float64{}
	for _, c := range res.CV {
		if c.WhiskerTop != nil {
			tops[c.Chart] = append(tops[c.Chart], *c.WhiskerTop)
			continue
		}
		if c.Axis == nil || c.Bottom > *c.Axis-8 {
			t.Errorf("%s: label %q ends at y %.0f, on or near the x axis at %v", c.Chart, c.Text, c.Bottom, c.Axis)
		}
		labels[c.Chart] = append(labels[c.Chart], c.Bottom)
	}
	if len(labels) < 2 { // TPM and NOPM
		t.Fatalf("CV labels drawn in %d charts, want the TPM and NOPM charts: %s", len(labels), raw)
	}
	for chart, ls := range labels {
		if len(ls) != len(tops[chart]) {
			t.Errorf("%s: %d CV labels for %d unstable bars", chart, len(ls), len(tops[chart]))
			continue
		}
		for i := range ls {
			if ls[i] > tops[chart][i]+0.5 || math.Abs(ls[i]-tops[chart][i]) > 12 {
				t.Errorf("%s: CV label ends at y %.1f, not just above its whisker's top at %.1f", chart, ls[i], tops[chart][i])
			}
		}
	}
	if res.NotMeasured < 6 {
		t.Errorf("%d not-measured labels drawn, want at least 6", res.NotMeasured)
	}
}
