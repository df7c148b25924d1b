package mssql

import (
	"testing"

	"github.com/rightsize/rightsize/waits"
)

// Rows in the shape sys.dm_os_wait_stats returns them (wait_type,
// waiting_tasks_count, wait_time_ms, signal_wait_time_ms), before and after
// a step of a commit-heavy, contended load.
func TestWaitStatsProfile(t *testing.T) {
	before := map[string]waitStat{
		"WRITELOG":            {Tasks: 1000, WaitMs: 2000, SignalMs: 100},
		"LCK_M_X":             {Tasks: 10, WaitMs: 500, SignalMs: 5},
		"PAGEIOLATCH_SH":      {Tasks: 100, WaitMs: 300, SignalMs: 10},
		"SOS_SCHEDULER_YIELD": {Tasks: 5000, WaitMs: 400, SignalMs: 400},
		"LAZYWRITER_SLEEP":    {Tasks: 100, WaitMs: 100000, SignalMs: 10},
	}
	after := map[string]waitStat{
		"WRITELOG":                         {Tasks: 21000, WaitMs: 42000, SignalMs: 2100},
		"LCK_M_X":                          {Tasks: 510, WaitMs: 10500, SignalMs: 505},
		"PAGEIOLATCH_SH":                   {Tasks: 100, WaitMs: 300, SignalMs: 10},
		"SOS_SCHEDULER_YIELD":              {Tasks: 9000, WaitMs: 800, SignalMs: 790},
		"PAGELATCH_EX":                     {Tasks: 300, WaitMs: 600, SignalMs: 100},
		"CXPACKET":                         {Tasks: 4, WaitMs: 40, SignalMs: 0},
		"ASYNC_NETWORK_IO":                 {Tasks: 50, WaitMs: 250, SignalMs: 50},
		"LAZYWRITER_SLEEP":                 {Tasks: 200, WaitMs: 200000, SignalMs: 20},
		"SLEEP_TASK":                       {Tasks: 9, WaitMs: 9000, SignalMs: 9},
		"XE_TIMER_EVENT":                   {Tasks: 9, WaitMs: 9000, SignalMs: 0},
		"SQLTRACE_INCREMENTAL_FLUSH_SLEEP": {Tasks: 9, WaitMs: 9000, SignalMs: 0},
	}
	events, counters := waitStatsProfile(before, after)
	got := map[string]waits.Event{}
	for _, e := range events {
		got[e.Name] = e
	}
	want := map[string]waits.Event{
		"WRITELOG":            {Class: waits.Log, Name: "WRITELOG", Seconds: 38, Count: 20000},
		"LCK_M_X":             {Class: waits.Lock, Name: "LCK_M_X", Seconds: 9.5, Count: 500},
		"SOS_SCHEDULER_YIELD": {Class: waits.CPU, Name: "SOS_SCHEDULER_YIELD", Seconds: 0.01, Count: 4000},
		"PAGELATCH_EX":        {Class: waits.Latch, Name: "PAGELATCH_EX", Seconds: 0.5, Count: 300},
		"CXPACKET":            {Class: waits.Other, Name: "CXPACKET", Seconds: 0.04, Count: 4},
		"ASYNC_NETWORK_IO":    {Class: waits.Client, Name: "ASYNC_NETWORK_IO", Seconds: 0.2, Count: 50},
		"signal wait (runnable, waiting for a CPU)": {Class: waits.CPU, Name: "signal wait (runnable, waiting for a CPU)", Seconds: 3.04},
	}
	if len(got) != len(want) {
		t.Errorf("events %+v", events)
	}
	for k, w := range want {
		g := got[k]
		if g.Class != w.Class || g.Count != w.Count || g.Seconds < w.Seconds-1e-9 || g.Seconds > w.Seconds+1e-9 {
			t.Errorf("%s: %+v, want %+v", k, g, w)
		}
	}
	if counters["signal_wait_ms"] != 3040 || counters["resource_wait_ms"] != 48250 {
		t.Errorf("counters %v", counters)
	}
	p := &waits.Profile{Seconds: 10, Events: events}
	p.Normalize()
	if p.Events[0].Name != "WRITELOG" {
		t.Errorf("top event %+v", p.Events[0])
	}
	for _, n := range []string{"LAZYWRITER_SLEEP", "SLEEP_TASK", "XE_TIMER_EVENT", "CXCONSUMER", "BROKER_TO_FLUSH"} {
		if !benignWait(n) {
			t.Errorf("%s not benign", n)
		}
	}
	if benignWait("WRITELOG") || benignWait("LCK_M_S") {
		t.Errorf("a real wait filtered")
	}
}
