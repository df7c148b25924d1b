package analysis

import (
	"math"
	"testing"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/rightsize/rightsize/figures"
	"github.com/rightsize/rightsize/store"
)

func TestStat(t *testing.T) {
	cases := []struct {
		name string
		in   []float64
		want Stat
	}{
		{"none", nil, Stat{}},
		{"one", []float64{42}, Stat{Mean: 42, Min: 42, Max: 42, CV: 0}},
		{"equal", []float64{5, 5, 5}, Stat{Mean: 5, Min: 5, Max: 5}},
		// mean 100, sample sd = sqrt((100+0+100)/2) = 10 → CV 0.1
		{"three", []float64{90, 100, 110}, Stat{Mean: 100, Min: 90, Max: 110, CV: 0.1}},
		// mean 15, sample sd = sqrt(50) → CV 0.4714
		{"two", []float64{10, 20}, Stat{Mean: 15, Min: 10, Max: 20, CV: math.Sqrt(50) / 15}},
		{"zero mean", []float64{0, 0}, Stat{}},
	}
	for _, c := range cases {
		got := stat(c.in)
		if !near(got.Mean, c.want.Mean) || got.Min != c.want.Min || got.Max != c.want.Max || !near(got.CV, c.want.CV) {
			t.Errorf("%s: stat(%v) = %+v, want %+v", c.name, c.in, got, c.want)
		}
	}
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9*math.Max(1, math.Abs(b)) }

func TestAggregate(t *testing.T) {
	step := func(rep, idx, users int, tpm, nopm float64, partial bool) store.Step {
		return store.Step{Repeat: rep, Index: idx, Users: users, TPM: tpm, NOPM: nopm, TPMPerUser: tpm / float64(users), Partial: partial,
			Host: store.HostSummary{CPUBusyPct: tpm / 100, MemUsedBytes: uint64(rep) * 1000}, Procs: figures.Procs{ServerCPUPct: float64(rep), DriverCPUPct: 2}}
	}
	cases := []struct {
		name  string
		steps []store.Step
		want  []StepAggregate // only the checked fields
	}{
		{"empty", nil, []StepAggregate{}},
		{"one repeat", []store.Step{step(1, 0, 1, 1000, 450, false), step(1, 1, 2, 1900, 850, false)}, []StepAggregate{
			{Index: 0, Users: 1, Repeats: 1, TPM: Stat{1000, 1000, 1000, 0}, NOPM: Stat{450, 450, 450, 0}},
			{Index: 1, Users: 2, Repeats: 1, TPM: Stat{1900, 1900, 1900, 0}, NOPM: Stat{850, 850, 850, 0}},
		}},
		{"stable, out of order", []store.Step{
			step(2, 1, 2, 2000, 900, false), step(1, 0, 1, 990, 445, false), step(1, 1, 2, 1960, 880, false),
			step(2, 0, 1, 1010, 455, false), step(3, 0, 1, 1000, 450, false),
		}, []StepAggregate{
			{Index: 0, Users: 1, Repeats: 3, TPM: Stat{1000, 990, 1010, 0.01}, NOPM: Stat{450, 445, 455, 5.0 / 450}},
			{Index: 1, Users: 2, Repeats: 2, TPM: Stat{1980, 1960, 2000, math.Sqrt(800) / 1980}, NOPM: Stat{890, 880, 900, math.Sqrt(200) / 890}},
		}},
		{"unstable TPM", []store.Step{step(1, 0, 4, 1000, 450, false), step(2, 0, 4, 1400, 452, false)}, []StepAggregate{
			{Index: 0, Users: 4, Repeats: 2, TPM: Stat{1200, 1000, 1400, math.Sqrt(80000) / 1200}, NOPM: Stat{451, 450, 452, math.Sqrt(2) / 451}, Unstable: true},
		}},
		{"unstable NOPM only", []store.Step{step(1, 0, 4, 1000, 400, false), step(2, 0, 4, 1000, 500, false)}, []StepAggregate{
			{Index: 0, Users: 4, Repeats: 2, TPM: Stat{1000, 1000, 1000, 0}, NOPM: Stat{450, 400, 500, math.Sqrt(5000) / 450}, Unstable: true},
		}},
		{"just under the threshold", []store.Step{step(1, 0, 1, 1000, 450, false), step(2, 0, 1, 1140, 450, false)}, []StepAggregate{
			// sd = 70·√2 = 98.99, mean 1070 → CV 0.0925
			{Index: 0, Users: 1, Repeats: 2, TPM: Stat{1070, 1000, 1140, math.Sqrt(9800) / 1070}, NOPM: Stat{450, 450, 450, 0}},
		}},
		{"partial step left out", []store.Step{step(1, 0, 1, 1000, 450, false), step(2, 0, 1, 100, 45, true)}, []StepAggregate{
			{Index: 0, Users: 1, Repeats: 1, TPM: Stat{1000, 1000, 1000, 0}, NOPM: Stat{450, 450, 450, 0}},
		}},
		{"only partial", []store.Step{step(1, 0, 1, 100, 45, true)}, []StepAggregate{
			{Index: 0, Users: 1, Repeats: 1, Partial: true, TPM: Stat{100, 100, 100, 0}, NOPM: Stat{45, 45, 45, 0}},
		}},
	}
	for _, c := range cases {
		got := Aggregate(c.steps)
		if len(got) != len(c.want) {
			t.Errorf("%s: %d aggregates, want %d", c.name, len(got), len(c.want))
			continue
		}
		for i, w := range c.want {
			g := got[i]
			if g.Index != w.Index || g.Users != w.Users || g.Repeats != w.Repeats || g.Partial != w.Partial || g.Unstable != w.Unstable ||
				!statNear(g.TPM, w.TPM) || !statNear(g.NOPM, w.NOPM) {
				t.Errorf("%s: aggregate %d =\n %+v\nwant\n %+v", c.name, i, g, w)
			}
			if !near(g.TPMPerUser.Mean, w.TPM.Mean/float64(w.Users)) || !near(g.Host.CPUBusyPct, w.TPM.Mean/100) || g.DriverCPUPct != 2 {
				t.Errorf("%s: aggregate %d means: TPM/user %v, busy %v, driver %v", c.name, i, g.TPMPerUser.Mean, g.Host.CPUBusyPct, g.DriverCPUPct)
			}
		}
	}
}

