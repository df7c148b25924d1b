package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rightsize/rightsize/cgroup"
	"github.com/rightsize/rightsize/instance"
	"github.com/rightsize/rightsize/store"
)

// A rightsize killed with SIGKILL (issue 45, item 1) runs no deferred
// clean-up: its server, cgroups and copies live on and its run stays
// "running". These tests kill a real rightsize process (this test binary
// running the command, startCLI) mid-run, mid-sweep and mid-scenario, check
// that the fault is there (a server still running), then run the next
// command: it says in one line what it stopped and removed, one line for
// what the store marked partial, and goes on.

// groupsOf lists the cgroups of rightsize process pid (rightsize-PID-*)
// under this process's groups, where its child made them.
func groupsOf(pid int) []string {
	h, err := cgroup.Detect()
	if err != nil {
		return nil
	}
	var out []string
	for _, c := range h.Available() {
		entries, _ := os.ReadDir(h.Parent(c))
		for _, e := range entries {
			if strings.HasPrefix(e.Name(), fmt.Sprintf("rightsize-%d-", pid)) {
				out = append(out, filepath.Join(h.Parent(c), e.Name()))
			}
		}
	}
	return out
}

// capsArgs are --cpus 1 --memory 512M where cgroups can be made (root),
// so that the killed process leaves groups behind; else none.
func capsArgs() []string {
	if _, err := cgroup.Detect(); err != nil || os.Geteuid() != 0 {
		return nil
	}
	return []string{"--cpus", "1", "--memory", "512M"}
}

