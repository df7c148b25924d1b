package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/rightsize/rightsize/scenario"
)

// txnLogFlags are run's per-transaction log flags, pgbench's -l,
// --log-prefix and --sampling-rate.
type txnLogFlags struct {
	on       bool
	prefix   string
	sampling float64
}

func (f *txnLogFlags) register(cmd *cobra.Command) {
	cmd.Flags().BoolVarP(&f.on, "log", "l", false, "write each measured transaction of a pgbench workload's steps to a file per step, PREFIX.PID.STEP, one line each in pgbench -l's format")
	cmd.Flags().StringVar(&f.prefix, "log-prefix", "rightsize_log", "file name prefix of --log's files, a path (as pgbench --log-prefix)")
	cmd.Flags().Float64Var(&f.sampling, "sampling-rate", 0, "with --log, the share of transactions logged, such as 0.01 (as pgbench --sampling-rate; default: all)")
}

// apply puts the log's options into o and checks them, and says where the
// logs go: nothing when --log is not given.
func (f *txnLogFlags) apply(cmd *cobra.Command, o *scenario.RunOptions) error {
	if cmd.Flags().Changed("log-prefix") && !f.on {
		return badInput(fmt.Errorf("--log-prefix names the per-transaction logs: add --log"))
	}
	o.TxnLog = scenario.TxnLogSpec{SamplingRate: f.sampling}
	if f.on {
		o.TxnLog.Prefix = f.prefix
	}
	if err := scenario.TxnLogOf(o.TxnLog, o.Workload != nil); err != nil {
		return badInput(err)
	}
	if !f.on {
		return nil
	}
	dir := filepath.Dir(f.prefix)
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return badInput(fmt.Errorf("--log-prefix %s: its directory %s does not exist: create it or give another prefix", f.prefix, dir))
	}
	first, steps := scenario.TxnLogPath(f.prefix, os.Getpid(), 0), len(o.Users)*max(o.Repeats, 1)
	if steps == 1 {
		fmt.Fprintf(cmd.ErrOrStderr(), "per-transaction log (pgbench -l's format): %s\n", first)
		return nil
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "per-transaction logs (pgbench -l's format): %s to %s, one per step\n",
		first, scenario.TxnLogPath(f.prefix, os.Getpid(), steps-1))
	return nil
}
