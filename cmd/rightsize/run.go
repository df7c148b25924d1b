package main

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/rightsize/rightsize/driver"
	"github.com/rightsize/rightsize/engine"
	"github.com/rightsize/rightsize/target"
	"github.com/rightsize/rightsize/telemetry"
	"github.com/rightsize/rightsize/tpcc"
)

// runOptions are the flags of run (quickstart fills them itself).
type runOptions struct {
	users          []int
	rampup         time.Duration
	duration       time.Duration
	mode           string
	keyingThinking bool
	seed           uint64
	warehouses     int
	json           bool
}

func newRunCmd() *cobra.Command {
	var tf targetFlags
	var o runOptions
	cmd := &cobra.Command{
		Use:   "run",
		Short: "Run virtual users with the TPC-C mix and report TPM, NOPM and latencies",
		Example: `  rightsize run --users 4 --rampup 10s --duration 1m
  rightsize run --users 8 --mode statements --json
  rightsize run --target postgres://postgres:secret@db1/tpcc --users 16 --duration 5m --keying-thinking`,
		RunE: func(cmd *cobra.Command, _ []string) error {
			for _, u := range o.users {
				if u < 1 {
					return badInput(fmt.Errorf("--users must be at least 1 (got %d)", u))
				}
			}
			if o.duration <= 0 || o.rampup < 0 {
				return badInput(fmt.Errorf("--duration must be positive and --rampup not negative"))
			}
			if cmd.Flags().Changed("warehouses") {
				if err := tpcc.ValidateWarehouses(o.warehouses); err != nil {
					return badInput(err)
				}
			}
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
	cmd.Flags().IntSliceVarP(&o.users, "users", "u", []int{1}, "virtual users")
	cmd.Flags().DurationVar(&o.rampup, "rampup", 10*time.Second, "ramp-up before measuring")
	cmd.Flags().DurationVar(&o.duration, "duration", time.Minute, "measured duration")
	cmd.Flags().StringVar(&o.mode, "mode", "", "procedures or statements (default: procedures where the engine has them)")
	cmd.Flags().BoolVar(&o.keyingThinking, "keying-thinking", false, "use the spec's keying and think times")
	cmd.Flags().Uint64Var(&o.seed, "seed", 0, "seed of the transaction inputs (default: random)")
	cmd.Flags().IntVarP(&o.warehouses, "warehouses", "w", 0, "expected warehouse count of the schema (error if it differs)")
	cmd.Flags().BoolVar(&o.json, "json", false, "print one JSON object instead of the text summary")
	return cmd
}

// runReport is the JSON document of run --json.
type runReport struct {
	RunID          string       `json:"run_id"`
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

func newRunID() string {
	var b [3]byte
	_, _ = rand.Read(b[:])
	return time.Now().UTC().Format("20060102-150405") + "-" + hex.EncodeToString(b[:])
}

func stepToReport(s *driver.StepResult) stepReport {
	r := stepReport{Users: s.Users, TPM: s.TPM(), NOPM: s.NOPM(), DriverCPUUsPerTxn: s.DriverCPUPerTxn(),
		MeasuredSeconds: s.Measured().Seconds(), SkippedDeliveries: s.SkippedDeliveries, Reconnects: s.Reconnects, Partial: s.Partial,
		Txn: map[string]txnReport{}}
	r.TPMPerUser = r.TPM / float64(s.Users)
	if v := s.ServerCPUPerTxn(); v > 0 {
		r.ServerCPUUsPerTxn = &v
	}
	for t := range tpcc.NumTxnTypes {
		st := s.Txn[t]
		h := st.Hist
		ms := func(q float64) float64 { return float64(h.ValueAtQuantile(q)) / 1000 }
		r.Txn[t.String()] = txnReport{Count: st.Count, Rollbacks: st.Rollbacks, Retries: st.Retries, Errors: st.Errors,
			P50: ms(50), P90: ms(90), P95: ms(95), P99: ms(99), Max: float64(h.Max()) / 1000,
			FirstError: st.FirstError}
	}
	return r
}

// runWith runs every step of o against an open target.
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
	}
	if o.seed == 0 {
		o.seed = uint64(time.Now().UnixNano())
	}
	consts := meta.Constants.WithRunConstants(tpcc.NewRand(o.seed, 0xC1))
	meta.Runs++
	if err := t.WriteMeta(ctx, meta); err != nil {
		return nil, err
	}
	ver, _ := t.Version(ctx)
	rep := &runReport{RunID: newRunID(), Target: t.Spec, Engine: t.Engine(), Version: ver, Mode: mode, Warehouses: meta.Warehouses,
		KeyingThinking: o.keyingThinking, Seed: o.seed}
	if t.Spec != "embedded" {
		rep.Target = t.Name
	}
	for _, users := range o.users {
		if !o.json {
			fmt.Fprintf(cmd.ErrOrStderr(), "step: %d users, ramp-up %s, measuring %s (%s mode)...\n", users, o.rampup, o.duration, mode)
		}
		res, err := driver.RunStep(ctx, t, driver.StepConfig{Users: users, Rampup: o.rampup, Duration: o.duration, Mode: mode,
			KeyingThinking: o.keyingThinking, Warehouses: meta.Warehouses, Constants: consts, Seed: o.seed + uint64(users),
			ServerCPU: serverCPU(t)})
		if err != nil {
			return rep, err
		}
		rep.Steps = append(rep.Steps, stepToReport(res))
		if res.Partial {
			rep.Partial = true
			break
		}
	}
	if o.json {
		enc := json.NewEncoder(cmd.OutOrStdout())
		enc.SetIndent("", "  ")
		if err := enc.Encode(rep); err != nil {
			return rep, err
		}
	} else {
		printRunSummary(cmd.OutOrStdout(), rep)
	}
	if rep.Partial {
		return rep, fmt.Errorf("run interrupted: the summary above is partial")
	}
	return rep, nil
}

// serverCPU returns the managed server's cumulative CPU (nil when the
// server is not ours to watch).
func serverCPU(t *target.Target) func() time.Duration {
	if t.Instance == nil {
		return nil
	}
	pid, err := t.Instance.PID()
	if err != nil {
		return nil
	}
	return func() time.Duration {
		d, _ := telemetry.ProcessTreeCPU(pid)
		return d
	}
}

func printRunSummary(w io.Writer, rep *runReport) {
	title := "rightsize run " + rep.RunID
	if rep.Partial {
		title += "  (PARTIAL: interrupted)"
	}
	fmt.Fprintf(w, "\n%s\n  target %s · %s · %s mode · %d warehouses · keying/think %s\n", title, rep.Target, rep.Version, rep.Mode,
		rep.Warehouses, onOff(rep.KeyingThinking))
	for _, s := range rep.Steps {
		fmt.Fprintf(w, "\n  users %-4d  TPM %10.0f   NOPM %10.0f   TPM/user %9.0f   measured %.0f s%s\n",
			s.Users, s.TPM, s.NOPM, s.TPMPerUser, s.MeasuredSeconds, partialMark(s.Partial))
		fmt.Fprintf(w, "  %-13s %9s %9s %8s %7s %9s %9s %9s %9s %9s\n", "transaction", "completed", "rollbacks", "retries", "errors",
			"p50 ms", "p90 ms", "p95 ms", "p99 ms", "max ms")
		for t := range tpcc.NumTxnTypes {
			x := s.Txn[t.String()]
			fmt.Fprintf(w, "  %-13s %9d %9d %8d %7d %9.2f %9.2f %9.2f %9.2f %9.2f\n", t, x.Count, x.Rollbacks, x.Retries, x.Errors,
				x.P50, x.P90, x.P95, x.P99, x.Max)
		}
		for t := range tpcc.NumTxnTypes {
			if x := s.Txn[t.String()]; x.FirstError != "" {
				fmt.Fprintf(w, "  first %s error: %s\n", t, x.FirstError)
			}
		}
		fmt.Fprintf(w, "  driver CPU %.1f µs/txn", s.DriverCPUUsPerTxn)
		if s.ServerCPUUsPerTxn != nil {
			fmt.Fprintf(w, " · server CPU %.1f µs/txn", *s.ServerCPUUsPerTxn)
		}
		fmt.Fprintf(w, " · skipped deliveries %d · reconnects %d\n", s.SkippedDeliveries, s.Reconnects)
	}
	fmt.Fprintln(w)
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

func partialMark(p bool) string {
	if p {
		return "  PARTIAL"
	}
	return ""
}
