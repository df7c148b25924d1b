package postgres_test

import (
	"context"
	"runtime"
	"testing"

	"github.com/rightsize/rightsize/engine"
	"github.com/rightsize/rightsize/engine/enginetest"
	"github.com/rightsize/rightsize/telemetry"
	"github.com/rightsize/rightsize/tpcc"
)

func rss(tb testing.TB) int64 {
	n, err := telemetry.SelfRSS()
	if err != nil {
		tb.Skip(err)
	}
	return n
}

// BenchmarkConnectionMemory measures the driver-side memory of one virtual
// user's connection (pgx conn, statement cache, buffers) after it ran each
// transaction type once, with 150 real connections.
//
//	go test -run '^$' -bench ConnectionMemory -benchtime 1x ./engine/postgres
func BenchmarkConnectionMemory(b *testing.B) {
	db := open(b)
	enginetest.Build(b, db)
	ctx := context.Background()
	meta, _ := db.ReadMeta(ctx)
	consts := meta.Constants.WithRunConstants(tpcc.NewRand(1, 1))
	for _, mode := range []engine.Mode{engine.Procedures, engine.Statements} {
		b.Run(string(mode), func(b *testing.B) {
			for b.Loop() {
				const n = 150
				runtime.GC()
				base := rss(b)
				execs := make([]tpcc.Executor, n)
				for i := range execs {
					e, err := db.NewExecutor(ctx, mode)
					if err != nil {
						b.Fatal(err)
					}
					execs[i] = e
					g := tpcc.NewInputs(tpcc.NewRand(uint64(i), 1), consts, 1, 1, 1)
					var no tpcc.NewOrderInput
					var nor tpcc.NewOrderResult
					g.NewOrder(&no)
					var p tpcc.PaymentInput
					var pr tpcc.PaymentResult
					g.Payment(&p)
					var os tpcc.OrderStatusInput
					var osr tpcc.OrderStatusResult
					g.OrderStatus(&os)
					var sl tpcc.StockLevelInput
					var slr tpcc.StockLevelResult
					g.StockLevel(&sl)
					if err := e.NewOrder(ctx, &no, &nor); err != nil {
						b.Fatal(err)
					}
					if err := e.Payment(ctx, &p, &pr); err != nil {
						b.Fatal(err)
					}
					if err := e.OrderStatus(ctx, &os, &osr); err != nil {
						b.Fatal(err)
					}
					if err := e.StockLevel(ctx, &sl, &slr); err != nil {
						b.Fatal(err)
					}
				}
				runtime.GC()
				per := float64(rss(b)-base) / n
				for _, e := range execs {
					e.Close(ctx)
				}
				b.ReportMetric(per/1024, "KiB/connection")
				b.ReportMetric(per*1000/(1<<20), "MiB/1000connections")
			}
		})
	}
}
