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

// statementsTerminal opens a statements-mode executor on a built database
// and a terminal drawing its inputs.
func statementsTerminal(tb testing.TB) (tpcc.Executor, *tpcc.Terminal) {
	db := open(tb)
	enginetest.Build(tb, db)
	ctx := context.Background()
	meta, _ := db.ReadMeta(ctx)
	ex := executor(tb, db, engine.Statements)
	consts := meta.Constants.WithRunConstants(tpcc.NewRand(1, 1))
	return ex, tpcc.NewTerminal(tpcc.NewRand(5, 5), consts, 1, 1, 1)
}

// BenchmarkStatements runs each transaction type alone in statements mode
// (one pipeline per transaction on the hijacked connection) and reports
// the client's CPU and allocations per transaction, drawing its inputs
// included (TestStatementsAllocateNothing leaves those out).
//
//	go test -run '^$' -bench Statements -benchmem ./engine/postgres
func BenchmarkStatements(b *testing.B) {
	ex, term := statementsTerminal(b)
	ctx := context.Background()
	for ty := range tpcc.NumTxnTypes {
		b.Run(ty.String(), func(b *testing.B) {
			b.ReportAllocs()
			c0 := cpuNow()
			for b.Loop() {
				if err := term.Exec(ctx, ex, term.Prepare(ty)); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64((cpuNow()-c0).Microseconds())/float64(b.N), "cpu-µs/txn")
		})
	}
}

// TestStatementsAllocateNothing: once its buffers have grown, a
// statements-mode executor allocates nothing per transaction, whatever
// the type (the inputs, drawn once per type, are run again and again).
func TestStatementsAllocateNothing(t *testing.T) {
	ex, term := statementsTerminal(t)
	ctx := context.Background()
	for ty := range tpcc.NumTxnTypes {
		term.Prepare(ty)
	}
	mix := func() {
		for ty := range tpcc.NumTxnTypes {
			if err := term.Exec(ctx, ex, ty); err != nil {
				t.Fatal(err)
			}
		}
	}
	for range 10 {
		mix()
	}
	if n := testing.AllocsPerRun(50, mix); n != 0 {
		t.Fatalf("%.1f allocations per mix of the five transactions, want 0", n)
	}
}
