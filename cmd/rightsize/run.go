package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/rightsize/rightsize/driver"
	"github.com/rightsize/rightsize/engine"
	"github.com/rightsize/rightsize/report"
	"github.com/rightsize/rightsize/scenario"
	"github.com/rightsize/rightsize/store"
	"github.com/rightsize/rightsize/target"
	"github.com/rightsize/rightsize/telemetry"
	"github.com/rightsize/rightsize/tpcc"
)

// runOptions are the flags of run (quickstart fills them itself).
type runOptions struct {
	users          []int
	rampup         time.Duration
	duration       time.Duration
	repeats        int
	rebuild        bool
	mode           string
	keyingThinking bool
	seed           uint64
	warehouses     int
	json           bool
	label          string
	reconnect      time.Duration
	driverProcs    int // GOMAXPROCS during the steps; 0: adaptive
	flags          map[string]string
}

func newRunCmd() *cobra.Command {
	var tf targetFlags
	var o runOptions
	var users string
	cmd := &cobra.Command{
		Use:   "run",
		Short: "Run virtual users with the TPC-C mix (an autopilot of steps) and store TPM, NOPM, latencies and telemetry",
		Long: `run starts the virtual users of each step in parallel, lets them ramp up
(not measured), then measures for --duration; steps follow the --users sequence
and the whole sequence is repeated --repeat times. Everything measured is kept
in the results store (--store, default ./rightsize.db).

--users takes a number, a list (1,2,4), fib:89 (1,2,3,5,...,89) or a range
1..128x2 (doubling) / 10..50+10 (adding).`,
		Example: `  rightsize run --users 4 --rampup 10s --duration 1m
  rightsize run --users fib:89 --rampup 2m --duration 5m --repeat 3 --label ssd-16cores
  rightsize run --users 1,2,4 --mode statements --json
  rightsize run --target postgres://postgres:secret@db1/tpcc --users 16 --keying-thinking`,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var err error
			if o.users, err = driver.ParseUsers(users); err != nil {
				return badInput(err)
			}
			if o.duration <= 0 || o.rampup < 0 {
				return badInput(fmt.Errorf("--duration must be positive and --rampup not negative"))
			}
			if o.repeats < 1 {
				return badInput(fmt.Errorf("--repeat must be at least 1 (got %d)", o.repeats))
			}
			if o.driverProcs < 0 {
				return badInput(fmt.Errorf("--driver-procs must be 0 (adaptive) or a number of Ps (got %d)", o.driverProcs))
			}
			if cmd.Flags().Changed("warehouses") {
				if err := tpcc.ValidateWarehouses(o.warehouses); err != nil {
					return badInput(err)
				}
			}
			o.flags = allFlags(cmd)
			t, err := tf.open(cmd.Context(), false, 2)
			if err != nil {
				return err
			}
			defer t.Close()
			_, err = runWith(cmd, t, o)
			return err
		},
	}
	tf.register(cmd)
	cmd.Flags().StringVarP(&users, "users", "u", "1", "virtual users per step: N, a list, fib:N or A..BxF")
	cmd.Flags().DurationVar(&o.rampup, "rampup", 10*time.Second, "ramp-up of each step (not measured)")
	cmd.Flags().DurationVar(&o.duration, "duration", time.Minute, "measured duration of each step")
	cmd.Flags().IntVar(&o.repeats, "repeat", 1, "repeat the whole users sequence this many times")
	cmd.Flags().BoolVar(&o.rebuild, "rebuild-between-repeats", false, "restore the freshly built database before each repeat")
	cmd.Flags().StringVar(&o.mode, "mode", "", "procedures or statements (default: procedures where the engine has them)")
	cmd.Flags().BoolVar(&o.keyingThinking, "keying-thinking", false, "use the spec's keying and think times")
	cmd.Flags().Uint64Var(&o.seed, "seed", 0, "seed of the transaction inputs (default: random)")
	cmd.Flags().IntVarP(&o.warehouses, "warehouses", "w", 0, "expected warehouse count of the schema (error if it differs)")
	cmd.Flags().BoolVar(&o.json, "json", false, "print one JSON object instead of the text summary")
	cmd.Flags().StringVar(&o.label, "label", "", "name this run (reports and compare accept it instead of the run id)")
	cmd.Flags().DurationVar(&o.reconnect, "reconnect-timeout", 30*time.Second, "end the step (partial) when users cannot reconnect for this long")
	cmd.Flags().IntVar(&o.driverProcs, "driver-procs", 0, "GOMAXPROCS of the driver during steps (0: start at 1 and add as the driver's CPU use needs)")
	return cmd
}

// allFlags records every flag of a command, changed or not.
func allFlags(cmd *cobra.Command) map[string]string {
	m := map[string]string{}
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		if f.Name == "help" {
			return
		}
		v := f.Value.String()
		if f.Name == "target" {
			v = target.Redact(v)
		}
		m[f.Name] = v
	})
	return m
}