func statNear(a, b Stat) bool {
	return near(a.Mean, b.Mean) && a.Min == b.Min && a.Max == b.Max && near(a.CV, b.CV)
}

// TestAggregateTxn: percentiles across repeats come from the merged
// histograms; without histograms they are means.
func TestAggregateTxn(t *testing.T) {
	mk := func(values []int64) (store.TxnSummary, *hdrhistogram.Histogram) {
		h := hdrhistogram.New(1, 60_000_000, 3)
		for _, v := range values {
			h.RecordValue(v)
		}
		b, _ := h.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
		ms := func(v int64) float64 { return float64(v) / 1000 }
		return store.TxnSummary{Type: "payment", Txn: figures.Txn{Count: int64(len(values)), P50Ms: ms(h.ValueAtQuantile(50)),
			P99Ms: ms(h.ValueAtQuantile(99)), MaxMs: ms(h.Max())}, MeanMs: h.Mean() / 1000, Hist: b}, h
	}
	var a, b []int64
	for i := range 1000 {
		a = append(a, 1000+int64(i))  // 1..2 ms
		b = append(b, 10000+int64(i)) // 10..11 ms
	}
	ta, ha := mk(a)
	tb, hb := mk(b)
	ha.Merge(hb)
	steps := []store.Step{{Repeat: 1, Users: 1, Txn: []store.TxnSummary{ta}}, {Repeat: 2, Users: 1, Txn: []store.TxnSummary{tb}}}
	got := Aggregate(steps)[0].Txn
	if len(got) != 1 || got[0].Count != 2000 {
		t.Fatalf("merged txn %+v", got)
	}
	m := got[0]
	if m.P50Ms != float64(ha.ValueAtQuantile(50))/1000 || m.P99Ms != float64(ha.ValueAtQuantile(99))/1000 || m.MaxMs != float64(hb.Max())/1000 {
		t.Errorf("merged percentiles %+v", m)
	}
	if m.P50Ms > 2.1 || m.P99Ms < 10 || len(m.Hist) == 0 {
		t.Errorf("merged p50 %v p99 %v: not from the merged histogram", m.P50Ms, m.P99Ms)
	}
	// Without a histogram: means of the percentiles, max of the max.
	steps[1].Txn[0].Hist = nil
	m = Aggregate(steps)[0].Txn[0]
	if !near(m.P50Ms, (ta.P50Ms+tb.P50Ms)/2) || m.MaxMs != tb.MaxMs || !near(m.MeanMs, (ta.MeanMs+tb.MeanMs)/2) || m.Hist != nil {
		t.Errorf("fallback %+v", m)
	}
}

func TestRunFigures(t *testing.T) {
	agg := func(users int, tpm, nopm float64) StepAggregate {
		return StepAggregate{Users: users, TPM: Stat{Mean: tpm}, NOPM: Stat{Mean: nopm}}
	}
	for _, c := range []struct {
		name  string
		steps []StepAggregate
		want  Headline
	}{
		{"none", nil, Headline{}},
		{"peaks at different steps", []StepAggregate{agg(1, 100, 40), agg(2, 300, 90), agg(4, 250, 110)},
			Headline{PeakTPM: 300, PeakTPMUsers: 2, PeakNOPM: 110, PeakNOPMUsers: 4, AvgTPM: 650.0 / 3, AvgNOPM: 80, Steps: 3}},
		{"a users count twice in the sequence counts once (its first step)", []StepAggregate{agg(1, 100, 40), agg(2, 300, 90), agg(1, 500, 200)},
			Headline{PeakTPM: 500, PeakTPMUsers: 1, PeakNOPM: 200, PeakNOPMUsers: 1, AvgTPM: 200, AvgNOPM: 65, Steps: 2}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := RunFigures(c.steps); got != c.want {
				t.Errorf("RunFigures = %+v, want %+v", got, c.want)
			}
		})
	}
}

func TestAggregateIntervalAcrossRepeats(t *testing.T) {
	steps := []store.Step{
		{Index: 0, Users: 1, TPM: 100, NOPM: 40, PrecisionPct: 1.5},
		{Index: 0, Users: 1, TPM: 110, NOPM: 44, PrecisionPct: 2.5},
		{Index: 0, Users: 1, TPM: 120, NOPM: 48, PrecisionPct: 1},
		{Index: 1, Users: 2, TPM: 200, NOPM: 80},
	}
	a := Aggregate(steps)
	// mean 110, s = 10, t(0.975, 2) = 4.302653
	if want := 4.302653 * 10 / math.Sqrt(3); a[0].TPMCI.Mean != 110 || math.Abs(a[0].TPMCI.Half-want) > 1e-4 || a[0].PrecisionPct != 2.5 {
		t.Errorf("3 repeats: CI %+v precision %v, want 110 ± %.3f and 2.5", a[0].TPMCI, a[0].PrecisionPct, want)
	}
	if a[1].TPMCI.N != 0 {
		t.Errorf("one repeat gave an interval %+v", a[1].TPMCI)
	}
}
