package main

import (
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/rightsize/rightsize/report"
	"github.com/rightsize/rightsize/steady"
)

// newCalibrateCmd is "rightsize calibrate": run's flags, the run repeated
// as --runs separate stored runs --pause apart, then the drift between
// them (report.MeasureDrifts), which later verdicts on runs of the same
// configuration find in the store.
func newCalibrateCmd() *cobra.Command {
	cmd := newRunCmd()
	run := cmd.RunE
	var runs int
	var pause time.Duration
	cmd.Use = "calibrate"
	cmd.Short = "Measure the drift between runs of one configuration on this host: N short runs spread over time"
	cmd.Long = `calibrate runs the same configuration --runs times as separate stored runs
(labelled LABEL-1 .. LABEL-N, LABEL from --label or "calibrate"), --pause
apart so the machine's slower changes fall between them, and prints the
coefficient of variation between the runs of TPM, NOPM and New-Order p90.

Nothing else is stored: compare, run --baseline and the gate read the
drift of a run's configuration from the store's runs of it (same target,
engine and version, server settings, caps, host and load flags; users,
durations and labels may differ), calibrate's included. With fewer than 3
such runs they assume 10 % and say so. Takes every flag of run.`
	cmd.Example = `  rightsize calibrate --users 4 --rampup 5s --duration 20s --runs 5 --pause 2m
  rightsize calibrate --target postgres://bench@db1/tpcc --users 16 --duration 1m --runs 8 --pause 10m --label nightly-aa`
	cmd.Flags().IntVar(&runs, "runs", 5, "how many runs to measure (at least 3)")
	cmd.Flags().DurationVar(&pause, "pause", time.Minute, "wait this long between runs, so the drift of the machine over time falls between them")
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		if runs < steady.MinDriftRuns {
			return badInput(fmt.Errorf("--runs %d: at least %d runs are needed for a spread, e.g. --runs 5", runs, steady.MinDriftRuns))
		}
		if pause < 0 {
			return badInput(fmt.Errorf("--pause %s must not be negative, e.g. --pause 1m", pause))
		}
		if cmd.Flags().Changed("baseline") {
			return badInput(fmt.Errorf("calibrate measures one configuration: gate a run with rightsize run --baseline, not calibrate"))
		}
		label, _ := cmd.Flags().GetString("label")
		if label == "" {
			label = "calibrate"
		}
		var last string
		for i := 1; i <= runs; i++ {
			last = fmt.Sprintf("%s-%d", label, i)
			if err := cmd.Flags().Set("label", last); err != nil {
				return err
			}
			if err := run(cmd, args); err != nil {
				return fmt.Errorf("calibration run %d of %d: %w", i, runs, err)
			}
			if i < runs {
				select {
				case <-cmd.Context().Done():
					return cmd.Context().Err()
				case <-time.After(pause):
				}
			}
		}
		return printCalibration(cmd, last)
	}
	return cmd
}

// printCalibration prints the drift between runs of the configuration of
// the stored run key.
func printCalibration(cmd *cobra.Command, key string) error {
	st, id, err := openRun(cmd, key)
	if err != nil {
		return err
	}
	defer st.Close()
	runs, err := report.Load(cmd.Context(), st, id)
	if err != nil {
		return err
	}
	d, err := report.MeasureDrifts(cmd.Context(), st, runs[0].Run)
	if err != nil {
		return err
	}
	writeCalibration(cmd.OutOrStdout(), d)
	return nil
}

// writeCalibration states the drift per figure.
func writeCalibration(w io.Writer, d report.Drifts) {
	fmt.Fprintln(w, "\ndrift between runs of this configuration on this host:")
	for _, f := range []struct {
		name string
		d    steady.Drift
	}{{"TPM", d.TPM}, {"NOPM", d.NOPM}, {"New-Order p90", d.P90}} {
		if f.d.Measured() {
			fmt.Fprintf(w, "  %-14s %s (%d degrees of freedom)\n", f.name, f.d, f.d.DF)
		} else {
			fmt.Fprintf(w, "  %-14s not measured (fewer than %d complete runs of a step): %s\n", f.name, steady.MinDriftRuns, steady.DefaultDrift())
		}
	}
	fmt.Fprintln(w, "compare, run --baseline and the gate widen single runs of this configuration by it")
}