// runReport is the JSON document of run --json.
type runReport struct {
	RunID          string       `json:"run_id"`
	Label          string       `json:"label,omitempty"`
	Target         string       `json:"target"`
	Engine         string       `json:"engine"`
	Version        string       `json:"version"`
	Mode           engine.Mode  `json:"mode"`
	Warehouses     int          `json:"warehouses"`
	KeyingThinking bool         `json:"keying_thinking"`
	Seed           uint64       `json:"seed"`
	Partial        bool         `json:"partial"`
	Steps          []stepReport `json:"steps"`
}

type stepReport struct {
	Users             int                  `json:"users"`
	TPM               float64              `json:"tpm"`
	NOPM              float64              `json:"nopm"`
	TPMPerUser        float64              `json:"tpm_per_user"`
	Txn               map[string]txnReport `json:"txn"`
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
	Host              hostReport           `json:"host"`
	ServerCPUPct      float64              `json:"server_cpu_pct"`
	DriverCPUPct      float64              `json:"driver_cpu_pct"`
	DBTPM             *float64             `json:"db_tpm,omitempty"`
}

// hostReport is the host telemetry of a step (means over the measured
// interval and over repeats).
type hostReport struct {
	CPUBusyPct       float64 `json:"cpu_busy_pct"`
	CPUIdlePct       float64 `json:"cpu_idle_pct"`
	CPUIowaitPct     float64 `json:"cpu_iowait_pct"`
	DiskReadIOPS     float64 `json:"disk_read_iops"`
	DiskWriteIOPS    float64 `json:"disk_write_iops"`
	DiskReadMBps     float64 `json:"disk_read_mbps"`
	DiskWriteMBps    float64 `json:"disk_write_mbps"`
	DiskAvgLatencyMs float64 `json:"disk_avg_latency_ms"`
}

type txnReport struct {
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

// runWith runs the autopilot of o against an open target, storing every
// step as soon as it is measured.
func runWith(cmd *cobra.Command, t *target.Target, o runOptions) (*runReport, error) {
	ctx := cmd.Context()
	meta, err := readySchema(ctx, t)
	if err != nil {
		return nil, err
	}
	if o.warehouses != 0 && o.warehouses != meta.Warehouses {
		return nil, badInput(fmt.Errorf("the schema in %s was built with %d warehouses, not %d; rebuild with: rightsize build --warehouses %d, or drop --warehouses",
			t.Name, meta.Warehouses, o.warehouses, o.warehouses))
	}
	mode := t.Caps().DefaultMode()
	if o.mode != "" {
		if mode, err = engine.ParseMode(o.mode); err != nil {
			return nil, badInput(err)
		}
		if !slices.Contains(t.Caps().Modes(), mode) {
			return nil, badInput(fmt.Errorf("%s has no %s mode (it has %v)", t.Engine(), mode, t.Caps().Modes()))
		}
	}
	if o.repeats < 1 {
		o.repeats = 1
	}
	if o.seed == 0 {
		o.seed = uint64(time.Now().UnixNano())
	}
	st, err := openStore(cmd)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	consts := meta.Constants.WithRunConstants(tpcc.NewRand(o.seed, 0xC1))
	meta.Runs++
	if err := t.WriteMeta(ctx, meta); err != nil {
		return nil, err
	}
	bg := context.WithoutCancel(ctx) // the store is written even after Ctrl-C
	env := scenario.Environment(ctx, t, version, commit)
	run := &store.Run{Label: o.label, Target: t.Name, Engine: t.Engine(), EngineVersion: env["engine.version"], Mode: string(mode),
		Warehouses: meta.Warehouses, Seed: o.seed, KeyingThinking: o.keyingThinking, Users: o.users, Rampup: o.rampup,
		Duration: o.duration, Repeats: o.repeats, Flags: o.flags, Env: env, StartedAt: time.Now().UTC()}
	if t.Spec == "embedded" {
		run.Target = "embedded"
	}
	if err := st.CreateRun(bg, run); err != nil {
		return nil, err
	}
	ap := &scenario.Autopilot{DB: t, Users: o.users, Rampup: o.rampup, Duration: o.duration, Repeats: o.repeats, Mode: mode,
		KeyingThinking: o.keyingThinking, Seed: o.seed, Warehouses: meta.Warehouses, Constants: consts,
		RebuildBetweenRepeats: o.rebuild, ServerPID: t.ServerPID(), ReconnectTimeout: o.reconnect, AdaptiveProcs: o.driverProcs == 0}
	if o.driverProcs > 0 {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(o.driverProcs))
	}
	if !o.json {
		ap.OnStepStart = func(repeat, index, users int) {
			fmt.Fprintf(cmd.ErrOrStderr(), "repeat %d/%d · step %d/%d: %d users, ramp-up %s, measuring %s (%s mode)\n",
				repeat, o.repeats, index+1, len(o.users), users, o.rampup, o.duration, mode)
		}
	}
	lastPartial := false
	runErr := ap.Run(ctx, func(ctx context.Context, r scenario.StepRecord) error {
		lastPartial = r.Result.Partial
		s := r.StoreStep(run.ID)
		return st.AddStep(bg, &s)
	})
	status := store.StatusComplete
	switch {
	case lastPartial || (runErr != nil && ctx.Err() != nil) || errors.Is(runErr, driver.ErrServerLost):
		status = store.StatusPartial
	case runErr != nil:
		status = store.StatusFailed
	}
	if err := st.FinishRun(bg, run.ID, status, time.Now().UTC()); err != nil && runErr == nil {
		runErr = err
	}
	if errors.Is(runErr, scenario.ErrNoRestore) {
		return nil, badInput(fmt.Errorf("--rebuild-between-repeats: %w", runErr))
	}
	stored, steps, err := st.LoadRun(bg, run.ID)
	if err != nil {
		return nil, fmt.Errorf("read the run back from the store: %w", err)
	}
	rep := buildReport(stored, steps)
	if o.json {
		enc := json.NewEncoder(cmd.OutOrStdout())
		enc.SetIndent("", "  ")
		if err := enc.Encode(rep); err != nil {
			return rep, err
		}
	} else {
		report.WriteRunSummary(cmd.OutOrStdout(), *stored, steps)
	}
	if rep.Partial {
		why := "run interrupted"
		if runErr != nil && ctx.Err() == nil {
			why = runErr.Error()
		}
		return rep, fmt.Errorf("%s: the summary above is partial; what was measured is stored as run %s (partial)", why, run.ID)
	}
	return rep, runErr
}