// startUntil starts rightsize with args in a process of its own and
// waits, polling the store at path every 300 ms for up to 5 minutes, until
// ready says so; it returns the process, its output and its Wait's result.
func startUntil(t *testing.T, path string, ready func(*store.Store) bool, args ...string) (*exec.Cmd, *bytes.Buffer, chan error) {
	t.Helper()
	c, out := startCLI(t, args...)
	done := make(chan error, 1)
	go func() { done <- c.Wait() }()
	for deadline := time.Now().Add(5 * time.Minute); ; {
		select {
		case err := <-done:
			t.Fatalf("rightsize ended before it was ready: %v\n%s", err, out)
		case <-time.After(300 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			_ = c.Process.Kill()
			<-done
			t.Fatalf("not ready in 5 minutes:\n%s", out)
		}
		if s, err := store.OpenExisting(context.Background(), path); err == nil {
			ok := ready(s)
			s.Close()
			if ok {
				return c, out, done
			}
		}
	}
}

// privateOwners gives the test's rightsize processes an owner-record
// directory of their own: rightsize processes of the packages tested
// alongside would otherwise reclaim this test's orphans (their owner is
// dead) before the command under test gets to them.
func privateOwners(t *testing.T) {
	t.Setenv(instance.OwnersDirEnv, t.TempDir())
}

// groupsLine checks that errOut has the line about removing the killed
// rightsize's groups, when they were still there before the next command:
// groups live under the test process's own cgroup, where a rightsize of
// another package tested alongside may remove them first.
func groupsLine(t *testing.T, errOut string, killed int, before []string) {
	t.Helper()
	if len(before) == 0 {
		t.Logf("the killed rightsize's groups were removed before the next command (by a rightsize tested alongside)")
		return
	}
	oneLine(t, errOut, fmt.Sprintf("(pid %d", killed), "control group")
}

// killWhen is startUntil, then SIGKILL; it returns the killed pid.
func killWhen(t *testing.T, path string, ready func(*store.Store) bool, args ...string) int {
	t.Helper()
	c, out, done := startUntil(t, path, ready, args...)
	if err := c.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-done
	t.Logf("killed rightsize pid %d; its output:\n%s", c.Process.Pid, out)
	return c.Process.Pid
}

// next runs the command after the kill in a process of its own, as a
// user would (what the managed server's start says goes to the process's
// standard error); it returns its output and exit code.
func next(t *testing.T, args ...string) (string, int) {
	t.Helper()
	c, out := startCLI(t, args...)
	code := exitOf(c.Wait())
	return out.String(), code
}

// serverOn is the pid of the server running on dataDir, 0 for none.
func serverOn(dataDir string) int {
	b, err := os.ReadFile(filepath.Join(dataDir, "postmaster.pid"))
	if err != nil {
		return 0
	}
	var pid int
	if _, err := fmt.Sscan(string(b), &pid); err != nil || !running(pid) {
		return 0
	}
	return pid
}

// stepsStored is a ready function: the latest run has at least n steps.
func stepsStored(n int) func(*store.Store) bool {
	return func(s *store.Store) bool {
		runs, err := s.ListRuns(context.Background())
		if err != nil || len(runs) == 0 {
			return false
		}
		_, steps, err := s.LoadRun(context.Background(), runs[0].ID) // the newest
		return err == nil && len(steps) >= n
	}
}

// oneLine checks that stderr holds exactly one line containing each of want.
func oneLine(t *testing.T, stderr string, want ...string) {
	t.Helper()
	n := 0
	for _, l := range strings.Split(stderr, "\n") {
		all := true
		for _, w := range want {
			all = all && strings.Contains(l, w)
		}
		if all {
			n++
		}
	}
	if n != 1 {
		t.Errorf("%d lines say %q, want 1:\n%s", n, want, stderr)
	}
}

// nothingLeft checks that no server runs on dataDir and that neither the
// killed process nor this one left cgroups.
func nothingLeft(t *testing.T, dataDir string, killed int) {
	t.Helper()
	if pid := serverOn(dataDir); pid != 0 {
		t.Errorf("server pid %d left running on %s", pid, dataDir)
	}
	if left := append(groupsOf(killed), ownGroups(t)...); len(left) > 0 {
		t.Errorf("cgroups left: %v", left)
	}
}

// TestKilledRun: `run` killed with SIGKILL after its first step leaves its
// server (and groups) running and the run "running"; the next `run` on the
// data directory stops that server, removes the groups, marks the run
// partial with its step, and measures.
func TestKilledRun(t *testing.T) {
	if testing.Short() {
		t.Skip("starts an embedded server and kills rightsize")
	}
	privateOwners(t)
	args, dataDir := builtEmbedded(t, "killedrun-")
	st := tempStore(t)
	caps := capsArgs()
	killed := killWhen(t, st, stepsStored(1), append(append([]string{"run", "--users", "1,2", "--rampup", "1s", "--duration", "3s",
		"--progress-interval", "0", "--store", st}, caps...), args...)...)
	server := serverOn(dataDir)
	if server == 0 {
		t.Fatal("no server left by the killed rightsize: the fault this test is about did not happen")
	}
	if caps != nil && len(groupsOf(killed)) == 0 {
		t.Fatal("no cgroups left by the killed rightsize")
	}
	t.Cleanup(func() { _ = instance.StopDataDir(dataDir, 10*time.Second) }) // only if the test fails

	groups := groupsOf(killed)
	errOut, code := next(t, append(append([]string{"run", "--users", "1", "--rampup", "1s", "--duration", "2s",
		"--progress-interval", "0", "--store", st}, caps...), args...)...)
	if code != 0 {
		t.Fatalf("the next run: exit %d\n%s", code, errOut)
	}
	oneLine(t, errOut, fmt.Sprintf("cleaned up after a rightsize that was killed (pid %d", killed), fmt.Sprintf("stopped 1 managed server (pid %d on %s)", server, dataDir))
	if caps != nil {
		groupsLine(t, errOut, killed, groups)
	}
	s := storeAt(t, st)
	runs := mustRuns(s)
	if len(runs) != 2 {
		t.Fatalf("store holds %d runs, want the killed one and the next", len(runs))
	}
	killedRun, nextRun := runs[1], runs[0] // newest first
	oneLine(t, errOut, fmt.Sprintf("measuring them was killed (pid %d)", killed), "run "+killedRun.ID+" with 1 step(s) stored")
	_, steps, _ := s.LoadRun(context.Background(), killedRun.ID)
	if killedRun.Status != store.StatusPartial || len(steps) != 1 || !killedRun.EndedAt.Equal(steps[0].MeasureEnd) {
		t.Errorf("killed run stored as %s with %d steps (ended %v), want partial with 1, ended with it", killedRun.Status, len(steps), killedRun.EndedAt)
	}
	if nextRun.Status != store.StatusComplete {
		t.Errorf("next run stored as %s", nextRun.Status)
	}
	nothingLeft(t, dataDir, killed)
}

// TestKilledSweep: `sweep memory` killed with SIGKILL after its first
// value leaves its server running and the sweep "running". `results list`
// marks the sweep and its run partial (one line), `check` goes on after
// stopping the server (one line), and --resume measures the rest.
func TestKilledSweep(t *testing.T) {
	if testing.Short() {
		t.Skip("starts an embedded server and kills rightsize")
	}
	privateOwners(t)
	args, dataDir := builtEmbedded(t, "killedsweep-")
	st := tempStore(t)
	sweepStored := func(s *store.Store) bool {
		sw, err := s.LoadSweep(context.Background(), "killed")
		return err == nil && len(sw.Points) == 1 && stepsStored(1)(s) && len(mustRuns(s)) == 2
	}
	killed := killWhen(t, st, sweepStored, append([]string{"sweep", "memory", "--values", "256M,128M", "--users", "1,2", "--rampup", "1s",
		"--duration", "3s", "--progress-interval", "0", "--store", st, "--label", "killed"}, args...)...)
	server := serverOn(dataDir)
	if server == 0 {
		t.Fatal("no server left by the killed rightsize: the fault this test is about did not happen")
	}
	t.Cleanup(func() { _ = instance.StopDataDir(dataDir, 10*time.Second) })

	out, errOut, code := cli(t, context.Background(), "results", "list", "--store", st)
	if code != 0 {
		t.Fatalf("results list: exit %d\n%s%s", code, out, errOut)
	}
	s := storeAt(t, st)
	sw, err := s.LoadSweep(context.Background(), "killed")
	if err != nil || sw.Status != store.StatusPartial || len(sw.Points) != 1 || sw.Points[0].Status != store.StatusComplete {
		t.Fatalf("killed sweep stored as %+v, %v; want partial with its first value complete", sw, err)
	}
	runs := mustRuns(s) // newest first
	if len(runs) != 2 || runs[0].Status != store.StatusPartial || runs[1].Status != store.StatusComplete {
		t.Fatalf("runs %+v: want the first value's run complete, the second's partial", runs)
	}
	oneLine(t, errOut, fmt.Sprintf("killed (pid %d)", killed), "run "+runs[0].ID, "memory sweep "+sw.ID+" (killed) (continue it with --resume "+sw.ID+")")

	errOut, code = next(t, append([]string{"check"}, args...)...)
	if code != 0 {
		t.Fatalf("check after the kill: exit %d\n%s", code, errOut)
	}
	oneLine(t, errOut, fmt.Sprintf("cleaned up after a rightsize that was killed (pid %d", killed), fmt.Sprintf("stopped 1 managed server (pid %d on %s)", server, dataDir))

	// the value left is measured as the first was: a flag given otherwise
	// is refused before anything starts, and one not given is the sweep's
	_, errOut, code = cli(t, context.Background(), append([]string{"sweep", "memory", "--resume", "killed", "--users", "4", "--store", st}, args...)...)
	if code != 2 || !strings.Contains(errOut, "--users 4: killed was measured with --users 1,2; drop --users") {
		t.Fatalf("sweep --resume --users 4: exit %d, want 2 naming the sweep's --users\n%s", code, errOut)
	}
	out, errOut, code = cli(t, context.Background(), append([]string{"sweep", "memory", "--resume", "killed", "--store", st}, args...)...)
	if code != 0 {
		t.Fatalf("sweep --resume: exit %d\n%s%s", code, out, errOut)
	}
	sw, err = s.LoadSweep(context.Background(), "killed")
	if err != nil || sw.Status != store.StatusComplete || len(sw.Points) != 2 || sw.Points[0].RunID != runs[1].ID {
		t.Errorf("resumed sweep %+v, %v; want complete, the first value's run kept", sw, err)
	}
	if r := mustRuns(s)[0]; !slices.Equal(r.Users, []int{1, 2}) || r.Rampup != time.Second || r.Duration != 3*time.Second {
		t.Errorf("the resumed value measured users %v, ramp-up %s, %s; want the sweep's 1,2, 1s and 3s", r.Users, r.Rampup, r.Duration)
	}
	nothingLeft(t, dataDir, killed)
}

// storeAt opens the store at path for the rest of the test.
func storeAt(t *testing.T, path string) *store.Store {
	t.Helper()
	s, err := store.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// mustRuns lists the runs of s, newest first.
func mustRuns(s *store.Store) []store.Run {
	runs, _ := s.ListRuns(context.Background())
	return runs
}

// TestKilledNeighbour: the neighbour scenario killed with SIGKILL while
// its two instances run leaves their servers on the copies of the build;
// the next start (the scenario resumed) stops them, removes the copies
// and completes.
func TestKilledNeighbour(t *testing.T) {
	if testing.Short() {
		t.Skip("starts embedded servers and kills rightsize")
	}
	privateOwners(t)
	args, dataDir := builtEmbedded(t, "killednb-")
	st := tempStore(t)
	// killed once the backup phase's runs exist, mid-phase: its servers
	// run, the scenario is unfinished (the newest run's steps, as the
	// other tests wait for, can be seen only at the scenario's very end
	// on a loaded machine, where a kill found it complete)
	backupPhase := func(s *store.Store) bool { return len(mustRuns(s)) >= 3 }
	killed := killWhen(t, st, backupPhase, append([]string{"neighbour", "--instances", "2", "--users", "1", "--rampup", "1s",
		"--duration", "3s", "--backup-instances", "1", "--backup-every", "0", "--backup-cycles", "1", "--store", st, "--label", "nbk"}, args...)...)
	copies, _ := filepath.Glob(fmt.Sprintf("%s-n*-%d", dataDir, killed))
	servers := 0
	for _, c := range copies {
		if serverOn(c) != 0 {
			servers++
			t.Cleanup(func() { _ = instance.StopDataDir(c, 10*time.Second); _ = os.RemoveAll(c) })
		}
	}
	if len(copies) != 2 || servers != 2 {
		t.Fatalf("the killed scenario left %d copies with %d servers (%v), want 2 and 2", len(copies), servers, copies)
	}
	errOut, code := next(t, append([]string{"neighbour", "--resume", "nbk", "--store", st}, args...)...)
	if code != 0 || !strings.Contains(errOut, "(complete)") {
		t.Fatalf("resumed scenario: exit %d\n%s", code, errOut)
	}
	oneLine(t, errOut, fmt.Sprintf("cleaned up after a rightsize that was killed (pid %d", killed), "stopped 2 managed servers", "removed 2 temporary data directory copies")
	oneLine(t, errOut, fmt.Sprintf("killed (pid %d)", killed), "neighbour sweep")
	if left, _ := filepath.Glob(dataDir + "-n*"); len(left) > 0 {
		t.Errorf("copies left: %v", left)
	}
	for _, c := range copies {
		nothingLeft(t, c, killed)
	}
	nothingLeft(t, dataDir, killed)
}

// processesWith lists the live processes whose command line contains s.
func processesWith(s string) []int {
	entries, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		if b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline"); err == nil && strings.Contains(string(b), s) && running(pid) {
			out = append(out, pid)
		}
	}
	return out
}

