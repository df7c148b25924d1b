package scenario

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"time"

	"github.com/rightsize/rightsize/capacity"
	"github.com/rightsize/rightsize/caps"
	"github.com/rightsize/rightsize/cgroup"
	"github.com/rightsize/rightsize/fit"
	"github.com/rightsize/rightsize/store"
	"github.com/rightsize/rightsize/tpcc"
)

// fitPredictKey is the stored fit's Spec key of its predictSpec (absent in
// fits stored before predictions: they replay without a model).
const fitPredictKey = "predict"

// predictSpec is what a fit's model needs, stored with the fit so that a
// replay (LoadFit) or --resume builds the same model and makes the same
// decisions.
type predictSpec struct {
	// Base is the configuration a candidate keeps where it does not vary
	// it: the base options' memory and I/O limit, the host's cores.
	Base capacity.Config `json:"base"`
	// DriverCPUs is the base's --driver-cpus: with a candidate's cpus, it
	// says whether the driver shares the server's cores.
	DriverCPUs string `json:"driver_cpus,omitempty"`
	// Think is each user's keying and think time per transaction.
	Think time.Duration `json:"think_ns"`
	// From is a stored run the model learns first ("" none).
	From string `json:"from,omitempty"`
	// MeasureAll keeps the proof by measurement (--measure-all).
	MeasureAll bool `json:"measure_all,omitempty"`
	// Workload names the fit's pgbench workload and its scripts as a run
	// records them ("tpcb: tpcb-like@1"; "" TPC-C): From must have run it.
	Workload string `json:"workload,omitempty"`
	// Protocol is how the fit's workload sends its statements (its run
	// mode, pgbench -M), "" for TPC-C: From must have sent them so too.
	Protocol string `json:"protocol,omitempty"`
}

// newPredictSpec is the model's settings for a new fit on a server with
// base caps.
func newPredictSpec(base caps.Caps, o FitOptions) predictSpec {
	ps := predictSpec{Base: configOfCaps(base, runtime.NumCPU()), DriverCPUs: base.DriverCPUs, From: o.From, MeasureAll: o.MeasureAll,
		Workload: describeWorkload(o.Run.Workload)}
	if m, ok := o.Run.Workload.(modedWorkload); ok {
		ps.Protocol = m.Mode()
	}
	if o.Run.Workload == nil { // TPC-C's warehouses and mode only
		ps.Base.Warehouses, ps.Base.Mode = o.Run.Warehouses, string(o.Run.Mode)
	}
	if h, err := cgroup.Detect(); err == nil { // the candidates' caps go on this host's hierarchy
		ps.Base.CgroupVersion = h.Version
	}
	if o.Run.KeyingThinking {
		ps.Think = tpcc.MeanKeyingThinking()
	}
	return ps
}

// configOfCaps is the configuration caps give on a host of ncpu cores
// (all of them when the caps do not limit cores).
func configOfCaps(c caps.Caps, ncpu int) capacity.Config {
	cfg := capacity.Config{CPUs: c.CPUs, CacheBytes: c.Memory, HostCPUs: float64(ncpu), DriverShares: c.DriverShares(ncpu),
		ReadIOPS: float64(c.IO.ReadIOPS), WriteIOPS: float64(c.IO.WriteIOPS), ReadBps: float64(c.IO.ReadBPS), WriteBps: float64(c.IO.WriteBPS)}
	if cfg.CPUs <= 0 {
		cfg.CPUs = float64(ncpu)
	}
	return cfg
}

// configOfRun is the configuration a stored run measured: the caps it
// asked on the host it ran on (this host's cores when it did not store
// them).
func configOfRun(run *store.Run) (capacity.Config, error) {
	c, ncpu, err := runCaps(run)
	if err != nil {
		return capacity.Config{}, err
	}
	if ncpu <= 0 {
		ncpu = runtime.NumCPU()
	}
	cfg := configOfCaps(c, ncpu)
	cfg.Warehouses, cfg.Mode, cfg.Engine, cfg.EngineVersion = run.Warehouses, run.Mode, run.Engine, run.EngineVersion
	var applied struct {
		Version int `json:"cgroup_version"`
	}
	if json.Unmarshal([]byte(run.Env["caps.applied"]), &applied) == nil {
		cfg.CgroupVersion = applied.Version
	}
	if _, ok := run.WorkloadMerit(); ok { // TPC-C's warehouses and mode only
		cfg.Warehouses, cfg.Mode = 0, ""
	}
	return cfg, nil
}

