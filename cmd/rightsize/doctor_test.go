package main

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/rightsize/rightsize/cgroup"
	"github.com/rightsize/rightsize/doctor"
)

// doctor names the cgroup version and controllers this machine has, and
// gives one verdict per capability, in text and JSON.
func TestDoctor(t *testing.T) {
	out, errOut, code := cli(t, context.Background(), "doctor", "--json")
	if code != 0 {
		t.Fatalf("doctor --json: %d\n%s", code, errOut)
	}
	var r doctor.Report
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("doctor --json: %v\n%s", err, out)
	}
	if r.Root != (os.Geteuid() == 0) || r.CPUs <= 0 || len(r.Engines) != 2 {
		t.Errorf("report %+v", r)
	}
	if h, err := cgroup.Detect(); err == nil {
		if r.Cgroup.Version != h.Version || strings.Join(r.Cgroup.Controllers, ",") != strings.Join(h.Available(), ",") {
			t.Errorf("cgroup %+v, want v%d %v", r.Cgroup, h.Version, h.Available())
		}
	}
	caps := map[string]bool{}
	for _, v := range r.Verdicts {
		caps[strings.Fields(v.Capability)[0]] = true
		if v.How == "" {
			t.Errorf("verdict %q says nothing", v.Capability)
		}
	}
	for _, want := range []string{"--cpus", "--memory", "--io-limit", "--wal-dir", "--pg-version"} {
		if !caps[want] {
			t.Errorf("no verdict for %s", want)
		}
	}
	text, _, code := cli(t, context.Background(), "doctor")
	if code != 0 || !strings.Contains(text, "capabilities:") || !strings.Contains(text, "fio:") {
		t.Errorf("doctor: %d\n%s", code, text)
	}
}
