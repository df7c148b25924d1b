package driver

import (
	"context"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/rightsize/rightsize/engine"
	"github.com/rightsize/rightsize/telemetry"
	"github.com/rightsize/rightsize/tpcc"
)

// rssBytes reads this process's resident set size from /proc.
func rssBytes(tb testing.TB) int64 {
	n, err := telemetry.SelfRSS()
	if err != nil {
		tb.Skip(err)
	}
	return n
}

// idleTarget's executors answer after a fixed service time without a
// database: the benchmark measures the driver's own memory per virtual user
// (goroutine, deck, inputs, timers, histogram shards). A database
// connection's client-side buffers come on top: engine/postgres measures
// those with real connections (BenchmarkConnectionMemory).
type idleTarget struct{ service time.Duration }

func (t idleTarget) NewExecutor(context.Context, engine.Mode) (tpcc.Executor, error) {
	return idleExec{t.service}, nil
}
func (idleTarget) Classify(error) engine.ErrClass { return engine.ErrOther }

type idleExec struct{ d time.Duration }

func (e idleExec) wait(ctx context.Context) error { return Sleep(ctx, e.d) }
func (e idleExec) NewOrder(ctx context.Context, _ *tpcc.NewOrderInput, _ *tpcc.NewOrderResult) error {
	return e.wait(ctx)
}
func (e idleExec) Payment(ctx context.Context, _ *tpcc.PaymentInput, _ *tpcc.PaymentResult) error {
	return e.wait(ctx)
}
func (e idleExec) OrderStatus(ctx context.Context, _ *tpcc.OrderStatusInput, _ *tpcc.OrderStatusResult) error {
	return e.wait(ctx)
}
func (e idleExec) Delivery(ctx context.Context, _ *tpcc.DeliveryInput, _ *tpcc.DeliveryResult) error {
	return e.wait(ctx)
}
func (e idleExec) StockLevel(ctx context.Context, _ *tpcc.StockLevelInput, _ *tpcc.StockLevelResult) error {
	return e.wait(ctx)
}
func (idleExec) Close(context.Context) error { return nil }

// BenchmarkUsersMemory runs 1,000 and 10,000 virtual users with keying and
// think times on and reports the driver's RSS per 1,000 users.
//
//	go test -run '^$' -bench UsersMemory -benchtime 1x ./driver
func BenchmarkUsersMemory(b *testing.B) {
	for _, users := range []int{1000, 10000} {
		b.Run(strconv.Itoa(users), func(b *testing.B) {
			for b.Loop() {
				runtime.GC()
				base := rssBytes(b)
				var peak int64
				stop := make(chan struct{})
				done := make(chan struct{})
				go func() {
					defer close(done)
					tick := time.NewTicker(200 * time.Millisecond)
					defer tick.Stop()
					for {
						select {
						case <-stop:
							return
						case <-tick.C:
							peak = max(peak, rssBytes(b))
						}
					}
				}()
				res, err := RunStep(context.Background(), idleTarget{2 * time.Millisecond}, StepConfig{Users: users, Warehouses: max(1, users/10),
					Constants: tpcc.LoadConstants(1).WithRunConstants(tpcc.NewRand(1, 1)), Seed: 1, Spec: Spec{Rampup: time.Second, Duration: 4 * time.Second, Mode: engine.Statements, KeyingThinking: true}})
				close(stop)
				<-done
				if err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(float64(peak)/(1<<20), "peak-RSS-MiB")
				b.ReportMetric(float64(peak-base)/(1<<20)/float64(users)*1000, "MiB/1000users")
				if peak > 1<<30 {
					b.Errorf("driver RSS %d MiB with %d users exceeds 1 GiB", peak>>20, users)
				}
				_ = res
			}
		})
	}
}
