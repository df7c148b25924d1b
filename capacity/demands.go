package capacity

import (
	"fmt"
	"time"

	"gonum.org/v1/gonum/floats"

	"github.com/rightsize/rightsize/analysis"
	"github.com/rightsize/rightsize/figures"
	"github.com/rightsize/rightsize/steady"
	"github.com/rightsize/rightsize/store"
	"github.com/rightsize/rightsize/tpcc"
	"github.com/rightsize/rightsize/waits"
)

// Config is a server configuration: what a run measured, or a candidate.
// Zero values mean "not limited" (the host's).
type Config struct {
	// CPUs is the cores the server may use (0.5 is half a core's quota);
	// give the host's cores when it is not capped (0 is taken as a core
	// per user: CPU never queues).
	CPUs float64 `json:"cpus"`
	// CacheBytes is the memory the server may cache in (its memory cap).
	CacheBytes int64 `json:"cache_bytes,omitempty"`
	// ReadIOPS and WriteIOPS are I/O operation limits per second.
	ReadIOPS  float64 `json:"read_iops,omitempty"`
	WriteIOPS float64 `json:"write_iops,omitempty"`
	// ReadBps and WriteBps are bandwidth limits, bytes per second.
	ReadBps  float64 `json:"read_bps,omitempty"`
	WriteBps float64 `json:"write_bps,omitempty"`
	// HostCPUs is the host's cores (0: unknown); DriverShares tells the
	// driver runs on the server's cores (caps.Caps.DriverShares), so the
	// two queue for the same CPUs.
	HostCPUs     float64 `json:"host_cpus,omitempty"`
	DriverShares bool    `json:"driver_shares,omitempty"`
	// Warehouses, Mode ("procedures", "statements"), Engine and
	// EngineVersion are the workload and the server measured ("" and 0:
	// unknown; a pgbench workload has neither warehouses nor a mode): the
	// memory prediction from one size needs the warehouses (MissCurve),
	// the band widens for statements mode and another version (Band).
	Warehouses    int    `json:"warehouses,omitempty"`
	Mode          string `json:"mode,omitempty"`
	Engine        string `json:"engine,omitempty"`
	EngineVersion string `json:"engine_version,omitempty"`
	// CgroupVersion is the cgroup hierarchy the caps were applied on (1,
	// 2; 0: unknown or none applied): a write bandwidth limit on v2 is not
	// predicted (Band).
	CgroupVersion int `json:"cgroup_version,omitempty"`
}

