package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rightsize/rightsize/scenario"
	"github.com/rightsize/rightsize/store"
)

// Two small instances copied from one build, a baseline and a backup phase
// with one backup cycle: four runs in one scenario, one backup probe, and
// no copy, server or cgroup left.
func TestNeighbourTwoInstances(t *testing.T) {
	args, dataDir := builtEmbedded(t, "neighbour-")
	st := tempStore(t)
	out, errOut, code := cli(t, context.Background(), append([]string{"neighbour", "--instances", "2", "--users", "1", "--rampup", "300ms",
		"--duration", "3s", "--backup-instances", "1", "--backup-every", "0", "--backup-cycles", "1", "--store", st, "--label", "nb", "--json"}, args...)...)
	if code != 0 {
		t.Fatalf("neighbour: %d\n%s%s", code, out, errOut)
	}
	var res scenario.NeighbourResult
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("neighbour --json: %v\n%s", err, out)
	}
	if res.Status != store.StatusComplete || len(res.Points) != 4 || len(res.Backups) != 1 || len(res.Backups[0].Cycles) != 1 || res.Backups[0].ProbeID == "" {
		t.Fatalf("result %+v", res)
	}
	want := []string{"n1 baseline", "n2 baseline", "n1 backup", "n2 backup"}
	for i, p := range res.Points {
		if p.Value != want[i] || !p.Measured() {
			t.Errorf("run %d: %+v, want %s measured", i, p, want[i])
		}
	}
	s, err := store.Open(context.Background(), st)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	sw, err := s.LoadSweep(context.Background(), "nb")
	if err != nil || sw.Kind != scenario.NeighbourKind || len(sw.Points) != 4 {
		t.Fatalf("stored scenario %+v, %v", sw, err)
	}
	copies, _ := filepath.Glob(dataDir + "-n*")
	if len(copies) > 0 {
		t.Errorf("copies left: %v", copies)
	}
	if _, err := os.Stat(filepath.Join(dataDir, "postmaster.pid")); !os.IsNotExist(err) {
		t.Errorf("the build's server still runs: %v", err)
	}
	if left := ownGroups(t); len(left) > 0 {
		t.Errorf("cgroups left: %v", left)
	}
	if !strings.Contains(errOut, "phase backup") {
		t.Errorf("no phase line:\n%s", errOut)
	}
}

func TestNeighbourBadInput(t *testing.T) {
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"no instances", []string{"--instances", "0"}, "--instances must be at least 1"},
		{"more backups than instances", []string{"--instances", "2", "--backup-instances", "3"}, "--backup-instances must be between 0 and"},
		{"several user steps", []string{"--users", "1,2"}, "one number of users"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, errOut, code := cli(t, context.Background(), append([]string{"neighbour", "--store", tempStore(t)}, c.args...)...)
			if code != 2 || !strings.Contains(errOut, c.want) {
				t.Fatalf("exit %d, want 2 and %q:\n%s", code, c.want, errOut)
			}
		})
	}
}
