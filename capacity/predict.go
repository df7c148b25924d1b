package capacity

import (
	"fmt"
	"math"
	"slices"
)

// Saturated is the utilisation from which a queue is named the limit.
const Saturated = 0.8

// Limit names of Prediction.Limit.
const (
	LimitCPU         = "CPU"
	LimitReads       = "I/O reads"
	LimitWrites      = "I/O writes"
	LimitReadBytes   = "read bandwidth"
	LimitWriteBytes  = "write bandwidth"
	LimitConcurrency = "concurrency"
)

// Prediction is what the model expects of a configuration.
type Prediction struct {
	// Config is the configuration predicted.
	Config Config `json:"config"`
	// TPM and NOPM are the expected throughputs; Low and High the band.
	TPM     float64 `json:"tpm"`
	TPMLow  float64 `json:"tpm_low"`
	TPMHigh float64 `json:"tpm_high"`
	NOPM    float64 `json:"nopm"`
	// NOPMLow and NOPMHigh are the band of NOPM. NOPM holds the base's
	// figure of merit (Figure): TPC-C's New-Orders per minute, or a
	// pgbench workload's figure per minute.
	NOPMLow  float64 `json:"nopm_low"`
	NOPMHigh float64 `json:"nopm_high"`
	// Figure names the figure NOPM holds ("" TPC-C's NOPM; Demands.Figure).
	Figure string `json:"figure,omitempty"`
	// NewOrderP90Ms is the expected New-Order p90 (0 when none was measured).
	NewOrderP90Ms float64 `json:"new_order_p90_ms"`
	// Limit is the limiting resource (see the package doc), Utilisation
	// its utilisation at the expected throughput.
	Limit       string  `json:"limit"`
	Utilisation float64 `json:"utilisation"`
	// Band is what the band is made of (see Band): the NOPM and TPM bands
	// are at least ± Band.Rel about the prediction.
	Band Band `json:"band"`
	// Notes says what the prediction assumed where it had no measurement.
	Notes []string `json:"notes,omitempty"`
}

// FigureLabel names the figure NOPM holds: "NOPM" for TPC-C, else a
// pgbench workload's ("TPM of every script", "TPM of SCRIPT").
func (p Prediction) FigureLabel() string {
	if p.Figure == "" {
		return "NOPM"
	}
	return p.Figure
}

// Model predicts configurations from one step's demands.
type Model struct {
	base   Demands
	reads  ReadCurve
	mid    calibrated
	pess   calibrated
	optim  calibrated
	baseR  float64 // the mid network's response time at the base, seconds
	noCurv bool
	miss   *MissCurve // TPC-C's miss-ratio curve where one memory size was measured
}

// background is the cores other processes kept busy during the base (the
// host's busy CPU less the server's and the driver's), taken to stay so.
func background(d Demands) float64 {
	if d.Config.HostCPUs <= 0 {
		return 0
	}
	x := d.TPM.Mean / 60
	return max(0, d.HostBusyPct/100*d.Config.HostCPUs-(d.CPUSec.Mean+d.DriverCPUSec)*x)
}

// calibrated is one set of demands with the "other" delay that makes the
// network reproduce its target throughput at the measured configuration.
type calibrated struct {
	d     Demands
	other float64
	scale float64 // measured / modelled throughput when other = 0 undershoots
	bg    float64 // cores other processes took during the base
}

// New makes the model of the base step's demands; reads gives reads per
// transaction against the cache size (an empty curve: reads do not change
// with the cache).
func New(base Demands, reads ReadCurve) (*Model, error) {
	if base.Users < 1 || base.TPM.Mean <= 0 || base.CPUSec.Mean <= 0 {
		return nil, fmt.Errorf("capacity model: the base step needs users, a throughput and the server's CPU per transaction (users %d, TPM %.0f, CPU %.6f s)",
			base.Users, base.TPM.Mean, base.CPUSec.Mean)
	}
	m := &Model{base: base, reads: reads, noCurv: reads.Points() < 2}
	if m.noCurv && base.Figure == "" && (base.Config.Engine == "" || base.Config.Engine == "postgres") {
		m.miss = NewMissCurve(base.Config.Warehouses)
	}
	m.mid = calibrate(base, 0, base.TPM.Mean/60)
	m.pess = calibrate(base, 1, math.Max(base.TPM.Low(), base.TPM.Mean/2)/60)
	m.optim = calibrate(base, -1, base.TPM.High()/60)
	m.baseR = mva(m.mid.stations(base.Config, unscaled), base.Users, base.ThinkSec).r
	return m, nil
}

