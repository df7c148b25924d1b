package main

import (
	"errors"
	"fmt"
	"io"
	"runtime"
	"sync"
	"time"

	"github.com/spf13/cobra"
	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"

	"github.com/rightsize/rightsize/loader"
	"github.com/rightsize/rightsize/registry"
	"github.com/rightsize/rightsize/telemetry"
	"github.com/rightsize/rightsize/tpcc"
)

func newBuildCmd() *cobra.Command {
	var tf targetFlags
	var warehouses, loaders int
	var seed uint64
	var replace bool
	var wf dataWorkloadFlags
	cmd := &cobra.Command{
		Use:   "build",
		Short: "Create and load the TPC-C schema",
		Example: `  rightsize build --warehouses 4
  rightsize build --target postgres://postgres:secret@db1:5432/tpcc --warehouses 100 --loaders 8`,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if done, err := wf.build(cmd, &tf, loaders); done {
				return err
			}
			if err := tpcc.ValidateWarehouses(warehouses); err != nil {
				return badInput(err)
			}
			if loaders < 1 {
				return badInput(fmt.Errorf("--loaders must be at least 1 (got %d)", loaders))
			}
			if replace && !tf.embedded() {
				return badInput(fmt.Errorf("--replace empties the embedded target's data directory; build on %s starts over by itself", tf.spec))
			}
			if err := tf.checkBuildSpace(cmd.ErrOrStderr(), warehouses, replace); err != nil {
				return err
			}
			tf.replace = replace
			ctx := cmd.Context()
			t, err := tf.open(ctx, true, loaders)
			if err != nil {
				return err
			}
			defer t.Close()
			_, err = buildWith(cmd, t, warehouses, loaders, seed)
			return err
		},
	}
	tf.register(cmd)
	wf.register(cmd, true)
	cmd.Flags().IntVarP(&warehouses, "warehouses", "w", 1, "number of warehouses (the scale factor)")
	cmd.Flags().IntVar(&loaders, "loaders", runtime.NumCPU(), "parallel loaders")
	cmd.Flags().Uint64Var(&seed, "seed", 1, "seed of the generated data (same seed, same database)")
	cmd.Flags().BoolVar(&replace, "replace", false, "embedded target: remove the cluster in --data-dir first and build a new one (e.g. one whose build did not complete)")
	return cmd
}

// buildWith builds into an open target and prints progress and a summary.
func buildWith(cmd *cobra.Command, t *registry.Target, warehouses, loaders int, seed uint64) (loader.Result, error) {
	ctx := cmd.Context()
	out, errOut := cmd.OutOrStdout(), cmd.ErrOrStderr()
	obs := newBuildProgress(ctx, errOut, warehouses)
	srvCPU := serverCPU(t)
	var srv0 time.Duration
	if srvCPU != nil {
		srv0 = srvCPU()
	}
	drv0 := telemetry.SelfCPU()
	done, err := markBuild(t)
	if err != nil {
		return loader.Result{}, err
	}
	res, err := loader.Build(ctx, t, loader.Config{Warehouses: warehouses, Loaders: loaders, Seed: seed, Version: version, Observer: obs})
	drvCPU := telemetry.SelfCPU() - drv0
	obs.wait()
	if err != nil {
		if errors.Is(err, loader.ErrInterrupted) || ctx.Err() != nil {
			return res, fmt.Errorf("build interrupted: the schema is incomplete and marked so; it is safe to drop it or to run build again (it starts over)")
		}
		return res, t.ServerLost(err)
	}
	if err := done(); err != nil {
		return res, err
	}
	fmt.Fprintf(out, "built %d warehouses: %d rows, %.1f MiB in %.1f s (load %.1f s, indexes+procedures+analyze %.1f s)\n",
		warehouses, res.Rows, float64(res.Bytes)/(1<<20), res.Total.Seconds(), res.Load.Seconds(), res.Indexes.Seconds())
	fmt.Fprintf(out, "build CPU: rightsize %.1f s", drvCPU.Seconds())
	if srvCPU != nil {
		fmt.Fprintf(out, ", server %.1f s", (srvCPU() - srv0).Seconds())
	}
	fmt.Fprintln(out)
	return res, nil
}

// buildProgress shows one bar per table (mpb on a terminal, plain lines otherwise).
type buildProgress struct {
	p     *mpb.Progress
	bars  map[tpcc.Table]*mpb.Bar
	w     io.Writer
	mu    sync.Mutex
	rows  map[tpcc.Table]int64
	total map[tpcc.Table]int64
	start time.Time
}

func newBuildProgress(ctx interface{ Done() <-chan struct{} }, w io.Writer, warehouses int) *buildProgress {
	b := &buildProgress{w: w, bars: map[tpcc.Table]*mpb.Bar{}, rows: map[tpcc.Table]int64{}, total: map[tpcc.Table]int64{}, start: time.Now()}
	for _, t := range tpcc.Tables {
		b.total[t] = tpcc.InitialRows(t, warehouses)
	}
	if terminalColumns(w) > 0 { // a terminal that reports no width gets lines
		b.p = mpb.New(mpb.WithOutput(w), mpb.WithWidth(32))
		for _, t := range tpcc.Tables {
			b.bars[t] = b.p.AddBar(b.total[t],
				mpb.PrependDecorators(decor.Name(string(t), decor.WC{W: 11, C: decor.DindentRight}), decor.CountersNoUnit("%d/%d", decor.WC{W: 20})),
				mpb.AppendDecorators(decor.AverageSpeed(0, "%.0f rows/s", decor.WC{W: 14}), decor.Percentage(decor.WC{W: 6})))
		}
	}
	return b
}

func (b *buildProgress) Rows(t tpcc.Table, n int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.rows[t] += n
	if bar := b.bars[t]; bar != nil {
		bar.IncrInt64(n)
	}
}

func (b *buildProgress) StepDone(phase, name string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.rows) > 0 && b.p == nil {
		// first post-load step: the load itself is over
		for _, t := range tpcc.Tables {
			fmt.Fprintf(b.w, "loaded %-10s %10d rows\n", t, b.rows[t])
		}
		b.rows = map[tpcc.Table]int64{}
	}
	if b.p != nil {
		for t, bar := range b.bars {
			if !bar.Completed() {
				bar.SetTotal(b.rows[t], true)
			}
		}
	}
	if b.p == nil {
		fmt.Fprintf(b.w, "%-10s %-32s done at %5.1f s\n", phase, name, time.Since(b.start).Seconds())
	}
}

func (b *buildProgress) wait() {
	if b.p != nil {
		for t, bar := range b.bars {
			if !bar.Completed() {
				bar.SetTotal(b.rows[t], true)
			}
		}
		b.p.Wait()
	}
}
