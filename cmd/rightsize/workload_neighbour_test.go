package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/rightsize/rightsize/scenario"
	"github.com/rightsize/rightsize/store"
)

// TestEmbeddedTPCBNeighbour: neighbour --workload tpcb refuses a build
// without pgbench's tables (exit 2, nothing copied), then copies a tpcb
// build (no TPC-C schema) for two instances and runs tpcb-like on each in both
// phases, one backup cycle on n1; the scenario records its workload, the
// text names TPS, and --resume without the same --workload is refused.
func TestEmbeddedTPCBNeighbour(t *testing.T) {
	if testing.Short() {
		t.Skip("starts its own embedded servers")
	}
	ctx := context.Background()
	args, _ := embeddedArgs(t, "tpcbnb-")
	with := func(a ...string) []string { return append(a, args...) }
	st := tempStore(t)
	nb := with("neighbour", "--workload", "tpcb", "--instances", "2", "--users", "1", "--rampup", "300ms",
		"--duration", "3s", "--backup-instances", "1", "--backup-every", "0", "--backup-cycles", "1", "--store", st, "--label", "nbt", "--json")
	// before the build: refused before any copy, exit 2
	if out, errOut, code := cli(t, ctx, nb...); code != 2 || !strings.Contains(errOut, "the build to copy does not hold the workload's tables") {
		t.Fatalf("neighbour --workload tpcb before its build: exit %d, want 2\n%s%s", code, out, errOut)
	}
	if out, errOut, code := cli(t, ctx, with("build", "--workload", "tpcb", "--scale", "1")...); code != 0 {
		t.Fatalf("build --workload tpcb: %d\n%s%s", code, out, errOut)
	}
	out, errOut, code := cli(t, ctx, nb...)
	if code != 0 {
		t.Fatalf("neighbour --workload tpcb: %d\n%s%s", code, out, errOut)
	}
	var res scenario.NeighbourResult
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("neighbour --json: %v\n%s", err, out)
	}
	if res.Status != store.StatusComplete || len(res.Points) != 4 || res.Workload != "tpcb: tpcb-like@1" || res.Figure != "every script" {
		t.Fatalf("result %+v", res)
	}
	s, err := store.Open(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, p := range res.Points {
		if !p.Measured() {
			t.Errorf("%s: not measured: %+v", p.Value, p)
			continue
		}
		run, steps, err := s.LoadRun(ctx, p.RunID)
		if err != nil || len(steps) != 1 {
			t.Fatalf("%s: %d steps, %v", p.Value, len(steps), err)
		}
		tx := steps[0].Txn
		if name, _ := run.Workload(); name != "tpcb" || len(tx) != 1 || tx[0].Type != "tpcb-like" || tx[0].Count == 0 || tx[0].Errors != 0 {
			t.Errorf("%s: workload %q, transactions %+v", p.Value, name, tx)
		}
	}
	// the text names the workload's figures
	var b strings.Builder
	writeNeighbour(&b, &res)
	if !strings.Contains(b.String(), "workload tpcb: tpcb-like@1") || !strings.Contains(b.String(), "FIG TPS") {
		t.Errorf("neighbour's text does not name the workload and TPS:\n%s", b.String())
	}
	out, errOut, code = cli(t, ctx, with("neighbour", "--resume", "nbt", "--store", st)...)
	if code != 2 || !strings.Contains(errOut, `the scenario ran workload "tpcb: tpcb-like@1" and this one is "tpcc"`) {
		t.Errorf("--resume without --workload: exit %d, want 2\n%s%s", code, out, errOut)
	}
}
