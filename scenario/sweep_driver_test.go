package scenario

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/rightsize/rightsize/internal/storetest"
	"github.com/rightsize/rightsize/store"
)

func TestFairValues(t *testing.T) {
	for _, c := range []struct {
		name       string
		values     []string
		ncpu, need int
		want       string
	}{
		{"2,1 on two cores", []string{"2", "1"}, 2, 1, "1,0.5"},
		{"the README's list on two cores", []string{"2", "1.5", "1", "0.5"}, 2, 1, "1,0.5"},
		{"eight of eight", []string{"8", "4", "2", "1"}, 8, 1, "7,4,2,1"},
		{"two driver cores", []string{"8", "4"}, 8, 2, "6,4"},
		{"only the largest shares", []string{"4", "3", "2"}, 4, 1, "3,2"},
		{"one core: none to spare", []string{"1", "0.5"}, 1, 1, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := fairValues(c.values, c.ncpu, c.need); got != c.want {
				t.Errorf("fairValues(%v, %d, %d) = %q, want %q", c.values, c.ncpu, c.need, got, c.want)
			}
		})
	}
}

// storeCPUSweep stores a complete cpus sweep of values, each measured on a
// host of ncpu cores; env and flags are added to each run's.
func storeCPUSweep(t *testing.T, st *store.Store, values []string, ncpu string, env, flags map[string]string) string {
	t.Helper()
	sw := &store.Sweep{Kind: "cpus", Values: values, Spec: map[string]string{"knee_threshold": "0.1"}}
	return storetest.Sweep(t, st, sw, func(_ int, v string) *store.Run {
		e := map[string]string{"host.logical_cpus": ncpu}
		for k, x := range env {
			e[k] = x
		}
		return &store.Run{Label: "sweep-" + sw.ID + " cpus=" + v, Source: store.SourceRightsize, Users: []int{4}, Repeats: 1, Env: e, Flags: flags}
	}, func(int) store.Step { return store.Step{Repeat: 1, Users: 4, TPM: 9000, NOPM: 4000} })
}

// A stored cpus sweep says which values left the driver no core of its
// own, from what its runs stored (the host's cores, the caps asked or,
// for runs without them, the --driver-cpus flag).
func TestSweepDriverShare(t *testing.T) {
	ctx := context.Background()
	st := storetest.Open(t)
	for _, c := range []struct {
		name   string
		values []string
		ncpu   string
		env    map[string]string
		flags  map[string]string
		shared []string // nil: no DriverShare
		fair   string
	}{
		{"2,1 on two cores", []string{"2", "1"}, "2", map[string]string{"caps.asked": `{"cpus":2}`}, nil, []string{"2"}, "1,0.5"},
		{"1,0.5 on two cores", []string{"1", "0.5"}, "2", nil, nil, nil, ""},
		{"2,1 on four cores", []string{"2", "1"}, "4", nil, nil, nil, ""},
		{"driver pinned onto the server's core", []string{"1", "0.5"}, "2", map[string]string{"caps.asked": `{"cpus":1,"driver_cpus":"1"}`}, nil, []string{"1", "0.5"}, "1,0.5"},
		{"an older run: the flag", []string{"1", "0.5"}, "2", nil, map[string]string{"driver-cpus": "1"}, []string{"1", "0.5"}, "1,0.5"},
		{"no host cores stored", []string{"2", "1"}, "", nil, nil, nil, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			id := storeCPUSweep(t, st, c.values, c.ncpu, c.env, c.flags)
			res, err := LoadSweepResult(ctx, st, id, 0)
			if err != nil {
				t.Fatal(err)
			}
			var marked []string
			for _, p := range res.Points {
				if p.DriverShares {
					marked = append(marked, p.Value)
				}
			}
			if !slices.Equal(marked, c.shared) {
				t.Errorf("points marked %v, want %v", marked, c.shared)
			}
			switch d := res.DriverShare; {
			case c.shared == nil && d != nil:
				t.Errorf("DriverShare %+v, want none", d)
			case c.shared != nil && (d == nil || !slices.Equal(d.Values, c.shared) || d.FairValues != c.fair || d.FairDriverCPUs != "0"):
				t.Errorf("DriverShare %+v, want values %v, fair values %q on core 0", d, c.shared, c.fair)
			}
		})
	}
}

// The note names the values, the host and the fair list; a one-core host
// has none.
func TestDriverShareNote(t *testing.T) {
	d := newDriverShare([]string{"2", "1"}, []string{"2"}, 2, "")
	want := "cpus 2 leaves the driver (rightsize) no core of its own on the sweep's 2-core host: the server runs on the driver's cores too, " +
		"so the figures include the driver's own CPU use and do not compare fairly with values that leave it a core. " +
		"To measure fairly, keep a core for the driver: --values 1,0.5 there, the driver then on core 0, which the server does not get (--driver-cpus 0)"
	if got := d.Note(); got != want {
		t.Errorf("Note:\n%s\nwant\n%s", got, want)
	}
	if got := d.KneeNote(); got != "cpus 2 left the driver no core of its own: not a fair comparison (see the note)" {
		t.Errorf("KneeNote: %s", got)
	}
	one := newDriverShare([]string{"1", "0.5"}, []string{"1", "0.5"}, 1, "")
	if got := one.Note(); one.FairValues != "" || !strings.HasSuffix(got, "no core to spare for the driver: sweep cpus on a host with more cores") {
		t.Errorf("one core: %+v %q", one, got)
	}
	cpus, err := LookupSweepKind("cpus")
	if err != nil {
		t.Fatal(err)
	}
	var shared []string
	warnDriverShare(cpus, []string{"2", "1"}, "", 2, func(w string) { shared = append(shared, w) })
	warnDriverShare(cpus, []string{"1", "0.5"}, "", 2, func(w string) { shared = append(shared, w) })
	if len(shared) != 1 || shared[0] != want {
		t.Errorf("warnings before the sweep: %q, want the note once (for 2,1 and not 1,0.5)", shared)
	}
}
