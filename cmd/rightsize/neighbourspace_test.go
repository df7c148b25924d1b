package main

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/rightsize/rightsize/store"
)

// The neighbour scenario refuses, before it makes any, the copies of the
// data directory (one per instance) its file system cannot hold: exit 2
// with the numbers, nothing stored, no copy left.
func TestNeighbourRefusesCopiesTheDiskCannotHold(t *testing.T) {
	mnt, data := builtOnLoop(t, "nbfull-seed-")
	st := tempStore(t)
	_, errOut, code := cli(t, context.Background(), append([]string{"neighbour", "--instances", "2", "--users", "1", "--rampup", "200ms",
		"--duration", "2s", "--backup-instances", "0", "--store", st, "--label", "nbfull", "--data-dir", data}, pgBinArgs()...)...)
	if code != 2 || !strings.Contains(errOut, "2 copies of this ") || !strings.Contains(errOut, " MiB data directory need about ") ||
		!strings.Contains(errOut, " MiB here; "+mnt+" has ") {
		t.Fatalf("neighbour without room for its copies: exit %d, want 2 and the numbers:\n%s", code, errOut)
	}
	t.Log(strings.TrimSpace(errOut))
	nothingStored(t, st, "nbfull")
	entries, _ := os.ReadDir(mnt)
	for _, e := range entries {
		if e.Name() != "pg" && e.Name() != "lost+found" {
			t.Errorf("left on %s: %s", mnt, e.Name())
		}
	}
}

// nothingStored fails the test when the store st holds a run, or a sweep
// or scenario labelled label (unless "").
func nothingStored(t *testing.T, st, label string) {
	t.Helper()
	s, err := store.Open(context.Background(), st)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if runs, err := s.ListRuns(context.Background()); err != nil || len(runs) != 0 {
		t.Errorf("what was refused stored runs: %v %v", runs, err)
	}
	if sw, err := s.LoadSweep(context.Background(), label); label != "" && err == nil {
		t.Errorf("what was refused stored %s", sw.ID)
	}
}
