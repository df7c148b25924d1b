package execute

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/rightsize/rightsize/internal/pgtest"
	"github.com/rightsize/rightsize/pgbench/tpcb"
	"github.com/rightsize/rightsize/registry"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// TestWorkloadDatabaseLayout: a study's tpcb build is restored from its
// snapshot only when the snapshot holds the layout asked for (fill factor,
// partitions); another layout builds again.
func TestWorkloadDatabaseLayout(t *testing.T) {
	ctx := context.Background()
	tg, err := registry.Open(ctx, pgtest.NewDatabase(t), registry.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	two := tpcb.Layout{Partitions: 2, PartitionMethod: "hash"}
	for _, c := range []struct {
		layout tpcb.Layout
		said   string
	}{
		{tpcb.Layout{}, "building pgbench's tables at scale 1"},
		{tpcb.Layout{}, "the built database restored"},
		{two, "building pgbench's tables at scale 1"},
		{two, "the built database restored"},
		{tpcb.Layout{FillFactor: 100}, "building pgbench's tables at scale 1"},
	} {
		var said strings.Builder
		say := func(f string, a ...any) { fmt.Fprintf(&said, f+"\n", a...) }
		if err := ensureWorkloadDatabase(ctx, tg, Build{Tables: TablesTPCB, Scale: 1, Loaders: 2, Layout: c.layout}, say); err != nil {
			t.Fatalf("%s: %v", c.layout, err)
		}
		if !strings.HasPrefix(said.String(), c.said) {
			t.Errorf("%s: said %q, want %q first", c.layout, said.String(), c.said)
		}
		if err := tpcbBuilt(ctx, tg, 1, c.layout); err != nil {
			t.Errorf("%s: %v", c.layout, err)
		}
	}
}
