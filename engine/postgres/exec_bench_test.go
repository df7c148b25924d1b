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
			r := tpcc.NewRand(5, 5)
			g := tpcc.NewInputs(r, consts, 1, 1, 1)
			deck := tpcc.NewDeck(r)
			var no tpcc.NewOrderInput
			var nor tpcc.NewOrderResult
			var p tpcc.PaymentInput
			var pr tpcc.PaymentResult
			var os tpcc.OrderStatusInput
			var osr tpcc.OrderStatusResult
			var d tpcc.DeliveryInput
			var dr tpcc.DeliveryResult
			var sl tpcc.StockLevelInput
			var slr tpcc.StockLevelResult
			b.ReportAllocs()
			c0 := cpuNow()
			for b.Loop() {
				var err error
				switch deck.Deal() {
				case tpcc.NewOrderTxn:
					g.NewOrder(&no)
					err = ex.NewOrder(ctx, &no, &nor)
				case tpcc.PaymentTxn:
					g.Payment(&p)
					err = ex.Payment(ctx, &p, &pr)
				case tpcc.OrderStatusTxn:
					g.OrderStatus(&os)
					err = ex.OrderStatus(ctx, &os, &osr)
				case tpcc.DeliveryTxn:
					g.Delivery(&d)
					err = ex.Delivery(ctx, &d, &dr)
				default:
					g.StockLevel(&sl)
					err = ex.StockLevel(ctx, &sl, &slr)
				}
				if err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64((cpuNow()-c0).Microseconds())/float64(b.N), "cpu-µs/txn")
		})
	}
}
