package main

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/rightsize/rightsize/scenario"
	"github.com/rightsize/rightsize/store"
)

// postmasters reads the PID and Cpus_allowed_list of each instance's
// server (the copies DATADIR-nN-PID).
func postmasters(dataDir string) (map[int]string, error) {
	files, _ := filepath.Glob(dataDir + "-n*/postmaster.pid")
	out := map[int]string{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		pid, err := strconv.Atoi(strings.SplitN(string(b), "\n", 2)[0])
		if err != nil {
			return nil, err
		}
		status, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
		if err != nil {
			return nil, err
		}
		for _, l := range strings.Split(string(status), "\n") {
			if v, ok := strings.CutPrefix(l, "Cpus_allowed_list:"); ok {
				out[pid] = strings.TrimSpace(v)
			}
		}
	}
	return out, nil
}

// running reports whether process pid exists and is not a zombie.
func running(pid int) bool {
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return false
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	// the state follows the command name in parentheses
	i := strings.LastIndexByte(string(b), ')')
	return i < 0 || i+2 >= len(b) || b[i+2] != 'Z'
}

// The neighbour scenario with --cpus 1 gives each of two instances its
// own core on this 2-core machine (read from each postmaster's
// /proc/PID/status); Ctrl-C in the backup phase leaves no server and no
// cgroup, the baseline runs kept and the scenario partial; --resume then
// measures the backup phase only and completes it.
func TestNeighbourInterruptResume(t *testing.T) {
	if testing.Short() {
		t.Skip("starts embedded servers")
	}
	args, dataDir := builtEmbedded(t, "nbresume-")
	st := tempStore(t)
	two := runtime.NumCPU() >= 2
	caps := []string{}
	if two {
		caps = []string{"--cpus", "1"}
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var mu sync.Mutex
	var servers map[int]string
	var readErr error
	_, errOut, code := cliWatch(t, ctx, func(s string) {
		switch {
		case strings.Contains(s, "phase baseline"): // the servers run
			mu.Lock()
			servers, readErr = postmasters(dataDir)
			mu.Unlock()
		case strings.Contains(s, "phase backup"):
			time.AfterFunc(time.Second, cancel)
		}
	}, append(append([]string{"neighbour", "--instances", "2", "--users", "1", "--rampup", "200ms", "--duration", "2s",
		"--backup-instances", "1", "--backup-every", "0", "--backup-cycles", "1", "--store", st, "--label", "nbr"}, caps...), args...)...)
	if code == 0 || !strings.Contains(errOut, "--resume") {
		t.Fatalf("interrupted scenario: exit %d\n%s", code, errOut)
	}
	mu.Lock()
	if readErr != nil || len(servers) != 2 {
		t.Fatalf("servers under load: %v, %v", servers, readErr)
	}
	if two {
		var lists []string
		for _, l := range servers {
			lists = append(lists, l)
		}
		if lists[0] == lists[1] || strings.ContainsAny(lists[0], ",-") || strings.ContainsAny(lists[1], ",-") {
			t.Errorf("--cpus 1: the two postmasters run on cores %v, want one core each, not the same", servers)
		}
		if !strings.Contains(errOut, "each instance has cores of its own") {
			t.Errorf("no line on the cores:\n%s", errOut)
		}
	}
	for pid := range servers {
		if running(pid) {
			st, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
			t.Errorf("server %d still runs after Ctrl-C:\n%s", pid, st)
		}
	}
	mu.Unlock()
	if copies, _ := filepath.Glob(dataDir + "-n*"); len(copies) > 0 {
		t.Errorf("copies left: %v", copies)
	}
	if left := ownGroups(t); len(left) > 0 {
		t.Errorf("cgroups left after Ctrl-C: %v", left)
	}
	s, err := store.Open(context.Background(), st)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	sw, err := s.LoadSweep(context.Background(), "nbr")
	if err != nil || sw.Status != store.StatusPartial {
		t.Fatalf("interrupted scenario stored as %+v, %v", sw, err)
	}
	before := map[int]store.SweepPoint{}
	for _, p := range sw.Points {
		before[p.Position] = p
	}
	for pos := range 2 {
		if before[pos].Status != store.StatusComplete || before[pos].RunID == "" {
			t.Fatalf("baseline run %d not kept complete: %+v", pos, before[pos])
		}
	}

	out, errOut, code := cli(t, context.Background(), append(append([]string{"neighbour", "--resume", "nbr", "--store", st}, caps...), args...)...)
	if code != 0 || !strings.Contains(out, "(complete)") {
		t.Fatalf("resumed scenario: %d\n%s%s", code, out, errOut)
	}
	if strings.Contains(errOut, "phase baseline") || !strings.Contains(errOut, "phase backup") {
		t.Errorf("resume ran other phases than backup:\n%s", errOut)
	}
	sw, _ = s.LoadSweep(context.Background(), "nbr")
	if sw.Status != store.StatusComplete || len(sw.Points) != 4 {
		t.Fatalf("resumed scenario stored as %+v", sw)
	}
	for _, p := range sw.Points {
		if p.Status != store.StatusComplete {
			t.Errorf("%s: %s %s", p.Value, p.Status, p.Reason)
		}
		if p.Position < 2 && p.RunID != before[p.Position].RunID {
			t.Errorf("%s measured again: run %s, was %s", p.Value, p.RunID, before[p.Position].RunID)
		}
	}
	runs, err := s.ListRuns(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	labels := map[string]int{}
	for _, r := range runs {
		labels[r.Label]++
	}
	for _, l := range []string{"nbr n1 baseline", "nbr n2 baseline"} {
		if labels[l] != 1 {
			t.Errorf("%d runs labelled %q, want 1", labels[l], l)
		}
	}
	res, err := scenario.LoadNeighbour(context.Background(), s, "nbr")
	if err != nil || len(res.Backups) != 1 || len(res.Backups[0].Cycles) != 1 {
		t.Errorf("backups of the resumed scenario: %+v, %v", res, err)
	}
	if left := ownGroups(t); len(left) > 0 {
		t.Errorf("cgroups left after the resumed scenario: %v", left)
	}
	// a complete scenario has nothing left to measure
	out, errOut, code = cli(t, context.Background(), append([]string{"neighbour", "--resume", "nbr", "--store", st}, args...)...)
	if code != 0 || !strings.Contains(errOut, "4 of 4 runs stored complete") || strings.Contains(errOut, "phase") || !strings.Contains(out, "(complete)") {
		t.Errorf("resuming a complete scenario: %d\n%s%s", code, out, errOut)
	}
}

func TestNeighbourResumeKeepsShape(t *testing.T) {
	_, errOut, code := cli(t, context.Background(), "neighbour", "--resume", "x", "--instances", "3", "--store", tempStore(t))
	if code != 2 || !strings.Contains(errOut, "--instances: --resume x continues the scenario with its own --instances") {
		t.Fatalf("exit %d:\n%s", code, errOut)
	}
	_, errOut, code = cli(t, context.Background(), "neighbour", "--resume", "nothing-stored", "--store", tempStore(t))
	if code != 2 || !strings.Contains(errOut, "--resume") {
		t.Fatalf("resume of an unknown scenario: exit %d:\n%s", code, errOut)
	}
}
