package main

import (
	"context"
	"fmt"
	"slices"

	"github.com/spf13/cobra"

	"github.com/rightsize/rightsize/report"
	"github.com/rightsize/rightsize/store"
)

// baselineFlags are run's --baseline and the gate's flags: run, then gate
// the run against a stored one.
type baselineFlags struct {
	run string
	gateFlags
}

func (f *baselineFlags) register(cmd *cobra.Command) {
	cmd.Flags().StringVar(&f.run, "baseline", "", "after the run, compare it with this stored run (id or label; the same --users steps) and gate with --max-regression")
	f.gateFlags.register(cmd)
}

// check reads the gate's flags and the baseline before any load is run:
// bad thresholds, a baseline that is not stored, or one whose users steps
// differ from users are bad input. It returns the baseline's run id ("" without
// --baseline).
func (f *baselineFlags) check(cmd *cobra.Command, users []int) (string, report.Thresholds, error) {
	th, err := f.thresholds(cmd)
	if err != nil {
		return "", th, err
	}
	if f.run == "" {
		if f.given(cmd) {
			return "", th, badInput(fmt.Errorf("--max-regression, --max-latency-regression and --junit gate against a baseline: add --baseline RUN (a stored run id or label)"))
		}
		return "", th, nil
	}
	st, err := openStore(cmd)
	if err != nil {
		return "", th, err
	}
	defer st.Close()
	id, err := resolveRun(cmd.Context(), st, f.run)
	if err != nil {
		return "", th, err
	}
	_, steps, err := st.LoadRun(cmd.Context(), id)
	if err != nil {
		return "", th, fmt.Errorf("load the baseline %s: %w", f.run, err)
	}
	if have, want := distinctUsers(steps), distinct(users); !slices.Equal(have, want) {
		return "", th, badInput(fmt.Errorf("--baseline %s measured users %s, this run's --users %s: the same steps required (run with --users %s)",
			f.run, usersList(have, 1000), usersList(want, 1000), usersList(have, 1000)))
	}
	return id, th, nil
}

// gate compares the finished run with the baseline and applies the gate.
func (f *baselineFlags) gate(ctx context.Context, cmd *cobra.Command, baseID, runID string, th report.Thresholds, asJSON bool) error {
	st, err := openStore(cmd)
	if err != nil {
		return err
	}
	defer st.Close()
	runs, err := report.Load(context.WithoutCancel(ctx), st, baseID, runID)
	if err != nil {
		return fmt.Errorf("load the run and its baseline: %w", err)
	}
	c, err := compareMeasured(context.WithoutCancel(ctx), st, runs)
	if err != nil {
		return err
	}
	out := cmd.OutOrStdout()
	if asJSON { // stdout holds the run's JSON: the comparison goes to stderr
		out = cmd.ErrOrStderr()
	}
	fmt.Fprintf(out, "\nagainst the baseline %s:\n", f.run)
	return f.gateFlags.gate(out, out, c, th, false)
}

// distinctUsers are the users counts the steps measured, ascending.
func distinctUsers(steps []store.Step) []int {
	var u []int
	for _, s := range steps {
		u = append(u, s.Users)
	}
	return distinct(u)
}

func distinct(u []int) []int {
	out := slices.Clone(u)
	slices.Sort(out)
	return slices.Compact(out)
}
