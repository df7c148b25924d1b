package importer

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rightsize/rightsize/analysis"
	"github.com/rightsize/rightsize/figures"
	"github.com/rightsize/rightsize/internal/storetest"
	"github.com/rightsize/rightsize/store"
)

func parseFile(t *testing.T, name string) (*HammerDBLog, error) {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	return ParseHammerDB(f, name)
}

func mustParse(t *testing.T, name string) *HammerDBLog {
	t.Helper()
	l, err := parseFile(t, name)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func TestParseTimedRun(t *testing.T) {
	l := mustParse(t, "timed.log")
	if len(l.Tests) != 1 {
		t.Fatalf("%d tests, want 1", len(l.Tests))
	}
	got := l.Tests[0]
	if got.Users != 4 || got.NOPM != 11573 || got.TPM != 26934 || got.DB != "PostgreSQL" ||
		got.Rampup != 2*time.Minute || got.Duration != 5*time.Minute || got.Line != 58 {
		t.Errorf("test = %+v", got)
	}
	if l.Version != "4.12" || l.DBVersion != "16.4" || l.Settings["tpcc.pg_count_ware"] != "50" || l.Settings["connection.pg_host"] != "10.0.0.5" {
		t.Errorf("version %q, db %q, settings %v", l.Version, l.DBVersion, l.Settings)
	}
	r, steps := l.Run("x")
	if r.Source != store.SourceHammerDB || r.Status != store.StatusComplete || r.Engine != "postgres" || r.EngineVersion != "PostgreSQL 16.4" ||
		r.Warehouses != 50 || r.Repeats != 1 || len(r.Users) != 1 || r.Users[0] != 4 || r.Rampup != 2*time.Minute || r.Duration != 5*time.Minute {
		t.Errorf("run = %+v", r)
	}
	if len(steps) != 1 || steps[0].TPMPerUser != 26934.0/4 || steps[0].Repeat != 1 || steps[0].Index != 0 || len(steps[0].Txn) != 0 {
		t.Errorf("steps = %+v", steps)
	}
}

func TestParseAutopilot(t *testing.T) {
	l := mustParse(t, "autopilot.log")
	want := []struct {
		users     int
		tpm, nopm float64
	}{{2, 30512, 6611}, {4, 58804, 12755}, {8, 101466, 22038}, {2, 31088, 6742}, {4, 60120, 13020}, {8, 97210, 21105}}
	if len(l.Tests) != len(want) {
		t.Fatalf("%d tests, want %d", len(l.Tests), len(want))
	}
	for i, w := range want {
		g := l.Tests[i]
		if g.Users != w.users || g.TPM != w.tpm || g.NOPM != w.nopm || g.DB != "SQL Server" {
			t.Errorf("test %d = %+v, want %+v", i, g, w)
		}
	}
	// Timestamps give the steps their times (PST is read as a zone name).
	first := l.Tests[0]
	if first.Start.Format("15:04:05") != "12:01:32" || first.MeasureStart.Sub(first.Start) != 2*time.Minute ||
		first.MeasureEnd.Sub(first.MeasureStart) != 5*time.Minute {
		t.Errorf("times: %v %v %v", first.Start, first.MeasureStart, first.MeasureEnd)
	}
	r, steps := l.Run("ap")
	if r.Engine != "mssql" || len(r.Users) != 3 || r.Users[2] != 8 || r.Repeats != 2 || r.StartedAt.IsZero() {
		t.Errorf("run = %+v", r)
	}
	// The second 4-user test is repeat 2 of step index 1.
	if s := steps[4]; s.Users != 4 || s.Repeat != 2 || s.Index != 1 || s.TPM != 60120 || s.TPMPerUser != 15030 {
		t.Errorf("step 4 = %+v", s)
	}
	agg := analysis.Aggregate(steps)
	if len(agg) != 3 || agg[2].Users != 8 || agg[2].TPM.Mean != (101466+97210)/2.0 || agg[2].Repeats != 2 {
		t.Errorf("aggregate = %+v", agg)
	}
}

func TestParseXTProf(t *testing.T) {
	l := mustParse(t, "xtprof.log")
	if len(l.Tests) != 2 || len(l.Profiles) != 0 {
		t.Fatalf("%d tests, %d unmatched profiles", len(l.Tests), len(l.Profiles))
	}
	for i, want := range []struct {
		users          int
		newOrder       store.TxnSummary
		orderStatusP99 float64
	}{
		{2, store.TxnSummary{Type: "new_order", Txn: figures.Txn{Count: 9310, P50Ms: 3.401, P95Ms: 7.530, P99Ms: 11.205, MaxMs: 67.230}, MeanMs: 3.912}, 2.402},
		{4, store.TxnSummary{Type: "new_order", Txn: figures.Txn{Count: 17533, P50Ms: 3.650, P95Ms: 8.044, P99Ms: 12.620, MaxMs: 75.720}, MeanMs: 4.188}, 2.690},
	} {
		test := l.Tests[i]
		if test.Users != want.users || len(test.Txn) != 5 {
			t.Fatalf("test %d: users %d, %d transaction types (want 5: GETTIMESTAMP is not one)", i, test.Users, len(test.Txn))
		}
		if g := test.Txn[0]; g.Type != want.newOrder.Type || g.Count != want.newOrder.Count || g.P50Ms != want.newOrder.P50Ms ||
			g.P95Ms != want.newOrder.P95Ms || g.P99Ms != want.newOrder.P99Ms || g.MeanMs != want.newOrder.MeanMs || g.MaxMs != want.newOrder.MaxMs {
			t.Errorf("test %d new_order = %+v, want %+v", i, test.Txn[0], want.newOrder)
		}
		types := map[string]store.TxnSummary{}
		for _, x := range test.Txn {
			types[x.Type] = x
		}
		for _, typ := range []string{"new_order", "payment", "delivery", "stock_level", "order_status"} {
			if _, ok := types[typ]; !ok {
				t.Errorf("test %d lacks %s", i, typ)
			}
		}
		if types["order_status"].P99Ms != want.orderStatusP99 {
			t.Errorf("test %d order_status p99 = %v", i, types["order_status"].P99Ms)
		}
	}
	r, _ := l.Run("x")
	if r.Engine != "mariadb" || r.Warehouses != 20 || r.Rampup != time.Minute || r.Duration != 3*time.Minute ||
		!strings.Contains(r.EngineVersion, "10.11.6-MariaDB") {
		t.Errorf("run = %+v", r)
	}
}

func TestParseErrors(t *testing.T) {
	for _, c := range []struct {
		file, want string
		notHDB     bool
	}{
		{"not-hammerdb.txt", `not-hammerdb.txt:1: not HammerDB output`, true},
		{"bad-result.log", `bad-result.log:4: cannot read the test result "TEST RESULT : System achieved lots of NOPM"`, false},
		{"profile-orphan.log", `profile-orphan.log:2: "CALLS: 82130 MIN:`, false},
	} {
		_, err := parseFile(t, c.file)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.file, err, c.want)
		}
		if errors.Is(err, ErrNotHammerDB) != c.notHDB {
			t.Errorf("%s: errors.Is(ErrNotHammerDB) = %v", c.file, !c.notHDB)
		}
	}
	// HammerDB output without a result (a schema build).
	_, err := ParseHammerDB(strings.NewReader("Vuser 1:RUNNING\nVuser 1:Monitor Thread\nVuser 1:CREATING TPCC SCHEMA\n"), "build.log")
	if err == nil || !strings.Contains(err.Error(), "build.log: HammerDB output without a TEST RESULT line") {
		t.Errorf("build log: %v", err)
	}
	// A result with no virtual-user count before it.
	_, err = ParseHammerDB(strings.NewReader("Vuser 1:TEST RESULT : System achieved 10 NOPM from 20 Oracle TPM\n"), "n.log")
	if err == nil || !strings.Contains(err.Error(), "n.log:1: test result without its number of virtual users") {
		t.Errorf("no users: %v", err)
	}
}