// TestKilledMariaDB: a managed MariaDB dies with the rightsize that
// started it (the parent-death signal); the next run on its data directory
// marks the killed run partial, removes its groups and measures.
func TestKilledMariaDB(t *testing.T) {
	st := tempStore(t)
	dataDir, target := builtMariaDB(t, "killed-mariadb-", st)
	caps := capsArgs()
	serving := func(s *store.Store) bool { return stepsStored(1)(s) && len(processesWith(dataDir)) > 0 } // mariadbd is seen
	killed := killWhen(t, st, serving, append(append([]string{"run", "--users", "1,2", "--rampup", "1s", "--duration", "3s",
		"--progress-interval", "0"}, caps...), target...)...)
	deadline := time.Now().Add(2 * time.Minute)
	for len(processesWith(dataDir)) > 0 && time.Now().Before(deadline) {
		time.Sleep(200 * time.Millisecond)
	}
	if left := processesWith(dataDir); len(left) > 0 {
		t.Fatalf("mariadbd %v outlived the rightsize that started it by 2 minutes", left)
	}
	groups := groupsOf(killed)
	errOut, code := next(t, append(append([]string{"run", "--users", "1", "--rampup", "1s", "--duration", "2s",
		"--progress-interval", "0"}, caps...), target...)...)
	if code != 0 {
		t.Fatalf("the next run: exit %d\n%s", code, errOut)
	}
	runs := mustRuns(storeAt(t, st)) // newest first
	if len(runs) != 2 || runs[1].Status != store.StatusPartial || runs[0].Status != store.StatusComplete {
		t.Fatalf("runs %+v: want the killed one partial and the next complete", runs)
	}
	oneLine(t, errOut, fmt.Sprintf("measuring them was killed (pid %d)", killed), "run "+runs[1].ID+" with 1 step(s) stored")
	if caps != nil {
		groupsLine(t, errOut, killed, groups)
	}
	if groups, servers := groupsOf(killed), processesWith(dataDir); len(groups)+len(servers) > 0 {
		t.Errorf("left behind: groups %v, servers %v", groups, servers)
	}
}

