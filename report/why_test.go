package report

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rightsize/rightsize/analysis"
	"github.com/rightsize/rightsize/store"
	"github.com/rightsize/rightsize/waits"
)

// whyRun is a run of 1, 2, 4 and 8 users whose throughput stops rising at
// 4 users, where the server uses its 2 cores (and Lock waits take over
// at 8); each step has per-second disk samples.
func whyRun() RunData {
	t0 := time.Date(2025, 3, 5, 9, 0, 0, 0, time.UTC)
	r := store.Run{ID: "20250305-090000-abcdef", Label: "why", Status: store.StatusComplete, Engine: "postgres", Users: []int{1, 2, 4, 8},
		Repeats: 1, Env: map[string]string{"host.logical_cpus": "2"}}
	var steps []store.Step
	for i, u := range []int{1, 2, 4, 8} {
		start := t0.Add(time.Duration(i) * 20 * time.Second)
		lock := float64(u*u) / 4
		p := &waits.Profile{Source: "pg_stat_activity", Sampled: true, IntervalMs: 100, Ticks: 150, Seconds: 15,
			Missing: nil, Events: []waits.Event{
				{Class: waits.CPU, Name: "CPU", Seconds: 10 * float64(min(u, 2)), Count: 100},
				{Class: waits.Lock, Name: "Lock:transactionid", Seconds: lock, Count: lock * 10},
				{Class: waits.Log, Name: "IO:WALSync", Seconds: 1, Count: 10},
				{Class: waits.Client, Name: "Client:ClientRead", Seconds: 0.5, Count: 5},
			}, Locks: []waits.LockWait{{Type: "tuple", Relation: "district", Mode: "ExclusiveLock", Samples: lock}}}
		if u == 8 {
			p.Missing = []string{"pg_read_all_stats: not a member"}
		}
		p.Normalize()
		st := store.Step{RunID: r.ID, Repeat: 1, Index: i, Users: u, Start: start, MeasureStart: start.Add(5 * time.Second),
			MeasureEnd: start.Add(20 * time.Second), TPM: []float64{10000, 19000, 30000, 30500}[i]}
		analysis.Why{Waits: p, Saturation: &waits.Saturation{Disk: "vda", DiskP50Ms: 0.4, DiskP99Ms: 1 + float64(u), Cores: 2,
			ServerCores: 0.48 * float64(min(u, 4)), DriverCores: 0.05}}.Put(&st)
		for s := 0; s < 20; s++ {
			st.Seconds = append(st.Seconds, store.Second{Offset: s, Txn: int64(st.TPM / 60)})
			st.Samples = append(st.Samples, store.HostSample{At: start.Add(time.Duration(s+1) * time.Second),
				Disks: fmt.Sprintf(`[{"Name":"vda","AvgLatencyMs":%g}]`, 0.3+float64(s%5)/10)})
		}
		steps = append(steps, st)
	}
	return RunData{Run: r, Steps: steps}
}

// The Why section opens with the run's verdict at the step where
// throughput stops rising, lists every step's verdict, stacks active time
// by wait class, tables the top events and charts the disk latency; it
// loads in Chromium with no console message. The end-of-run summary prints
// the same verdicts.
func TestWhySection(t *testing.T) {
	rd := whyRun()
	var buf bytes.Buffer
	if err := HTML(&buf, []RunData{rd}, Options{Version: "test", Sections: []Section{whySection{}}}); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	for _, want := range []string{`id="why"`, "throughput stops rising at 4 users (TPM 30000; +2 % at 8 users): CPU-bound: the server used 1.92 of 2 cores", "lock-bound", "Lock:transactionid",
		"Active time by wait class", "Top 10 wait events", "Disk latency of the database", "pg_read_all_stats: not a member"} {
		if !strings.Contains(page, want) {
			t.Errorf("Why section lacks %q", want)
		}
	}
	if n := strings.Count(page, "echarts.init("); n != 2 {
		t.Errorf("%d charts, want 2", n)
	}
	var sum bytes.Buffer
	WriteRunSummary(&sum, rd.Run, rd.Steps)
	if !strings.Contains(sum.String(), "why: throughput stops rising at 4 users") {
		t.Errorf("summary lacks the run verdict:\n%s", sum.String())
	}

	bin := chromium(t)
	file := filepath.Join(t.TempDir(), "why.html")
	if err := os.WriteFile(file, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	dom, logs := runChromium(t, bin, file, "--dump-dom")
	if msgs := consoleRE.FindAll(logs, -1); len(msgs) > 0 {
		t.Errorf("console messages while loading the Why section:\n%s", bytes.Join(msgs, []byte("\n")))
	}
	if n := len(instanceRE.FindAll(dom, -1)); n != 2 {
		t.Errorf("%d of 2 charts initialised", n)
	}
}

// A run without any profile says so instead of drawing empty charts.
func TestWhySectionWithoutWaits(t *testing.T) {
	rd := whyRun()
	for i := range rd.Steps {
		rd.Steps[i].Waits, rd.Steps[i].Saturation = nil, nil
	}
	var buf bytes.Buffer
	if err := HTML(&buf, []RunData{rd}, Options{Version: "test", Sections: []Section{whySection{}}}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "no wait profile or saturation was measured") || strings.Contains(buf.String(), "echarts.init(") {
		t.Errorf("a run without waits: %s", buf.String())
	}
}
