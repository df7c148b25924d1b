package driver

import (
	"context"
	"testing"
	"time"

	"github.com/rightsize/rightsize/engine"
	"github.com/rightsize/rightsize/tpcc"
)

// BenchmarkStep runs 4-user steps of 2 s against executors that answer
// after 50 µs without a database, and reports the driver's CPU per
// transaction and the TPM: the step's own machinery (users, deck, timers,
// recorder, the step goroutine) without a server. Compare commits with
// interleaved runs, e.g. -count 5 each, alternately:
//
//	go test -run '^$' -bench Step -benchtime 3x ./driver
func BenchmarkStep(b *testing.B) {
	consts := tpcc.LoadConstants(1).WithRunConstants(tpcc.NewRand(1, 1))
	var cpu, tpm float64
	n := 0
	for b.Loop() {
		res, err := RunStep(context.Background(), idleTarget{50 * time.Microsecond}, StepConfig{Users: 4, Warehouses: 1, Constants: consts, Seed: 1, AdaptiveProcs: true, Spec: Spec{Duration: 2 * time.Second, Mode: engine.Statements}})
		if err != nil {
			b.Fatal(err)
		}
		cpu += res.DriverCPUPerTxn()
		tpm += res.TPM()
		n++
	}
	b.ReportMetric(cpu/float64(n), "driver-µs/txn")
	b.ReportMetric(tpm/float64(n), "TPM")
}
