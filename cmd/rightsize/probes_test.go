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
		{"bogus builtin I/O", []string{"probe", "storage", "--path", dir, "--builtin-io", "spdk"}, "want auto, io_uring, libaio, goroutines"},
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

// TestProbesCommands: probes are listed, shown, exported and deleted by
// id or label like runs, and report --probe takes the label.
func TestProbesCommands(t *testing.T) {
	ctx := context.Background()
	st := tempStore(t)
	var ids []string
	for _, label := range []string{"disk1", "disk2"} {
		out, errOut, code := cli(t, ctx, "probe", "storage", "--path", t.TempDir(), "--size", "8M", "--engine", "builtin", "--preset", "custom",
			"--bs", "4k", "--threads", "1", "--depth", "1", "--duration", "500ms", "--label", label, "--json", "--store", st)
		var res struct {
			ID string `json:"probe_id"`
		}
		if code != 0 || json.Unmarshal([]byte(out), &res) != nil || res.ID == "" {
			t.Fatalf("probe storage: %d\n%s%s", code, out, errOut)
		}
		ids = append(ids, res.ID)
	}
	run := func(want int, args ...string) string {
		t.Helper()
		out, errOut, code := cli(t, ctx, append(args, "--store", st)...)
		if code != want {
			t.Fatalf("%v: exit %d, want %d\n%s%s", args, code, want, out, errOut)
		}
		return out + errOut
	}
	list := run(0, "probes", "list")
	for _, want := range []string{"KIND", ids[0], ids[1], "disk1", "disk2", "storage", "complete"} {
		if !strings.Contains(list, want) {
			t.Errorf("probes list lacks %q:\n%s", want, list)
		}
	}
	var items []probeItem
	if err := json.Unmarshal([]byte(run(0, "probes", "list", "--json", "--kind", "storage")), &items); err != nil || len(items) != 2 ||
		items[0].ID != ids[1] || items[1].Label != "disk1" {
		t.Errorf("probes list --json: %v %+v", err, items)
	}
	if out := run(0, "probes", "list", "--kind", "cpu"); !strings.Contains(out, "no probes") {
		t.Errorf("probes list --kind cpu: %s", out)
	}
	show := run(0, "probes", "show", "disk1")
	if !strings.Contains(show, "probe "+ids[0]) || !strings.Contains(show, `label "disk1"`) || !strings.Contains(show, "custom") {
		t.Errorf("probes show:\n%s", show)
	}
	shown := run(0, "probes", "show", "disk1", "--json")
	var p store.Probe
	if err := json.Unmarshal([]byte(shown), &p); err != nil || p.ID != ids[0] || p.Kind != store.ProbeStorage || len(p.Result) == 0 {
		t.Errorf("probes show --json: %v %+v", err, p)
	}
	// The stored result says which I/O interface ran and its CPU per I/O.
	if !strings.Contains(string(p.Result), `"IOEngine": "`) || !strings.Contains(string(p.Result), `"CPUPerIOMicros": `) {
		t.Errorf("stored storage result lacks the I/O interface or CPU per I/O: %s", p.Result)
	}
	if out := run(0, "probes", "export", "disk1"); out != shown {
		t.Errorf("probes export differs from show --json:\n%s", out)
	}
	if out := run(0, "report", "--probe", "disk2", "-o", "-"); !strings.Contains(out, "disk2") {
		t.Errorf("report --probe disk2 does not show it")
	}
	run(0, "probes", "delete", "disk1")
	run(2, "probes", "show", "disk1")
	run(2, "probes", "show")
	run(2, "probes", "list", "--kind", "bogus")
	if out := run(0, "probes", "list"); strings.Contains(out, ids[0]) || !strings.Contains(out, ids[1]) {
		t.Errorf("after delete:\n%s", out)
	}
}