// Demands are a measured step's demands per committed transaction, and
// what it measured them under.
type Demands struct {
	// Config is the configuration measured.
	Config Config `json:"config"`
	// Users is the step's virtual users; ThinkSec the think and keying time
	// per transaction of each (0 when users do not think).
	Users    int     `json:"users"`
	ThinkSec float64 `json:"think_s"`
	// TPM is the measured throughput with its interval.
	TPM steady.Interval `json:"tpm"`
	// NewOrderShare is the figure of merit's share of the transactions
	// (NOPM / TPM: TPC-C's New-Orders, a pgbench workload's scripts of its
	// figure); NewOrderP90Ms the figure's p90 (New-Order's for TPC-C).
	NewOrderShare float64 `json:"new_order_share"`
	NewOrderP90Ms float64 `json:"new_order_p90_ms"`
	// Figure names the figure of merit the step's NOPM holds (FigureName):
	// "" for TPC-C's NOPM, else a pgbench workload's ("TPM of every
	// script", "TPM of SCRIPT"). Predictions of these demands carry it.
	Figure string `json:"figure,omitempty"`
	// CPUSec is the server's CPU seconds per transaction.
	CPUSec steady.Interval `json:"cpu_s"`
	// ReadIOs and WriteIOs are the device operations per transaction.
	ReadIOs  steady.Interval `json:"read_ios"`
	WriteIOs steady.Interval `json:"write_ios"`
	// ReadBytes and WriteBytes are the device bytes per transaction.
	ReadBytes  float64 `json:"read_bytes"`
	WriteBytes float64 `json:"write_bytes"`
	// IOSource is where the four I/O demands come from: IOServer (the
	// server's cgroup counters, its own I/O) or IOHost (the host's disks,
	// every process's I/O, when the server ran in no group).
	IOSource string `json:"io_source"`
	// IOSec is the mean device time per I/O, seconds (from the host's
	// disks: a cgroup counts no device time).
	IOSec float64 `json:"io_s"`
	// DriverCPUSec is the driver's CPU seconds per transaction.
	DriverCPUSec float64 `json:"driver_cpu_s"`
	// WALBytes and BlocksRead are the server's log bytes and blocks read
	// (from outside its buffer pool) per transaction.
	WALBytes   float64 `json:"wal_bytes"`
	BlocksRead float64 `json:"blocks_read"`
	// WindowSec is the step's measured window, seconds: a prediction's
	// band counts the spread of a window as long (Band.Count).
	WindowSec float64 `json:"window_s,omitempty"`
	// WALCurve is the base's WAL against its transactions, second by
	// second from its start (empty where not measured): a write bandwidth
	// limit's prediction reads the WAL per transaction of the fewer
	// transactions a limited step completes from it.
	WALCurve WALCurve `json:"wal_curve,omitzero"`
	// WALSyncs are the server's log flushes (syncs) per transaction, from
	// its own counter (PostgreSQL 14+: pg_stat_wal's wal_sync); 0 where
	// not measured. Fewer than one: a flush already grouped commits.
	WALSyncs float64 `json:"wal_syncs,omitempty"`
	// Bound is the step's diagnosis ("CPU-bound", "lock-bound" ...; ""
	// when none), HostBusyPct the host's CPUs busy, %.
	Bound       string  `json:"bound,omitempty"`
	HostBusyPct float64 `json:"host_busy_pct"`
	// Drift is the drift between runs of the base's configuration where
	// the store's A/A history measured it (drift.MeasureBefore over the
	// runs up to the base: its figure of merit's CV and degrees of
	// freedom); the zero value is not measured, and DefaultDrift is taken.
	// The band carries it (Band).
	Drift steady.Drift `json:"drift,omitzero"`
	// CoreGrowth are the changes of the server's CPU per transaction with
	// its whole cores that the base's host measured before the base (its
	// earlier sweeps and fits in the base's mode and workload); where one
	// change was measured MinCoreRatios times or more, their median stands
	// for the contention term's (contentionGrowth).
	CoreGrowth []CoreRatio `json:"core_growth,omitempty"`
}

// Caveats says where the base step makes predictions less sure: waits
// the model holds constant, and a host whose CPUs other processes took.
func (d Demands) Caveats() []string {
	var out []string
	switch d.Bound {
	case "lock-bound", "log-bound", "latch-bound":
		out = append(out, "the base was "+d.Bound+": the model holds its waits constant, while fewer resources lengthen them; predictions of less are optimistic")
	}
	if d.HostBusyPct >= 90 && d.Config.CPUs > 0 && d.CPUSec.Mean*d.TPM.Mean/60 < 0.9*d.Config.CPUs {
		out = append(out, fmt.Sprintf("the host's CPUs were %.0f %% busy during the base while the server used less than its cores: other processes (the driver, other work) took CPU the model counts as waiting; predictions of fewer cores are optimistic", d.HostBusyPct))
	}
	return out
}

// The sources of Demands.IOSource.
const (
	IOServer = "server cgroup"
	IOHost   = "host disks"
)

// conf is the level of the demands' intervals.
const conf = 0.95

// FromStep derives the demands of a measured TPC-C step taken under cfg,
// with users thinking think per transaction (FromStepOf with tpcc.Merit).
func FromStep(s store.Step, cfg Config, think time.Duration) (Demands, error) {
	return FromStepOf(s, cfg, think, tpcc.Merit)
}

