package store

import (
	"encoding/json"
	"time"

	"github.com/rightsize/rightsize/figures"
)

// Run sources.
const (
	// SourceRightsize marks a run measured by rightsize itself.
	SourceRightsize = "rightsize"
	// SourceHammerDB marks a run imported from a HammerDB log.
	SourceHammerDB = "hammerdb"
)

// Run statuses.
const (
	// StatusRunning is a run still being measured (or one whose process died
	// before it could call FinishRun).
	StatusRunning = "running"
	// StatusComplete is a run whose every step was measured to the end.
	StatusComplete = "complete"
	// StatusPartial is a run interrupted (Ctrl-C) after at least one step.
	StatusPartial = "partial"
	// StatusFailed is a run that ended with an error.
	StatusFailed = "failed"
)

// Probe kinds.
const (
	// ProbeStorage is a storage probe (fio or the built-in engine).
	ProbeStorage = "storage"
	// ProbeCPU is a single-thread CPU probe.
	ProbeCPU = "cpu"
	// ProbeBackup is a backup/restore timing probe.
	ProbeBackup = "backup"
)

// Run is one invocation of a benchmark: its configuration and environment.
// Its measurements are Steps.
type Run struct {
	// ID is "YYYYMMDD-HHMMSS-xxxxxx" (UTC start time and 6 random hex
	// digits); CreateRun assigns it when empty.
	ID string `json:"id"`
	// Label is a free name the user gave the run ("baseline", "8 cores");
	// several runs may share one, Resolve picks the latest.
	Label string `json:"label,omitempty"`
	// Source is SourceRightsize or SourceHammerDB (imported).
	Source string `json:"source"`
	// Status is StatusRunning, StatusComplete, StatusPartial or StatusFailed.
	Status string `json:"status"`
	// Target is the target as given (connection string without password, or
	// "embedded").
	Target string `json:"target,omitempty"`
	// Engine names the engine ("postgres", "sqlite" ...).
	Engine string `json:"engine,omitempty"`
	// EngineVersion is the server's version string.
	EngineVersion string `json:"engine_version,omitempty"`
	// Mode is "procedures" or "statements".
	Mode string `json:"mode,omitempty"`
	// Warehouses is the schema's warehouse count.
	Warehouses int `json:"warehouses"`
	// Seed seeds the transaction inputs.
	Seed uint64 `json:"seed"`
	// KeyingThinking tells whether the spec's keying and think times were used.
	KeyingThinking bool `json:"keying_thinking"`
	// Isolation is the isolation the transactions ran at: "spec" (level 3
	// of TPC-C clause 3.4) or "read-committed" (not spec-compliant); empty
	// for runs stored before it was recorded and for imported runs.
	Isolation string `json:"isolation,omitempty"`
	// Users is the sequence of virtual-user counts, one step each.
	Users []int `json:"users"`
	// Rampup is the ramp-up of each step.
	Rampup time.Duration `json:"rampup_ns"`
	// Duration is the measured duration of each step.
	Duration time.Duration `json:"duration_ns"`
	// Repeats is how many times the users sequence is run (1 if 0).
	Repeats int `json:"repeats"`
	// Flags holds every flag of the command line, by name without dashes.
	Flags map[string]string `json:"flags,omitempty"`
	// Env describes the environment: server settings (shared_buffers ...),
	// host CPU model/cores/memory, OS, rightsize version and git commit.
	Env map[string]string `json:"env,omitempty"`
	// StartedAt is when the run started; CreateRun sets it to now when zero.
	StartedAt time.Time `json:"started_at"`
	// EndedAt is when the run ended; zero while running.
	EndedAt time.Time `json:"ended_at"`
	// Note is free text.
	Note string `json:"note,omitempty"`
	// RepeatEnd says how --repeat auto ended ("" for a fixed count): the
	// repeats agreed, or the maximum was reached (see SetRepeatEnd).
	RepeatEnd string `json:"repeat_end,omitempty"`
}

// EnvDelivery is the Run.Env key of how Delivery ran: DeliveryDeferred,
// or absent when in the user's own transaction.
const EnvDelivery = "driver.delivery"