// TestLiveOwnerKept: while a rightsize measures, `check` on its data
// directory is refused as today (exit 2), naming the rightsize that runs
// the server, and the run goes on to complete: a live owner's server is
// never stopped.
func TestLiveOwnerKept(t *testing.T) {
	if testing.Short() {
		t.Skip("starts an embedded server")
	}
	privateOwners(t)
	args, dataDir := builtEmbedded(t, "liveowner-")
	st := tempStore(t)
	c, out, done := startUntil(t, st, stepsStored(1), append([]string{"run", "--users", "1,2", "--rampup", "1s", "--duration", "3s",
		"--progress-interval", "0", "--store", st}, args...)...)
	server := serverOn(dataDir)
	errOut, code := next(t, append([]string{"check"}, args...)...)
	if code != 2 || !strings.Contains(errOut, fmt.Sprintf("in use by a running server (pid %d, started by rightsize pid %d, still running)", server, c.Process.Pid)) {
		t.Errorf("check on a data dir a live rightsize measures: exit %d\n%s", code, errOut)
	}
	if strings.Contains(errOut, "cleaned up") {
		t.Errorf("check cleaned up after a live rightsize:\n%s", errOut)
	}
	if err := <-done; err != nil {
		t.Fatalf("the run beside check: %v\n%s", err, out)
	}
	if runs := mustRuns(storeAt(t, st)); len(runs) != 1 || runs[0].Status != store.StatusComplete {
		t.Errorf("runs %+v: want the run complete", runs)
	}
	nothingLeft(t, dataDir, c.Process.Pid)
}

