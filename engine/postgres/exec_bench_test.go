package postgres_test

import (
	"context"
	"syscall"
	"testing"
	"time"

	"github.com/rightsize/rightsize/engine"
	"github.com/rightsize/rightsize/engine/enginetest"
	"github.com/rightsize/rightsize/tpcc"
)

func cpuNow() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkExecutor runs the transaction mix serially on one connection
// and reports the client's CPU per transaction (user+system from the OS)
// next to wall time and allocations.
//
//	go test -run '^$' -bench Executor ./engine/postgres
func BenchmarkExecutor(b *testing.B) {
	db := open(b)
	enginetest.Build(b, db)
	ctx := context.Background()
	meta, _ := db.ReadMeta(ctx)
	consts := meta.Constants.WithRunConstants(tpcc.NewRand(1, 1))
	for _, mode := range []engine.Mode{engine.Procedures, engine.Statements} {
		b.Run(string(mode), func(b *testing.B) {
			ex, err := db.NewExecutor(ctx, mode)
			if err != nil {
				b.Fatal(err)
			}
			defer ex.Close(ctx)
			term := tpcc.NewTerminal(tpcc.NewRand(5, 5), consts, 1, 1, 1)
			b.ReportAllocs()
			c0 := cpuNow()
			for b.Loop() {
				if err := term.Exec(ctx, ex, term.Next()); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64((cpuNow()-c0).Microseconds())/float64(b.N), "cpu-µs/txn")
		})
	}
}
