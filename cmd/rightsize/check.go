package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/rightsize/rightsize/target"
	"github.com/rightsize/rightsize/tpcc"
)

func newCheckCmd() *cobra.Command {
	var tf targetFlags
	cmd := &cobra.Command{
		Use:   "check",
		Short: "Verify the TPC-C consistency conditions (3.3.2.1-3.3.2.5, 8, 9, 11)",
		Long: `check runs ANALYZE, then the consistency conditions of TPC-C clause 3.3.2.
Exit code 0 when all hold, 1 when one fails (it is named). Condition 3.3.2.11
only holds right after build, so it is skipped once a run has happened.`,
		Example: `  rightsize check
  rightsize check --target postgres://postgres:secret@db1/tpcc`,
		RunE: func(cmd *cobra.Command, _ []string) error {
			t, err := tf.open(cmd.Context(), false, 2)
			if err != nil {
				return err
			}
			defer t.Close()
			return checkWith(cmd, t)
		},
	}
	tf.register(cmd)
	return cmd
}

func checkWith(cmd *cobra.Command, t *target.Target) error {
	ctx := cmd.Context()
	meta, err := readySchema(ctx, t)
	if err != nil {
		return err
	}
	if err := t.Analyze(ctx); err != nil {
		return err
	}
	results, err := tpcc.RunChecks(ctx, t, t.CheckSQL, meta.Runs == 0)
	if err != nil {
		return err
	}
	failed := printChecks(cmd.OutOrStdout(), results)
	if len(failed) > 0 {
		return &exitError{code: 1, err: fmt.Errorf("consistency check failed: %s", strings.Join(failed, ", "))}
	}
	return nil
}

func printChecks(w io.Writer, results []tpcc.CheckResult) (failed []string) {
	for _, r := range results {
		status := "ok"
		switch {
		case r.Skipped:
			status = "skipped (holds only right after build)"
		case r.Violations > 0:
			status = fmt.Sprintf("FAILED (%d violations)", r.Violations)
			failed = append(failed, r.Check.ID+" "+r.Check.Name)
		}
		fmt.Fprintf(w, "  %-9s %-62s %s\n", r.Check.ID, r.Check.Name, status)
	}
	return failed
}