// TestKilledFit: fit killed with SIGKILL while it measures its second
// candidate leaves the fit "running" and its server up; the next command,
// the fit resumed, stops the server (one line), marks the fit and the cut
// run partial (one line), keeps the first candidate's measurement and
// measures the second again.
func TestKilledFit(t *testing.T) {
	if testing.Short() {
		t.Skip("starts an embedded server and kills rightsize")
	}
	privateOwners(t)
	needCgroups(t)
	args, dataDir := builtEmbedded(t, "killedfit-")
	st := tempStore(t)
	secondCandidate := func(s *store.Store) bool {
		sw, err := s.LoadSweep(context.Background(), "kf")
		return err == nil && len(sw.Points) == 1 && len(mustRuns(s)) == 2 && stepsStored(1)(s)
	}
	// a target no candidate meets: both are measured
	killed := killWhen(t, st, secondCandidate, append([]string{"fit", "--target-nopm", "100000000", "--cpus", "0.1,2", "--users", "1,2",
		"--rampup", "1s", "--duration", "3s", "--repeat", "1", "--cost", writeCostFile(t, fitCosts), "--config", "vm", "--measure-all",
		"--label", "kf", "--progress-interval", "0", "--store", st}, args...)...)
	server := serverOn(dataDir)
	if server == 0 {
		t.Fatal("no server left by the killed rightsize: the fault this test is about did not happen")
	}
	t.Cleanup(func() { _ = instance.StopDataDir(dataDir, 10*time.Second) })

	// --resume with the run's flags given again, as after Ctrl-C (the
	// values stored: accepted)
	errOut, code := next(t, append([]string{"fit", "--resume", "kf", "--users", "1,2", "--rampup", "1s", "--duration", "3s", "--repeat", "1",
		"--store", st, "--progress-interval", "0"}, args...)...)
	if code != 2 || !strings.Contains(errOut, "no configuration meets NOPM 100,000,000") {
		t.Errorf("fit --resume of a fit no candidate meets: exit %d, want 2 and no fit\n%s", code, errOut)
	}
	oneLine(t, errOut, fmt.Sprintf("cleaned up after a rightsize that was killed (pid %d", killed), fmt.Sprintf("stopped 1 managed server (pid %d on %s)", server, dataDir))
	oneLine(t, errOut, fmt.Sprintf("killed (pid %d)", killed), "with 1 step(s) stored", "fit sweep ")
	s := storeAt(t, st) // opened after the next command: it is what marks the killed fit
	runs := mustRuns(s) // newest first: the second candidate's new run, its cut one, the first's
	if len(runs) != 3 || runs[1].Status != store.StatusPartial || runs[2].Status != store.StatusComplete {
		t.Fatalf("runs %+v: want the first candidate's complete, the cut one partial and a new one", runs)
	}
	sw, err := s.LoadSweep(context.Background(), "kf")
	if err != nil || sw.Status != store.StatusComplete || len(sw.Points) != 2 || sw.Points[0].RunID != runs[2].ID {
		t.Errorf("resumed fit %+v, %v; want complete, the first candidate's run %s kept", sw, err, runs[2].ID)
	}
	nothingLeft(t, dataDir, killed)
}
