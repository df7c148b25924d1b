package store

import (
	"math"
	"slices"
	"sort"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/rightsize/rightsize/diagnosis"
	"github.com/rightsize/rightsize/steady"
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
	Host HostSummary `json:"host"`
	// ServerCPUPct is the database server's CPU, mean across repeats, in %
	// of one core (200 = two cores busy).
	ServerCPUPct float64 `json:"server_cpu_pct"`
	// DriverCPUPct is rightsize's own CPU, mean across repeats, in % of one
	// core: the one definition of "driver CPU" every view shows.
	DriverCPUPct      float64 `json:"driver_cpu_pct"`
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
	// Validity is valid when every repeat's step was, with the union of
	// their violations; nil when no repeat has a verdict.
	Validity *Validity `json:"validity,omitempty"`
	// Txn merges each transaction type across the repeats: counts summed,
	// percentiles, max and mean from the merged histograms (exact); when a
	// repeat lacks a readable histogram, percentiles are the means of the
	// repeats' percentiles, max the largest and mean count-weighted. Hist is
	// the merged histogram when there is one.
	Txn []TxnSummary `json:"txn"`
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
func Aggregate(steps []Step) []StepAggregate {
	groups := map[int][]*Step{}
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

func aggregateGroup(idx int, all []*Step) StepAggregate {
	var group []*Step
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
	pick := func(f func(*Step) float64) Stat {
		v := make([]float64, len(group))
		for i, st := range group {
			v[i] = f(st)
		}
		return stat(v)
	}
	mean := func(f func(*Step) float64) float64 { return pick(f).Mean }
	a.TPM = pick(func(s *Step) float64 { return s.TPM })
	a.NOPM = pick(func(s *Step) float64 { return s.NOPM })
	a.TPMPerUser = pick(func(s *Step) float64 { return s.TPMPerUser })
	a.ServerCPUPct = mean(func(s *Step) float64 { return s.ServerCPUPct })
	a.DriverCPUPct = mean(func(s *Step) float64 { return s.DriverCPUPct })
	a.DriverCPUUsPerTxn = mean(func(s *Step) float64 { return s.DriverCPUUsPerTxn })
	a.ServerCPUUsPerTxn = mean(func(s *Step) float64 { return s.ServerCPUUsPerTxn })
	h := &a.Host
	h.CPUBusyPct = mean(func(s *Step) float64 { return s.Host.CPUBusyPct })
	h.CPUIdlePct = mean(func(s *Step) float64 { return s.Host.CPUIdlePct })
	h.CPUIowaitPct = mean(func(s *Step) float64 { return s.Host.CPUIowaitPct })
	h.CPUUserPct = mean(func(s *Step) float64 { return s.Host.CPUUserPct })
	h.CPUSystemPct = mean(func(s *Step) float64 { return s.Host.CPUSystemPct })
	h.CPUStealPct = mean(func(s *Step) float64 { return s.Host.CPUStealPct })
	h.DiskReadIOPS = mean(func(s *Step) float64 { return s.Host.DiskReadIOPS })
	h.DiskWriteIOPS = mean(func(s *Step) float64 { return s.Host.DiskWriteIOPS })
	h.DiskReadMBps = mean(func(s *Step) float64 { return s.Host.DiskReadMBps })
	h.DiskWriteMBps = mean(func(s *Step) float64 { return s.Host.DiskWriteMBps })
	h.DiskAvgLatencyMs = mean(func(s *Step) float64 { return s.Host.DiskAvgLatencyMs })
	h.MemUsedBytes = uint64(math.Round(mean(func(s *Step) float64 { return float64(s.Host.MemUsedBytes) })))
	h.MemCachedBytes = uint64(math.Round(mean(func(s *Step) float64 { return float64(s.Host.MemCachedBytes) })))
	a.Unstable = a.TPM.CV > UnstableCV || a.NOPM.CV > UnstableCV
	a.DBTPM = mean(func(s *Step) float64 { return s.DB.TPM })
	a.BlocksReadPerTxn = mean(func(s *Step) float64 {
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
	}
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
func mergeValidity(group []*Step) *Validity {
	var out *Validity
	for _, st := range group {
		if st.Validity == nil {
			continue
		}
		if out == nil {
			out = &Validity{Valid: true, Violations: []string{}}
		}
		out.Valid = out.Valid && st.Validity.Valid
		for _, v := range st.Validity.Violations {
			if !slices.Contains(out.Violations, v) {
				out.Violations = append(out.Violations, v)
			}
		}
	}
	return out
}

// acrossRepeats returns the intervals of the mean TPM and NOPM across the
// steps and their worst achieved precision.
func acrossRepeats(group []*Step) (tpm, nopm steady.Interval, prec float64) {
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

// mergeTxn merges transaction summaries of the same type across steps, in
// the order the types first appear.
func mergeTxn(group []*Step) []TxnSummary {
	var types []string
	byType := map[string][]*TxnSummary{}
	for _, st := range group {
		for i := range st.Txn {
			t := &st.Txn[i]
			if _, ok := byType[t.Type]; !ok {
				types = append(types, t.Type)
			}
			byType[t.Type] = append(byType[t.Type], t)
		}
	}
	out := make([]TxnSummary, 0, len(types))
	for _, typ := range types {
		out = append(out, mergeOne(typ, byType[typ]))
	}
	return out
}

func mergeOne(typ string, ts []*TxnSummary) TxnSummary {
	m := TxnSummary{Type: typ}
	var merged *hdrhistogram.Histogram
	exact := true
	var weighted float64
	for _, t := range ts {
		m.Count += t.Count
		m.Rollbacks += t.Rollbacks
		m.Retries += t.Retries
		m.Errors += t.Errors
		if m.FirstError == "" {
			m.FirstError = t.FirstError
		}
		m.MaxMs = max(m.MaxMs, t.MaxMs)
		weighted += t.MeanMs * float64(t.Count)
		n := float64(len(ts))
		m.P50Ms += t.P50Ms / n
		m.P90Ms += t.P90Ms / n
		m.P95Ms += t.P95Ms / n
		m.P99Ms += t.P99Ms / n
		if !exact {
			continue
		}
		h, err := decodeHist(t.Hist)
		if err != nil || h == nil {
			exact = false
			continue
		}
		if merged == nil {
			merged = h
		} else {
			merged.Merge(h)
		}
	}
	if m.Count > 0 {
		m.MeanMs = weighted / float64(m.Count)
	}
	if exact && merged != nil {
		ms := func(v int64) float64 { return float64(v) / 1000 }
		m.P50Ms = ms(merged.ValueAtQuantile(50))
		m.P90Ms = ms(merged.ValueAtQuantile(90))
		m.P95Ms = ms(merged.ValueAtQuantile(95))
		m.P99Ms = ms(merged.ValueAtQuantile(99))
		m.MaxMs = ms(merged.Max())
		if merged.TotalCount() > 0 {
			m.MeanMs = merged.Mean() / 1000
		}
		if b, err := merged.Encode(hdrhistogram.V2CompressedEncodingCookieBase); err == nil {
			m.Hist = b
		}
	}
	return m
}

// decodeHist decodes a stored histogram (nil for none).
func decodeHist(b HdrHist) (*hdrhistogram.Histogram, error) {
	if len(b) == 0 {
		return nil, nil
	}
	return hdrhistogram.Decode(b)
}

// Figures are a run's headline figures over its aggregated steps: the
// peak (the step with the highest mean across repeats) and the average
// over all steps (each users count once, its repeats averaged), as the
// published studies compare them.
type Figures struct {
	PeakTPM       float64 `json:"peak_tpm"`
	PeakTPMUsers  int     `json:"peak_tpm_users"`
	PeakNOPM      float64 `json:"peak_nopm"`
	PeakNOPMUsers int     `json:"peak_nopm_users"`
	AvgTPM        float64 `json:"avg_tpm"`
	AvgNOPM       float64 `json:"avg_nopm"`
	// Steps is the number of distinct users counts averaged.
	Steps int `json:"steps"`
	// PeakDriverCPUPct is the highest driver CPU of a step (its mean
	// across repeats), in % of one core; PeakDriverCPUUsers and
	// PeakDriverCPUUsPerTxn are that step's users and driver CPU per
	// transaction (µs). All 0 when the driver CPU was not measured.
	PeakDriverCPUPct      float64 `json:"peak_driver_cpu_pct"`
	PeakDriverCPUUsers    int     `json:"peak_driver_cpu_users"`
	PeakDriverCPUUsPerTxn float64 `json:"peak_driver_cpu_us_per_txn"`
}

// RunFigures computes Figures from Aggregate's result.
func RunFigures(aggs []StepAggregate) Figures {
	var f Figures
	seen := map[int]bool{}
	for _, a := range aggs {
		if a.TPM.Mean > f.PeakTPM || f.Steps == 0 {
			f.PeakTPM, f.PeakTPMUsers = a.TPM.Mean, a.Users
		}
		if a.NOPM.Mean > f.PeakNOPM || f.Steps == 0 {
			f.PeakNOPM, f.PeakNOPMUsers = a.NOPM.Mean, a.Users
		}
		if a.DriverCPUPct > f.PeakDriverCPUPct {
			f.PeakDriverCPUPct, f.PeakDriverCPUUsers, f.PeakDriverCPUUsPerTxn = a.DriverCPUPct, a.Users, a.DriverCPUUsPerTxn
		}
		if seen[a.Users] {
			continue
		}
		seen[a.Users] = true
		f.AvgTPM += a.TPM.Mean
		f.AvgNOPM += a.NOPM.Mean
		f.Steps++
	}
	if f.Steps > 0 {
		f.AvgTPM /= float64(f.Steps)
		f.AvgNOPM /= float64(f.Steps)
	}
	return f
}
