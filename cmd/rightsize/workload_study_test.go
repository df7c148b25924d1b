package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rightsize/rightsize/store"
)

// TestEmbeddedTPCBStudy: a study plan with workload: tpcb builds pgbench's
// tables once (no TPC-C warehouses), restores them for the second
// configuration, runs tpcb-like on both (stored under the workload, its
// figure of merit the TPS of every script), and the cost headline and the
// study's lines name that figure, not NOPM; a rerun measures nothing.
func TestEmbeddedTPCBStudy(t *testing.T) {
	if testing.Short() {
		t.Skip("starts its own embedded server")
	}
	ctx := context.Background()
	_, dataDir := embeddedArgs(t, "tpcbstudy-")
	dir := t.TempDir()
	write(t, filepath.Join(dir, "costs.yaml"), tinyStudyCosts)
	report := filepath.Join(dir, "tpcb.html")
	pgBin := ""
	if b := os.Getenv("RIGHTSIZE_PG_BIN"); b != "" {
		pgBin = ", pg_bin: " + b
	}
	planFile := filepath.Join(dir, "tpcb.yaml")
	write(t, planFile, `name: tpcbstudy
build: {workload: tpcb, scale: 1}
autopilot: {users: "2", rampup: 500ms, duration: 3s, repeats: 1}
configurations:
  - {name: big, data_dir: `+dataDir+`, cost: two`+pgBin+`}
  - {name: small, data_dir: `+dataDir+`, settings: {work_mem: 8MB}, cost: one`+pgBin+`}
cost: costs.yaml
report: {output: `+report+`}
`)
	out, errOut, code := cli(t, ctx, "study", "validate", planFile)
	if code != 0 || !strings.Contains(out, "workload tpcb: tpcb-like@1 (built: tpcb)") {
		t.Fatalf("study validate: exit %d\n%s%s", code, out, errOut)
	}
	st := tempStore(t)
	out, errOut, code = cli(t, ctx, "study", "run", planFile, "--store", st)
	if code != 0 {
		t.Fatalf("study run: exit %d\n%s%s", code, out, errOut)
	}
	for _, want := range []string{"building pgbench's tables at scale 1", "small: the built database restored"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("progress lacks %q:\n%s", want, errOut)
		}
	}
	if strings.Contains(errOut, "warehouses") {
		t.Errorf("a tpcb study built TPC-C's warehouses:\n%s", errOut)
	}
	if !strings.Contains(out, "workload tpcb: tpcb-like@1; figure of merit: TPS") {
		t.Errorf("the study does not name its workload and figure:\n%s", out)
	}
	var headline string
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "one ") {
			headline = l
		}
	}
	if !strings.Contains(headline, "TPM of every script") || strings.Contains(headline, "NOPM") {
		t.Errorf("the cost headline %q does not name the workload's figure (or names NOPM):\n%s", headline, out)
	}
	if !strings.Contains(out, "peak TPM of every script") {
		t.Errorf("the cost table does not name the workload's figure:\n%s", out)
	}
	s, err := store.Open(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, label := range []string{"tpcbstudy/big", "tpcbstudy/small"} {
		id, err := s.Resolve(ctx, label)
		if err != nil {
			t.Fatalf("%s: %v", label, err)
		}
		run, steps, err := s.LoadRun(ctx, id)
		if err != nil || len(steps) != 1 {
			t.Fatalf("%s: %d steps, %v", label, len(steps), err)
		}
		name, scripts := run.Workload()
		m, ok := run.WorkloadMerit()
		tx := steps[0].Txn
		if name != "tpcb" || scripts != "tpcb-like@1" || !ok || !m.All() || len(tx) != 1 || tx[0].Type != "tpcb-like" || tx[0].Count == 0 || tx[0].Errors != 0 {
			t.Errorf("%s: workload %q %q (merit %+v %v), transactions %+v", label, name, scripts, m, ok, tx)
		}
		if nopm := steps[0].NOPM; nopm <= 0 || nopm != steps[0].TPM {
			t.Errorf("%s: NOPM %g, want the TPM of every script %g", label, nopm, steps[0].TPM)
		}
	}
	page, err := os.ReadFile(report)
	if err != nil || !strings.Contains(string(page), "tpcb: tpcb-like@1") || !strings.Contains(string(page), "per peak TPM of every script") {
		t.Errorf("the report does not name the workload and its figure (%v)", err)
	}
	out, errOut, code = cli(t, ctx, "study", "run", planFile, "--store", st)
	if code != 0 || strings.Count(errOut, "already stored") != 2 {
		t.Errorf("rerun: exit %d, want both configurations skipped:\n%s%s", code, out, errOut)
	}
}
