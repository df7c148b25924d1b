// Package metrics serves the live figures of a run in the Prometheus text
// format (run --metrics-addr): throughput, New-Orders, per-transaction
// latency histograms, errors and retries, active users and the driver's
// CPU, labelled with the worker and the running step.
//
// It is fed once a second from the step's progress (driver.Progress, what
// the driver counts anyway: per-second atomics and its 10 s latency
// windows) and builds the exposition at scrape time, so virtual users do
// no extra work for it.
package metrics

import (
	"strconv"
	"sync"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/rightsize/rightsize/driver"
	"github.com/rightsize/rightsize/telemetry"
	"github.com/rightsize/rightsize/tpcc"
)

// Buckets are the latency histogram's upper bounds in seconds: 0.5 ms to
// about 65 s, doubling.
var Buckets = prometheus.ExponentialBuckets(0.0005, 2, 18)

var stepLabels = []string{"worker", "repeat", "step"}

var (
	descTPM      = prometheus.NewDesc("rightsize_tpm", "Completed transactions per minute over the last 10 s.", stepLabels, nil)
	descNOPM     = prometheus.NewDesc("rightsize_nopm", "Completed New-Orders per minute over the last 10 s.", stepLabels, nil)
	descTxn      = prometheus.NewDesc("rightsize_transactions_total", "Completed transactions in the step (ramp-up included).", stepLabels, nil)
	descNO       = prometheus.NewDesc("rightsize_new_orders_total", "Completed New-Orders in the step (ramp-up included).", stepLabels, nil)
	descErrors   = prometheus.NewDesc("rightsize_errors_total", "Failed transactions in the step.", stepLabels, nil)
	descRetries  = prometheus.NewDesc("rightsize_retries_total", "Retried attempts (serialization failures, deadlocks) in the step.", stepLabels, nil)
	descUsers    = prometheus.NewDesc("rightsize_active_users", "Virtual users of the running step.", stepLabels, nil)
	descMeasure  = prometheus.NewDesc("rightsize_measuring", "1 during the measured interval, 0 during the ramp-up.", stepLabels, nil)
	descLatency  = prometheus.NewDesc("rightsize_latency_seconds", "Transaction latency in the step, from its finished 10 s windows.", append(stepLabels, "txn"), nil)
	descCPU      = prometheus.NewDesc("rightsize_driver_cpu_seconds_total", "User and system CPU of this rightsize process.", []string{"worker"}, nil)
	descStepInfo = prometheus.NewDesc("rightsize_steps", "Steps per repeat and repeats of the run.", []string{"worker", "kind"}, nil)
)

// Live holds the current step's figures; it is a prometheus.Collector.
// Its methods may be called from any goroutine.
type Live struct {
	worker string

	mu             sync.Mutex
	running        bool
	repeat, index  int
	steps, repeats int
	p              driver.Progress
	windows        int // windows of the step already in hist
	hist           [tpcc.NumTxnTypes]latency
}

// latency is one transaction type's cumulative bucket counts in a step.
type latency struct {
	buckets []uint64 // per bucket, not cumulative
	count   uint64
	sum     float64 // seconds
}

// New returns an empty Live for the worker (e.g. "0/1" for a lone process).
func New(worker string) *Live { return &Live{worker: worker} }

// Plan records the run's shape (steps per repeat, repeats).
func (l *Live) Plan(steps, repeats int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.steps, l.repeats = steps, repeats
}

// StepStart begins a step's series (repeat is 1-based, index 0-based);
// the previous step's series end.
func (l *Live) StepStart(repeat, index, users int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.running, l.repeat, l.index = true, repeat, index
	l.p = driver.Progress{Users: users}
	l.windows = 0
	for t := range l.hist {
		l.hist[t] = latency{buckets: make([]uint64, len(Buckets)+1)}
	}
}

// Progress takes the running step's live figures (driver.StepConfig's
// OnProgress, once a second). A window it has not seen yet is added to the
// latency histograms.
func (l *Live) Progress(repeat, index int, p driver.Progress) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.running || repeat != l.repeat || index != l.index {
		return
	}
	l.p = p
	if p.LastWindow != nil && p.WindowsDone > l.windows {
		l.windows = p.WindowsDone
		for t, h := range p.LastWindow.Hists {
			l.hist[t].add(h)
		}
	}
}

// add puts an HdrHistogram of microseconds into the buckets.
func (b *latency) add(h *hdrhistogram.Histogram) {
	if h == nil || h.TotalCount() == 0 {
		return
	}
	for _, bar := range h.Distribution() {
		if bar.Count == 0 {
			continue
		}
		sec := float64(bar.To) / 1e6
		i := 0
		for i < len(Buckets) && sec > Buckets[i] {
			i++
		}
		b.buckets[i] += uint64(bar.Count)
		b.count += uint64(bar.Count)
		b.sum += sec * float64(bar.Count)
	}
}

// Describe sends every metric's description.
func (l *Live) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descTPM, descNOPM, descTxn, descNO, descErrors, descRetries, descUsers, descMeasure, descLatency, descCPU, descStepInfo} {
		ch <- d
	}
}

// Collect sends the current figures.
func (l *Live) Collect(ch chan<- prometheus.Metric) {
	ch <- prometheus.MustNewConstMetric(descCPU, prometheus.CounterValue, telemetry.SelfCPU().Seconds(), l.worker)
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.steps > 0 {
		ch <- prometheus.MustNewConstMetric(descStepInfo, prometheus.GaugeValue, float64(l.steps), l.worker, "per_repeat")
		ch <- prometheus.MustNewConstMetric(descStepInfo, prometheus.GaugeValue, float64(l.repeats), l.worker, "repeats")
	}
	if !l.running {
		return
	}
	lv := []string{l.worker, strconv.Itoa(l.repeat), strconv.Itoa(l.index + 1)}
	p := l.p
	measuring := 0.0
	if p.Measuring {
		measuring = 1
	}
	for _, m := range []struct {
		d *prometheus.Desc
		t prometheus.ValueType
		v float64
	}{
		{descTPM, prometheus.GaugeValue, p.TPM}, {descNOPM, prometheus.GaugeValue, p.NOPM},
		{descTxn, prometheus.CounterValue, float64(p.Txn)}, {descNO, prometheus.CounterValue, float64(p.NewOrders)},
		{descErrors, prometheus.CounterValue, float64(p.Errors)}, {descRetries, prometheus.CounterValue, float64(p.Retries)},
		{descUsers, prometheus.GaugeValue, float64(p.Users)}, {descMeasure, prometheus.GaugeValue, measuring},
	} {
		ch <- prometheus.MustNewConstMetric(m.d, m.t, m.v, lv...)
	}
	for t := range l.hist {
		h := &l.hist[t]
		cum := map[float64]uint64{}
		var n uint64
		for i, ub := range Buckets {
			n += h.buckets[i]
			cum[ub] = n
		}
		ch <- prometheus.MustNewConstHistogram(descLatency, h.count, h.sum, cum, append(lv, tpcc.TxnType(t).String())...)
	}
}

// StepEnd ends the running step's series (between steps only the driver
// CPU is served).
func (l *Live) StepEnd() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.running = false
}
