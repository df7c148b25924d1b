package scenario

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/rightsize/rightsize/analysis"
	"github.com/rightsize/rightsize/engine"
	"github.com/rightsize/rightsize/figures"
	"github.com/rightsize/rightsize/store"
)

// Report is the JSON document of a stored run (run --json): its steps
// aggregated across repeats by analysis.Aggregate.
type Report struct {
	RunID          string      `json:"run_id"`
	Label          string      `json:"label,omitempty"`
	Target         string      `json:"target"`
	Engine         string      `json:"engine"`
	Version        string      `json:"version"`
	Mode           engine.Mode `json:"mode"`
	Warehouses     int         `json:"warehouses"`
	KeyingThinking bool        `json:"keying_thinking"`
	Isolation      string      `json:"isolation,omitempty"`
	Seed           uint64      `json:"seed"`
	Partial        bool        `json:"partial"`
	// CapsNotApplied lists the caps asked that the server ran without
	// (--caps best-effort): "memory, I/O".
	CapsNotApplied string `json:"caps_not_applied,omitempty"`
	// Prewarmed is what --prewarm loaded into the server's cache before
	// the run (omitted when it was not prewarmed).
	Prewarmed *PrewarmReport `json:"prewarmed,omitempty"`
	Steps     []StepReport   `json:"steps"`
	// Why is the run's diagnosis (analysis.RunVerdict), when waits or
	// saturation were measured.
	Why string `json:"why,omitempty"`
	// Workers are the workers of a multi-worker run (run --worker), with
	// their own figures; omitted for a single process.
	Workers []analysis.WorkerSummary `json:"workers,omitempty"`
	// Workload is the run's workload when it is not TPC-C (omitted for
	// TPC-C): its scripts and their TPS.
	Workload *WorkloadReport `json:"workload,omitempty"`
}

// PrewarmReport is what --prewarm loaded: blocks of the engine's size
// (PostgreSQL: 8 KiB) and bytes.
type PrewarmReport struct {
	Blocks int64 `json:"blocks"`
	Bytes  int64 `json:"bytes"`
}

// prewarmReport reads a run's prewarm from its environment (nil when none).
func prewarmReport(env map[string]string) *PrewarmReport {
	n, err := strconv.ParseInt(env[store.EnvPrewarmBytes], 10, 64)
	if err != nil {
		return nil
	}
	blocks, _ := strconv.ParseInt(env[store.EnvPrewarmBlocks], 10, 64)
	return &PrewarmReport{Blocks: blocks, Bytes: n}
}

// StepReport is one step of a Report: its aggregate across repeats
// (analysis.Aggregate), which MarshalJSON writes through stepKeys, the
// keys of run --json in their order, reading the figures through the
// column table (analysis.Column) where it has them.
type StepReport struct {
	*analysis.StepAggregate
	// Keyed tells the run had keying and think times: the step carries
	// efficiency_pct.
	Keyed bool
}

// EfficiencyPct is the NOPM of keyed users as a percentage of the most
// they can complete (tpcc.KeyedEfficiency); nil without keying and think
// times.
func (s StepReport) EfficiencyPct() *float64 {
	if !s.Keyed {
		return nil
	}
	e := analysis.ColEfficiency.Value(s.StepAggregate)
	return &e
}

// A stepKey is one key of a step of run --json and its value; a nil value
// omits the key.
type stepKey struct {
	name  string
	value func(s StepReport) any
}

// column is the key of column c, its value.
func column(c analysis.Column) stepKey {
	return stepKey{c.Name, func(s StepReport) any { return c.Value(s.StepAggregate) }}
}

// positive is the key of column c, omitted unless its value is positive.
func positive(c analysis.Column) stepKey {
	return stepKey{c.Name, func(s StepReport) any { return ifPositive(c.Value(s.StepAggregate)) }}
}

// spread is the key of part of column c's spread across repeats
// (c.Stat): its name with _cv, _min or _max, as analysis.Document's
// aggregates write it.
func spread(c analysis.Column, part string, v func(analysis.Stat) float64) stepKey {
	return stepKey{c.Name + "_" + part, func(s StepReport) any { return v(c.Stat(s.StepAggregate)) }}
}

func statCV(st analysis.Stat) float64 { return st.CV }

