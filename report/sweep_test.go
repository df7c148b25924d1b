package report

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rightsize/rightsize/scenario"
	"github.com/rightsize/rightsize/store"
)

func testSweep() *Sweep {
	return &Sweep{ID: "20250305-090000-abcdef", Kind: "memory", Status: "complete", Threshold: 0.1, Rule: "the rule", DBBytes: 900 << 20,
		Knee: 1, KneeFound: true, Points: []scenario.SweepPoint{
			{Value: "1G", RunID: "r1", Status: "complete", Users: 4, TPM: 30000, NOPM: 13000, NewOrderP90Ms: 4, NewOrderP99Ms: 9, BlocksReadPerTxn: 0.1, DiskReadMBps: 2},
			{Value: "256M", RunID: "r2", Status: "complete", Users: 4, TPM: 29000, NOPM: 12500, NewOrderP90Ms: 4.2, NewOrderP99Ms: 10, BlocksReadPerTxn: 3, DiskReadMBps: 20},
			{Value: "64M", Status: "failed", Reason: "server did not start"},
			{Value: "32M", RunID: "r4", Status: "complete", Users: 4, TPM: 12000, NOPM: 5000, NewOrderP90Ms: 30, NewOrderP99Ms: 80, BlocksReadPerTxn: 40, DiskReadMBps: 300},
		}}
}

// A report of a sweep alone has the sweep section: the table with the knee
// marked, a failed value with its reason, three charts; Chromium loads it
// with no console message and draws every chart.
func TestSweepSection(t *testing.T) {
	var buf bytes.Buffer
	if err := HTML(&buf, nil, Options{Version: "test", Generated: time.Date(2025, 3, 5, 9, 0, 0, 0, time.UTC), Sweep: testSweep()}); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	for _, want := range []string{`id="sweep"`, "256M (knee)", "Knee: memory = 256M", "server did not start", "Reads by memory", "Database size: 900 MiB"} {
		if !strings.Contains(page, want) {
			t.Errorf("sweep section lacks %q", want)
		}
	}
	if n := strings.Count(page, "echarts.init("); n != 3 {
		t.Errorf("%d charts, want 3", n)
	}
	loadsClean(t, buf.Bytes(), 3)
}

// loadsClean loads page in Chromium and checks that it logs no console
// message and initialises charts charts.
func loadsClean(t *testing.T, page []byte, charts int) {
	t.Helper()
	bin := chromium(t)
	file := filepath.Join(t.TempDir(), "page.html")
	if err := os.WriteFile(file, page, 0o644); err != nil {
		t.Fatal(err)
	}
	dom, logs := runChromium(t, bin, file, "--dump-dom")
	if msgs := consoleRE.FindAll(logs, -1); len(msgs) > 0 {
		t.Errorf("console messages while loading the report:\n%s", bytes.Join(msgs, []byte("\n")))
	}
	if n := len(instanceRE.FindAll(dom, -1)); n != charts {
		t.Errorf("%d of %d charts initialised", n, charts)
	}
}

// A noisy-neighbour scenario (a sweep of kind neighbour) renders as a
// table per instance and phase and grouped bars, with no knee; Chromium
// loads it with no console message.
func TestNeighbourSection(t *testing.T) {
	s := &Sweep{ID: "20250305-090000-abcdef", Kind: neighbourKind, Status: "complete", Knee: -1, Points: []scenario.SweepPoint{
		{Value: "n1 baseline", RunID: "r1", Status: "complete", TPM: 30000, NOPM: 13000, NewOrderP99Ms: 9},
		{Value: "n2 baseline", RunID: "r2", Status: "complete", TPM: 31000, NOPM: 13500, NewOrderP99Ms: 8},
		{Value: "n1 backup", RunID: "r3", Status: "complete", TPM: 20000, NOPM: 9000, NewOrderP99Ms: 30},
		{Value: "n2 backup", Status: "failed", Reason: "server killed by its memory limit"},
	}}
	var buf bytes.Buffer
	if err := HTML(&buf, nil, Options{Version: "test", Generated: time.Date(2025, 3, 5, 9, 0, 0, 0, time.UTC), Sweep: s}); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	for _, want := range []string{"Noisy neighbour", "TPM per instance and phase", "NOPM per instance and phase", "server killed by its memory limit"} {
		if !strings.Contains(page, want) {
			t.Errorf("neighbour section lacks %q", want)
		}
	}
	if strings.Contains(page, "Knee") {
		t.Error("a neighbour scenario has no knee")
	}
	loadsClean(t, buf.Bytes(), 2)
}

