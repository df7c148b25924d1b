package report

import (
	"bytes"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rightsize/rightsize/store"
)

// A fit's, a sweep's and a cost model's report opens with its section (the
// answer), before the summary; a report of runs alone opens with the
// summary. The table of contents follows the same order, and the default
// title names the fit or sweep.
func TestReportOpensWithAnswer(t *testing.T) {
	res, _, runs := renderCostStudy(t, true)
	study := Options{Cost: res, Sweep: testSweep(), Fit: testFit()}
	for _, tc := range []struct {
		name    string
		opts    Options
		anchors []string // the first sections, in order
		title   string
	}{
		{"runs", Options{}, []string{"summary", "throughput"}, "rightsize report"},
		{"fit", Options{Fit: testFit()}, []string{"fit", "summary"}, "rightsize report: fit 20261124-140000-abcdef"},
		{"sweep", Options{Sweep: testSweep()}, []string{"sweep", "summary"}, "rightsize report: sweep memory 20250305-090000-abcdef"},
		{"cost", Options{Cost: res}, []string{"cost", "summary"}, "rightsize report"},
		{"study", study, []string{"cost", "sweep", "fit", "summary"}, "rightsize report: fit 20261124-140000-abcdef"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.opts.Version, tc.opts.Generated = "test", time.Date(2025, 3, 5, 9, 0, 0, 0, time.UTC)
			var buf bytes.Buffer
			if err := HTML(&buf, runs, tc.opts); err != nil {
				t.Fatal(err)
			}
			page := buf.String()
			sections := regexp.MustCompile(`<section id="([a-z-]+)">`).FindAllStringSubmatch(page, -1)
			toc := regexp.MustCompile(`<li><a href="#([a-z-]+)">`).FindAllStringSubmatch(page, -1)
			for i, want := range tc.anchors {
				if i >= len(sections) || sections[i][1] != want {
					t.Errorf("section %d is %v, want #%s", i+1, sections[min(i, len(sections)-1)], want)
				}
				if i >= len(toc) || toc[i][1] != want {
					t.Errorf("contents entry %d is %v, want #%s", i+1, toc[min(i, len(toc)-1)], want)
				}
			}
			if !strings.Contains(page, "<title>"+tc.title+"</title>") {
				t.Errorf("title is not %q", tc.title)
			}
		})
	}
}

// The answer is the first thing a fit's and a sweep's section says.
func TestSectionsStartWithAnswer(t *testing.T) {
	for _, tc := range []struct {
		name, anchor, answer string
		opts                 Options
	}{
		{"fit", "fit", "cpus 1 meets NOPM 12,000 for USD 21,000.00", Options{Fit: testFit()}},
		{"sweep", "sweep", "Knee: memory = 256M", Options{Sweep: testSweep()}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.opts.Version = "test"
			var buf bytes.Buffer
			if err := HTML(&buf, nil, tc.opts); err != nil {
				t.Fatal(err)
			}
			body := section(t, buf.String(), tc.anchor)
			first := regexp.MustCompile(`<p>([^<]*)</p>`).FindStringSubmatch(body)
			if first == nil || !strings.HasPrefix(first[1], tc.answer) {
				t.Errorf("the %s section opens with %q, want the answer %q", tc.name, first, tc.answer)
			}
		})
	}
}

// subjectLabels leaves the fit's or sweep's run label out of its runs'
// labels, and only there.
func TestSubjectLabels(t *testing.T) {
	fit := &Fit{ID: "20261126-131656-aa4200", RunLabel: "fit-20261126-131656-aa4200"}
	sweep := &Sweep{ID: "s1", Kind: "cpus", RunLabel: "mem"}
	for _, tc := range []struct {
		name   string
		labels []string
		opts   Options
		want   []string
	}{
		{"fit candidates", []string{"fit-20261126-131656-aa4200 cpus 0.25, memory 512M", "fit-20261126-131656-aa4200 cpus 1, memory 512M"},
			Options{Fit: fit}, []string{"cpus 0.25, memory 512M", "cpus 1, memory 512M"}},
		{"a run of another fit kept", []string{"fit-20261126-131656-aa4200 cpus 1", "fit-20261127-000000-bbbbbb cpus 1"},
			Options{Fit: fit}, []string{"cpus 1", "fit-20261127-000000-bbbbbb cpus 1"}},
		{"sweep values", []string{"mem memory=1G", "mem memory=256M", "memory-baseline"},
			Options{Sweep: sweep}, []string{"memory=1G", "memory=256M", "memory-baseline"}},
		{"only the label and a space", []string{"memo memory=1G", "mem"}, Options{Sweep: sweep}, []string{"memo memory=1G", "mem"}},
		{"a clash keeps both whole", []string{"mem x", "x"}, Options{Sweep: sweep}, []string{"mem x", "x"}},
		{"no subject", []string{"fit-20261126-131656-aa4200 cpus 1"}, Options{}, []string{"fit-20261126-131656-aa4200 cpus 1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := subjectLabels(tc.labels, tc.opts); !slices.Equal(got, tc.want) {
				t.Errorf("subjectLabels(%q) = %q, want %q", tc.labels, got, tc.want)
			}
		})
	}
}

// In a fit's report its runs are named by their candidate alone: the page
// repeats the fit's id in front of them nowhere but in the environment's
// label row.
func TestFitReportLabels(t *testing.T) {
	f := testFit()
	f.ID, f.RunLabel = "20261126-131656-aa4200", "fit-20261126-131656-aa4200"
	var runs []RunData
	for _, c := range []string{"cpus 0.25, memory 512M", "cpus 0.5, memory 512M", "cpus 1, memory 512M"} {
		runs = append(runs, RunData{Run: store.Run{ID: "20261126-13" + c[5:9], Label: "fit-20261126-131656-aa4200 " + c,
			Source: store.SourceRightsize, Status: store.StatusComplete, Flags: map[string]string{"fit": f.ID}}})
	}
	var buf bytes.Buffer
	if err := HTML(&buf, runs, Options{Version: "test", Fit: f}); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	env := section(t, page, "environment") // its label row is each run's stored label, in full
	if !strings.Contains(env, "fit-20261126-131656-aa4200 cpus 1, memory 512M") {
		t.Error("the environment section lacks the run's stored label")
	}
	if strings.Contains(strings.Replace(page, env, "", 1), "fit-20261126-131656-aa4200 cpus") {
		t.Error("a run is still labelled with the fit's id in front of its candidate")
	}
	if !strings.Contains(page, "<b>cpus 0.25, memory 512M</b>") {
		t.Error("the runs' list lacks the candidate's label")
	}
}
