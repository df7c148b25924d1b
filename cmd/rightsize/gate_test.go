package main

import (
	"context"
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rightsize/rightsize/cgroup"
	"github.com/rightsize/rightsize/report"
	"github.com/rightsize/rightsize/store"
)

func TestGateBadInput(t *testing.T) {
	st := tempStore(t)
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"negative threshold", []string{"compare", "a", "b", "--max-regression", "-1%", "--store", st}, "--max-regression -1%: want a percentage from 0% to 100%"},
		{"threshold above 100 %", []string{"compare", "a", "b", "--max-latency-regression", "150%", "--store", st}, "--max-latency-regression 150%: want a percentage from 0% to 100%"},
		{"threshold not a percentage", []string{"compare", "a", "b", "--max-regression", "some", "--store", st}, "want a percentage such as 2%"},
		{"junit in a missing directory", []string{"compare", "a", "b", "--junit", filepath.Join(t.TempDir(), "no", "j.xml"), "--store", st}, "does not exist; create it"},
		{"gate without a baseline", []string{"run", "--users", "2", "--max-regression", "2.5%", "--store", st}, "add --baseline RUN"},
		{"baseline not stored", []string{"run", "--users", "2", "--baseline", "main", "--max-regression", "2.5%", "--store", st}, "see: rightsize results list"},
		{"bad threshold on run", []string{"run", "--users", "2", "--baseline", "main", "--max-regression", "101%", "--store", st}, "--max-regression 101%"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, errOut, code := cli(t, context.Background(), c.args...)
			if code != 2 || !strings.Contains(errOut, c.want) {
				t.Fatalf("exit %d, want 2 and %q in:\n%s", code, c.want, errOut)
			}
			if n := strings.Count(strings.TrimSpace(errOut), "\n"); n > 0 {
				t.Errorf("want one line, got:\n%s", errOut)
			}
		})
	}
}

// junitDoc is the JUnit XML CI systems read, decoded strictly.
type junitDoc struct {
	XMLName  xml.Name `xml:"testsuites"`
	Tests    int      `xml:"tests,attr"`
	Failures int      `xml:"failures,attr"`
	Suites   []struct {
		Name     string `xml:"name,attr"`
		Tests    int    `xml:"tests,attr"`
		Failures int    `xml:"failures,attr"`
		Time     string `xml:"time,attr"`
		Cases    []struct {
			Name      string `xml:"name,attr"`
			Classname string `xml:"classname,attr"`
			Time      string `xml:"time,attr"`
			Failure   *struct {
				Message string `xml:"message,attr"`
				Type    string `xml:"type,attr"`
				Text    string `xml:",chardata"`
			} `xml:"failure"`
		} `xml:"testcase"`
	} `xml:"testsuite"`
}

func readJUnit(t *testing.T, path string) junitDoc {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var doc junitDoc
	d := xml.NewDecoder(f)
	d.Strict = true
	if err := d.Decode(&doc); err != nil {
		t.Fatalf("JUnit file %s: %v", path, err)
	}
	return doc
}

