package main

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// scrape reads the endpoint and parses it with Prometheus's own text parser.
func scrape(addr string) (map[string]float64, error) {
	resp, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("not valid exposition format: %w", err)
	}
	out := map[string]float64{}
	for name, f := range fams {
		for _, m := range f.GetMetric() {
			switch {
			case m.GetCounter() != nil:
				out[name] += m.GetCounter().GetValue()
			case m.GetGauge() != nil:
				out[name] += m.GetGauge().GetValue()
			case m.GetHistogram() != nil:
				out[name+"_count"] += float64(m.GetHistogram().GetSampleCount())
			}
		}
	}
	return out, nil
}

func freeAddr(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// TestLiveMetrics scrapes run --metrics-addr during a real run: valid
// exposition format, TPM and the transaction counter moving, latency
// histograms filled once the first 10 s window ends.
func TestLiveMetrics(t *testing.T) {
	t.Parallel() // beside TestAutoEndsEarlyWhenQuiet, see there
	dsn := built(t)
	addr := freeAddr(t)
	done := make(chan int, 1)
	go func() {
		_, _, code := cli(t, context.Background(), "run", "--target", dsn, "--store", tempStore(t), "--users", "2",
			"--rampup", "1s", "--duration", "11s", "--metrics-addr", addr, "--progress-interval", "0")
		done <- code
	}()
	var txn []float64
	var tpm, latencies, cpu float64
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for running := true; running; {
		select {
		case code := <-done:
			if code != 0 {
				t.Fatalf("run exited %d", code)
			}
			running = false
		case <-tick.C:
			m, err := scrape(addr)
			if err != nil {
				continue // not listening yet, or already closed
			}
			if v, ok := m["rightsize_transactions_total"]; ok {
				txn = append(txn, v)
			}
			tpm = max(tpm, m["rightsize_tpm"])
			latencies = max(latencies, m["rightsize_latency_seconds_count"])
			cpu = max(cpu, m["rightsize_driver_cpu_seconds_total"])
		}
	}
	if len(txn) < 5 || txn[len(txn)-1] <= txn[0] {
		t.Errorf("transactions counted %v during the run, want at least 5 scrapes and a growing count", txn)
	}
	if tpm <= 0 || latencies <= 0 || cpu <= 0 {
		t.Errorf("peak TPM %v, latency samples %v, driver CPU %v s: want all > 0", tpm, latencies, cpu)
	}
	if _, err := scrape(addr); err == nil {
		t.Errorf("the endpoint still answers after the run")
	}
}
