package main

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/rightsize/rightsize/scenario"
)

// txnLogFlags are run's per-transaction log flags, pgbench's -l,
// --log-prefix and --sampling-rate.
type txnLogFlags struct {
	on        bool
	prefix    string
	sampling  float64
	aggregate int
}

func (f *txnLogFlags) register(cmd *cobra.Command) {
	cmd.Flags().BoolVarP(&f.on, "log", "l", false, "write each measured transaction of a pgbench workload's steps to a file per step, PREFIX.PID.STEP, one line each in pgbench -l's format")
	cmd.Flags().StringVar(&f.prefix, "log-prefix", "rightsize_log", "file name prefix of --log's files, a path (as pgbench --log-prefix)")
	cmd.Flags().Float64Var(&f.sampling, "sampling-rate", 0, "with --log, the share of transactions logged, such as 0.01 (as pgbench --sampling-rate; default: all)")
	cmd.Flags().IntVar(&f.aggregate, "aggregate-interval", 0, "with --log, a line per this many seconds of each step's measurement instead of one per transaction, in pgbench --aggregate-interval's format (0: none)")
}

// spec is the log's options as the flags say them, which
// scenario.RunOptions.Validate checks with the others (zero for the
// commands without these flags).
func (f *txnLogFlags) spec(cmd *cobra.Command) (scenario.TxnLogSpec, error) {
	if cmd.Flags().Changed("log-prefix") && !f.on {
		return scenario.TxnLogSpec{}, fmt.Errorf("--log-prefix names the per-transaction logs: add --log")
	}
	if f.aggregate < 0 {
		return scenario.TxnLogSpec{}, fmt.Errorf("--aggregate-interval is a number of seconds, 1 or more (got %d)", f.aggregate)
	}
	l := scenario.TxnLogSpec{SamplingRate: f.sampling, Aggregate: time.Duration(f.aggregate) * time.Second}
	if f.on {
		l.Prefix = f.prefix
	}
	return l, nil
}

// prepare checks where o's logs go and says it (nothing without --log):
// the prefix's directory, and no earlier file at a step's name.
func (f *txnLogFlags) prepare(cmd *cobra.Command, o scenario.RunOptions) error {
	if !f.on {
		return nil
	}
	dir := filepath.Dir(f.prefix)
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return badInput(fmt.Errorf("--log-prefix %s: its directory %s does not exist: create it or give another prefix", f.prefix, dir))
	}
	first, steps := scenario.TxnLogPath(f.prefix, os.Getpid(), 0), len(o.Users)*max(o.Repeats, 1)
	for i := range steps { // the steps create theirs O_EXCL: refuse one that exists before anything runs
		if p := scenario.TxnLogPath(f.prefix, os.Getpid(), i); fileExists(p) {
			return badInput(fmt.Errorf("--log: %s exists (an earlier run's?): move it away or give another --log-prefix", p))
		}
	}
	if steps == 1 {
		fmt.Fprintf(cmd.ErrOrStderr(), "per-transaction log (pgbench -l's format): %s\n", first)
		return nil
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "per-transaction logs (pgbench -l's format): %s to %s, one per step\n",
		first, scenario.TxnLogPath(f.prefix, os.Getpid(), steps-1))
	return nil
}

// fileExists says whether anything (a link too) is at path.
func fileExists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}
