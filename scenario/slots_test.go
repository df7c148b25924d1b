package scenario

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rightsize/rightsize/driver"
	"github.com/rightsize/rightsize/engine"
	"github.com/rightsize/rightsize/internal/pgtest"
	"github.com/rightsize/rightsize/loader"
	"github.com/rightsize/rightsize/registry"
	"github.com/rightsize/rightsize/store"
	"github.com/rightsize/rightsize/tpcc"
)

// TestConnectionSlots: a run whose largest step needs more connection
// slots than the server has free is refused before anything is stored,
// with the setting that fixes it, and that setting lets it run; a managed
// server opened for more users than its default limit gets slots for them.
func TestConnectionSlots(t *testing.T) {
	if testing.Short() {
		t.Skip("starts PostgreSQL")
	}
	ctx := context.Background()
	dir := pgtest.ServerDir(t, "waits-")
	opt := registry.Options{PGBin: pgtest.Bin(), DataDir: filepath.Join(dir, "data"), PoolSize: 2,
		Settings: map[string]string{"max_connections": "20", "shared_buffers": "128MB"}}
	tg, err := registry.Open(ctx, "embedded", opt)
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	if _, err := loader.Build(ctx, tg, loader.Config{Warehouses: 1, Loaders: 1, Seed: 7}); err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(ctx, filepath.Join(dir, "results.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	o := RunOptions{RunSpec: RunSpec{Users: []int{1, 16}, Repeats: 1, Spec: driver.Spec{Duration: time.Second}}} // the wait sampler connects too

	res, err := Run(ctx, st, tg, o)
	if !errors.Is(err, ErrBadOptions) || res != nil {
		t.Fatalf("Run = %v, %v; want ErrBadOptions and no result", res, err)
	}
	for _, want := range []string{"16 users need 18 connection slots", "max_connections 20", "add --set max_connections=22", "at most 14 users"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	if runs, err := st.ListRuns(ctx); err != nil || len(runs) != 0 {
		t.Fatalf("%d runs stored (%v), want none", len(runs), err)
	}

	shared := o
	shared.Connections = 10 // 16 users on 10 connections need 12 slots
	if res, err := Run(ctx, st, tg, shared); err != nil || res.Run.Env[store.EnvConnections] != "10" {
		t.Fatalf("16 users sharing 10 connections: %v (env %v)", err, res.Run.Env[store.EnvConnections])
	}
	shared.Connections = 17
	if _, err := Run(ctx, st, tg, shared); !errors.Is(err, ErrBadOptions) || !strings.Contains(err.Error(), "16 users need 18") {
		t.Fatalf("16 users on 17 connections (one each): %v, want the users' slots refused", err)
	}

	deferred := RunOptions{RunSpec: RunSpec{Users: []int{15}, Repeats: 1, Spec: driver.Spec{Delivery: "deferred", Duration: time.Second}}}
	if _, err := Run(ctx, st, tg, deferred); !errors.Is(err, ErrBadOptions) || !strings.Contains(err.Error(), "15 users need 18 connection slots") {
		t.Fatalf("15 users with a delivery worker: %v, want its slot counted", err)
	}
	many := RunOptions{RunSpec: RunSpec{Users: []int{30}, Repeats: 1, Spec: driver.Spec{Connections: 18, Duration: time.Second}}}
	if _, err := Run(ctx, st, tg, many); !errors.Is(err, ErrBadOptions) || !strings.Contains(err.Error(), "18 shared connections need 20") ||
		!strings.Contains(err.Error(), "or share at most 14 (--connections)") {
		t.Fatalf("30 users sharing 18 connections: %v, want the connections' slots refused", err)
	}

	// connections closed a moment before the count (an earlier run's
	// backends still exiting) hold slots only for that moment: 14 users
	// need 16 of the 16 free (with the run's own two), 3 are held and
	// closed 300 ms into the check
	var held []tpcc.Executor
	for range 3 {
		e, err := tg.NewExecutor(ctx, engine.Procedures)
		if err != nil {
			t.Fatal(err)
		}
		held = append(held, e)
	}
	go func() {
		time.Sleep(300 * time.Millisecond)
		for _, e := range held {
			e.Close(ctx)
		}
	}()
	fourteen := RunOptions{RunSpec: RunSpec{Users: []int{14}, Repeats: 1, Spec: driver.Spec{Duration: time.Second}}}
	if _, err := Run(ctx, st, tg, fourteen); err != nil {
		t.Fatalf("14 users with 3 slots freed 300 ms into the check: %v, want it to run", err)
	}

	opt.Settings["max_connections"] = "22" // the fix the error named
	if err := tg.Restart(ctx, opt); err != nil {
		t.Fatal(err)
	}
	if _, err := Run(ctx, st, tg, o); err != nil {
		t.Fatalf("with max_connections 22: %v", err)
	}

	delete(opt.Settings, "max_connections")
	opt.Connections = 400
	if err := tg.Restart(ctx, opt); err != nil {
		t.Fatal(err)
	}
	s, err := tg.DB.(interface {
		ConnectionSlots(context.Context) (engine.Slots, error)
	}).ConnectionSlots(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if s.Max != 400+20+40 || s.Free() < 401 {
		t.Errorf("managed server opened for 400 users: %+v, want max_connections 460 and 401 free", s)
	}
}

func TestSlotNeed(t *testing.T) {
	s := engine.Slots{Max: 100, Reserved: 3, InUse: 10, Setting: "max_connections"}
	for _, tc := range []struct {
		name               string
		most, workers      int
		wantNeed, wantFree int
	}{
		{"a run on its own counts the connections open", 80, 0, 82, 87},
		{"workers count every worker's pool and samplers", 80, 4, 92, 97},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if need, free := slotNeed(s, tc.most, tc.workers); need != tc.wantNeed || free != tc.wantFree {
				t.Errorf("slotNeed = %d, %d; want %d, %d", need, free, tc.wantNeed, tc.wantFree)
			}
		})
	}
}

func TestDeliveryConnections(t *testing.T) {
	for _, tc := range []struct{ warehouses, workers, want int }{
		{1, 0, 1}, {10, 0, 1}, {11, 0, 2}, {100, 0, 10},
		{10, 4, 4},   // four processes, each with a worker for its 3 warehouses
		{100, 4, 12}, // 25 warehouses each: 3 workers
	} {
		if got := deliveryConnections(tc.warehouses, tc.workers); got != tc.want {
			t.Errorf("deliveryConnections(%d, %d) = %d, want %d", tc.warehouses, tc.workers, got, tc.want)
		}
	}
}
