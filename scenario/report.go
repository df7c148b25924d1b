package scenario

import (
	"github.com/rightsize/rightsize/analysis"
	"github.com/rightsize/rightsize/engine"
	"github.com/rightsize/rightsize/figures"
	"github.com/rightsize/rightsize/store"
	"github.com/rightsize/rightsize/tpcc"
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
	CapsNotApplied string       `json:"caps_not_applied,omitempty"`
	Steps          []StepReport `json:"steps"`
	// Why is the run's diagnosis (analysis.RunVerdict), when waits or
	// saturation were measured.
	Why string `json:"why,omitempty"`
	// Workers are the workers of a multi-worker run (run --worker), with
	// their own figures; omitted for a single process.
	Workers []analysis.WorkerSummary `json:"workers,omitempty"`
}

// StepReport is one step of a Report (means over repeats).
type StepReport struct {
	Users      int     `json:"users"`
	TPM        float64 `json:"tpm"`
	NOPM       float64 `json:"nopm"`
	TPMPerUser float64 `json:"tpm_per_user"`
	// EfficiencyPct is the NOPM of keyed users as a percentage of the most
	// they can complete (tpcc.KeyedEfficiency); omitted without keying and
	// think times.
	EfficiencyPct     *float64             `json:"efficiency_pct,omitempty"`
	Txn               map[string]TxnReport `json:"txn"`
	DriverCPUUsPerTxn float64              `json:"driver_cpu_us_per_txn"`
	ServerCPUUsPerTxn *float64             `json:"server_cpu_us_per_txn,omitempty"`
	MeasuredSeconds   float64              `json:"measured_seconds"`
	SkippedDeliveries int64                `json:"skipped_deliveries"`
	Reconnects        int64                `json:"reconnects"`
	Partial           bool                 `json:"partial"`
	Repeats           int                  `json:"repeats"`
	TPMCV             float64              `json:"tpm_cv"`
	NOPMCV            float64              `json:"nopm_cv"`
	TPMMin            float64              `json:"tpm_min"`
	TPMMax            float64              `json:"tpm_max"`
	Unstable          bool                 `json:"unstable"`
	Host              figures.Host         `json:"host"`
	ServerCPUPct      float64              `json:"server_cpu_pct"`
	DriverCPUPct      float64              `json:"driver_cpu_pct"`
	DBTPM             *float64             `json:"db_tpm,omitempty"`
	Verdict           string               `json:"verdict,omitempty"` // the step's diagnosis
	// Validity is the TPC-C validity verdict (valid only when every
	// repeat's step was); absent for steps stored without one.
	Validity *store.Validity `json:"validity,omitempty"`
	// PrecisionPct is the worst achieved precision of the repeats, % (the
	// batch-means half-width over the mean; omitted when unknown), and
	// TPMCIHalf the half-width of the interval of TPM across repeats
	// (omitted with one repeat).
	PrecisionPct float64 `json:"precision_pct,omitempty"`
	TPMCIHalf    float64 `json:"tpm_ci_half,omitempty"`
}

// TxnReport is one transaction type of a step.
type TxnReport struct {
	Count     int64   `json:"count"`
	Rollbacks int64   `json:"rollbacks"`
	Retries   int64   `json:"retries"`
	Errors    int64   `json:"errors"`
	P50       float64 `json:"p50_ms"`
	P90       float64 `json:"p90_ms"`
	P95       float64 `json:"p95_ms"`
	P99       float64 `json:"p99_ms"`
	Max       float64 `json:"max_ms"`
	// FirstError is the first error message of this type (omitted when none).
	FirstError string `json:"first_error,omitempty"`
}

// BuildReport is the Report of a stored run: its steps aggregated across
// repeats by analysis.Aggregate (the figures results show and the report print
// too).
func BuildReport(run *store.Run, steps []store.Step) *Report {
	rep := &Report{RunID: run.ID, Label: run.Label, Target: run.Target, Engine: run.Engine, Version: run.EngineVersion,
		Mode: engine.Mode(run.Mode), Warehouses: run.Warehouses, KeyingThinking: run.KeyingThinking, Isolation: run.Isolation, Seed: run.Seed,
		Partial: run.Status == store.StatusPartial, CapsNotApplied: run.Env[store.EnvCapsNotApplied]}
	aggs := analysis.Aggregate(steps)
	if v, ok := analysis.RunVerdict(aggs); ok {
		rep.Why = v.Text
	}
	for _, a := range aggs {
		s := StepReport{Users: a.Users, Repeats: a.Repeats, TPM: a.TPM.Mean, NOPM: a.NOPM.Mean, TPMPerUser: a.TPMPerUser.Mean,
			TPMCV: a.TPM.CV, NOPMCV: a.NOPM.CV, TPMMin: a.TPM.Min, TPMMax: a.TPM.Max, Unstable: a.Unstable, Partial: a.Partial,
			DriverCPUUsPerTxn: a.DriverCPUUsPerTxn, DriverCPUPct: a.DriverCPUPct, ServerCPUPct: a.ServerCPUPct,
			MeasuredSeconds: a.MeasuredSeconds, SkippedDeliveries: a.SkippedDeliveries, Reconnects: a.Reconnects,
			Host: a.Host,
			Txn:  map[string]TxnReport{}, Validity: a.Validity}
		if v := a.ServerCPUUsPerTxn; v > 0 {
			s.ServerCPUUsPerTxn = &v
		}
		if run.KeyingThinking {
			e := tpcc.KeyedEfficiency(a.NOPM.Mean, a.Users)
			s.EfficiencyPct = &e
		}
		if v := a.DBTPM; v > 0 {
			s.DBTPM = &v
		}
		if a.Verdict != nil {
			s.Verdict = a.Verdict.Text
		}
		s.PrecisionPct, s.TPMCIHalf = a.PrecisionPct, a.TPMCI.Half
		for _, x := range a.Txn {
			s.Txn[x.Type] = TxnReport{Count: x.Count, Rollbacks: x.Rollbacks, Retries: x.Retries, Errors: x.Errors,
				P50: x.P50Ms, P90: x.P90Ms, P95: x.P95Ms, P99: x.P99Ms, Max: x.MaxMs, FirstError: x.FirstError}
		}
		rep.Steps = append(rep.Steps, s)
	}
	return rep
}
