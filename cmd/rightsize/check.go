package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/rightsize/rightsize/registry"
	"github.com/rightsize/rightsize/tpcc"
)

func newCheckCmd() *cobra.Command {
	var tf targetFlags
	var quick bool
	var wf dataWorkloadFlags
	cmd := &cobra.Command{
		Use:   "check",
		Short: "Verify the twelve TPC-C consistency conditions (3.3.2.1-3.3.2.12)",
		Long: `check runs ANALYZE, then the twelve consistency conditions of TPC-C clause
3.3.2, each printed with what its clause requires. Exit code 0 when all hold,
1 when one fails (it is named). Condition 3.3.2.11 only holds right after
build, so it is skipped once a run has happened. The conditions marked
"expensive" (3.3.2.6, 7, 10, 12) scan whole tables; --quick skips them.`,
		Example: `  rightsize check
  rightsize check --quick
  rightsize check --target postgres://postgres:secret@db1/tpcc`,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if done, err := wf.check(cmd, &tf); done {
				return err
			}
			t, err := tf.open(cmd.Context(), false, 2)
			if err != nil {
				return err
			}
			defer t.Close()
			return checkWith(cmd, t, quick)
		},
	}
	tf.register(cmd)
	wf.register(cmd, false)
	cmd.Flags().BoolVar(&quick, "quick", false, "skip the expensive conditions (3.3.2.6, 7, 10, 12) that scan whole tables")
	return cmd
}

func checkWith(cmd *cobra.Command, t *registry.Target, quick bool) error {
	ctx := cmd.Context()
	meta, err := readySchema(ctx, t)
	if err != nil {
		return err
	}
	if err := t.Analyze(ctx); err != nil {
		return err
	}
	results, err := tpcc.RunChecks(ctx, t, t.CheckSQL, meta.Runs == 0, quick)
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
		case r.Quick:
			status = "skipped (expensive; --quick)"
		case r.Skipped:
			status = "skipped (holds only right after build)"
		case r.Violations > 0:
			status = fmt.Sprintf("FAILED (%d violations)", r.Violations)
			failed = append(failed, r.Check.ID+" "+r.Check.Name)
		}
		name := r.Check.Name
		if r.Check.Expensive {
			name += " [expensive]"
		}
		fmt.Fprintf(w, "  %-9s %-66s %s\n", r.Check.ID, name, status)
		fmt.Fprintf(w, "            %s\n", r.Check.Clause)
	}
	return failed
}