// buildReport is the run --json document of a stored run: its steps
// aggregated across repeats by store.Aggregate (the figures results show
// and the report print too).
func buildReport(run *store.Run, steps []store.Step) *runReport {
	rep := &runReport{RunID: run.ID, Label: run.Label, Target: run.Target, Engine: run.Engine, Version: run.EngineVersion,
		Mode: engine.Mode(run.Mode), Warehouses: run.Warehouses, KeyingThinking: run.KeyingThinking, Seed: run.Seed,
		Partial: run.Status == store.StatusPartial}
	for _, a := range store.Aggregate(steps) {
		s := stepReport{Users: a.Users, Repeats: a.Repeats, TPM: a.TPM.Mean, NOPM: a.NOPM.Mean, TPMPerUser: a.TPMPerUser.Mean,
			TPMCV: a.TPM.CV, NOPMCV: a.NOPM.CV, TPMMin: a.TPM.Min, TPMMax: a.TPM.Max, Unstable: a.Unstable, Partial: a.Partial,
			DriverCPUUsPerTxn: a.DriverCPUUsPerTxn, DriverCPUPct: a.DriverCPUPct, ServerCPUPct: a.ServerCPUPct,
			MeasuredSeconds: a.MeasuredSeconds, SkippedDeliveries: a.SkippedDeliveries, Reconnects: a.Reconnects,
			Host: hostReport{CPUBusyPct: a.Host.CPUBusyPct, CPUIdlePct: a.Host.CPUIdlePct, CPUIowaitPct: a.Host.CPUIowaitPct,
				DiskReadIOPS: a.Host.DiskReadIOPS, DiskWriteIOPS: a.Host.DiskWriteIOPS, DiskReadMBps: a.Host.DiskReadMBps,
				DiskWriteMBps: a.Host.DiskWriteMBps, DiskAvgLatencyMs: a.Host.DiskAvgLatencyMs},
			Txn: map[string]txnReport{}}
		if v := a.ServerCPUUsPerTxn; v > 0 {
			s.ServerCPUUsPerTxn = &v
		}
		if v := a.DBTPM; v > 0 {
			s.DBTPM = &v
		}
		for _, x := range a.Txn {
			s.Txn[x.Type] = txnReport{Count: x.Count, Rollbacks: x.Rollbacks, Retries: x.Retries, Errors: x.Errors,
				P50: x.P50Ms, P90: x.P90Ms, P95: x.P95Ms, P99: x.P99Ms, Max: x.MaxMs, FirstError: x.FirstError}
		}
		rep.Steps = append(rep.Steps, s)
	}
	return rep
}

// serverCPU returns the managed server's cumulative CPU (nil when the
// server is not ours to watch).
func serverCPU(t *target.Target) func() time.Duration {
	pid := t.ServerPID()
	if pid == 0 {
		return nil
	}
	return func() time.Duration {
		d, _ := telemetry.ProcessTreeCPU(pid)
		return d
	}
}
