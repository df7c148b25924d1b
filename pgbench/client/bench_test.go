package client

import (
	"context"
	"fmt"
	"os/exec"
	"syscall"
	"testing"
	"time"

	"github.com/rightsize/rightsize/internal/pgtest"
	"github.com/rightsize/rightsize/pgbench/script"
)

// BenchmarkClientVsPgbench runs one client of a built-in script for n
// transactions here and in pgbench -M prepared, interleaved over three
// rounds on the same database, and reports each side's client CPU and
// wall time per transaction (the server's work is in both walls). Ours
// is this process's CPU (the test binary's runtime included).
//
//	go test -run XXX -bench ClientVsPgbench ./pgbench/client
func BenchmarkClientVsPgbench(b *testing.B) {
	pgbench := pgtest.Pgbench(b)
	for _, name := range []string{"select-only", "tpcb-like"} {
		for _, s := range sessions {
			b.Run(name+"/"+s.name, func(b *testing.B) { compareWithPgbench(b, pgbench, name, s.open) })
		}
	}
}

func compareWithPgbench(b *testing.B, pgbench, name string, open opener) {
	dsn := tpcbDatabase(b)
	const n = 3000
	s := builtin(b, name, 1)
	c := newClient(b, open, dsn, Config{Scripts: []*script.Script{s}, Scale: 1, Seed: Seeds(1, 1)[0]})
	var oursCPU, oursWall, theirCPU, theirWall time.Duration
	for round := range 3 {
		cmd := exec.Command(pgbench, "-n", "-M", "prepared", "-c", "1", "-j", "1", "-t", fmt.Sprint(n), "-b", name, dsn)
		t0 := time.Now()
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("pgbench: %v\n%s", err, out)
		}
		theirWall += time.Since(t0)
		theirCPU += cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
		cpu0, t1 := selfCPU(), time.Now()
		for range n {
			if o := c.Run(context.Background()); o.Err != nil {
				b.Fatal(o.Err)
			}
		}
		oursWall += time.Since(t1)
		oursCPU += selfCPU() - cpu0
		_ = round
	}
	per := func(d time.Duration) float64 { return float64(d.Microseconds()) / (3 * n) }
	b.ReportMetric(per(oursCPU), "ours-cpu-µs/txn")
	b.ReportMetric(per(theirCPU), "pgbench-cpu-µs/txn")
	b.ReportMetric(per(oursWall), "ours-wall-µs/txn")
	b.ReportMetric(per(theirWall), "pgbench-wall-µs/txn")
}

func selfCPU() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkRun is one client's tpcb-like transactions, for profiles and
// allocations: go test -run XXX -bench 'Run$' -benchmem ./pgbench/client
func BenchmarkRun(b *testing.B) {
	for _, s := range sessions {
		b.Run(s.name, func(b *testing.B) { benchmarkRun(b, s.open) })
	}
}

func benchmarkRun(b *testing.B, open opener) {
	dsn := tpcbDatabase(b)
	c := newClient(b, open, dsn, Config{Scripts: []*script.Script{builtin(b, "tpcb-like", 1)}, Scale: 1, Seed: Seeds(1, 1)[0]})
	b.ReportAllocs()
	for b.Loop() {
		if o := c.Run(context.Background()); o.Err != nil {
			b.Fatal(o.Err)
		}
	}
}