// FigureName names the figure of merit m in predictions: "" for TPC-C's
// NOPM (tpcc.Merit), else "TPM of every script" or "TPM of SCRIPT" (a
// pgbench workload's, store.Run.WorkloadMerit).
func FigureName(m store.Merit) string {
	if m == tpcc.Merit {
		return ""
	}
	return m.Name()
}

// FromStepOf derives the demands of a measured step taken under cfg, with
// users thinking think per transaction, its figure of merit m (the
// step's NOPM holds m's rate: TPC-C's New-Orders or a pgbench workload's
// figure). The demands are per transaction of every kind; the figure is
// their share (NewOrderShare) and its p90 m's. The I/O demands are the
// server's own (its cgroup's counters) when the step measured them, else
// the host's disks' (Demands.IOSource).
func FromStepOf(s store.Step, cfg Config, think time.Duration, m store.Merit) (Demands, error) {
	tps := s.TPM / 60
	if tps <= 0 || s.Partial {
		return Demands{}, fmt.Errorf("step %d (%d users): no complete measured throughput to derive demands from", s.Index, s.Users)
	}
	d := Demands{
		Config: cfg, Users: s.Users, ThinkSec: think.Seconds(),
		TPM:           steady.Interval{Mean: s.TPM, Half: s.TPMCIHalf, Confidence: conf},
		NewOrderShare: s.NOPM / s.TPM,
		IOSec:         s.Host.DiskAvgLatencyMs / 1000,
		DriverCPUSec:  s.DriverCPUUsPerTxn / 1e6,
		HostBusyPct:   figures.CPUBusy.Of(&s.Host),
	}
	why := analysis.WhyOf(&s)
	if why.Verdict != nil {
		d.Bound = why.Verdict.Kind
	}
	d.WALSyncs = walSyncs(why.Waits, tps)
	if t := m.Of(s.Txn); t != nil {
		d.NewOrderP90Ms = t.P90Ms
	}
	d.Figure = FigureName(m)
	if n := s.DB.Commits + s.DB.Rollbacks; n > 0 {
		d.WALBytes = float64(s.DB.WALBytes) / float64(n)
		d.BlocksRead = float64(s.DB.BlocksRead) / float64(n)
	}
	d.WALCurve, d.WindowSec = walCurveOf(s), s.Measured().Seconds()
	txn := perSecond(s)
	d.CPUSec = spread(s.ServerCPUUsPerTxn/1e6, txn, s, func(h store.HostSample) float64 { return h.ServerCPUPct / 100 })
	io := ioOf(&s.Host)
	d.IOSource = io.source
	d.ReadIOs = spread(io.step.readIOPS/tps, txn, s, func(h store.HostSample) float64 { return io.sample(&h).readIOPS })
	d.WriteIOs = spread(io.step.writeIOPS/tps, txn, s, func(h store.HostSample) float64 { return io.sample(&h).writeIOPS })
	d.ReadBytes, d.WriteBytes = io.step.readMBps*1e6/tps, io.step.writeMBps*1e6/tps
	if d.CPUSec.Mean <= 0 {
		return Demands{}, fmt.Errorf("step %d (%d users): the server's CPU was not measured (a remote server, or an import); demands need it", s.Index, s.Users)
	}
	return d, nil
}

// walSyncs are the log flushes per transaction in profile p of a step
// measured at tps transactions a second (0: not counted).
func walSyncs(p *waits.Profile, tps float64) float64 {
	if p == nil || p.Seconds <= 0 {
		return 0
	}
	return p.Counters["wal.wal_sync"] / (tps * p.Seconds)
}

// ioRates are I/O operations and MB per second.
type ioRates struct{ readIOPS, writeIOPS, readMBps, writeMBps float64 }

// ioFigures are where a step's I/O demands come from: its source, the
// step's rates and a sample's.
type ioFigures struct {
	source string
	step   ioRates
	sample func(h *store.HostSample) ioRates
}

