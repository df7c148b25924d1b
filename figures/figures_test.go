package figures

import (
	"encoding/json"
	"testing"
)

// TestColumnsAreJSONKeys: every column is named as its JSON key, and every
// figure of Host has a column.
func TestColumnsAreJSONKeys(t *testing.T) {
	h := Host{CPUBusyPct: 1, CPUIdlePct: 2, CPUIowaitPct: 3, CPUUserPct: 4, CPUSystemPct: 5, CPUStealPct: 6,
		DiskReadIOPS: 7, DiskWriteIOPS: 8, DiskReadMBps: 9, DiskWriteMBps: 10, DiskAvgLatencyMs: 11, MemUsedBytes: 12, MemCachedBytes: 13,
		ServerReadIOPS: 14, ServerWriteIOPS: 15, ServerReadMBps: 16, ServerWriteMBps: 17}
	s := HostSample{Host: Host{CPUBusyPct: 1, ServerReadIOPS: 3, ServerWriteIOPS: 4, ServerReadMBps: 5, ServerWriteMBps: 6}, Procs: Procs{ServerCPUPct: 2}}
	p := Procs{ServerCPUPct: 7, DriverCPUPct: 8}
	x := Txn{Count: 1, Rollbacks: 2, Retries: 3, Errors: 4, P50Ms: 5, P90Ms: 6, P95Ms: 7, P99Ms: 8, MaxMs: 9}
	tests := []struct {
		name string
		v    any
		cols []Column
		skip map[string]bool
	}{
		{"host", &h, h.Columns(), nil},
		{"sample", &s, s.Columns(), map[string]bool{"at": true, "disks": true}},
		{"procs", &p, p.Columns(), nil},
		{"txn", &x, x.Columns(), nil},
	}
	for _, tc := range tests {
		b, err := json.Marshal(tc.v)
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]float64
		_ = json.Unmarshal(b, &m) // "at" is not a number: ignored
		n := 0
		for k := range m {
			if !tc.skip[k] {
				n++
			}
		}
		if n != len(tc.cols) {
			t.Errorf("%s: %d JSON figures, %d columns", tc.name, n, len(tc.cols))
		}
		for _, c := range tc.cols {
			if v, ok := m[c.Name]; !ok || v != c.Float() {
				t.Errorf("%s: column %s = %v, JSON %v (present %v)", tc.name, c.Name, c.Float(), v, ok)
			}
		}
	}
}

func TestMeanHost(t *testing.T) {
	tests := []struct {
		name string
		in   []Host
		want Host
	}{
		{"none", nil, Host{}},
		{"one", []Host{{CPUBusyPct: 40, MemUsedBytes: 7}}, Host{CPUBusyPct: 40, MemUsedBytes: 7}},
		{"two, memory rounded", []Host{{CPUBusyPct: 40, DiskAvgLatencyMs: 1, MemUsedBytes: 3}, {CPUBusyPct: 60, DiskAvgLatencyMs: 2, MemUsedBytes: 4}},
			Host{CPUBusyPct: 50, DiskAvgLatencyMs: 1.5, MemUsedBytes: 4}},
	}
	for _, tc := range tests {
		if got := Mean(tc.in); got != tc.want {
			t.Errorf("%s: got %+v, want %+v", tc.name, got, tc.want)
		}
	}
}

// TestFigureOf: every Figure names a column of Host and reads its field.
func TestFigureOf(t *testing.T) {
	h := Host{CPUBusyPct: 1, CPUIdlePct: 2, CPUIowaitPct: 3, CPUUserPct: 4, CPUSystemPct: 5, CPUStealPct: 6,
		DiskReadIOPS: 7, DiskWriteIOPS: 8, DiskReadMBps: 9, DiskWriteMBps: 10, DiskAvgLatencyMs: 11, MemUsedBytes: 12, MemCachedBytes: 13,
		ServerReadIOPS: 14, ServerWriteIOPS: 15, ServerReadMBps: 16, ServerWriteMBps: 17}
	for i, f := range []Figure{CPUBusy, CPUIdle, CPUIowait, CPUUser, CPUSystem, CPUSteal, DiskReadIOPS, DiskWriteIOPS,
		DiskReadMBps, DiskWriteMBps, DiskLatency, MemUsed, MemCached, ServerReadIOPS, ServerWriteIOPS, ServerReadMBps, ServerWriteMBps} {
		if got := f.Of(&h); got != float64(i+1) {
			t.Errorf("%s: %v, want %d", f.Name, got, i+1)
		}
	}
	if !h.CPUMeasured() || !h.DiskMeasured() || (&Host{}).CPUMeasured() || (&Host{}).DiskMeasured() {
		t.Error("CPUMeasured or DiskMeasured wrong")
	}
	if !h.ServerIOMeasured() || (&Host{DiskWriteIOPS: 1}).ServerIOMeasured() || !(&Host{ServerWriteMBps: 0.1}).ServerIOMeasured() {
		t.Error("ServerIOMeasured wrong")
	}
}