// stepKeys are the keys of a step in run --json, in order.
var stepKeys = []stepKey{
	{"users", func(s StepReport) any { return s.Users }},
	column(analysis.ColTPM), column(analysis.ColNOPM), column(analysis.ColTPMPerUser),
	{analysis.ColEfficiency.Name, func(s StepReport) any {
		if e := s.EfficiencyPct(); e != nil {
			return *e
		}
		return nil
	}},
	{"txn", func(s StepReport) any { return txnReports(s.Txn) }},
	column(analysis.ColDriverCPUPerTx), positive(analysis.ColServerCPUPerTx),
	column(analysis.ColMeasuredSeconds), column(analysis.ColSkippedDeliveries), column(analysis.ColReconnects),
	positive(analysis.ColScheduleLag), positive(analysis.ColScheduleLagMax),
	positive(analysis.ColLateTxns), positive(analysis.ColSkippedTxns),
	{"partial", func(s StepReport) any { return s.Partial }},
	column(analysis.ColRepeats),
	spread(analysis.ColTPM, "cv", statCV), spread(analysis.ColNOPM, "cv", statCV),
	spread(analysis.ColTPM, "min", func(st analysis.Stat) float64 { return st.Min }),
	spread(analysis.ColTPM, "max", func(st analysis.Stat) float64 { return st.Max }),
	{"unstable", func(s StepReport) any { return s.Unstable }},
	{"host", func(s StepReport) any { return s.Host }},
	column(analysis.ColServerCPU), column(analysis.ColDriverCPU),
	positive(analysis.ColDBTPM),
	{"verdict", func(s StepReport) any {
		if s.Verdict == nil || s.Verdict.Text == "" {
			return nil
		}
		return s.Verdict.Text
	}},
	{"validity", func(s StepReport) any {
		if s.Validity == nil {
			return nil
		}
		return s.Validity
	}},
	{"precision_pct", func(s StepReport) any { return ifNonZero(s.PrecisionPct) }},
	{"tpm_ci_half", func(s StepReport) any { return ifNonZero(s.TPMCI.Half) }},
}

// ifPositive is v when positive, else nil (the key omitted).
func ifPositive(v float64) any {
	if v > 0 {
		return v
	}
	return nil
}

// ifNonZero is v unless zero, else nil (the key omitted).
func ifNonZero(v float64) any {
	if v != 0 {
		return v
	}
	return nil
}

// MarshalJSON writes the step's keys (stepKeys) in order.
func (s StepReport) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for _, k := range stepKeys {
		v := k.value(s)
		if v == nil {
			continue
		}
		val, err := json.Marshal(v)
		if err != nil {
			return nil, fmt.Errorf("step of %d users: %s: %w", s.Users, k.name, err)
		}
		if b.Len() > 1 {
			b.WriteByte(',')
		}
		name, _ := json.Marshal(k.name)
		b.Write(name)
		b.WriteByte(':')
		b.Write(val)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// TxnReport is one transaction type of a step: its figures (figures.Txn,
// as stored) and first error; the type is the map's key.
type TxnReport struct {
	figures.Txn
	// FirstError is the first error message of this type (omitted when none).
	FirstError string `json:"first_error,omitempty"`
}

// txnReports is run --json's transactions of a step, by type.
func txnReports(txn []store.TxnSummary) map[string]TxnReport {
	out := make(map[string]TxnReport, len(txn))
	for _, x := range txn {
		out[x.Type] = TxnReport{Txn: x.Txn, FirstError: x.FirstError}
	}
	return out
}

// BuildReport is the Report of a stored run: its steps aggregated across
// repeats by analysis.Aggregate (the figures results show and the report print
// too).
func BuildReport(run *store.Run, steps []store.Step) *Report {
	rep := &Report{RunID: run.ID, Label: run.Label, Target: run.Target, Engine: run.Engine, Version: run.EngineVersion,
		Mode: engine.Mode(run.Mode), Warehouses: run.Warehouses, KeyingThinking: run.KeyingThinking, Isolation: run.Isolation, Seed: run.Seed,
		Partial: run.Status == store.StatusPartial, CapsNotApplied: run.Env[store.EnvCapsNotApplied],
		Prewarmed: prewarmReport(run.Env), Workload: workloadReport(run, steps)}
	aggs := analysis.Aggregate(steps)
	if v, ok := analysis.RunVerdict(aggs); ok {
		rep.Why = v.Text
	}
	for i := range aggs {
		rep.Steps = append(rep.Steps, StepReport{StepAggregate: &aggs[i], Keyed: run.KeyingThinking})
	}
	return rep
}