// Predict expects the configuration c.
func (m *Model) Predict(c Config) Prediction {
	sc, oneMemory := m.cacheScales(c)
	mid := m.mid.solve(c, sc, m.base.Users, m.base.ThinkSec)
	lo := m.pess.solve(c, sc, m.base.Users, m.base.ThinkSec).x * 60
	hi := m.optim.solve(c, sc, m.base.Users, m.base.ThinkSec).x * 60
	p := Prediction{Config: c, TPM: mid.x * 60, TPMLow: math.Min(lo, hi), TPMHigh: math.Max(lo, hi)}
	p.TPMLow, p.TPMHigh = math.Min(p.TPMLow, p.TPM), math.Max(p.TPMHigh, p.TPM)
	share := m.base.NewOrderShare
	p.Figure = m.base.Figure
	p.NOPM, p.NOPMLow, p.NOPMHigh = p.TPM*share, p.TPMLow*share, p.TPMHigh*share
	if m.baseR > 0 {
		p.NewOrderP90Ms = m.base.NewOrderP90Ms * mid.r / m.baseR
	}
	name, util := busiest(m.mid.stations(c, mid.sc), mid.x/m.mid.scale)
	p.Limit, p.Utilisation = LimitConcurrency, util
	if util >= Saturated {
		p.Limit = name
	}
	p.Band = bandOf(m.base, c, oneMemory).withCount(p.NOPM / 60 * m.base.WindowSec)
	p.widen(p.Band)
	if !sameConfig(c, m.base.Config) {
		p.Notes = append(p.Notes, m.base.Caveats()...)
	}
	if n := growthNote(m.base, c); n != "" {
		p.Notes = append(p.Notes, n)
	}
	p.Notes = append(p.Notes, m.notes(c, oneMemory, p.Band)...)
	return p
}

// sameConfig says a and b are alike but for a cgroup version one of them
// does not know.
func sameConfig(a, b Config) bool {
	if a.CgroupVersion == 0 || b.CgroupVersion == 0 {
		a.CgroupVersion = b.CgroupVersion
	}
	return a == b
}

// cacheScales are the base's reads and CPU per transaction scaled to c's
// cache: from the measured curve where two or more sizes were measured,
// else from TPC-C's miss-ratio curve (oneMemory true); unscaled at the
// base's size or where neither knows.
func (m *Model) cacheScales(c Config) (sc scales, oneMemory bool) {
	if c.CacheBytes == m.base.Config.CacheBytes {
		return unscaled, false
	}
	if !m.noCurv {
		return scales{reads: m.reads.Scale(m.base.Config.CacheBytes, c.CacheBytes), cpu: m.reads.CPUScale(m.base.Config.CacheBytes, c.CacheBytes)}, false
	}
	if m.miss != nil {
		return m.miss.scales(m.base.Config.CacheBytes, c.CacheBytes, m.base), true
	}
	return unscaled, true
}

// notes say where the model could not know: one memory size measured,
// another engine version; and what the band is made of.
func (m *Model) notes(c Config, oneMemory bool, b Band) []string {
	var out []string
	switch {
	case oneMemory && m.miss != nil:
		out = append(out, "reads and CPU per transaction from TPC-C's access skew (a miss-ratio curve): one memory size measured; the band is wider")
	case oneMemory && m.base.Figure != "":
		out = append(out, "reads per transaction taken as measured: one memory size measured, and the model cannot know how a pgbench workload's reads change with memory (TPC-C's miss-ratio curve is TPC-C's access skew); the band is wider")
	case oneMemory:
		out = append(out, "reads per transaction taken as measured: fewer than two memory sizes measured and no warehouse count for TPC-C's miss-ratio curve; the band is wider")
	}
	if slices.Contains(b.Kinds, KindVersion) {
		out = append(out, "predicted from engine version "+m.base.Config.EngineVersion+"'s demands: none of "+c.EngineVersion+" measured; the band is wider")
	}
	return append(out, b.note())
}

