package main

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rightsize/rightsize/store"
)

// TestProbeStorageInterrupted: Ctrl-C during a storage job keeps what was
// measured, stored and marked partial, and says so.
func TestProbeStorageInterrupted(t *testing.T) {
	st := tempStore(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var once sync.Once
	onErr := func(s string) {
		if strings.Contains(s, ": custom") { // the job started: Ctrl-C 1.5 s later
			once.Do(func() { time.AfterFunc(1500*time.Millisecond, cancel) })
		}
	}
	out, errOut, code := cliWatch(t, ctx, onErr, "probe", "storage", "--path", t.TempDir(), "--size", "16M", "--engine", "builtin",
		"--preset", "custom", "--bs", "4k", "--threads", "1", "--depth", "1", "--duration", "1m", "--label", "cut", "--store", st)
	if code == 0 || !strings.Contains(out, "stored as probe") || !strings.Contains(errOut, "the jobs above are stored") {
		t.Fatalf("interrupted storage probe: exit %d\n%s%s", code, out, errOut)
	}
	s, err := store.Open(context.Background(), st)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	p, err := s.LoadProbe(context.Background(), "cut")
	if err != nil {
		t.Fatalf("the interrupted probe was not stored: %v", err)
	}
	var res storageProbeResult
	if err := json.Unmarshal(p.Result, &res); err != nil {
		t.Fatal(err)
	}
	if !res.Partial || len(res.Jobs) != 1 || res.Jobs[0].IOsDone() == 0 {
		t.Fatalf("stored probe not partial or without the measured job: %s", p.Result)
	}
}

// TestProbeBadInput: refused before anything starts, exit 2, one line.
func TestProbeBadInput(t *testing.T) {
	st := tempStore(t)
	dir := t.TempDir()
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"negative duration", []string{"probe", "storage", "--path", dir, "--duration", "-2s"}, "--duration -2s"},
		{"zero duration", []string{"probe", "storage", "--path", dir, "--duration", "0"}, "positive duration"},
		{"zero duration custom", []string{"probe", "storage", "--path", dir, "--preset", "custom", "--duration", "0s"}, "positive duration"},
		{"bogus preset", []string{"probe", "storage", "--path", dir, "--preset", "bogus"}, "hci, log, sqlserver, custom"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, errOut, code := cli(t, context.Background(), append(c.args, "--store", st)...)
			if code != 2 || !strings.Contains(errOut, c.want) {
				t.Fatalf("exit code %d, want 2 and %q; stderr:\n%s", code, c.want, errOut)
			}
			if lines := strings.Count(strings.TrimSpace(errOut), "\n"); lines > 0 {
				t.Errorf("want one line, got:\n%s", errOut)
			}
		})
	}
	if s, err := store.Open(context.Background(), st); err == nil {
		ps, _ := s.ListProbes(context.Background(), "")
		s.Close()
		if len(ps) != 0 {
			t.Errorf("refused probes left %d probes in the store", len(ps))
		}
	}
}
