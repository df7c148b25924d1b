package scenario

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/rightsize/rightsize/analysis"
	"github.com/rightsize/rightsize/driver"
	"github.com/rightsize/rightsize/loader"
	"github.com/rightsize/rightsize/registry"
	"github.com/rightsize/rightsize/waits"
)

// SQLite's users queue for its one writer: the profile times the waits for
// the writer lock, and the engine's CPU is counted as the server's.
func TestWaitsSQLite(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds a database")
	}
	ctx := context.Background()
	tg, err := registry.Open(ctx, "sqlite:"+filepath.Join(t.TempDir(), "tpcc.db"), registry.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	if _, err := loader.Build(ctx, tg, loader.Config{Warehouses: 1, Loaders: 1, Seed: 7}); err != nil {
		t.Fatal(err)
	}
	steps := runSteps(t, tg, RunOptions{RunSpec: RunSpec{Users: []int{4}, Spec: driver.Spec{Duration: 2 * time.Second}}})
	p, s := analysis.WhyOf(&steps[0]).Waits, analysis.WhyOf(&steps[0]).Saturation
	if p == nil || p.Source != "sqlite writer lock" || p.Counters["write_lock_waits"] <= 0 {
		t.Fatalf("profile %+v", p)
	}
	if e, ok := p.Top(waits.Lock); !ok || e.Name != "writer lock" || e.Seconds <= 0 {
		t.Errorf("no timed writer lock wait: %+v", p.Events)
	}
	if s == nil || s.ServerCores <= 0 || s.DriverCores != 0 {
		t.Errorf("saturation %+v: the engine's CPU should be the server's", s)
	}
	t.Logf("verdict %s; events %+v", analysis.WhyOf(&steps[0]).Verdict.Text, p.Events)
}
