package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/rightsize/rightsize/execute"
	"github.com/rightsize/rightsize/pgbench/script"
	"github.com/rightsize/rightsize/pgbench/tpcb"
	"github.com/rightsize/rightsize/pgbench/workload"
	"github.com/rightsize/rightsize/registry"
)

// workloadFlags choose the workload of run, sweep and fit: TPC-C (the
// default) or pgbench scripts.
type workloadFlags struct {
	specs      []string // --workload, repeatable
	defines    []string // --define NAME=VALUE
	randomSeed uint64
	scale      int
	figure     string
	protocol   string
	maxTries   int
	triesFlag  *pflag.Flag // --max-tries, to tell 0 given from not given
	connect    bool
}

func (f *workloadFlags) register(cmd *cobra.Command) {
	cmd.Flags().StringArrayVar(&f.specs, "workload", nil, "tpcc (default), tpcb (pgbench's tpcb-like), simple-update, select-only, or a pgbench script FILE; each with @WEIGHT; repeat it for a weighted mix (--workload a.sql@9 --workload b.sql@1)")
	cmd.Flags().StringArrayVar(&f.defines, "define", nil, "NAME=VALUE: a variable of the pgbench scripts (pgbench -D); repeatable")
	cmd.Flags().Uint64Var(&f.randomSeed, "random-seed", 0, "seed of the pgbench scripts' random functions, every step the same as pgbench --random-seed (default: --seed's, different each step)")
	cmd.Flags().IntVar(&f.scale, "scale", 0, "the scripts' :scale (default: the rows of pgbench_branches with tpcb and the built-ins, else 1)")
	cmd.Flags().StringVar(&f.figure, "figure", "", "the script whose transactions per second are the figure of merit (default: every script's)")
	cmd.Flags().StringVar(&f.protocol, "protocol", "", "how a pgbench workload sends its statements, as pgbench -M: prepared (parsed once per connection; the default), extended (parsed every time) or simple (the values written into the query's text); PostgreSQL runs all three, the other engines prepared")
	cmd.Flags().IntVar(&f.maxTries, "max-tries", 0, "the most times a pgbench workload's transaction runs when it fails with a serialization failure or a deadlock, its first try included, as pgbench --max-tries (1: no retry, pgbench's default; default 11)")
	f.triesFlag = cmd.Flags().Lookup("max-tries")
	cmd.Flags().BoolVar(&f.connect, "connect", false, "give each of a pgbench workload's transactions a new connection, as pgbench -C: the connecting is not in the latency but lowers the TPS, and on a managed server the CPU per transaction includes each backend's start")
}

// workloadCommands are the commands that measure a pgbench workload on
// its figure of merit.
// isTPCC tells --workload is TPC-C's (not given, or tpcc).
func (f *workloadFlags) isTPCC() bool {
	return len(f.specs) == 0 || len(f.specs) == 1 && f.specs[0] == "tpcc"
}

var workloadCommands = map[string]bool{"run": true, "sweep": true, "fit": true, "neighbour": true, "job": true, "ab": true}

// workload returns the pgbench workload the flags of command name (nil:
// TPC-C; workload.FromSpecs). A script that does not parse is an error
// naming FILE:LINE:COLUMN. Only the commands of workloadCommands measure
// one (their figure is the workload's merit: store.Run.WorkloadMerit).
func (f *workloadFlags) workload(command string) (*workload.Workload, error) {
	o := workload.Options{Scale: f.scale, RandomSeed: f.randomSeed, Figure: f.figure, Protocol: f.protocol, MaxTries: f.maxTries, Connect: f.connect}
	if len(f.defines) > 0 {
		o.Defines = map[string]string{}
	}
	for _, d := range f.defines {
		k, v, err := script.ParseDefine(d)
		if err != nil {
			return nil, fmt.Errorf("--define: %w", err)
		}
		o.Defines[k] = v
	}
	if f.triesFlag != nil && f.triesFlag.Changed && f.maxTries < 1 {
		return nil, fmt.Errorf("--max-tries must be at least 1 (got %d): the most times a transaction runs, its first try included (pgbench's 0, no bound, is not offered: give a number)", f.maxTries)
	}
	tpcc := f.isTPCC()
	if !tpcc && !workloadCommands[command] {
		return nil, fmt.Errorf("--workload %s: %s measures TPC-C only for now (its figures are NOPM); measure a pgbench workload with run (its workers too), sweep, fit, neighbour, ab or k8s job", strings.Join(f.specs, " --workload "), command)
	}
	return workload.FromSpecs(f.specs, o)
}

