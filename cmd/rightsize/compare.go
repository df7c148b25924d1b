package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/rightsize/rightsize/report"
)

// newCompareCmd is "rightsize compare RUN_A RUN_B": the figures of two runs
// side by side per users step, with the ratio B/A, and the averages over
// all steps.
func newCompareCmd() *cobra.Command {
	var gf gateFlags
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "compare RUN_A RUN_B",
		Short: "Compare two runs step by step: TPM, NOPM, TPM per user, CPU, disk and latency, with the ratio B/A",
		Long: `Compare run B against run A (the baseline): for each number of virtual users,
TPM, NOPM and TPM per user of both runs with the ratio B/A ("1.23x TPM"),
CPU busy/idle/iowait, disk latency and the New-Order p99 latency side by
side; then the average over all steps, as the published studies compare
configurations ("SSD/4 cores 243,714 vs HDD/16 cores 197,532: 1.23x").
Repeated steps are averaged across repeats first.

RUN is a run id, a label (the latest run with that label), or a unique
prefix of a run id. For charts, use: rightsize report RUN_A RUN_B.

Each figure (TPM, NOPM, New-Order p90) gets a verdict: better, worse, or
not distinguishable at this precision — better or worse only when the
intervals of A and B separate (across repeats with 2 or more, else the
step's own batch-means interval widened by the drift between runs:
half² = within² + between², between = t × CV × value with the CV measured
from earlier runs of the same configuration on the same host — same
target, engine version, settings, caps, host; rightsize calibrate measures
it on purpose — or z × 10 % when fewer than 3 such runs exist, said on
the verdict line). A one-repeat New-Order p90 has the interval of its
measured 10 s windows' p90; a percentile without an interval is not
decided and never fails the gate. Over all steps, the mean over the common
steps with the half-widths combined as independent, widened once by the
drift (a run's steps drift together).

As a CI gate: --max-regression 2.5% exits 1 when B's TPM or NOPM (of a
step, or over all steps) is lower than A's by more than 2.5 % with the
intervals separated; --max-latency-regression 10% does the same for a
step's New-Order p90. "Not distinguishable" passes and says what would
decide it (with the drift not measured: rightsize ab, --repeat or
rightsize calibrate). Exit 0: passed; 1: a regression; 2: bad input.`,
		Example: `  rightsize compare "HDD/16 cores" "SSD/4 cores"
  rightsize compare 20250304-100000-2c49d8 20250304-130000-89032e
  rightsize compare main candidate --json
  rightsize compare main candidate --max-regression 2.5% --max-latency-regression 10% --junit gate.xml`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 2 {
				return badInput(fmt.Errorf("give two runs: rightsize compare RUN_A RUN_B (a run id or a label; see: rightsize results list)"))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			th, err := gf.thresholds(cmd)
			if err != nil {
				return err
			}
			st, err := openResults(cmd)
			if err != nil {
				return err
			}
			defer st.Close()
			ctx := cmd.Context()
			var ids []string
			for _, a := range args {
				id, err := resolveRun(ctx, st, a)
				if err != nil {
					return err
				}
				ids = append(ids, id)
			}
			runs, err := report.Load(ctx, st, ids...)
			if err != nil {
				return err
			}
			c, err := compareMeasured(ctx, st, runs)
			if err != nil {
				return err
			}
			return gf.gate(cmd.OutOrStdout(), cmd.ErrOrStderr(), c, th, asJSON)
		},
	}
	gf.register(cmd)
	cmd.Flags().BoolVar(&asJSON, "json", false, "print every step's figures of both runs, the ratio B/A with its interval and the verdicts as one JSON object")
	return cmd
}
