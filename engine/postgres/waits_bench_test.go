package postgres_test

import (
	"context"
	"testing"
	"time"

	"github.com/rightsize/rightsize/engine/postgres"
	"github.com/rightsize/rightsize/telemetry"
	"github.com/rightsize/rightsize/waits"
)

// BenchmarkWaitSample measures what one wait sample costs with 3 active
// sessions in the database: the sampler's server backend CPU and the
// driver's CPU per sample, and the share of one core both take at the
// default 100 ms interval (every 10th sample also reads pg_locks).
//
//	go test -run '^$' -bench WaitSample ./engine/postgres
func BenchmarkWaitSample(b *testing.B) {
	db := open(b).(*postgres.DB)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	for range 3 { // the pool has 4 connections: one is left for the queries below
		go func() {
			if _, err := db.Pool().Exec(ctx, "SELECT pg_sleep(60)"); err != nil && ctx.Err() == nil {
				b.Error(err)
			}
		}()
	}
	s, err := db.WaitSampler(ctx, waits.DefaultInterval)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	if err := s.Start(ctx); err != nil {
		b.Fatal(err)
	}
	var pid int
	if err := db.Pool().QueryRow(ctx, "SELECT pid FROM pg_stat_activity WHERE application_name = 'rightsize wait sampler'").Scan(&pid); err != nil {
		b.Fatal(err)
	}
	time.Sleep(500 * time.Millisecond) // the sessions are active
	var n int
	_ = db.Pool().QueryRow(ctx, "SELECT count(*) FROM pg_stat_activity WHERE wait_event = 'PgSleep'").Scan(&n)
	b.Logf("%d sleeping", n)
	srv0, _ := telemetry.ProcessTreeCPU(pid)
	self0 := telemetry.SelfCPU()
	b.ResetTimer()
	for b.Loop() {
		if err := s.Sample(ctx); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	srv1, _ := telemetry.ProcessTreeCPU(pid)
	srvUs := float64(srv1-srv0) / float64(time.Microsecond) / float64(b.N)
	selfUs := float64(telemetry.SelfCPU()-self0) / float64(time.Microsecond) / float64(b.N)
	b.ReportMetric(srvUs, "server-µs/sample")
	b.ReportMetric(selfUs, "driver-µs/sample")
	b.ReportMetric((srvUs+selfUs)*10/1e6*100, "%core@100ms")
	p, err := s.Profile(ctx)
	if err != nil {
		b.Fatal(err)
	}
	if e, ok := p.Top(waits.Other); !ok || e.Name != "Timeout:PgSleep" {
		b.Errorf("the sleeping sessions were not sampled: %+v", p.Events)
	}
}