// Two short runs on the embedded server, the second with the server
// capped at a quarter of a core: run --baseline gates it (exit 1, JUnit file),
// compare gates the same pair either way round, and --json carries the
// ratio and the verdicts.
func TestGateEmbedded(t *testing.T) {
	if testing.Short() {
		t.Skip("starts its own embedded server")
	}
	if h := needCgroups(t); !h.Has(cgroup.CPU) {
		t.Skip("needs the cpu controller for --cpus 0.25")
	}
	args, _ := builtEmbedded(t, "gate-")
	ctx := context.Background()
	st := tempStore(t)
	// 4 users without waiting for WAL flushes keep the server busy on the
	// CPU: a capped core is then clearly slower (half a core: 0.43x on a quiet 2-core host),
	// where at 2 users a log-bound server's intervals overlapped
	run := append([]string{"run", "--users", "4", "--rampup", "2s", "--duration", "15s", "--set", "synchronous_commit=off", "--store", st}, args...)
	if out, errOut, code := cli(t, ctx, append(run, "--label", "base")...); code != 0 {
		t.Fatalf("baseline run: %d\n%s%s", code, out, errOut)
	}
	// the same steps are required, checked before any load
	if _, errOut, code := cli(t, ctx, append(run, "--users", "1,2", "--baseline", "base", "--max-regression", "2.5%")...); code != 2 ||
		!strings.Contains(errOut, "the same steps required (run with --users 4)") {
		t.Fatalf("other steps: exit %d, want 2 naming the steps:\n%s", code, errOut)
	}
	// a quarter of a core: single runs are judged with the drift between
	// runs added (10 % CV assumed), and on a machine that other test
	// packages load, the baseline gets less than its 2 cores: half a core
	// measured 0.67x there, rightly not distinguishable; a quarter is far
	// below what drift explains
	junit := filepath.Join(t.TempDir(), "gate.xml")
	out, errOut, code := cli(t, ctx, append(run, "--label", "capped", "--cpus", "0.25", "--baseline", "base",
		"--max-regression", "2.5%", "--junit", junit)...)
	if code != 1 || !strings.Contains(out, "FAIL 4 users TPM") || !strings.Contains(errOut, "gate FAILED: B (capped) against A (base)") {
		t.Fatalf("capped run against the baseline: exit %d, want 1 with the failing figures\n%s%s", code, out, errOut)
	}
	doc := readJUnit(t, junit)
	if len(doc.Suites) != 1 || len(doc.Suites[0].Cases) != 2 || doc.Failures < 1 || doc.Tests != 2 {
		t.Fatalf("JUnit %+v: want one suite of 2 cases (4 users, the whole), failing", doc)
	}
	for _, c := range doc.Suites[0].Cases {
		if c.Classname == "" || c.Time == "" || c.Failure == nil || c.Failure.Type != "regression" || !strings.Contains(c.Failure.Text, "REGRESSION") {
			t.Errorf("JUnit case %+v: want a regression failure with classname and time", c)
		}
	}
	checkRuns(t, st, 2) // both runs stored, the refused one not
	gateCompare(t, st)
}

// gateCompare gates the stored pair with compare: base → capped fails,
// capped → base passes, --json carries the ratio and verdicts.
func gateCompare(t *testing.T, st string) {
	t.Helper()
	ctx := context.Background()
	out, errOut, code := cli(t, ctx, "compare", "base", "capped", "--json", "--store", st)
	if code != 0 {
		t.Fatalf("compare --json: %d\n%s", code, errOut)
	}
	var v report.Verdicts
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatalf("compare --json: %v\n%s", err, out)
	}
	if len(v.Steps) != 1 || len(v.Steps[0].Figures) < 2 || v.Gate != nil {
		t.Fatalf("compare --json: %+v", v)
	}
	tpm := v.Steps[0].Figures[0]
	t.Logf("capped/base TPM %.3f ± %.3f (A %.0f ± %.0f %s, B %.0f ± %.0f %s): %s",
		tpm.Ratio, tpm.RatioHalf, tpm.A.Value, tpm.A.Half, tpm.A.Interval, tpm.B.Value, tpm.B.Half, tpm.B.Interval, tpm.Verdict)
	if tpm.Ratio <= 0 || tpm.Ratio > 0.9 || tpm.Verdict != report.Worse || v.Overall.Verdict != report.Worse {
		t.Errorf("capped against base: TPM %+v, overall %q; want clearly worse", tpm, v.Overall.Verdict)
	}
	if _, errOut, code := cli(t, ctx, "compare", "base", "capped", "--max-regression", "2.5%", "--store", st); code != 1 ||
		!strings.Contains(errOut, "gate FAILED") {
		t.Errorf("compare base capped --max-regression: exit %d, want 1\n%s", code, errOut)
	}
	if out, errOut, code := cli(t, ctx, "compare", "capped", "base", "--max-regression", "2.5%", "--store", st); code != 0 ||
		!strings.Contains(out, "gate passed") {
		t.Errorf("compare capped base --max-regression: exit %d, want 0 and gate passed\n%s%s", code, out, errOut)
	}
}

// checkRuns checks the store at path holds n runs.
func checkRuns(t *testing.T, path string, n int) {
	t.Helper()
	s, err := store.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	runs, err := s.ListRuns(context.Background())
	if err != nil || len(runs) != n {
		t.Errorf("store holds %d runs (%v), want %d", len(runs), err, n)
	}
}
