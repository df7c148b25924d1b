// Package analysis turns what the store holds into what every view shows:
// a step's repeats aggregated (Aggregate: means, coefficients of variation,
// transactions merged through their histograms, the mean wait profile and
// saturation, the verdict of the mean figures), the intervals of the
// aggregates (across repeats, or a single repeat's batch means), the run's
// verdict (RunVerdict) and headline figures (RunFigures), the steps of
// several workers merged into one (MergeWorkerSteps), and the documents
// and listings built from them (Document, RunSummary, WorkerSummary).
// Package store persists; this package computes, above it.
package analysis

import (
	"math"
	"slices"
	"sort"

	"github.com/rightsize/rightsize/diagnosis"
	"github.com/rightsize/rightsize/figures"
	"github.com/rightsize/rightsize/steady"
	"github.com/rightsize/rightsize/store"
	"github.com/rightsize/rightsize/waits"
)

// UnstableCV is the coefficient of variation of TPM or NOPM across repeats
// above which a step is flagged Unstable.
const UnstableCV = 0.10

// Stat describes one figure across repeats.
type Stat struct {
	Mean float64 `json:"mean"` // arithmetic mean
	Min  float64 `json:"min"`  // smallest value
	Max  float64 `json:"max"`  // largest value
	// CV is the coefficient of variation: sample standard deviation / mean;
	// 0 with one repeat or a zero mean.
	CV float64 `json:"cv"`
}

// StepAggregate is one step of the users sequence across its repeats.
type StepAggregate struct {
	// Index is the step's position in the users sequence.
	Index int `json:"index"`
	// Users is the number of virtual users.
	Users int `json:"users"`
	// Repeats is the number of steps aggregated.
	Repeats int `json:"repeats"`
	// Partial tells the figures come from interrupted steps only: partial
	// steps are left out when a complete one exists.
	Partial    bool `json:"partial"`
	TPM        Stat `json:"tpm"`          // transactions per minute
	NOPM       Stat `json:"nopm"`         // New-Orders per minute
	TPMPerUser Stat `json:"tpm_per_user"` // TPM / users
	// Host holds the means of the steps' host summaries.
	Host store.HostSummary `json:"host"`
	// Procs is the database server's and rightsize's own CPU, means
	// across repeats, in % of one core (200 = two cores busy): the one
	// definition of "driver CPU" every view shows.
	figures.Procs
	DriverCPUUsPerTxn float64 `json:"driver_cpu_us_per_txn"` // mean, µs per transaction
	ServerCPUUsPerTxn float64 `json:"server_cpu_us_per_txn"` // mean, µs per transaction
	// Unstable is set when the CV of TPM or NOPM exceeds UnstableCV.
	Unstable bool `json:"unstable"`
	// DBTPM is the mean server-counted (HammerDB-style) TPM, 0 if unknown.
	DBTPM float64 `json:"db_tpm"`
	// BlocksReadPerTxn is the mean of the steps' server blocks read (from
	// disk or the OS cache, not the buffer pool) per completed transaction.
	BlocksReadPerTxn float64 `json:"blocks_read_per_txn"`
	// MeasuredSeconds, SkippedDeliveries and Reconnects are sums over the
	// repeats.
	MeasuredSeconds   float64 `json:"measured_seconds"`
	SkippedDeliveries int64   `json:"skipped_deliveries"`
	Reconnects        int64   `json:"reconnects"`
	// ScheduleLagMs is the repeats' mean schedule lag and
	// ScheduleLagMaxMs the largest (a paced run's; 0 otherwise).
	ScheduleLagMs    float64 `json:"schedule_lag_ms"`
	ScheduleLagMaxMs float64 `json:"schedule_lag_max_ms"`
	// LateTxns and SkippedTxns are sums over the repeats of the
	// transactions over the run's latency limit (store.Step's).
	LateTxns    int64 `json:"late_txns"`
	SkippedTxns int64 `json:"skipped_txns"`
	// Validity is valid when every repeat's step was, with the union of
	// their violations; nil when no repeat has a verdict.
	Validity *store.Validity `json:"validity,omitempty"`
	// Txn merges each transaction type across the repeats: counts summed,
	// percentiles, max and mean from the merged histograms (exact); when a
	// repeat lacks a readable histogram, percentiles are the means of the
	// repeats' percentiles, max the largest and mean count-weighted. Hist is
	// the merged histogram when there is one.
	Txn []store.TxnSummary `json:"txn"`
	// Waits is the mean wait profile of the repeats (waits.Mean), nil when
	// none was sampled; Saturation likewise (waits.MeanSaturation).
	Waits      *waits.Profile    `json:"waits,omitempty"`
	Saturation *waits.Saturation `json:"saturation,omitempty"`
	// Verdict is diagnosis.Diagnose of the mean figures.
	Verdict *diagnosis.Verdict `json:"verdict,omitempty"`
	// TPMCI and NOPMCI are the confidence intervals of the mean across the
	// repeats (Student's t at the steps' confidence, 95 % when unknown);
	// zero with fewer than two repeats.
	TPMCI  steady.Interval `json:"tpm_ci"`
	NOPMCI steady.Interval `json:"nopm_ci"`
	// PrecisionPct is the largest (worst) achieved precision of the
	// repeats, % (0 when unknown, see Step.PrecisionPct).
	PrecisionPct float64 `json:"precision_pct,omitempty"`
	// BatchTPMCI and BatchNOPMCI are, with one repeat, that repeat's own
	// batch-means intervals of its TPM and NOPM (Step.TPMCIHalf around
	// Step.TPM); zero with several repeats, and a zero half-width when the
	// step was too short for batch means or stored without them.
	BatchTPMCI  steady.Interval `json:"batch_tpm_ci"`
	BatchNOPMCI steady.Interval `json:"batch_nopm_ci"`
	// NewOrderP90CI is the interval of the mean of the repeats' New-Order
	// p90 latencies, ms; zero with fewer than two repeats.
	NewOrderP90CI steady.Interval `json:"new_order_p90_ci"`
}