// A cpus value that left the driver no core of its own is marked in the
// table, named on the knee line and explained under the table; a sweep
// whose values all left it a core has none of it.
func TestSweepDriverNote(t *testing.T) {
	for _, c := range []struct {
		name   string
		shared bool
	}{{"2,1 on two cores", true}, {"1,0.5 on two cores", false}} {
		t.Run(c.name, func(t *testing.T) {
			s := &Sweep{ID: "20261126-120000-abcdef", Kind: "cpus", Status: "complete", Threshold: 0.1, Knee: 1, KneeFound: false, Points: []scenario.SweepPoint{
				{Value: "2", RunID: "r1", Status: "complete", Users: 4, TPM: 20000, NOPM: 9000, DriverShares: c.shared},
				{Value: "1", RunID: "r2", Status: "complete", Users: 4, TPM: 19000, NOPM: 8800},
			}}
			if c.shared {
				s.DriverNote, s.DriverKneeNote = "cpus 2 leaves the driver (rightsize) no core of its own on the sweep's 2-core host: --values 1,0.5 there.", "cpus 2 left the driver no core of its own"
			}
			var buf bytes.Buffer
			if err := HTML(&buf, nil, Options{Version: "test", Sweep: s}); err != nil {
				t.Fatal(err)
			}
			sec := section(t, buf.String(), "sweep")
			has := map[string]bool{
				"marked row": strings.Contains(sec, `<td class="warn" title="cpus 2 leaves the driver`) && strings.Contains(sec, ">2 *</td>"),
				"knee line":  strings.Contains(sec, "is within 10 % of the best. * cpus 2 left the driver no core of its own.</p>"),
				"note":       strings.Contains(sec, `<span class="warn">*</span> cpus 2 leaves the driver (rightsize) no core of its own on the sweep&#39;s 2-core host: --values 1,0.5 there.`),
			}
			for what, ok := range has {
				if ok != c.shared {
					t.Errorf("%s shown: %v, want %v", what, ok, c.shared)
				}
			}
		})
	}
}

// A sweep whose runs were prewarmed says so, value by value; one whose
// runs were not says nothing about it.
func TestSweepPrewarmed(t *testing.T) {
	warm := func(id string) RunData {
		return RunData{Run: store.Run{ID: id, Env: map[string]string{store.EnvPrewarmBytes: "225443840", store.EnvPrewarmBlocks: "27520"}}}
	}
	for _, tc := range []struct {
		runs []RunData
		want string
	}{
		{[]RunData{warm("r1"), warm("r2")}, "Cache prewarmed before each ramp-up (--prewarm): 1G 215 MiB (27520 blocks), 256M 215 MiB (27520 blocks)."},
		{[]RunData{{Run: store.Run{ID: "r1"}}}, ""},
	} {
		p := &Page{Runs: tc.runs}
		if got := prewarmedText(p, testSweep()); got != tc.want {
			t.Errorf("got %q, want %q", got, tc.want)
		}
	}
}

// A sweep of a pgbench workload names its figure of merit and latencies
// in the table, the charts, the knee and the note: no NOPM or New-Order.
func TestSweepWorkloadNames(t *testing.T) {
	s := testSweep()
	s.Figure = "every script"
	var buf bytes.Buffer
	if err := HTML(&buf, nil, Options{Version: "test", Generated: time.Date(2025, 3, 5, 9, 0, 0, 0, time.UTC), Sweep: s}); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	for _, want := range []string{"TPM of every script", "Latency by memory", "best TPM of every script and p90;"} {
		if !strings.Contains(page, want) {
			t.Errorf("a workload's sweep section lacks %q", want)
		}
	}
	for _, not := range []string{"NOPM", "New-Order"} {
		if strings.Contains(page, not) {
			t.Errorf("a workload's sweep section names TPC-C's %q", not)
		}
	}
}
