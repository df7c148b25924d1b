package scenario

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/rightsize/rightsize/driver"
	"github.com/rightsize/rightsize/registry"
	"github.com/rightsize/rightsize/store"
)

func TestRunOptionsValidate(t *testing.T) {
	ok := RunOptions{RunSpec: RunSpec{Users: []int{1, 2}, Repeats: 1, Spec: driver.Spec{Duration: time.Second}}}
	cases := []struct {
		name string
		edit func(*RunOptions)
		bad  bool
	}{
		{"valid", func(*RunOptions) {}, false},
		{"no users", func(o *RunOptions) { o.Users = nil }, true},
		{"zero users", func(o *RunOptions) { o.Users = []int{0} }, true},
		{"zero duration", func(o *RunOptions) { o.Duration = 0 }, true},
		{"negative rampup", func(o *RunOptions) { o.Rampup = -time.Second }, true},
		{"zero repeats", func(o *RunOptions) { o.Repeats = 0 }, true},
		{"negative driver procs", func(o *RunOptions) { o.DriverProcs = -1 }, true},
		{"bad warehouses", func(o *RunOptions) { o.Warehouses = -3 }, true},
		{"bad mode", func(o *RunOptions) { o.Mode = "bogus" }, true},
		{"statements mode", func(o *RunOptions) { o.Mode = "statements" }, false},
		{"negative reconnect", func(o *RunOptions) { o.ReconnectTimeout = -time.Second }, true},
		{"negative connections", func(o *RunOptions) { o.Connections = -1 }, true},
		{"shared connections", func(o *RunOptions) { o.Connections = 1 }, false},
		{"deferred delivery", func(o *RunOptions) { o.Delivery = "deferred" }, false},
		{"interactive delivery", func(o *RunOptions) { o.Delivery = "interactive" }, false},
		{"bad delivery", func(o *RunOptions) { o.Delivery = "later" }, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o := ok
			c.edit(&o)
			err := o.Validate()
			if (err != nil) != c.bad {
				t.Fatalf("Validate() = %v, want bad=%v", err, c.bad)
			}
			if err != nil && !errors.Is(err, ErrBadOptions) {
				t.Fatalf("error %v is not ErrBadOptions", err)
			}
		})
	}
}

// A run on a database without a schema is refused before anything is
// stored.
func TestRunWithoutSchemaStoresNothing(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	tg, err := registry.Open(ctx, "sqlite:"+filepath.Join(dir, "tpcc.db"), registry.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	st, err := store.Open(ctx, filepath.Join(dir, "results.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	res, err := Run(ctx, st, tg, RunOptions{RunSpec: RunSpec{Users: []int{1}, Repeats: 1, Spec: driver.Spec{Duration: time.Second}}})
	if !errors.Is(err, ErrBadOptions) || res != nil {
		t.Fatalf("Run = %v, %v; want ErrBadOptions and no result", res, err)
	}
	runs, err := st.ListRuns(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 0 {
		t.Fatalf("%d runs stored, want none", len(runs))
	}
}
