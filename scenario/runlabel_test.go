package scenario

import "testing"

func TestRunLabel(t *testing.T) {
	for _, c := range []struct{ kind, id, label, want string }{
		{"memory", "20261126-131656-aa4200", "", "sweep-20261126-131656-aa4200"},
		{"cpus", "x", "mem", "mem"},
		{FitKind, "20261126-131656-aa4200", "", "fit-20261126-131656-aa4200"},
		{FitKind, "x", "high", "high"},
		{NeighbourKind, "x", "", "neighbour-x"},
	} {
		if got := RunLabel(c.kind, c.id, c.label); got != c.want {
			t.Errorf("RunLabel(%q, %q, %q) = %q, want %q", c.kind, c.id, c.label, got, c.want)
		}
	}
}
