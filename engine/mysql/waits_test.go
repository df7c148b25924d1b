package mysql

import (
	"testing"

	"github.com/rightsize/rightsize/waits"
)

func TestStateClass(t *testing.T) {
	cases := []struct {
		state string
		lock  bool
		class waits.Class
		name  string
	}{
		{"Updating", true, waits.Lock, "innodb row lock wait"},
		{"Updating", false, waits.CPU, "state:Updating"},
		{"Commit", false, waits.Log, "state:Commit"},
		{"Starting cleanup", false, waits.Log, "state:Starting cleanup"},
		{"Waiting for table metadata lock", false, waits.Lock, "state:Waiting for table metadata lock"},
		{"System lock", false, waits.Lock, "state:System lock"},
		{"Writing to net", false, waits.Client, "state:Writing to net"},
		{"", false, waits.CPU, "state:(none)"},
	}
	for _, c := range cases {
		if cl, n := stateClass(c.state, c.lock); cl != c.class || n != c.name {
			t.Errorf("stateClass(%q, %v) = %s, %s; want %s, %s", c.state, c.lock, cl, n, c.class, c.name)
		}
	}
}

func TestEventDeltas(t *testing.T) {
	before := map[string][2]float64{"wait/io/file/innodb/innodb_log_file": {10, 1e12}, "idle": {1, 1}}
	after := map[string][2]float64{"wait/io/file/innodb/innodb_log_file": {30, 3e12}, "idle": {9, 9e12},
		"wait/lock/table/sql/handler": {5, 5e11}, "wait/synch/mutex/innodb/buf_pool_mutex": {2, 2e9},
		"wait/io/file/innodb/innodb_data_file": {4, 4e12}, "wait/io/table/sql/handler": {1, 1e12},
		"wait/io/socket/sql/client_connection": {1, 1e9}, "wait/synch/cond/mysys/COND_timer": {1, 5e12}}
	got := map[string]waits.Event{}
	for _, e := range eventDeltas(before, after) {
		got[e.Name] = e
	}
	want := map[string]waits.Event{
		"wait/io/file/innodb/innodb_log_file":    {Class: waits.Log, Name: "wait/io/file/innodb/innodb_log_file", Seconds: 2, Count: 20},
		"wait/lock/table/sql/handler":            {Class: waits.Lock, Name: "wait/lock/table/sql/handler", Seconds: 0.5, Count: 5},
		"wait/synch/mutex/innodb/buf_pool_mutex": {Class: waits.Latch, Name: "wait/synch/mutex/innodb/buf_pool_mutex", Seconds: 0.002, Count: 2},
		"wait/io/file/innodb/innodb_data_file":   {Class: waits.IO, Name: "wait/io/file/innodb/innodb_data_file", Seconds: 4, Count: 4},
		"wait/io/table/sql/handler":              {Class: waits.CPU, Name: "wait/io/table/sql/handler", Seconds: 1, Count: 1},
		"wait/io/socket/sql/client_connection":   {Class: waits.Client, Name: "wait/io/socket/sql/client_connection", Seconds: 0.001, Count: 1},
	}
	if len(got) != len(want) {
		t.Errorf("events %v", got)
	}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("%s: %+v, want %+v", k, got[k], w)
		}
	}
	ev := statusEvents(map[string]float64{"Innodb_row_lock_time": 1500, "Innodb_row_lock_waits": 3, "Innodb_log_waits": 2})
	if len(ev) != 2 || ev[0].Seconds != 1.5 || ev[0].Class != waits.Lock || ev[1].Class != waits.Log {
		t.Errorf("statusEvents = %+v", ev)
	}
}