func td(n string) string { return filepath.Join("testdata", n) }

func TestImportHammerDB(t *testing.T) {
	ctx := context.Background()
	st := storetest.Open(t)

	// The log and the profile file written next to it make one run,
	// labelled with the log's base name.
	got, err := ImportHammerDB(ctx, st, []string{td("timed.log"), td("hdbxtprofile.log"), td("autopilot.log")}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Run.Label != "hammerdb:timed.log" || got[1].Run.Label != "hammerdb:autopilot.log" ||
		len(got[0].Profiles) != 1 {
		t.Fatalf("imported %+v", got)
	}
	r, steps, err := st.LoadRun(ctx, got[0].Run.ID)
	if err != nil {
		t.Fatal(err)
	}
	if r.Source != store.SourceHammerDB || r.Status != store.StatusComplete || len(steps) != 1 || steps[0].TPM != 26934 || steps[0].NOPM != 11573 {
		t.Fatalf("stored run %+v steps %+v", r, steps)
	}
	if len(steps[0].Txn) != 5 || steps[0].Txn[0].Type != "new_order" || steps[0].Txn[0].P99Ms != 24.301 || steps[0].Txn[0].Count != 82130 {
		t.Errorf("stored xtprof: %+v", steps[0].Txn)
	}
	if !r.StartedAt.Equal(time.Date(2025, 3, 4, 10, 9, 41, 0, time.UTC)) {
		t.Errorf("started %v: want the profile report's time", r.StartedAt)
	}
	if id, err := st.Resolve(ctx, "hammerdb:autopilot.log"); err != nil || id != got[1].Run.ID {
		t.Errorf("resolve by label: %v %v", id, err)
	}
	count := func() int {
		runs, err := st.ListRuns(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return len(runs)
	}

	// The same log again is refused, naming the run; --replace replaces it.
	_, err = ImportHammerDB(ctx, st, []string{td("autopilot.log")}, Options{})
	var pe *ParseError
	if !errors.As(err, &pe) || !strings.Contains(err.Error(), "already imported as run "+got[1].Run.ID) || count() != 2 {
		t.Fatalf("second import: %v, %d runs", err, count())
	}
	again, err := ImportHammerDB(ctx, st, []string{td("autopilot.log")}, Options{Replace: true})
	if err != nil || len(again) != 1 || count() != 2 {
		t.Fatalf("--replace: %v, %d runs", err, count())
	}
	if _, _, err := st.LoadRun(ctx, got[1].Run.ID); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("the replaced run is still stored: %v", err)
	}

	// --label with several runs names each after its file's base name.
	got, err = ImportHammerDB(ctx, st, []string{td("xtprof.log"), td("bad-result.log")}, Options{Label: "maria"})
	if err == nil {
		t.Fatal("bad file: no error")
	}
	if count() != 2 {
		t.Errorf("%d runs stored by a failed import", count()-2)
	}
	got, err = ImportHammerDB(ctx, st, []string{td("xtprof.log")}, Options{Label: "maria-only"})
	if err != nil || got[0].Run.Label != "maria-only" {
		t.Fatalf("%v %+v", err, got)
	}
}

// A time profile given alone goes to the latest imported run with its
// virtual users, or becomes a latency-only run.
func TestImportProfileAlone(t *testing.T) {
	ctx := context.Background()
	st := storetest.Open(t)
	// No imported run: a latency-only run.
	got, err := ImportHammerDB(ctx, st, []string{td("hdbxtprofile.log")}, Options{})
	if err != nil || len(got) != 1 || !got[0].LatencyOnly || got[0].Run.Label != "hammerdb:hdbxtprofile.log" {
		t.Fatalf("profile alone in an empty store: %v %+v", err, got)
	}
	_, steps, err := st.LoadRun(ctx, got[0].Run.ID)
	if err != nil || len(steps) != 1 || steps[0].Users != 4 || steps[0].TPM != 0 || len(steps[0].Txn) != 5 {
		t.Fatalf("latency-only run: %v %+v", err, steps)
	}

	// After its log: attached to it.
	st = storetest.Open(t)
	logRun, err := ImportHammerDB(ctx, st, []string{td("timed.log")}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	got, err = ImportHammerDB(ctx, st, []string{td("hdbxtprofile.log")}, Options{})
	if err != nil || len(got) != 1 || !got[0].Attached || got[0].Run.ID != logRun[0].Run.ID {
		t.Fatalf("profile after its log: %v %+v", err, got)
	}
	runs, _ := st.ListRuns(ctx)
	_, steps, err = st.LoadRun(ctx, logRun[0].Run.ID)
	if err != nil || len(runs) != 1 || len(steps) != 1 || steps[0].TPM != 26934 || len(steps[0].Txn) != 5 || steps[0].Txn[0].P99Ms != 24.301 {
		t.Fatalf("attached profile: %v, %d runs, %+v", err, len(runs), steps)
	}
	// Twice: refused, the step has its latencies.
	if _, err := ImportHammerDB(ctx, st, []string{td("hdbxtprofile.log")}, Options{}); err == nil || !strings.Contains(err.Error(), "already has their latencies") {
		t.Errorf("profile attached twice: %v", err)
	}
}

// The web service's job output quotes each line.
func TestParseJobOutput(t *testing.T) {
	in := `[
  "6A7E2CDBC7F603E293439383",
  "2026-08-13 20:45:15",
  "1 Active Virtual Users configured",
  "TEST RESULT : System achieved 26018 NOPM from 60408 SQL Server TPM"
]`
	l, err := ParseHammerDB(strings.NewReader(in), "job.json")
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Tests) != 1 || l.Tests[0].Users != 1 || l.Tests[0].NOPM != 26018 || l.Tests[0].TPM != 60408 || l.Tests[0].DB != "SQL Server" {
		t.Errorf("tests = %+v", l.Tests)
	}
}
