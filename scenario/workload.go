package scenario

import (
	"context"
	"strconv"
	"time"

	"github.com/rightsize/rightsize/analysis"
	"github.com/rightsize/rightsize/driver"
	"github.com/rightsize/rightsize/engine"
	"github.com/rightsize/rightsize/registry"
	"github.com/rightsize/rightsize/store"
	"github.com/rightsize/rightsize/tpcc"
)

// describedWorkload is a driver.Workload that names itself and its parts
// for the run's environment (pgbench/workload.Workload).
type describedWorkload interface {
	Describe() (name, scripts string)
}

// WorkloadReport is run --json's workload when it is not TPC-C: its name,
// its scripts with their weights, each step's TPS overall and per script
// and its statements' latencies (analysis.WorkloadSummary, what results
// show --json prints too).
type WorkloadReport = analysis.WorkloadSummary

// workloadReport is run's workload report (nil for TPC-C).
func workloadReport(run *store.Run, steps []store.Step) *WorkloadReport {
	return analysis.Workload(run, steps)
}

// ScriptMode is the mode recorded for a run of pgbench scripts that does
// not name its protocol: their SQL is prepared once per connection and
// executed with parameters, as pgbench -M prepared.
const ScriptMode engine.Mode = "prepared"

// modedWorkload is a driver.Workload that names how it sends its
// statements (pgbench/workload.Workload: pgbench -M's protocol), what the
// run records as its mode.
type modedWorkload interface {
	Mode() string
}

// triedWorkload is a driver.Workload that bounds its own retries
// (pgbench/workload.Workload: --max-tries; 0: the step's).
type triedWorkload interface {
	MaxTries() int
}

// connectingWorkload is a driver.Workload that may give each transaction
// a new connection (pgbench/workload.Workload: --connect).
type connectingWorkload interface {
	Connects() bool
}

// prepareWorkload is prepare for a workload other than TPC-C: no TPC-C
// schema, run constants, modes or isolation (the scripts' SQL runs at the
// server's default isolation, recorded as read-committed); the workload
// itself finds out whether the database holds what it needs when its
// users connect.
func (r *runner) prepareWorkload(ctx context.Context) error {
	o, t := &r.o, r.t
	if o.Mode != "" {
		return bad("--mode is TPC-C's: choose how a pgbench workload sends its statements with --protocol (prepared, extended, simple), as pgbench -M; drop --mode")
	}
	if o.Isolation != "" && o.Isolation != engine.IsolationSpec {
		return bad("--isolation is TPC-C's: a pgbench workload's scripts set their own; drop --isolation")
	}
	r.mode, r.iso = ScriptMode, engine.IsolationReadCommitted
	if m, ok := o.Workload.(modedWorkload); ok {
		r.mode = engine.Mode(m.Mode())
	}
	if o.Seed == 0 {
		o.Seed = uint64(time.Now().UnixNano())
	}
	if err := checkSlots(ctx, t, *o, 0); err != nil {
		return err
	}
	if o.Prewarm {
		var err error
		if r.warmed, err = prewarm(ctx, t); err != nil {
			return err
		}
	}
	return nil
}

// workloadEnv records a workload that is not TPC-C in the run's
// environment, with the rate that paced it (run --rate) and the latency
// limit its transactions were counted against (run --latency-limit).
func workloadEnv(env map[string]string, w driver.Workload, rate float64, limit time.Duration) {
	if w == nil {
		return
	}
	if rate > 0 {
		env[store.EnvRate] = strconv.FormatFloat(rate, 'g', -1, 64)
	}
	if limit > 0 {
		env[store.EnvLatencyLimit] = limit.String()
	}
	env[store.EnvWorkload], env[store.EnvWorkloadScripts] = "custom", ""
	if d, ok := w.(describedWorkload); ok {
		env[store.EnvWorkload], env[store.EnvWorkloadScripts] = d.Describe()
	}
	if t, ok := w.(triedWorkload); ok && t.MaxTries() > 0 {
		env[store.EnvMaxTries] = strconv.Itoa(t.MaxTries())
	}
	if c, ok := w.(connectingWorkload); ok && c.Connects() {
		env[store.EnvConnect] = "true"
	}
	if f := w.Figure(); f >= 0 && f < len(w.Kinds()) {
		env[store.EnvWorkloadFigure] = w.Kinds()[f]
	}
}

// RunMerit is the figure of merit of run: TPC-C's (tpcc.Merit), or its
// workload's (store.Run.WorkloadMerit).
func RunMerit(run *store.Run) store.Merit {
	if m, ok := run.WorkloadMerit(); ok {
		return m
	}
	return tpcc.Merit
}

// stepTxn is a step's transaction summaries: TPC-C's five types, or a
// workload's kinds under their names.
func stepTxn(res *driver.StepResult) []store.TxnSummary {
	var out []store.TxnSummary
	if res.KindNames != nil {
		for k, name := range res.KindNames {
			out = append(out, namedSummary(name, res.Kinds[k]))
		}
		return out
	}
	for t := range tpcc.NumTxnTypes {
		out = append(out, TxnSummary(t, res.Txn[t]))
	}
	return out
}

// stepStatements are a workload's commands timed one by one, under their
// scripts' names (none for TPC-C).
func stepStatements(res *driver.StepResult) []store.StatementSummary {
	var out []store.StatementSummary
	for _, x := range res.Statements {
		if x.Kind >= len(res.KindNames) {
			continue
		}
		out = append(out, analysis.StatementFigures(store.StatementSummary{Type: res.KindNames[x.Kind], Index: x.Index, Line: x.Line, Text: x.Text}, x.Hist))
	}
	return out
}

// kindWindows are a workload's latency windows under its kinds' names.
func kindWindows(res *driver.StepResult, w driver.Window) []store.Window {
	var out []store.Window
	for k, hist := range w.Kinds {
		if hb := encodeHist(hist); hb != nil {
			out = append(out, store.Window{Offset: w.Start, Type: res.KindNames[k], Hist: hb})
		}
	}
	return out
}

// sweptDatabase is the build a sweep's values run on: TPC-C's schema
// (ReadySchema), or, for a pgbench workload, the database as it is (the
// workload's users find out whether it holds what they need; each value
// restores the snapshot taken before the first). A kind that rebuilds
// the database per value (a version) builds TPC-C's only.
func sweptDatabase(ctx context.Context, t *registry.Target, kind SweepKind, o RunOptions) (engine.Meta, error) {
	if o.Workload == nil {
		return ReadySchema(ctx, t)
	}
	if kind.Rebuild {
		return engine.Meta{}, bad("sweep %s rebuilds the database for each value, which only TPC-C's build does; sweep cpus, memory or io with --workload", kind.Name)
	}
	return engine.Meta{}, nil
}
