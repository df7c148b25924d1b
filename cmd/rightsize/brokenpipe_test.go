package main

import (
	"bufio"
	"os"
	"testing"
	"time"

	"github.com/rightsize/rightsize/instance"
)

// TestBrokenPipeStopsLikeCtrlC: `rightsize run ... 2>&1 | head -1` — the
// reader of the output goes away after the first line. rightsize used to
// die of SIGPIPE at its next progress line, leaving its server running
// and the run "running" until another rightsize cleaned up; now it stops
// as at Ctrl-C: the step measured so far stored as partial, exit 1, and
// no server left.
func TestBrokenPipeStopsLikeCtrlC(t *testing.T) {
	if testing.Short() {
		t.Skip("starts an embedded server")
	}
	args, dataDir := builtEmbedded(t, "brokenpipe-")
	st := tempStore(t)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	c := helperCommand(nil, append([]string{"run", "--users", "1", "--rampup", "1s", "--duration", "1m",
		"--progress-interval", "1s", "--store", st}, args...)...)
	c.Stdout, c.Stderr = w, w
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	_ = w.Close()
	t.Cleanup(func() { _ = instance.StopDataDir(dataDir, 10*time.Second) }) // only if the test fails
	first, err := bufio.NewReader(r).ReadString('\n')
	if err != nil {
		t.Fatalf("no first line: %v", err)
	}
	_ = r.Close() // head -1 exits
	done := make(chan error, 1)
	go func() { done <- c.Wait() }()
	select {
	case err = <-done:
	case <-time.After(90 * time.Second):
		_ = c.Process.Kill()
		t.Fatalf("rightsize went on for 90 s after its output's reader left (first line %q)", first)
	}
	if code := exitOf(err); code != 1 {
		t.Fatalf("exit %d (%v), want 1 as after Ctrl-C: a process killed by SIGPIPE leaves its server", code, err)
	}
	if pid := serverOn(dataDir); pid != 0 {
		t.Errorf("server %d still running on %s", pid, dataDir)
	}
	if steps := onePartialRun(t, st); len(steps) != 1 || !steps[0].Partial {
		t.Errorf("the interrupted step: %+v, want it stored, partial", steps)
	}
}
