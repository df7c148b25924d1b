package tpcb

import (
	"context"
	"os/exec"
	"testing"
	"time"

	"github.com/rightsize/rightsize/internal/pgtest"
)

// BenchmarkBuildVsPgbenchInit loads scale 10 (1,000,000 accounts) here,
// with 2 loaders, and with pgbench -i -I dtg (its client-side generation,
// one connection, text COPY with FREEZE), interleaved over two rounds,
// and reports each side's seconds for the tables and their rows (no
// vacuum, no keys).
//
//	go test -run XXX -bench BuildVsPgbenchInit ./pgbench/tpcb
func BenchmarkBuildVsPgbenchInit(b *testing.B) {
	pgbench := pgtest.Pgbench(b)
	dsn := pgtest.NewDatabase(b)
	var ours, theirs time.Duration
	for range 2 {
		t0 := time.Now()
		if out, err := exec.Command(pgbench, "-i", "-q", "-I", "dtg", "-s", "10", dsn).CombinedOutput(); err != nil {
			b.Fatalf("pgbench -i: %v\n%s", err, out)
		}
		theirs += time.Since(t0)
		cfg := Config{Scale: 10, Loaders: 2}
		t1 := time.Now()
		if err := dropAndLoad(context.Background(), connector(dsn), cfg); err != nil {
			b.Fatal(err)
		}
		ours += time.Since(t1)
	}
	b.ReportMetric(ours.Seconds()/2, "ours-s")
	b.ReportMetric(theirs.Seconds()/2, "pgbench-s")
}