// Aggregate groups steps by Index (position in the users sequence) and
// summarises each group across its repeats, in sequence order.
func Aggregate(steps []store.Step) []StepAggregate {
	groups := map[int][]*store.Step{}
	var order []int
	for i := range steps {
		st := &steps[i]
		if _, ok := groups[st.Index]; !ok {
			order = append(order, st.Index)
		}
		groups[st.Index] = append(groups[st.Index], st)
	}
	sort.Ints(order)
	out := make([]StepAggregate, 0, len(order))
	for _, idx := range order {
		out = append(out, aggregateGroup(idx, groups[idx]))
	}
	return out
}

func aggregateGroup(idx int, all []*store.Step) StepAggregate {
	var group []*store.Step
	for _, st := range all {
		if !st.Partial {
			group = append(group, st)
		}
	}
	a := StepAggregate{Index: idx, Users: all[0].Users}
	if len(group) == 0 {
		group, a.Partial = all, true
	}
	a.Repeats = len(group)
	pick := func(f func(*store.Step) float64) Stat {
		v := make([]float64, len(group))
		for i, st := range group {
			v[i] = f(st)
		}
		return stat(v)
	}
	mean := func(f func(*store.Step) float64) float64 { return pick(f).Mean }
	a.TPM = pick(func(s *store.Step) float64 { return s.TPM })
	a.NOPM = pick(func(s *store.Step) float64 { return s.NOPM })
	a.TPMPerUser = pick(func(s *store.Step) float64 { return s.TPMPerUser })
	a.DriverCPUUsPerTxn = mean(func(s *store.Step) float64 { return s.DriverCPUUsPerTxn })
	a.ServerCPUUsPerTxn = mean(func(s *store.Step) float64 { return s.ServerCPUUsPerTxn })
	hosts := make([]store.HostSummary, len(group))
	procs := make([]figures.Procs, len(group))
	for i, st := range group {
		hosts[i], procs[i] = st.Host, st.Procs
	}
	a.Host, a.Procs = figures.Mean(hosts), figures.Mean(procs)
	a.Unstable = a.TPM.CV > UnstableCV || a.NOPM.CV > UnstableCV
	a.DBTPM = mean(func(s *store.Step) float64 { return s.DB.TPM })
	a.BlocksReadPerTxn = mean(func(s *store.Step) float64 {
		var n int64
		for _, t := range s.Txn {
			n += t.Count
		}
		if n == 0 {
			return 0
		}
		return float64(s.DB.BlocksRead) / float64(n)
	})
	for _, st := range group {
		a.MeasuredSeconds += st.Measured().Seconds()
		a.SkippedDeliveries += st.SkippedDeliveries
		a.Reconnects += st.Reconnects
		a.ScheduleLagMaxMs = max(a.ScheduleLagMaxMs, st.ScheduleLagMaxMs)
		a.LateTxns += st.LateTxns
		a.SkippedTxns += st.SkippedTxns
	}
	a.ScheduleLagMs = mean(func(s *store.Step) float64 { return s.ScheduleLagMs })
	a.Validity = mergeValidity(group)
	a.Txn = mergeTxn(group)
	aggregateWhy(&a, group)
	a.TPMCI, a.NOPMCI, a.PrecisionPct = acrossRepeats(group)
	a.BatchTPMCI, a.BatchNOPMCI = singleRepeat(group)
	a.NewOrderP90CI = newOrderP90AcrossRepeats(group)
	return a
}

// mergeValidity is valid when every verdict is, with every distinct
// violation once, in order of appearance.
func mergeValidity(group []*store.Step) *store.Validity {
	var out *store.Validity
	for _, st := range group {
		if st.Validity == nil {
			continue
		}
		if out == nil {
			out = &store.Validity{Valid: true, Violations: []string{}}
		}
		out.Valid = out.Valid && st.Validity.Valid
		for _, v := range st.Validity.Violations {
			if !slices.Contains(out.Violations, v) {
				out.Violations = append(out.Violations, v)
			}
		}
		out.Chance = append(out.Chance, st.Validity.Chance...)
	}
	return out
}

// acrossRepeats returns the intervals of the mean TPM and NOPM across the
// steps and their worst achieved precision.
func acrossRepeats(group []*store.Step) (tpm, nopm steady.Interval, prec float64) {
	conf := 0.95
	var t, n []float64
	for _, st := range group {
		t, n = append(t, st.TPM), append(n, st.NOPM)
		prec = max(prec, st.PrecisionPct)
		if st.Confidence > 0 {
			conf = st.Confidence
		}
	}
	tpm, _ = steady.MeanInterval(t, conf)
	nopm, _ = steady.MeanInterval(n, conf)
	return tpm, nopm, prec
}

// stat computes mean, min, max and CV (sample standard deviation / mean).
func stat(v []float64) Stat {
	if len(v) == 0 {
		return Stat{}
	}
	s := Stat{Min: v[0], Max: v[0]}
	sum := 0.0
	for _, x := range v {
		sum += x
		s.Min = min(s.Min, x)
		s.Max = max(s.Max, x)
	}
	s.Mean = sum / float64(len(v))
	if len(v) > 1 && s.Mean != 0 {
		ss := 0.0
		for _, x := range v {
			ss += (x - s.Mean) * (x - s.Mean)
		}
		s.CV = math.Sqrt(ss/float64(len(v)-1)) / math.Abs(s.Mean)
	}
	return s
}