// calibrate finds the other delay of the demands moved by sign (−1 each
// at its interval's lower end, 0 the means, +1 the upper ends) that makes
// the base configuration's throughput x (per second).
func calibrate(base Demands, sign float64, x float64) calibrated {
	d := base
	d.CPUSec.Mean += sign * d.CPUSec.Half
	d.ReadIOs.Mean = math.Max(0, d.ReadIOs.Mean+sign*d.ReadIOs.Half)
	d.WriteIOs.Mean = math.Max(0, d.WriteIOs.Mean+sign*d.WriteIOs.Half)
	c := calibrated{d: d, scale: 1, bg: background(base)}
	at := func(c calibrated) float64 {
		return mva(c.stations(base.Config, unscaled), base.Users, base.ThinkSec).x
	}
	if at(c) <= x {
		return fitBackground(c, at, x)
	}
	lo, hi := 0.0, float64(base.Users)/x
	for range 100 {
		c.other = (lo + hi) / 2
		if at(c) > x {
			lo = c.other
		} else {
			hi = c.other
		}
	}
	c.other = (lo + hi) / 2
	return c
}

// fitBackground is c when the network cannot reach the base's throughput
// x even with no other delay: the other processes' cores (bg) were
// overestimated (they did not all compete with the server: its cpuset, the
// scheduler's shares), so bg is the largest that reaches x; when even none
// does, the throughput is scaled by the shortfall (every queue's bound
// then scaled too, I/O limits' included, so this is the last resort).
func fitBackground(c calibrated, at func(calibrated) float64, x float64) calibrated {
	bg := c.bg
	c.bg, c.other = 0, 0
	if x0 := at(c); x0 <= x {
		c.scale = x / x0
		return c
	}
	lo, hi := 0.0, bg
	for range 60 {
		c.bg = (lo + hi) / 2
		if at(c) >= x {
			lo = c.bg
		} else {
			hi = c.bg
		}
	}
	c.bg = lo
	return c
}

// scales are the base's reads and CPU per transaction scaled to another
// cache size (ReadCurve; MissCurve may add reads instead, readsAdd per
// transaction, where the base read too little to scale), and under a
// write bandwidth limit the commits a WAL flush groups (0: as at the
// base) and the WAL per transaction (limitedWriteBytes).
type scales struct{ reads, readsAdd, cpu, group, wal float64 }

// unscaled is the base's own.
var unscaled = scales{reads: 1, cpu: 1}

// flushGroupShare is the share of the transactions queued at a write
// bandwidth limit that one WAL flush groups: fitted to three measured
// points (TestPredictWriteBandwidthMeasured: 4 users, 1 and 2 MB/s, where
// flushes grouped 1.3-2.0 commits against 3.5 queued), not measured
// elsewhere (a flush takes only the commits whose records are in when it
// starts, not every one queued behind it).
const flushGroupShare = 0.4

// solve is the network of configuration c, its demands scaled by sc, for
// users thinking think. Under a write bandwidth limit the base did not
// have, the commits a flush groups and the bytes they write depend on each
// other (flushGroupShare of the queue at the limit); solved by iterating
// from one commit a flush.
func (c calibrated) solve(cfg Config, sc scales, users int, think float64) solution {
	if cfg.WriteBps > 0 && c.d.Config.WriteBps <= 0 {
		sc.group, sc.wal = 1, c.d.WALBytes
		for range 50 {
			s := mva(c.stations(cfg, sc), users, think)
			q := s.queue[LimitWriteBytes]
			sc.group = (sc.group + max(1, q*flushGroupShare)) / 2
			if wal, ok := c.d.walPerTxn(s.x * c.scale); ok {
				sc.wal = (sc.wal + wal) / 2
			}
		}
	}
	s := mva(c.stations(cfg, sc), users, think)
	s.x *= c.scale
	s.sc = sc
	return s
}