// pgConnector is a target that opens plain PostgreSQL connections
// (postgres.DB), what pgbench/tpcb's build and check use.
type pgConnector interface {
	ConnectPg(ctx context.Context) (*pgconn.PgConn, error)
}

// buildTPCB builds pgbench's tables at scale, stored as layout says,
// into an open target.
func buildTPCB(cmd *cobra.Command, t *registry.Target, scale, loaders int, layout tpcb.Layout) error {
	pc, ok := t.DB.(pgConnector)
	if !ok {
		return badInput(fmt.Errorf("--workload tpcb builds on PostgreSQL only (this target is %s)", t.Engine()))
	}
	if scale < 1 {
		return badInput(fmt.Errorf("--scale must be at least 1 (got %d)", scale))
	}
	res, err := tpcb.Build(cmd.Context(), pc.ConnectPg, tpcb.Config{Scale: scale, Loaders: loaders, Layout: layout})
	if err != nil {
		return fmt.Errorf("build the tpcb tables at scale %d: %w", scale, err)
	}
	laid := ""
	if layout != (tpcb.Layout{}) {
		laid = " (" + layout.String() + ")"
	}
	fmt.Fprintf(cmd.OutOrStdout(), "built tpcb at scale %d%s: %d rows in %.1f s (load %.1f s, vacuum %.1f s, keys %.1f s)\n",
		scale, laid, res.Rows, (res.Load + res.Vacuum + res.Keys).Seconds(), res.Load.Seconds(), res.Vacuum.Seconds(), res.Keys.Seconds())
	return nil
}

// checkTPCB checks pgbench's tables: the scale's rows, and every balance
// equal to the history's deltas.
func checkTPCB(cmd *cobra.Command, t *registry.Target) error {
	return withPgConn(cmd, t, "check --workload tpcb", func(ctx context.Context, conn *pgconn.PgConn) error {
		return checkTotals(ctx, cmd.OutOrStdout(), conn)
	})
}

