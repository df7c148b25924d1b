package store

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/rightsize/rightsize/figures"
)

// TestStepColumnsAreJSONKeys: every figure column of a step (the stored
// columns the CSV export writes too) is the step's JSON key of the same
// value: its own and Procs' at the top, Host's under "host", the server's
// counters under "db" without their "db_".
func TestStepColumnsAreJSONKeys(t *testing.T) {
	var st Step
	for i, f := range stepFigureFields(&st) {
		switch p := f.p.(type) {
		case *float64:
			*p = float64(i + 1)
		case *int64:
			*p = int64(i + 1)
		case *uint64:
			*p = uint64(i + 1)
		}
	}
	b, err := json.Marshal(&st)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, f := range stepFigureFields(&st) {
		c := figures.Column{Name: f.name, Ptr: f.p}
		if c.Float() == 0 {
			continue // a time or a flag
		}
		n++
		obj, key := m, f.name
		if hasColumn((&HostSummary{}).Columns(), f.name) {
			obj, _ = m["host"].(map[string]any)
		} else if rest, ok := strings.CutPrefix(f.name, "db_"); ok {
			obj, key = m["db"].(map[string]any), rest
		}
		if v, ok := obj[key].(float64); !ok || v != c.Float() {
			t.Errorf("column %s = %v, JSON %s = %v", f.name, c.Float(), key, obj[key])
		}
	}
	if n < 30 {
		t.Errorf("%d figure columns checked, want every one", n)
	}
}

func hasColumn(cols []figures.Column, name string) bool {
	for _, c := range cols {
		if c.Name == name {
			return true
		}
	}
	return false
}
