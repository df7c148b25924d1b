package report

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/rightsize/rightsize/probe/result"
	"github.com/rightsize/rightsize/scenario"
	"github.com/rightsize/rightsize/store"
)

// neighbourStep is one minute of a scenario's run: New-Order and Payment
// windows every 10 s (New-Order at latMs), a host sample every second.
func neighbourStep(t *testing.T, rng *rand.Rand, start time.Time, latMs, writeIOPS float64) store.Step {
	s := store.Step{Users: 1, Start: start, MeasureStart: start.Add(10 * time.Second), MeasureEnd: start.Add(time.Minute), TPM: 600, NOPM: 270}
	for w := time.Duration(0); w < time.Minute; w += 10 * time.Second {
		s.Windows = append(s.Windows, store.Window{Offset: w, Type: "new_order", Hist: encodeHist(t, latencyHist(rng, 200, latMs))},
			store.Window{Offset: w, Type: "payment", Hist: encodeHist(t, latencyHist(rng, 200, latMs/3))})
	}
	for sec := 1; sec <= 60; sec++ {
		s.Samples = append(s.Samples, store.HostSample{At: start.Add(time.Duration(sec) * time.Second),
			Host: store.HostSummary{DiskReadIOPS: 50, DiskWriteIOPS: writeIOPS, DiskAvgLatencyMs: writeIOPS / 1000}})
	}
	return s
}

// The neighbour section with its runs and backup cycles: New-Order p99
// over time per instance and the host's disks over time, both with the
// backup cycles shaded, and the backup and restore seconds per cycle;
// Chromium loads it with no console message and initialises every chart.
func TestNeighbourTimelines(t *testing.T) {
	t0 := time.Date(2025, 3, 5, 9, 0, 0, 0, time.UTC)
	rng := rand.New(rand.NewPCG(1, 2))
	backupAt := t0.Add(2 * time.Minute)
	var runs []RunData
	s := &Sweep{ID: "20250305-090000-abcdef", Kind: neighbourKind, Status: "complete", Knee: -1,
		Neighbour: &Neighbour{Cores: "each instance has cores of its own: n1 1, n2 0; the driver shares them (no core left)"}}
	for i, v := range []string{"n1 baseline", "n2 baseline", "n1 backup", "n2 backup"} {
		start, lat, wiops := t0, 5.0, 400.0
		if i >= 2 {
			start, lat, wiops = backupAt, 40, 3000
		}
		id := "r" + string(rune('1'+i))
		st := neighbourStep(t, rng, start, lat, wiops)
		st.RunID = id
		runs = append(runs, RunData{Run: store.Run{ID: id, Label: "nb " + v, Users: []int{1}, StartedAt: start}, Steps: []store.Step{st}})
		s.Points = append(s.Points, scenario.SweepPoint{Value: v, RunID: id, Status: "complete", TPM: 600, NOPM: 270, NewOrderP99Ms: lat * 2})
	}
	s.Neighbour.Backups = []NeighbourBackup{{Instance: 1, ProbeID: "p1", Cycles: []result.BackupCycle{
		{N: 1, Start: backupAt.Add(5 * time.Second), End: backupAt.Add(25 * time.Second), BackupSeconds: 12, BackupMBps: 40, RestoreSeconds: 8, RestoreChecked: true},
		{N: 2, Start: backupAt.Add(30 * time.Second), End: backupAt.Add(55 * time.Second), BackupSeconds: 15, BackupMBps: 32, RestoreSeconds: 10, RestoreChecked: true},
	}}}
	var buf bytes.Buffer
	o := Options{Version: "test", Generated: t0, Sweep: s, Sections: []Section{sweepSection{}}}
	if err := HTML(&buf, runs, o); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	for _, want := range []string{"New-Order p99 over time per instance", "Host disks over time", "Backup and restore per cycle",
		`"markArea"`, `"name":"n1 backup 1","xAxis":2.083`, `"xAxis":2.417`, "n1 backup 2", "the driver shares them", "Backup cycles"} {
		if !strings.Contains(page, want) {
			t.Errorf("neighbour section lacks %s", want)
		}
	}
	if strings.Contains(page, "not in this report") {
		t.Error("the scenario's runs were not found")
	}
	loadsClean(t, buf.Bytes(), 5) // TPM, NOPM, New-Order p99, host disks, backup cycles
}