// withPgConn runs f on a plain connection to t's database (PostgreSQL
// only: what names the command for the error).
func withPgConn(cmd *cobra.Command, t *registry.Target, what string, f func(context.Context, *pgconn.PgConn) error) error {
	pc, ok := t.DB.(pgConnector)
	if !ok {
		return badInput(fmt.Errorf("%s runs on PostgreSQL only (this target is %s)", what, t.Engine()))
	}
	ctx := cmd.Context()
	conn, err := pc.ConnectPg(ctx)
	if err != nil {
		return err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	return f(ctx, conn)
}

// checkTotals reads and checks the tpcb tables' totals.
func checkTotals(ctx context.Context, w io.Writer, conn *pgconn.PgConn) error {
	tot, err := tpcb.ReadTotals(ctx, conn)
	if err != nil {
		return fmt.Errorf("read the tpcb tables (build them first: rightsize build --workload tpcb --scale N): %w", err)
	}
	scale := int(tot.Branches)
	if err := tot.Check(scale); err != nil {
		return &exitError{code: 1, err: fmt.Errorf("tpcb consistency check failed: %w", err)}
	}
	fmt.Fprintf(w, "  tpcb at scale %d: rows of the scale, branch, teller and account balances equal to the history's deltas: ok\n", scale)
	return nil
}

// dataWorkloadFlags are build's and check's --workload: tpcc (the
// default) or tpcb, and build's --scale; build's --init runs a pgbench
// workload's own schema-and-data script.
type dataWorkloadFlags struct {
	workload string
	scale    int
	init     string
	layout   tpcb.Layout
}

func (f *dataWorkloadFlags) register(cmd *cobra.Command, build bool) {
	cmd.Flags().StringVar(&f.workload, "workload", "tpcc", "tpcc, or tpcb (pgbench's tables, as pgbench -i builds them)")
	if build {
		cmd.Flags().IntVar(&f.scale, "scale", 1, "with --workload tpcb: pgbench's scale (100,000 accounts each)")
		cmd.Flags().StringVar(&f.init, "init", "", "with --workload FILE: an SQL file that creates and fills the scripts' tables, run as it is")
		cmd.Flags().IntVar(&f.layout.FillFactor, "fillfactor", 0, "with --workload tpcb: the fill factor of pgbench's tables, 10 to 100, as pgbench -i -F (default 100)")
		cmd.Flags().IntVar(&f.layout.Partitions, "partitions", 0, "with --workload tpcb: partition pgbench_accounts into this many tables by aid, as pgbench -i --partitions (default 0: none)")
		cmd.Flags().StringVar(&f.layout.PartitionMethod, "partition-method", "", "with --partitions: range (the default) or hash, as pgbench -i --partition-method")
		cmd.Flags().BoolVar(&f.layout.Unlogged, "unlogged-tables", false, "with --workload tpcb: create pgbench's tables unlogged (no WAL; a crash empties them), as pgbench -i --unlogged-tables")
		cmd.Flags().BoolVar(&f.layout.ForeignKeys, "foreign-keys", false, "with --workload tpcb: add pgbench's foreign keys, as pgbench -i --foreign-keys")
	}
}

// tpcb says whether the flags name tpcb, refusing another workload.
func (f *dataWorkloadFlags) tpcb() (bool, error) {
	switch f.workload {
	case "", "tpcc":
		return false, nil
	case "tpcb":
		return true, nil
	}
	if f.init != "" {
		return false, nil
	}
	return false, badInput(fmt.Errorf("--workload %s: build and check know tpcc and tpcb; build a script's own tables with --init FILE.sql, or run it on a database that has them", f.workload))
}

// build builds tpcb's tables when the flags say so; done says whether it
// did (or failed).
func (f *dataWorkloadFlags) build(cmd *cobra.Command, tf *targetFlags, loaders int) (done bool, err error) {
	ok, err := f.tpcb()
	if !ok && err == nil && f.layout != (tpcb.Layout{}) {
		return true, badInput(fmt.Errorf("--fillfactor, --partitions, --partition-method, --unlogged-tables and --foreign-keys lay out pgbench's tables: add --workload tpcb"))
	}
	if !ok && err == nil && f.init != "" && f.workload != "tpcc" {
		return true, f.buildInit(cmd, tf)
	}
	if !ok || err != nil {
		return err != nil, err
	}
	if loaders < 1 {
		return true, badInput(fmt.Errorf("--loaders must be at least 1 (got %d)", loaders))
	}
	if err := f.layout.Check(); err != nil {
		return true, badInput(err)
	}
	if err := checkTPCBEngine(tf.spec); err != nil {
		return true, err
	}
	t, err := tf.open(cmd.Context(), true, loaders)
	if err != nil {
		return true, err
	}
	defer t.Close()
	return true, buildTPCB(cmd, t, f.scale, loaders, f.layout)
}

// check checks tpcb's tables when the flags say so; done says whether it
// did (or failed).
func (f *dataWorkloadFlags) check(cmd *cobra.Command, tf *targetFlags) (done bool, err error) {
	if ok, err := f.tpcb(); !ok || err != nil {
		return err != nil, err
	}
	t, err := tf.open(cmd.Context(), false, 2)
	if err != nil {
		return true, err
	}
	defer t.Close()
	return true, checkTPCB(cmd, t)
}

// buildInit runs --init's SQL file, as it is, on the target's database:
// a pgbench workload's own tables and rows (execute.RunInit).
func (f *dataWorkloadFlags) buildInit(cmd *cobra.Command, tf *targetFlags) error {
	if _, err := os.Stat(f.init); err != nil {
		return badInput(fmt.Errorf("--init: %w", err))
	}
	t, err := tf.open(cmd.Context(), true, 2)
	if err != nil {
		return err
	}
	defer t.Close()
	took, err := execute.RunInit(cmd.Context(), t, f.init)
	if err != nil {
		return err
	}
	fmt.Fprintf(cmd.OutOrStdout(), "ran %s in %.1f s\n", f.init, took.Seconds())
	return nil
}