// DeliveryDeferred is EnvDelivery's value for deferred Delivery (clause
// 2.7.2).
const DeliveryDeferred = "deferred"

// DeferredDeliveryType is the TxnSummary type of the deferred executions of
// Deliveries: their time from queueing to completion (the "delivery" type
// is then the terminal's queueing).
const DeferredDeliveryType = "delivery_deferred"

// EnvCapsNotApplied is the Run.Env key of the caps asked that the server
// ran without (--caps best-effort), in a word each: "memory, I/O".
const EnvCapsNotApplied = "caps.not_applied"

// CapsNotApplied is "caps not applied: memory, I/O" for a run whose server
// ran without caps it asked for, "" otherwise: every view says it so.
func (r Run) CapsNotApplied() string {
	if v := r.Env[EnvCapsNotApplied]; v != "" {
		return "caps not applied: " + v
	}
	return ""
}

// EnvEngineInProcess is the Run.Env key marking a run whose engine ran
// inside the driver's process (its registration's engine.Caps.Server is
// false, as SQLite's): "true", absent for a server. The driver CPU of such
// a run includes the database's own work.
const EnvEngineInProcess = "engine.in_process"

// EngineInProcess tells whether the run's engine ran inside the driver's
// process (EnvEngineInProcess).
func (r Run) EngineInProcess() bool { return r.Env[EnvEngineInProcess] == "true" }

// EnvConnections is the Run.Env key of the connections each step's users
// shared (absent: one connection per user).
const EnvConnections = "driver.connections"