// ioOf prefers the server's own I/O (its cgroup's counters) to the host's
// disks, which count every process's.
func ioOf(h *store.HostSummary) ioFigures {
	if h.ServerIOMeasured() {
		return ioFigures{IOServer, ioRates{h.ServerReadIOPS, h.ServerWriteIOPS, h.ServerReadMBps, h.ServerWriteMBps},
			func(h *store.HostSample) ioRates {
				return ioRates{h.ServerReadIOPS, h.ServerWriteIOPS, h.ServerReadMBps, h.ServerWriteMBps}
			}}
	}
	return ioFigures{IOHost, ioRates{h.DiskReadIOPS, h.DiskWriteIOPS, h.DiskReadMBps, h.DiskWriteMBps},
		func(h *store.HostSample) ioRates {
			return ioRates{h.DiskReadIOPS, h.DiskWriteIOPS, h.DiskReadMBps, h.DiskWriteMBps}
		}}
}

// perSecond maps each measured second (from the step's MeasureStart) to
// the transactions completed in it.
func perSecond(s store.Step) map[int]float64 {
	from := int(s.MeasureStart.Sub(s.Start).Round(time.Second) / time.Second)
	to := int(s.MeasureEnd.Sub(s.Start).Round(time.Second) / time.Second)
	out := map[int]float64{}
	for _, sec := range s.Seconds {
		if sec.Offset >= from && sec.Offset < to {
			out[sec.Offset-from] = float64(sec.Txn)
		}
	}
	return out
}

// spread is the interval of a demand whose mean is mean: the half-width
// is the batch-means one of the per-second demands (the sampled rate over
// the transactions of that second), relative, applied to mean. Too few
// seconds give no half-width.
func spread(mean float64, txn map[int]float64, s store.Step, rate func(store.HostSample) float64) steady.Interval {
	iv := steady.Interval{Mean: mean, Confidence: conf}
	rates, txns := sampled(s, txn, rate)
	per := floats.DivTo(make([]float64, len(rates)), rates, txns)
	bm, _, err := steady.BatchMeans(per, conf)
	if err != nil || bm.Mean <= 0 {
		return iv
	}
	iv.Half = mean * bm.Rel()
	iv.N, iv.BatchSize = bm.N, bm.BatchSize
	return iv
}

// SteadyReads are a step's device reads per transaction after the
// cache's warm-up: the per-second reads per transaction (the server's own
// when measured, else the host's) truncated where MSER-5 puts the end of
// their warm-up, over the seconds kept (reads over transactions). A cache
// still filling during the window (a restore, a prewarm that could not
// hold the largest table) reads more at its start than at its end; the
// window's mean (Demands.ReadIOs) holds both. dropped is the seconds left
// out; ok is false without per-second figures.
func SteadyReads(s store.Step) (perTxn float64, dropped int, ok bool) {
	io := ioOf(&s.Host)
	reads, txns := sampled(s, perSecond(s), func(h store.HostSample) float64 { return io.sample(&h).readIOPS })
	if len(reads) < 2*steady.MSERBatch {
		return 0, 0, false
	}
	per := floats.DivTo(make([]float64, len(reads)), reads, txns)
	dropped, _ = steady.MSER5(per)
	return floats.Sum(reads[dropped:]) / floats.Sum(txns[dropped:]), dropped, true
}

// sampled pairs each host sample of the measured window with the
// transactions completed in its second (txn, perSecond): rate's value of
// the sample and that count, for the seconds with transactions.
func sampled(s store.Step, txn map[int]float64, rate func(store.HostSample) float64) (rates, txns []float64) {
	for _, h := range s.Samples {
		sec := int(h.At.Sub(s.MeasureStart).Round(time.Second)/time.Second) - 1
		if n, ok := txn[sec]; ok && n > 0 && sec >= 0 {
			rates, txns = append(rates, rate(h)), append(txns, n)
		}
	}
	return rates, txns
}
