package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/rightsize/rightsize/store"
)

const fitCosts = `baseline: big
configs:
  - name: big
    host_cores: 16
    vm_cores: 8
    memory_gb: 8
    hardware: [{item: vCPU, per: vm_core, price: 450}, {item: memory, per: memory_gb, price: 40}]
    licences: [{name: DB, per: vm_core, pack: 2, pack_price: 1000, minimum: 2}]
  - name: vm
    host_cores: 16
    vm_cores: 2
    memory_gb: 1
    hardware: [{item: vCPU, per: vm_core, price: 450}, {item: memory, per: memory_gb, price: 40}]
    licences: [{name: DB, per: vm_core, pack: 2, pack_price: 1000, minimum: 2}]
`

func TestFitDryRun(t *testing.T) {
	ctx := context.Background()
	loc := tempStore(t)
	st, err := store.Open(ctx, loc)
	if err != nil {
		t.Fatal(err)
	}
	r := &store.Run{Label: "old", Users: []int{1, 4}, Warehouses: 1}
	if err := st.CreateRun(ctx, r); err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	for i, n := range []float64{400, 1000} {
		if err := st.AddStep(ctx, &store.Step{RunID: r.ID, Repeat: 1, Index: i, Users: []int{1, 4}[i], NOPM: n, TPM: 2.2 * n,
			Start: now, MeasureStart: now, MeasureEnd: now.Add(time.Minute)}); err != nil {
			t.Fatal(err)
		}
	}
	st.Close()
	file := writeCostFile(t, fitCosts)

	out, errOut, code := cli(t, ctx, "fit", "--store", loc, "--target-nopm", "from:old", "--headroom", "20%", "--cpus", "2,0.5,1",
		"--memory", "512M,256M", "--cost", file, "--config", "vm", "--dry-run")
	if code != 0 {
		t.Fatalf("fit --dry-run: exit %d\n%s", code, errOut)
	}
	// Peak 1,000 + 20 %; cheapest first, 0.5 cpu at the 2-core licence minimum;
	// big: 8 × 450 + 8 × 40 + 4 packs × 1,000 = 7,920.
	for _, want := range []string{"target: NOPM 1200 at the peak step", "6 candidates",
		"1. cpus 0.5, memory 256M", "USD 1,235.00", "saves 6,685.00 (84.4 %) vs big", "6. cpus 2, memory 512M"} {
		if !strings.Contains(out, want) {
			t.Errorf("dry run lacks %q:\n%s", want, out)
		}
	}
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"zero users", []string{"--target-nopm", "100", "--cpus", "1", "--cost", file, "--config", "vm", "--users", "0"}, "1..100000 users"},
		{"unknown run", []string{"--target-nopm", "from:nope", "--cpus", "1", "--cost", file, "--config", "vm", "--dry-run"}, "nope"},
		{"no users step", []string{"--target-nopm", "from:old", "--at", "3", "--cpus", "1", "--cost", file, "--config", "vm", "--dry-run"}, "no step with 3 users"},
		{"bad cpus", []string{"--target-nopm", "100", "--cpus", "0", "--cost", file, "--config", "vm", "--dry-run"}, "--cpus \"0\""},
		{"unknown config", []string{"--target-nopm", "100", "--cpus", "1", "--cost", file, "--config", "small", "--dry-run"}, "--config \"small\" is not a config"},
		{"no cost file", []string{"--target-nopm", "100", "--cpus", "1", "--config", "vm", "--dry-run"}, "--cost FILE is required"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, errOut, code := cli(t, ctx, append([]string{"fit", "--store", loc}, c.args...)...)
			if code != 2 || !strings.Contains(errOut, c.want) {
				t.Errorf("exit %d, stderr %q; want 2 and %q", code, errOut, c.want)
			}
		})
	}
}