// Step is one measured step: a number of users in one repeat, with
// everything measured in it. Non-finite floats (NaN, ±Inf) are stored as 0.
type Step struct {
	// ID is assigned by AddStep.
	ID int64 `json:"id"`
	// RunID is the run the step belongs to.
	RunID string `json:"run_id"`
	// Repeat is the repeat number, 1-based.
	Repeat int `json:"repeat"`
	// Index is the position of the step in the run's users sequence (0-based).
	Index int `json:"index"`
	// Users is the number of virtual users.
	Users int `json:"users"`
	// Start is when the users started (ramp-up began).
	Start time.Time `json:"start"`
	// MeasureStart is when the ramp-up ended and measuring began.
	MeasureStart time.Time `json:"measure_start"`
	// MeasureEnd is when measuring ended.
	MeasureEnd time.Time `json:"measure_end"`
	// Partial tells the step was interrupted before the end of its measured
	// interval.
	Partial bool `json:"partial"`
	// TPM is completed transactions (all types) per minute.
	TPM float64 `json:"tpm"`
	// NOPM is completed New-Orders per minute; in a run of a pgbench
	// workload, its figure of merit per minute (Run.WorkloadMerit).
	NOPM float64 `json:"nopm"`
	// TPMPerUser is TPM / Users.
	TPMPerUser float64 `json:"tpm_per_user"`
	// DriverCPUUsPerTxn is the driver's CPU per completed transaction, µs.
	DriverCPUUsPerTxn float64 `json:"driver_cpu_us_per_txn"`
	// ServerCPUUsPerTxn is the server's CPU per completed transaction, µs
	// (0 when unknown).
	ServerCPUUsPerTxn float64 `json:"server_cpu_us_per_txn"`
	// SkippedDeliveries counts deferred Deliveries skipped.
	SkippedDeliveries int64 `json:"skipped_deliveries"`
	// Reconnects counts reconnections after lost connections.
	Reconnects int64 `json:"reconnects"`
	// ScheduleLagMs and ScheduleLagMaxMs are a paced step's mean and
	// largest schedule lag, ms (Run.Rate; 0 when not paced).
	ScheduleLagMs    float64 `json:"schedule_lag_ms"`
	ScheduleLagMaxMs float64 `json:"schedule_lag_max_ms"`
	// LateTxns counts the measured transactions over the run's latency
	// limit (Run.LatencyLimit) and SkippedTxns the paced ones skipped,
	// too far behind their schedule to meet it; 0 without a limit.
	LateTxns    int64 `json:"late_txns"`
	SkippedTxns int64 `json:"skipped_txns"`
	// OrderLines and RemoteOrderLines count the lines of the completed
	// New-Orders and those supplied by another warehouse; RemotePayments
	// counts the completed Payments of a customer of another warehouse.
	OrderLines       int64 `json:"order_lines"`
	RemoteOrderLines int64 `json:"remote_order_lines"`
	RemotePayments   int64 `json:"remote_payments"`
	// Validity is the step's TPC-C validity verdict (package validity); nil
	// for steps stored before verdicts were computed.
	Validity *Validity `json:"validity,omitempty"`
	// Host is the host telemetry summarised over the measured interval.
	Host HostSummary `json:"host"`
	// Procs is the database server's and the driver's CPU over the
	// measured interval, % of one core.
	figures.Procs
	// DB holds server counter deltas over the measured interval.
	DB DBCounters `json:"db"`
	// Txn holds one summary per transaction type.
	Txn []TxnSummary `json:"txn"`
	// Statements holds, for a workload of pgbench scripts, one summary
	// per command of each script that ran (none for TPC-C).
	Statements []StatementSummary `json:"statements,omitempty"`
	// Seconds is the per-second throughput since Start (ramp-up included).
	Seconds []Second `json:"seconds"`
	// Windows holds the latency histograms of each window (10 s) and type.
	Windows []Window `json:"windows"`
	// Samples holds the raw host samples of the step.
	Samples []HostSample `json:"samples"`
	// Waits is the step's wait profile, a JSON document of package waits'
	// Profile (nil: not sampled, --no-waits); analysis.WhyOf decodes it,
	// Saturation and Verdict.
	Waits json.RawMessage `json:"waits,omitempty"`
	// Saturation is the step's resource saturation, a JSON document of
	// package waits' Saturation (nil: not measured).
	Saturation json.RawMessage `json:"saturation,omitempty"`
	// Verdict is the step's diagnosis, a JSON document of package
	// diagnosis' Verdict (nil: none).
	Verdict json.RawMessage `json:"verdict,omitempty"`
	// RampupEnd says how the ramp-up ended: "fixed", "steady" (steady
	// state detected), "max" (cap reached) or "interrupted"; "" in stores
	// older than schema 4 and imported runs. Where it ended is MeasureStart.
	RampupEnd string `json:"rampup_end,omitempty"`
	// RampupNote is the steady-state rule's last finding.
	RampupNote string `json:"rampup_note,omitempty"`
	// MeasureEndHow says how the measurement ended: "fixed", "precision"
	// (reached), "max" (cap reached first) or "interrupted".
	MeasureEndHow string `json:"measure_end_how,omitempty"`
	// PrecisionPct is the achieved precision: the larger of the TPM and
	// NOPM confidence intervals' half-widths in % of their means (batch
	// means over the measured seconds; 0 when unknown).
	PrecisionPct float64 `json:"precision_pct,omitempty"`
	// TPMCIHalf and NOPMCIHalf are those half-widths, per minute.
	TPMCIHalf  float64 `json:"tpm_ci_half,omitempty"`
	NOPMCIHalf float64 `json:"nopm_ci_half,omitempty"`
	// Confidence is the intervals' level (0.95).
	Confidence float64 `json:"confidence,omitempty"`
}

// Measured is the length of the measured interval.
func (s *Step) Measured() time.Duration { return s.MeasureEnd.Sub(s.MeasureStart) }

// Validity is the verdict on whether a measurement interval meets the
// rules TPC-C sets for a valid one; a step that is not valid still counts.
type Validity struct {
	Valid      bool     `json:"valid"`
	Violations []string `json:"violations"`
	// Chance sets each violated share that has a sampling model against
	// the spread a correct driver shows by chance at the step's counts.
	Chance []Chance `json:"chance,omitempty"`
}

// HostSummary is the host summary of a step, stored as figures.Host
// defines it (the JSON keys are the column names).
type HostSummary = figures.Host