// stations is the network of configuration cfg (see the package doc).
func (c calibrated) stations(cfg Config, sc scales) []station {
	d := c.d
	d.CPUSec.Mean *= sc.cpu
	// a quota below a core loses a share to throttling (the base's own
	// loss is in its measured CPU per transaction)
	d.CPUSec.Mean *= throttleEfficiency(d.Config, d.CPUSec.Mean, d.Users) / throttleEfficiency(cfg, d.CPUSec.Mean, d.Users)
	// and procedures-mode calls take more CPU on fewer cores
	d.CPUSec.Mean *= contentionGrowth(d, cfg)
	readScale := sc.reads
	st := cpuStations(d, cfg, c.bg)
	reads, writes := max(0, d.ReadIOs.Mean*readScale+sc.readsAdd), d.WriteIOs.Mean
	readBytes := max(0, d.ReadBytes*readScale+sc.readsAdd*pageBytes)
	writeBytes := d.WriteBytes
	if sc.group > 0 {
		writeBytes = limitedWriteBytes(d, sc.group, sc.wal)
	}
	st = append(st, ioStations(LimitReads, LimitReadBytes, reads, readBytes, cfg.ReadIOPS, cfg.ReadBps, d.IOSec)...)
	st = append(st, ioStations(LimitWrites, LimitWriteBytes, writes, writeBytes, cfg.WriteIOPS, cfg.WriteBps, d.IOSec)...)
	return append(st, station{name: "other", demand: c.other})
}

// cpuStations are the CPUs of configuration cfg for demands d, with bg
// cores taken by other processes. A transaction's CPU time is spent once,
// so the server's CPU is one station: its cores (quotaCores: its quota, or
// what other processes leave free of the cores it runs on when that is
// less); where the driver shares the server's cores,
// the host's cores (less bg) instead, for the server's and the driver's
// CPU per transaction together, when they bound the throughput lower than
// the quota does (the driver's CPU is then a delay beside the quota's
// queue). cfg.CPUs 0 is one unlimited core per user, a delay.
func cpuStations(d Demands, cfg Config, bg float64) []station {
	if cfg.CPUs <= 0 {
		return []station{{name: LimitCPU, demand: d.CPUSec.Mean}}
	}
	free := 1.0
	if cfg.HostCPUs > 0 {
		free = max(0.05, 1-bg/cfg.HostCPUs)
	}
	if !cfg.DriverShares || cfg.HostCPUs <= 0 {
		return seidmann(d.CPUSec.Mean, quotaCores(cfg, free))
	}
	both, host := d.CPUSec.Mean+d.DriverCPUSec, cfg.HostCPUs*free
	if host/both <= cfg.CPUs/d.CPUSec.Mean {
		return seidmann(both, host)
	}
	return append(seidmann(d.CPUSec.Mean, cfg.CPUs), station{name: "driver", demand: d.DriverCPUSec})
}

// quotaCores is what a CPU quota of cfg.CPUs cores gives the server when
// other processes leave the share free (0-1) of the host's cores free. A
// cgroup quota is an absolute allowance of CPU time per period, not a
// share of the host: other processes take it away only where they leave
// the server's own cores (its cpuset: the whole cores the quota spans,
// caps.WholeCores, spread evenly with the rest of the host's load) less
// than the quota. So a quarter of a core on a host three quarters busy is
// still a quarter of a core (min(0.25, 1 × 0.25)), where scaling the quota
// by the free share predicted 0.06; one core on a host half busy is half a
// core (min(1, 1 × 0.5)).
func quotaCores(cfg Config, free float64) float64 {
	spans := math.Ceil(cfg.CPUs - 1e-9)
	if cfg.HostCPUs > 0 {
		spans = math.Min(spans, cfg.HostCPUs)
	}
	return math.Min(cfg.CPUs, spans*free)
}

// seidmann is a CPU of c cores for demand seconds per transaction: one
// queue below a core, else Seidmann's approximation of c servers (a queue
// of demand/c and a delay of demand·(c−1)/c).
func seidmann(demand, c float64) []station {
	if c <= 1 {
		return []station{{name: LimitCPU, demand: demand / c, queue: true}}
	}
	return []station{{name: LimitCPU, demand: demand / c, queue: true}, {name: "cpu-delay", demand: demand * (c - 1) / c}}
}

// ioStations is one direction of I/O: a queue per limit given, else a
// delay of the measured device time.
func ioStations(opsName, bytesName string, ops, bytes, iopsLimit, bpsLimit, ioSec float64) []station {
	var st []station
	if iopsLimit > 0 {
		st = append(st, station{name: opsName, demand: ops / iopsLimit, queue: true})
	}
	if bpsLimit > 0 {
		st = append(st, station{name: bytesName, demand: bytes / bpsLimit, queue: true})
	}
	if len(st) == 0 {
		st = append(st, station{name: opsName + " (device)", demand: ops * ioSec})
	}
	return st
}
