package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/rightsize/rightsize/driver"
	"github.com/rightsize/rightsize/engine"
	"github.com/rightsize/rightsize/execute"
	"github.com/rightsize/rightsize/internal/units"
	"github.com/rightsize/rightsize/registry"
	"github.com/rightsize/rightsize/report"
	"github.com/rightsize/rightsize/scenario"
	"github.com/rightsize/rightsize/store"
)

func newSweepCmd() *cobra.Command {
	var tf targetFlags
	var rf runFlags
	var values []string
	var predict bool
	var threshold, resume string
	var kinds []string
	for _, k := range scenario.SweepKinds() {
		kinds = append(kinds, k.Name)
	}
	cmd := &cobra.Command{
		Use:   "sweep " + strings.Join(kinds, "|"),
		Short: "Measure one run per value of one setting (memory, cpus, io, version) over the same built database, and find the knee",
		Long: `sweep restarts the managed server once per value with that value applied,
restores the database to its built state, runs the autopilot (--users,
--rampup, --duration, --repeat as run has them) and stores one run per value,
labelled "LABEL KIND=VALUE", grouped as one sweep. It ends with TPM, NOPM,
New-Order p90/p99, blocks read per transaction and disk reads per value, and
the knee: ` + scenario.KneeRule + `.

memory sets the engine's cache (PostgreSQL shared_buffers and
effective_cache_size, MariaDB innodb_buffer_pool_size); values are measured
from the largest down. Build first (rightsize build), on --target embedded.
Ctrl-C keeps the values measured and marks the sweep partial; --resume SWEEP
continues it, measuring what is left with the flags of its first run (a flag
given with another value is refused).`,
		Example: `  rightsize build --warehouses 10
  rightsize sweep memory --values 2G,1G,512M,256M,128M --users 4 --rampup 30s --duration 2m
  rightsize sweep memory --resume 20261124-041500-ab12cd`,
		Args: sweepKindArg,
		RunE: func(cmd *cobra.Command, args []string) error {
			if _, err := scenario.LookupSweepKind(args[0]); err != nil {
				return badInput(err)
			}
			th, err := units.ParseShare(threshold)
			if err != nil {
				return badInput(fmt.Errorf("--knee-threshold %w", err))
			}
			if resume != "" {
				if err := resumeFlags(cmd, resume); err != nil {
					return err
				}
			}
			o, err := rf.options(cmd)
			if err != nil {
				return err
			}
			tf.forUsers(o.Users, o.Connections)
			if resume == "" && len(values) == 0 {
				return badInput(fmt.Errorf("--values: give the values to sweep, e.g. rightsize sweep %s --values %s", args[0], exampleOf(args[0])))
			}
			if resume == "" {
				// every value checked before a server starts
				base, err := tf.options(false, 2)
				if err != nil {
					return err
				}
				if err := scenario.CheckSweep(tf.spec, base, args[0], values); err != nil {
					return badInput(err)
				}
			}
			so := scenario.SweepOptions{Kind: args[0], Values: values, Label: o.Label, KneeThreshold: th / 100, Run: o, Resume: resume}
			return sweepWith(cmd, tf, so, rf, predict)
		},
	}
	tf.register(cmd)
	rf.register(cmd)
	cmd.Flags().StringSliceVar(&values, "values", nil, "the values to sweep, comma-separated (memory: 2G,1G,512M)")
	cmd.Flags().StringVar(&threshold, "knee-threshold", "10%", "NOPM drop (or New-Order p90 rise) against the best value that marks the knee")
	cmd.Flags().StringVar(&resume, "resume", "", "continue an interrupted sweep (id or label): values measured completely are kept")
	cmd.Flags().BoolVar(&predict, "predict", false, "print beside each value what the capacity model predicted from the values measured before it")
	return cmd
}

func exampleOf(kind string) string {
	for _, k := range scenario.SweepKinds() {
		if k.Name == kind {
			return k.Example
		}
	}
	return ""
}

func sweepWith(cmd *cobra.Command, tf targetFlags, so scenario.SweepOptions, rf runFlags, predict bool) error {
	if predict && so.Run.Rate > 0 {
		return badInput(errors.New("--predict predicts users that run back to back: drop --rate (a paced run's throughput is its rate; compare the values' latency instead)"))
	}
	return withStore(cmd, func(st *store.Store) error {
		so.Run.Version, so.Run.Commit = version, commit
		c, err := tf.config(false, 2, so.Run)
		if err != nil {
			return err
		}
		return sweepOn(cmd, st, &tf, c, so, rf, predict)
	})
}

// withStore opens the results store for a scenario that restarts the
// server in place (sweep, fit), runs it and closes the store. Bad options
// and targets become bad input.
func withStore(cmd *cobra.Command, run func(*store.Store) error) error {
	st, err := openStore(cmd)
	if err != nil {
		return err
	}
	defer st.Close()
	err = run(st)
	if errors.Is(err, scenario.ErrBadOptions) || errors.Is(err, registry.ErrBadTarget) {
		return badInput(err)
	}
	return err
}

