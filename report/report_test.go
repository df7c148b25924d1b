package report

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/rightsize/rightsize/internal/storetest"
	"github.com/rightsize/rightsize/store"
)

func renderStudy(t *testing.T) ([]RunData, []byte) {
	t.Helper()
	st, ids := studyStore(t)
	runs, err := Load(context.Background(), st, ids...)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := HTML(&buf, runs, Options{Version: "test", Generated: time.Date(2025, 3, 5, 9, 0, 0, 0, time.UTC)}); err != nil {
		t.Fatal(err)
	}
	if out := os.Getenv("RIGHTSIZE_REPORT_OUT"); out != "" { // for looking at it by hand
		if err := os.WriteFile(out, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return runs, buf.Bytes()
}

func TestHTMLHasEverySection(t *testing.T) {
	runs, page := renderStudy(t)
	s := string(page)
	for _, sec := range DefaultSections() {
		if _, ok := sec.(optionalSection); ok {
			continue // shown only with what it needs (cost_test.go)
		}
		if !strings.Contains(s, `<section id="`+sec.Anchor()+`">`) {
			t.Errorf("section %q (#%s) missing", sec.Title(), sec.Anchor())
		}
		if !strings.Contains(s, `<a href="#`+sec.Anchor()+`">`) {
			t.Errorf("section %q missing from the table of contents", sec.Title())
		}
	}
	for _, want := range []string{
		"HDD/16 cores", "SSD/4 cores", // labels
		"TPM by virtual users", "NOPM by virtual users", "TPM per user by virtual users", "Average over all steps",
		"CPU busy", "CPU idle", "CPU I/O wait", "Database server CPU", "Disk average latency", "Disk IOPS",
		"new_order latency", "Latency percentiles (ms): SSD/4 cores", "could not serialize access", // errors table
		"Timeline: HDD/16 cores", "setting.shared_buffers", `class="diff"`,
		"echarts.init(", "barLayout", // whiskers on repeated steps
	} {
		if !strings.Contains(s, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	// Offline: no remote script, stylesheet or font.
	for _, re := range []string{`<script[^>]+src=`, `<link[^>]+href=`, `@import`, `url\(\s*['"]?https?:`} {
		if m := regexp.MustCompile(re).FindString(s); m != "" {
			t.Errorf("report loads something from outside: %q", m)
		}
	}
	if n := strings.Count(s, `echarts.init(`); n < 15 {
		t.Errorf("%d charts, want at least 15", n)
	}
	// Summary numbers: the SSD run's average over all steps beats HDD's.
	hdd, _ := NewRunStats(runs[0].Steps).Average(nil)
	ssd, _ := NewRunStats(runs[1].Steps).Average(nil)
	want := "SSD/4 cores " + fmtInt(ssd) + " vs HDD/16 cores " + fmtInt(hdd) + " average TPM over all steps: " + fmtRatio(hdd, ssd)
	if !strings.Contains(s, want) {
		t.Errorf("summary lacks %q", want)
	}
}

func TestHTMLDeterministic(t *testing.T) {
	st, ids := studyStore(t)
	runs, err := Load(context.Background(), st, ids...)
	if err != nil {
		t.Fatal(err)
	}
	var a, b bytes.Buffer
	o := Options{Generated: time.Unix(0, 0)}
	if err := HTML(&a, runs, o); err != nil {
		t.Fatal(err)
	}
	if err := HTML(&b, runs, o); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Error("two renderings of the same runs differ")
	}
}

func TestLoadLatestAndErrors(t *testing.T) {
	st, ids := studyStore(t)
	ctx := context.Background()
	runs, err := Load(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 1 || runs[0].Run.ID != ids[1] {
		t.Fatalf("latest run: got %v, want %s", runs[0].Run.ID, ids[1])
	}
	if _, err := Load(ctx, st, "no-such-run"); err == nil {
		t.Error("unknown run: no error")
	}
	if runs, err := Load(ctx, st, "HDD/16 cores"); err != nil || runs[0].Run.ID != ids[0] {
		t.Errorf("by label: %v %v", err, runs)
	}
}

func TestLabels(t *testing.T) {
	n := 0
	mk := func(label, target string, env map[string]string) RunData {
		n++
		return RunData{Run: store.Run{ID: fmt.Sprintf("20250101-000000-00000%d", n), Label: label, Target: target, Env: env}}
	}
	got := Labels([]RunData{
		mk("", "embedded", map[string]string{"setting.shared_buffers": "128MB"}),
		mk("", "embedded", map[string]string{"setting.shared_buffers": "8GB"}),
		mk("baseline", "x", nil),
		mk("baseline", "x", nil),
	})
	if !strings.Contains(got[0], "shared_buffers=128MB") || !strings.Contains(got[1], "shared_buffers=8GB") {
		t.Errorf("same target: not told apart by settings: %q", got)
	}
	if got[2] == got[3] || !strings.HasPrefix(got[2], "baseline #") {
		t.Errorf("same label: not told apart: %q", got)
	}
}

func TestFormats(t *testing.T) {
	for _, c := range []struct{ got, want string }{
		{fmtInt(243714.4), "243,714"}, {fmtInt(-1234567), "-1,234,567"}, {fmtInt(999), "999"}, {fmtInt(0), "0"},
		{fmtFloat(1234.5, 1), "1,234.5"}, {fmtRatio(197532, 243714), "1.23x"}, {fmtRatio(0, 5), "-"},
		{fmtMs(0.1234), "0.123"}, {fmtMs(12.34), "12.3"}, {fmtMs(1234.4), "1,234"},
		{fmtDuration(2 * time.Minute), "2m"}, {fmtDuration(90 * time.Second), "1m30s"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}

// Labels and settings come from users: they must not break the page.
func TestHTMLEscapesUserText(t *testing.T) {
	st := storetest.Open(t)
	evil := `</script><img src=x onerror=alert(1)> {a} <!--`
	rd := simpleRun(t, st, evil, map[int][]float64{1: {100, 120}, 2: {200}}, []int{1, 2})
	rd.Run.Env = map[string]string{"setting.x": evil}
	var buf bytes.Buffer
	if err := HTML(&buf, []RunData{rd}, Options{Title: evil}); err != nil {
		t.Fatal(err)
	}
	checkScriptsIntact(t, buf.String(), "a label")
}

func TestEmbeddedEChartsIsSafeInline(t *testing.T) {
	low := strings.ToLower(echartsJS)
	if len(echartsJS) < 500_000 || strings.Contains(low, "</script") || strings.Contains(low, "<!--") {
		t.Error("the embedded echarts.min.js cannot be inlined in a <script> element as is")
	}
}

// TestHTMLEfficiency: the throughput table has an efficiency column when a
// run is keyed ("-" for a run beside it that is not) and explains it; a
// report of runs without keying has none.
func TestHTMLEfficiency(t *testing.T) {
	mk := func(id string, keyed bool) RunData {
		return RunData{Run: store.Run{ID: id, Label: id, Status: store.StatusComplete, Warehouses: 10, KeyingThinking: keyed, Users: []int{100}, Repeats: 1},
			Steps: []store.Step{{Repeat: 1, Index: 0, Users: 100, TPM: 260, NOPM: 113.4, TPMPerUser: 2.6}}}
	}
	for _, tc := range []struct {
		name string
		runs []RunData
		want bool
	}{
		{"keyed beside not", []RunData{mk("keyed", true), mk("flat", false)}, true},
		{"not keyed", []RunData{mk("flat", false)}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := HTML(&buf, tc.runs, Options{Version: "test", Generated: time.Date(2026, 11, 25, 22, 0, 0, 0, time.UTC)}); err != nil {
				t.Fatal(err)
			}
			s := buf.String()
			got := strings.Contains(s, "<th>efficiency</th>") && strings.Contains(s, "90.0 %") && strings.Contains(s, "Efficiency: the NOPM")
			if got != tc.want {
				t.Errorf("efficiency column and note shown %v, want %v", got, tc.want)
			}
		})
	}
}