// DBCounters are server-side counter deltas over the measured interval.
type DBCounters struct {
	Commits     int64 `json:"commits"`     // transactions committed in the benchmark database
	Rollbacks   int64 `json:"rollbacks"`   // transactions rolled back in the benchmark database
	BlocksRead  int64 `json:"blocks_read"` // blocks read from disk (or the OS cache)
	BlocksHit   int64 `json:"blocks_hit"`  // blocks found in the buffer pool
	WALBytes    int64 `json:"wal_bytes"`   // WAL / redo log bytes written
	Checkpoints int64 `json:"checkpoints"` // checkpoints completed
	// TPM is (commits+rollbacks) per minute, as HammerDB reports it.
	TPM float64 `json:"tpm"`
	// BufferHitPct is BlocksHit / (BlocksHit+BlocksRead) × 100.
	BufferHitPct float64 `json:"buffer_hit_pct"`
}

// TxnSummary is the figures of one transaction type over a measured
// interval (figures.Txn, stored as it is), with its type, mean latency,
// first error and histogram; latencies in milliseconds.
type TxnSummary struct {
	// Type is the transaction type, as tpcc.TxnType's String names it.
	Type string `json:"type"`
	figures.Txn
	MeanMs     float64 `json:"mean_ms"`               // mean latency
	FirstError string  `json:"first_error,omitempty"` // text of the first error, if any
	// Hist is the latency histogram in microseconds (see HdrHist).
	Hist HdrHist `json:"hist,omitempty"`
}

// Second is the throughput of one second of a step.
type Second struct {
	// Offset is the number of seconds since the step's Start.
	Offset int `json:"offset_s"`
	// Txn is completed transactions in that second.
	Txn int64 `json:"txn"`
	// NewOrders is completed New-Orders in that second.
	NewOrders int64 `json:"new_orders"`
	// WALBytes is the WAL the server wrote in that second (PostgreSQL's
	// insert position; 0 where not read).
	WALBytes int64 `json:"wal_bytes,omitempty"`
}

// Window is the latency histogram of one transaction type over one window
// of a step (ramp-up included).
type Window struct {
	// Offset is the window's start, from the step's Start.
	Offset time.Duration `json:"offset_ns"`
	// Type is the transaction type.
	Type string `json:"type"`
	// Hist is the latency histogram in microseconds (see HdrHist).
	Hist HdrHist `json:"hist,omitempty"`
}

// HostSample is one raw host sample, stored as figures.HostSample
// defines it (the JSON keys are the column names).
type HostSample = figures.HostSample

// Probe is the stored result of a probe (storage, CPU, backup).
type Probe struct {
	// ID is assigned by AddProbe when empty, in the run ID format.
	ID string `json:"id"`
	// Kind is ProbeStorage, ProbeCPU or ProbeBackup.
	Kind string `json:"kind"`
	// Label is a free name; LoadProbe picks the latest probe with a label.
	Label string `json:"label,omitempty"`
	// Host names the machine probed.
	Host string `json:"host,omitempty"`
	// CreatedAt is set to now by AddProbe when zero.
	CreatedAt time.Time `json:"created_at"`
	// Result is a JSON document owned by the probe package.
	Result json.RawMessage `json:"result"`
}

// HdrHist is an HdrHistogram as hdrhistogram-go's
// Histogram.Encode(hdrhistogram.V2CompressedEncodingCookieBase) returns it:
// the standard base64 text of the V2 compressed encoding, which
// hdrhistogram.Decode and every other HdrHistogram implementation read.
// A []byte converts to it implicitly. In JSON it is that text as a string.
type HdrHist []byte

// MarshalJSON writes the histogram's base64 text as a JSON string.
func (h HdrHist) MarshalJSON() ([]byte, error) { return json.Marshal(string(h)) }

// UnmarshalJSON reads a JSON string (or null).
func (h *HdrHist) UnmarshalJSON(b []byte) error {
	var s *string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	if s == nil || *s == "" {
		*h = nil
		return nil
	}
	*h = HdrHist(*s)
	return nil
}