// scenarioPolicy is the command's policy (targetFlags.policy) for a
// scenario over its configuration: the caps applied said, and without
// --json the live progress of each run, which *prog holds while it runs.
func scenarioPolicy(cmd *cobra.Command, tf *targetFlags, rf runFlags, prog **stepProgress) execute.Policy {
	p := tf.policy()
	p.Ready = func(_ context.Context, t *registry.Target, o *scenario.RunOptions) (func(), error) {
		tf.sayCaps(t)
		if rf.json {
			return nil, nil
		}
		*prog = liveProgress(cmd.ErrOrStderr(), rf.interval, o)
		return (*prog).finish, nil
	}
	return p
}

// sweepOn measures the sweep over the command's configuration c
// (execute.Sweep with the command's policy) and prints it.
func sweepOn(cmd *cobra.Command, st *store.Store, tf *targetFlags, c execute.Config, so scenario.SweepOptions, rf runFlags, predict bool) error {
	ctx := cmd.Context()
	errOut := cmd.ErrOrStderr()
	var prog *stepProgress
	if !rf.json {
		so.OnValue = func(_ int, v string) {
			prog.finish()
			fmt.Fprintf(errOut, "%s = %s: restarting the server, restoring the built database\n", so.Kind, v)
		}
	}
	so.OnWarning = func(w string) { fmt.Fprintln(errOut, "warning:", w) }
	so.OnStarted = func(t *registry.Target) {
		if r, ok := t.CapsReport(); ok {
			fmt.Fprintln(errOut, "  caps:", r.Summary())
		}
	}
	res, err := execute.Sweep(ctx, st, c, so, scenarioPolicy(cmd, tf, rf, &prog))
	if res == nil || errors.Is(err, scenario.ErrBadOptions) {
		return err
	}
	if predict {
		if perr := res.Predict(context.WithoutCancel(ctx), st); perr != nil {
			return perr
		}
	}
	if rf.json {
		if jerr := writeJSON(cmd.OutOrStdout(), res); jerr != nil {
			return jerr
		}
	} else {
		writeSweep(cmd.OutOrStdout(), res)
		if predict {
			writeSweepPredictions(cmd.OutOrStdout(), res)
		}
		fmt.Fprintf(cmd.OutOrStdout(), "  report: rightsize report --sweep %s\n", res.ID)
	}
	return err
}

// writeSweep prints a sweep's figures per value and its knee; a value that
// left the driver no core of its own is marked "*", with the note under
// the table.
func writeSweep(w io.Writer, r *scenario.SweepResult) {
	fmt.Fprintf(w, "\nsweep %s %s (%s)", r.Kind, r.ID, r.Status)
	if r.Label != "" {
		fmt.Fprintf(w, " · label %s", r.Label)
	}
	if r.DBBytes > 0 {
		fmt.Fprintf(w, " · database %.0f MiB", float64(r.DBBytes)/(1<<20))
	}
	fmt.Fprintln(w)
	vw := 10 // the VALUE column fits the longest value (io limits are long) and its mark
	for _, p := range r.Points {
		vw = max(vw, len(p.Value)+1)
	}
	fig, p90, p99 := "NOPM", "NO p90 ms", "NO p99 ms"
	if r.Figure != "" {
		fig, p90, p99 = "FIG/min", "p90 ms", "p99 ms"
		fmt.Fprintf(w, "  figure of merit: the transactions per minute of %s (FIG/min; TPS = FIG/min / 60)\n", r.Figure)
	}
	if r.Rate > 0 {
		fmt.Fprintf(w, "  %s\n", report.PacedSweepNote(r.Rate))
	}
	fmt.Fprintf(w, "  %-3s %-*s %-9s %5s %9s %9s %10s %10s %11s %12s  %s\n", "", vw, "VALUE", "STATUS", "USERS", "TPM", fig,
		p90, p99, "blk rd/txn", "disk rd MB/s", "RUN")
	for i, p := range r.Points {
		mark, value := "", p.Value
		if i == r.Knee {
			mark = "▶"
		}
		if p.DriverShares {
			value += "*"
		}
		if !p.Measured() {
			fmt.Fprintf(w, "  %-3s %-*s %-9s %s\n", mark, vw, value, p.Status, p.Reason)
			continue
		}
		fmt.Fprintf(w, "  %-3s %-*s %-9s %5d %9.0f %9.0f %10.2f %10.2f %11.2f %12.1f  %s\n", mark, vw, value, p.Status, p.Users, p.TPM, p.NOPM,
			p.NewOrderP90Ms, p.NewOrderP99Ms, p.BlocksReadPerTxn, p.DiskReadMBps, p.RunID)
	}
	writeKnee(w, r)
	if r.DriverShare != nil {
		fmt.Fprintf(w, "  * %s.\n", r.DriverShare.Note())
	}
	fmt.Fprintf(w, "  rule: %s\n", r.KneeRule)
}

