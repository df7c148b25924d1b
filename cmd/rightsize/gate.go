package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/rightsize/rightsize/report"
	"github.com/rightsize/rightsize/store"
)

// gateFlags are the regression gate's flags, shared by compare and
// run --baseline.
type gateFlags struct {
	maxRegression, maxLatency percent
	junit                     string
}

func (f *gateFlags) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.Var(&f.maxRegression, "max-regression", "fail (exit 1) when B's TPM or NOPM, per step or over all steps, is lower than A's by more than this, e.g. 2.5%, with the intervals separated")
	fl.Var(&f.maxLatency, "max-latency-regression", "fail (exit 1) when B's New-Order p90 (a pgbench workload's: its figure's p90) of a step is higher than A's by more than this, e.g. 10%")
	fl.StringVar(&f.junit, "junit", "", "write the verdicts as JUnit XML to this file: one test case per step and one for the whole")
}

// thresholds reads the gate's flags; a threshold not given is
// report.NotGated. A threshold out of 0..100 % is bad input, and so is a
// --junit file in a directory that does not exist.
func (f *gateFlags) thresholds(cmd *cobra.Command) (report.Thresholds, error) {
	th := report.Thresholds{MaxRegression: report.NotGated, MaxLatencyRegression: report.NotGated}
	for _, x := range []struct {
		name string
		v    percent
		to   *float64
	}{{"max-regression", f.maxRegression, &th.MaxRegression}, {"max-latency-regression", f.maxLatency, &th.MaxLatencyRegression}} {
		if !cmd.Flags().Changed(x.name) {
			continue
		}
		v := float64(x.v)
		if math.IsNaN(v) || v < 0 || v > 1 {
			return th, badInput(fmt.Errorf("--%s %s: want a percentage from 0%% to 100%%, such as --%s 2.5%%", x.name, x.v.String(), x.name))
		}
		*x.to = v
	}
	if f.junit != "" {
		if d, err := os.Stat(filepath.Dir(f.junit)); err != nil || !d.IsDir() {
			return th, badInput(fmt.Errorf("--junit %s: directory %s does not exist; create it or name a file in an existing one", f.junit, filepath.Dir(f.junit)))
		}
	}
	return th, nil
}

// given reports whether any gate flag was given.
func (f *gateFlags) given(cmd *cobra.Command) bool {
	for _, n := range []string{"max-regression", "max-latency-regression", "junit"} {
		if cmd.Flags().Changed(n) {
			return true
		}
	}
	return false
}

// gate judges B against A: writes the comparison to out (the tables, or
// the verdicts as JSON), the gate's lines (to out, or to lines with JSON)
// and the JUnit file, and returns an exit-1 error naming the verdict when
// the gate fails.
func (f *gateFlags) gate(out, lines io.Writer, c *report.Comparison, th report.Thresholds, asJSON bool) error {
	v := c.Verdicts(th)
	if th.Gated() && len(c.Common) == 0 {
		return badInput(fmt.Errorf("%s and %s measured no users count in common: nothing to gate; compare runs of the same --users", c.LabelA, c.LabelB))
	}
	if !asJSON {
		lines = out
	}
	if asJSON {
		if err := writeJSON(out, v); err != nil {
			return fmt.Errorf("write the verdicts as JSON: %w", err)
		}
	} else {
		c.Write(out)
	}
	if f.junit != "" {
		if err := writeJUnit(f.junit, v); err != nil {
			return err
		}
	}
	if v.Gate == nil {
		return nil
	}
	return gateOutcome(lines, v.Gate)
}

// gateOutcome prints the gate's lines; a failed gate becomes exit 1 with
// the closing verdict as its message, a passed one prints it.
func gateOutcome(w io.Writer, g *report.GateResult) error {
	g.WriteLines(w)
	if !g.Passed {
		return &exitError{code: 1, err: errors.New(g.Verdict)}
	}
	fmt.Fprintln(w, g.Verdict)
	return nil
}

// writeJUnit writes the verdicts as JUnit XML to path.
func writeJUnit(path string, v *report.Verdicts) error {
	fh, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("--junit: %w", err)
	}
	if err := v.WriteJUnit(fh); err != nil {
		fh.Close()
		return fmt.Errorf("--junit %s: %w", path, err)
	}
	if err := fh.Close(); err != nil {
		return fmt.Errorf("--junit %s: %w", path, err)
	}
	return nil
}

// compareMeasured is report.Compare of B (runs[1]) against A (runs[0]),
// each run's single-run intervals to be widened by the drift between runs
// of its configuration measured from the store's A/A history
// (report.MeasureDrifts; the stated default when too few runs).
func compareMeasured(ctx context.Context, st *store.Store, runs []report.RunData) (*report.Comparison, error) {
	c := report.Compare(runs[0], runs[1])
	var err error
	if c.DriftA, err = report.MeasureDrifts(ctx, st, runs[0].Run); err != nil {
		return nil, err
	}
	if c.DriftB, err = report.MeasureDrifts(ctx, st, runs[1].Run); err != nil {
		return nil, err
	}
	return c, nil
}
