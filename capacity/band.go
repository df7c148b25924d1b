package capacity

import (
	"fmt"
	"math"
	"strings"
)

// The kinds of change between the base and a predicted configuration
// whose error the band carries (ModelErrors).
const (
	KindCores     = "cores"
	KindQuota     = "quota below a core"
	KindIOPS      = "IOPS limit"
	KindBandwidth = "bandwidth limit"
	// KindBandwidthV2 is a write bandwidth limit on cgroup v2: io.max
	// throttles the writeback of the pages the server's group dirtied too
	// (the WAL included, once each segment's pages are the group's:
	// instance.ConfinedPostgres.LiftIO), so a limit well below the base's rate holds
	// the server to the log its transactions write, full-page images
	// after the step's starting checkpoint included (WALCurve).
	KindBandwidthV2 = "write bandwidth limit on cgroup v2"
	KindMemory      = "memory"
	KindMemoryOne   = "memory from one measured size"
	KindStatements  = "statements mode"
	KindVersion     = "engine version"
)

// ModelError is the model's relative NOPM error on one kind of change, as
// measured, and where it was measured.
type ModelError struct {
	Kind   string  `json:"kind"`
	Rel    float64 `json:"rel"`
	Source string  `json:"source"`
}

// ModelErrors are the model's errors by kind of change: the largest of
// the medians of three rounds where rounds were measured, else of single
// runs; the between-run drift is a term of its own (Band), so these are
// the model's errors, not the runs'.
var ModelErrors = []ModelError{
	{KindCores, 0.10, "bench/PREDICT.md 2026-11-27, cpus 2 → 1.5, 1 (procedures, 4 W × 8 users, medians of 3 rounds): −6.5 %, +10.0 %, +8.7 % with 2000 IOPS"},
	{KindQuota, 0.17, "issue 48 (statements, 8 users, single runs): cpus 1 → 0.5 +11.1 %, 0.25 +16.7 %; bench/PREDICT.md cpus 2 → 0.5 +10.6 % (medians), −16.2 % round 1"},
	{KindIOPS, 0.10, "bench/PREDICT.md riops=wiops=400 rows: −9.6 % to +0.8 % (medians); issue 48 riops=wiops=150 at cpus 1: −6.1 %"},
	{KindBandwidth, 0.30, "issue 48 wbps=3M at cpus 1: −30.1 % with every byte charged; with the flushes grouped (limitedWriteBytes) −8.8 %, −6.2 %, +4.5 % on the three points it was fitted to; out of sample, with the base's log syncs (2026-11-29): bench/predict's bw shape −3.5 % (medians), −35.9 % in a round whose base held a checkpoint's writes, TestSweepPredictsWriteBandwidth −22 % (the same cause); with a limited step's data pages capped at a third of its log bytes (restShare): that round −8.1 %, the band test +4.1 %"},
	{KindBandwidthV2, 0.20, "2026-11-30, cgroup v2 guest (test/v2guest/run.sh OUT bandwidth: 2 W, 4 users, cpus 1, 5 s + 30 s, none → wbps=1M, 200K, 50K, 4 sweeps; the restore checkpointed, the WAL's cache dropped, the WAL curve; nothing fitted to them): 1M +4.5 %, −6.2 %, +14.1 %, −9.0 %; 200K −3.3 %, −11.8 %, −3.7 %, −13.7 %; 50K −15.5 % (7 New-Orders counted), +27.6 % and +41.2 % (4 counted each: the band's count term, not this error, carries those), one step with none; two sweeps with 90 s windows: 1M +4.1 %, −0.1 %, 200K −3.5 %, −1.0 %, 50K +25.0 %, −6.3 % (17 and 19 counted); TestPredictWriteBandwidthCgroupV2's replay of two of the bases within ±20 %; before (the WAL's pages owned by whichever group cached them first) one limit measured 76 to 1,088 NOPM and was not predicted"},
	{KindMemory, 0.08, "bench/PREDICT.md 10 W from 1G and 256M: 512M −5.0 %, 256M −7.7 %, 128M +5.7 % (earlier run)"},
	{KindMemoryOne, 0.20, "issue 48 (8 W, --prewarm, from 1G) with reads held constant: +13.1 % to +19.4 %; the TPC-C miss-ratio curve replacing it is not yet measured in rounds"},
	{KindStatements, 0.10, "issue 48: statements-mode quota predictions erred +11.1 % and +16.7 % where procedures-mode ones erred +10.6 %"},
	{KindVersion, 0.50, "none measured: another engine version's demands stand for this one's (a version can change throughput by half or more)"},
}

// DefaultDrift is the between-run coefficient of variation of throughput
// taken where the base's was not measured (Demands.Drift): conservative
// for this project's VM, whose identical runs drift by 15-35 % within
// minutes (DESIGN.md, "Known traps").
const DefaultDrift = 0.10

// bandCoverage is the band's two-sided coverage, bandZ its standard
// normal quantile.
const (
	bandCoverage = 0.90
	bandZ        = 1.645
)