// writeKnee prints the knee line, with what it compares unfairly.
func writeKnee(w io.Writer, r *scenario.SweepResult) {
	unfair, judged := "", "NOPM and New-Order p90"
	if r.Figure != "" {
		judged = "figure (FIG/min) and its p90"
	}
	if r.DriverShare != nil {
		unfair = " · * " + r.DriverShare.KneeNote()
	}
	switch {
	case r.KneeNote != "":
		fmt.Fprintf(w, "  knee: %s%s\n", r.KneeNote, unfair)
	case r.Knee < 0 && r.KneeFound:
		fmt.Fprintf(w, "  knee: above the values tried — %s = %s is already more than %.0f %% below the best%s\n", r.Kind, r.Points[0].Value, r.Threshold*100, unfair)
	case r.Knee < 0:
		fmt.Fprintln(w, "  knee: none (no value measured)")
	case r.KneeFound:
		fmt.Fprintf(w, "  knee: %s = %s — the smallest value within %.0f %% of the best %s; the next value falls beyond%s\n",
			r.Kind, r.Points[r.Knee].Value, r.Threshold*100, judged, unfair)
	default:
		fmt.Fprintf(w, "  knee: not reached — every value down to %s is within %.0f %% of the best %s%s\n",
			r.Points[r.Knee].Value, r.Threshold*100, judged, unfair)
	}
}

// reportSweep loads a stored sweep for the report (nil without --sweep).
func reportSweep(cmd *cobra.Command, st *store.Store, key string) (*report.Sweep, error) {
	if key == "" {
		return nil, nil
	}
	r, err := scenario.LoadSweepResult(cmd.Context(), st, key, 0)
	if errors.Is(err, store.ErrNotFound) {
		return nil, badInput(fmt.Errorf("--sweep: %w", err))
	}
	if err != nil {
		return nil, err
	}
	if err := r.Predict(cmd.Context(), st); err != nil {
		return nil, err
	}
	v := &report.Sweep{ID: r.ID, Label: r.Label, Kind: r.Kind, Status: r.Status, Threshold: r.Threshold, Rule: r.KneeRule,
		DBBytes: r.DBBytes, Knee: r.Knee, KneeFound: r.KneeFound, KneeNote: r.KneeNote, RunLabel: scenario.RunLabel(r.Kind, r.ID, r.Label), Points: r.Points,
		Figure: r.Figure, Rate: r.Rate}
	if d := r.DriverShare; d != nil {
		v.DriverNote, v.DriverKneeNote = d.Note()+".", d.KneeNote()
	}
	if r.Kind == scenario.NeighbourKind {
		v.Neighbour, err = reportNeighbour(cmd.Context(), st, r.ID)
	}
	return v, err
}

// sweepRuns are the run ids of a sweep's values, in value order.
func sweepRuns(s *report.Sweep) []string {
	var ids []string
	for _, p := range s.Points {
		if p.RunID != "" {
			ids = append(ids, p.RunID)
		}
	}
	return ids
}

// liveProgress shows each step of o's runs with its live figures (a bar
// on a terminal, a line every interval otherwise); finish it when done.
func liveProgress(w io.Writer, interval time.Duration, o *scenario.RunOptions) *stepProgress {
	prog := newStepProgress(w, interval, len(o.Users), o.Repeats)
	prog.tps = o.Workload != nil
	o.OnStepStart = func(repeat, index, users int, mode engine.Mode) {
		prog.start(repeat, index, users, o.Rampup, o.Duration, fmt.Sprintf("  step %d/%d: %d users, ramp-up %s, measuring %s (%s mode)",
			index+1, len(o.Users), users, phaseText(o.Answer.RampupAuto, o.Rampup), phaseText(o.Answer.DurationAuto, o.Duration), mode))
	}
	o.OnProgress = func(_, _ int, p driver.Progress) { prog.update(p, o.Rampup) }
	return prog
}

// sweepKindArg wants one KIND; values given as separate arguments (--values
// 2 1) or no kind at all are bad input with the right form.
// looksLikeFlag tells a flag (--users, -o) from a value ("-1" is a value).
func looksLikeFlag(s string) bool {
	return strings.HasPrefix(s, "--") || len(s) > 1 && s[0] == '-' && (s[1] < '0' || s[1] > '9') && s[1] != '.'
}

func sweepKindArg(cmd *cobra.Command, args []string) error {
	var names []string
	for _, k := range scenario.SweepKinds() {
		names = append(names, k.Name)
	}
	values, _ := cmd.Flags().GetStringSlice("values")
	for _, v := range values {
		if looksLikeFlag(v) {
			return badInput(fmt.Errorf("--values took %q as its list: give the values right after it, e.g. rightsize sweep cpus --values 2,1", v))
		}
	}
	switch {
	case len(args) == 0:
		return badInput(fmt.Errorf("name what to sweep (%s): rightsize sweep cpus --values 2,1", strings.Join(names, ", ")))
	case len(args) > 1:
		values := args[1:]
		if v, _ := cmd.Flags().GetStringSlice("values"); len(v) > 0 {
			values = append(v, values...)
		}
		return badInput(fmt.Errorf("sweep takes one KIND and its values as one comma-separated list (--values %s), not the extra arguments %s",
			strings.Join(values, ","), strings.Join(args[1:], " ")))
	}
	return nil
}
