package execute

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rightsize/rightsize/driver"
	"github.com/rightsize/rightsize/registry"
	"github.com/rightsize/rightsize/scenario"
	"github.com/rightsize/rightsize/store"
)

// A command's policy leaves a missing database missing (scenario refuses:
// build first); a study's builds it, measures, keeps a run stored
// complete under the label, and uses the built database when asked to
// measure again. The hooks come in order around each run.
func TestRunPolicies(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	st, err := store.Open(ctx, filepath.Join(dir, "results.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	c := Config{Name: "a", Spec: "sqlite:" + filepath.Join(dir, "tpcc.db"), Build: Build{Warehouses: 1, Seed: 7, Loaders: 1},
		Run: scenario.RunOptions{RunSpec: scenario.RunSpec{Users: []int{1}, Repeats: 1, Spec: driver.Spec{Duration: 500 * time.Millisecond}},
			Label: "s/a", Warehouses: 1}}
	var out strings.Builder
	var calls []string
	policy := func(build, skip bool) Policy {
		return Policy{BuildMissing: build, SkipStored: skip, Out: &out, Hooks: Hooks{
			Opening: func() { calls = append(calls, "opening") },
			Ready: func(context.Context, *registry.Target, *scenario.RunOptions) (func(), error) {
				calls = append(calls, "ready")
				return func() { calls = append(calls, "done") }, nil
			},
			Measured: func(_ context.Context, _ *registry.Target, res *scenario.Result, err error) error {
				calls = append(calls, "measured")
				return err
			},
		}}
	}
	for _, s := range []struct {
		name        string
		build, skip bool
		calls, out  string
		kept, bad   bool
	}{
		{"command: no database, refused", false, false, "opening ready measured done", "", false, true},
		{"study: built and measured", true, true, "opening ready measured done", "  a: building 1 warehouses (seed 7)", false, false},
		{"study again: kept", true, true, "", "", true, false},
		{"measured again on the built database", true, false, "opening ready measured done", "  a: the database is already built (1 warehouses)", false, false},
	} {
		calls, out = nil, strings.Builder{}
		res, err := Run(ctx, st, c, policy(s.build, s.skip))
		if got := strings.Join(calls, " "); got != s.calls {
			t.Errorf("%s: hooks %q, want %q", s.name, got, s.calls)
		}
		if !strings.HasPrefix(out.String(), s.out) {
			t.Errorf("%s: said %q, want it to begin %q", s.name, out.String(), s.out)
		}
		switch {
		case s.bad:
			if !errors.Is(err, scenario.ErrBadOptions) || !strings.Contains(err.Error(), "build one first") || res.RunID() != "" {
				t.Errorf("%s: %+v, %v; want refused, build first", s.name, res, err)
			}
		case err != nil:
			t.Fatalf("%s: %v", s.name, err)
		case s.kept != (res.Kept != ""), res.RunID() == "":
			t.Errorf("%s: %+v; want kept %v and a run", s.name, res, s.kept)
		}
	}
	runs, err := st.ListRuns(ctx)
	if err != nil || len(runs) != 2 {
		t.Fatalf("%d runs stored (%v), want 2", len(runs), err)
	}
}