// Band is what a prediction's band is made of: each a relative half-width.
type Band struct {
	// Rel is the band's relative half-width about the prediction.
	Rel float64 `json:"rel"`
	// Model is the model's error over the kinds of change (ModelErrors,
	// in quadrature), Kinds those kinds.
	Model float64  `json:"model"`
	Kinds []string `json:"kinds,omitempty"`
	// Base is the base's own measurement interval (its TPM's, relative).
	Base float64 `json:"base"`
	// Drift is the between-run CV taken, DriftMeasured whether the base's
	// A/A history measured it (else DefaultDrift), over DriftRuns runs.
	Drift         float64 `json:"drift"`
	DriftMeasured bool    `json:"drift_measured"`
	DriftRuns     int     `json:"drift_runs,omitempty"`
	// Count is the predicted window's own counting spread (at bandZ, of
	// the Count figures it would count: 1/√n of n events), which matters
	// where a limit leaves a step a handful of transactions.
	Count   float64 `json:"count,omitempty"`
	Counted float64 `json:"counted,omitempty"`
}

// withCount adds the spread of a window that counts n of the figure's
// events (a Poisson count's 1/√n, at bandZ) to b, in quadrature.
func (b Band) withCount(n float64) Band {
	if n <= 0 {
		return b
	}
	b.Count, b.Counted = bandZ/math.Sqrt(n), n
	b.Rel = math.Sqrt(b.Rel*b.Rel + b.Count*b.Count)
	return b
}

// errorOf is the model's error on kind (0 for an unknown kind).
func errorOf(kind string) float64 {
	for _, e := range ModelErrors {
		if e.Kind == kind {
			return e.Rel
		}
	}
	return 0
}

// kindsOf are the kinds of change from base to c; oneMemory tells the
// memory is predicted from one measured size.
func kindsOf(base Demands, c Config, oneMemory bool) []string {
	b := base.Config
	var out []string
	if b.CPUs != c.CPUs {
		if (b.CPUs > 0 && b.CPUs < 1) || (c.CPUs > 0 && c.CPUs < 1) {
			out = append(out, KindQuota)
		} else {
			out = append(out, KindCores)
		}
	}
	if b.ReadIOPS != c.ReadIOPS || b.WriteIOPS != c.WriteIOPS {
		out = append(out, KindIOPS)
	}
	switch {
	case b.WriteBps != c.WriteBps && c.WriteBps > 0 && (b.CgroupVersion == 2 || c.CgroupVersion == 2):
		out = append(out, KindBandwidthV2)
	case b.ReadBps != c.ReadBps || b.WriteBps != c.WriteBps:
		out = append(out, KindBandwidth)
	}
	if b.CacheBytes != c.CacheBytes {
		if oneMemory {
			out = append(out, KindMemoryOne)
		} else {
			out = append(out, KindMemory)
		}
	}
	if c.EngineVersion != "" && b.EngineVersion != "" && c.EngineVersion != b.EngineVersion {
		out = append(out, KindVersion)
	}
	if len(out) > 0 && (b.Mode == "statements" || c.Mode == "statements") {
		out = append(out, KindStatements)
	}
	return out
}

// bandOf is the band of a prediction of c from base: the model's errors
// by kind of change, the base's measurement interval and the drift
// between the base's run and the one that will measure c (√2 of one run's
// CV, at bandZ; a CV measured from few runs is itself uncertain, so at
// Student's t of its degrees of freedom instead), in quadrature.
func bandOf(base Demands, c Config, oneMemory bool) Band {
	b := Band{Kinds: kindsOf(base, c, oneMemory), Base: base.TPM.Rel(), Drift: DefaultDrift}
	z := bandZ
	if base.Drift.Measured() {
		b.Drift, b.DriftMeasured, b.DriftRuns = base.Drift.CV, true, base.Drift.Runs
		z = base.Drift.Quantile(bandCoverage)
	}
	var model2 float64
	for _, k := range b.Kinds {
		model2 += errorOf(k) * errorOf(k)
	}
	b.Model = math.Sqrt(model2)
	drift := z * math.Sqrt2 * b.Drift
	b.Rel = math.Sqrt(model2 + b.Base*b.Base + drift*drift)
	return b
}

// note says what the band is made of.
func (b Band) note() string {
	drift := "assumed"
	if b.DriftMeasured {
		drift = fmt.Sprintf("measured over %d runs", b.DriftRuns)
	}
	s := fmt.Sprintf("band ±%.0f %%: drift between runs %.0f %% (%s), the base's interval %.0f %%", b.Rel*100, b.Drift*100, drift, b.Base*100)
	if len(b.Kinds) > 0 {
		s += fmt.Sprintf(", the model's error %.0f %% (%s)", b.Model*100, strings.Join(b.Kinds, ", "))
	}
	if b.Count >= 0.01 {
		s += fmt.Sprintf(", the window's count %.0f %% (%.0f counted)", b.Count*100, b.Counted)
	}
	return s
}

// widen makes p's bands at least ±b.Rel about its values.
func (p *Prediction) widen(b Band) {
	lo, hi := max(0, 1-b.Rel), 1+b.Rel
	p.TPMLow, p.TPMHigh = math.Min(p.TPMLow, p.TPM*lo), math.Max(p.TPMHigh, p.TPM*hi)
	p.NOPMLow, p.NOPMHigh = math.Min(p.NOPMLow, p.NOPM*lo), math.Max(p.NOPMHigh, p.NOPM*hi)
}