// configOf is candidate c's configuration: its cpus, memory and I/O limit
// over the base's.
func (ps predictSpec) configOf(c fit.Candidate) capacity.Config {
	cfg := ps.Base
	cfg.CPUs = c.Cpus
	cfg.EngineVersion = c.Version
	if ps.Base.HostCPUs > 0 {
		cfg.DriverShares = caps.Caps{CPUs: c.Cpus, DriverCPUs: ps.DriverCPUs}.DriverShares(int(ps.Base.HostCPUs))
	}
	if c.Memory > 0 {
		cfg.CacheBytes = c.Memory
	}
	if c.IO != "" {
		if l, err := caps.ParseIOLimit(c.IO); err == nil {
			cfg.ReadIOPS, cfg.WriteIOPS = float64(l.ReadIOPS), float64(l.WriteIOPS)
			cfg.ReadBps, cfg.WriteBps = float64(l.ReadBPS), float64(l.WriteBPS)
		}
	}
	return cfg
}

// options are the search options of the spec: the model (taught the From
// run first) and what the caller asked to be told.
func (ps predictSpec) options(ctx context.Context, st *store.Store, cr fit.Criteria, onPredict func(fit.Round)) (fit.Options, error) {
	m := &fit.Model{ConfigOf: ps.configOf, Think: ps.Think, AtUsers: cr.AtUsers, Merit: cr.Merit}
	o := fit.Options{Predictor: m, MeasureAll: ps.MeasureAll, OnPredict: onPredict}
	if ps.From == "" {
		return o, nil
	}
	run, steps, err := st.LoadRun(ctx, ps.From)
	if err != nil {
		return o, fmt.Errorf("--from %s: %w", ps.From, err)
	}
	if err := ps.sameFigure(run, cr); err != nil {
		return o, bad("--from %s: %v", ps.From, err)
	}
	if run.Rate() > 0 {
		return o, bad("--from %s: a run paced with --rate cannot teach the model: its users waited for their schedule, which the model would take for the server's response time; give a run without --rate", ps.From)
	}
	c, err := candidateOfRun(run)
	if err != nil {
		return o, err
	}
	if err := m.Learn(c, fit.MeasuredOf(run.ID, steps)); err != nil {
		return o, bad("--from %s: the model cannot learn from it: %v", ps.From, err)
	}
	return o, nil
}

// sameFigure says why run cannot teach the fit's model (nil: it can): it
// ran another workload (TPC-C or pgbench scripts, other scripts) or
// judged another figure of merit (--figure).
func (ps predictSpec) sameFigure(run *store.Run, cr fit.Criteria) error {
	name, scripts := run.Workload()
	ran := ""
	if name != "" {
		ran = name + ": " + scripts
	}
	if ran != ps.Workload {
		return fmt.Errorf("it ran %s and the fit runs %s: learn from a run of the fit's workload", workloadWords(ran), workloadWords(ps.Workload))
	}
	if sent := cmp.Or(run.Mode, string(ScriptMode)); ps.Protocol != "" && sent != ps.Protocol {
		return fmt.Errorf("it sent its statements as pgbench -M %s and the fit sends them as -M %s: learn from a run of the same --protocol", sent, ps.Protocol)
	}
	if m, ok := run.WorkloadMerit(); ok && cr.Merit != nil && m.Txn != cr.Merit.Txn {
		return fmt.Errorf("its figure of merit is %s and the fit's %s: learn from a run of the same --figure", meritWords(m), meritWords(*cr.Merit))
	}
	return nil
}

func workloadWords(w string) string {
	if w == "" {
		return "TPC-C"
	}
	return "workload " + w
}

func meritWords(m store.Merit) string {
	if m.All() {
		return "every script's TPS"
	}
	return m.Txn + "'s TPS"
}

// candidateOfRun is the configuration a stored run measured, as a
// candidate of the base version.
func candidateOfRun(run *store.Run) (fit.Candidate, error) {
	cfg, err := configOfRun(run)
	if err != nil {
		return fit.Candidate{}, err
	}
	out := fit.Candidate{Cpus: cfg.CPUs, Memory: cfg.CacheBytes}
	l := caps.IOLimit{ReadIOPS: uint64(cfg.ReadIOPS), WriteIOPS: uint64(cfg.WriteIOPS), ReadBPS: uint64(cfg.ReadBps), WriteBPS: uint64(cfg.WriteBps)}
	if !l.IsZero() {
		out.IO = l.String()
	}
	return out, nil
}

// loadPredictSpec reads a stored fit's model settings (ok false: stored
// before predictions).
func loadPredictSpec(sw *store.Sweep) (ps predictSpec, ok bool, err error) {
	s := sw.Spec[fitPredictKey]
	if s == "" {
		return ps, false, nil
	}
	if err := json.Unmarshal([]byte(s), &ps); err != nil {
		return ps, false, fmt.Errorf("fit %s: stored model settings: %w", sw.ID, err)
	}
	return ps, true, nil
}
