package main

import (
	"context"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/rightsize/rightsize/analysis"
	"github.com/rightsize/rightsize/driver"
	"github.com/rightsize/rightsize/pgbench/workload"
	"github.com/rightsize/rightsize/scenario"
	"github.com/rightsize/rightsize/store"
	"github.com/rightsize/rightsize/worker"
)

// workerFlags are run's flags for one worker of a multi-worker run.
type workerFlags struct {
	worker  string // "i/n"
	workers int    // n, with the index from JOB_COMPLETION_INDEX
	runID   string
	wait    time.Duration
}

func (f *workerFlags) register(cmd *cobra.Command) {
	cmd.Flags().StringVar(&f.worker, "worker", "", "be worker i of n (0-based, e.g. 2/8) of one run measured by n processes; needs a postgres:// --store")
	cmd.Flags().IntVar(&f.workers, "workers", 0, "be one of n workers, the number i taken from $JOB_COMPLETION_INDEX (Kubernetes Indexed Jobs)")
	cmd.Flags().StringVar(&f.runID, "run-id", "", "the shared run id of every worker (default: from --label and the flags)")
	cmd.Flags().DurationVar(&f.wait, "worker-wait", worker.DefaultWait, "start without the workers not registered this long after the first (the run is then partial)")
}

// enabled tells whether this process is a worker.
func (f *workerFlags) enabled() bool { return f.worker != "" || f.workers != 0 }

// parse returns i and n.
func (f *workerFlags) parse() (int, int, error) {
	if f.worker != "" {
		a, b, ok := strings.Cut(f.worker, "/")
		i, err1 := strconv.Atoi(a)
		n, err2 := strconv.Atoi(b)
		if !ok || err1 != nil || err2 != nil || n < 1 {
			return 0, 0, fmt.Errorf("--worker %q: want i/n, e.g. 0/4 (workers are numbered from 0)", f.worker)
		}
		if f.workers != 0 && f.workers != n {
			return 0, 0, fmt.Errorf("--worker %s and --workers %d disagree; give one of them", f.worker, f.workers)
		}
		if i < 0 || i >= n {
			return 0, 0, fmt.Errorf("--worker %d/%d: the worker number must be 0..%d", i, n, n-1)
		}
		return i, n, nil
	}
	env := os.Getenv("JOB_COMPLETION_INDEX")
	i, err := strconv.Atoi(env)
	if env == "" || err != nil {
		return 0, 0, fmt.Errorf("--workers %d: give --worker i/%d, or run in a Kubernetes Indexed Job ($JOB_COMPLETION_INDEX is %q)", f.workers, f.workers, env)
	}
	if f.workers < 1 || i < 0 || i >= f.workers {
		return 0, 0, fmt.Errorf("--workers %d with JOB_COMPLETION_INDEX=%d: the worker number must be 0..%d", f.workers, i, f.workers-1)
	}
	return i, f.workers, nil
}

// workerOnly are the flags that may differ between the workers of a run.
var workerOnly = map[string]bool{"worker": true, "workers": true, "worker-wait": true, "metrics-addr": true, "progress-interval": true,
	"json": true, "target": true, "store": true, "cpuprofile": true, "pg-bin": true, "data-dir": true,
	"log": true, "log-prefix": true, "sampling-rate": true, "aggregate-interval": true}

// setup checks the worker flags and fills o's worker fields; the meeting
// itself is made once the store is open (join).
func (f *workerFlags) setup(cmd *cobra.Command, o *scenario.RunOptions) (meetingJoiner, error) {
	if !f.enabled() {
		return nil, nil
	}
	i, n, err := f.parse()
	if err != nil {
		return nil, badInput(err)
	}
	if loc := storeLocation(cmd); !store.IsPostgres(loc) && !(loc == "" && store.IsPostgres(store.DefaultLocation())) {
		return nil, badInput(fmt.Errorf("--worker needs a shared PostgreSQL results store that every worker reaches: give --store postgres://..."))
	}
	settings := map[string]string{"build": version + " " + commit}
	for k, v := range o.Flags {
		if !workerOnly[k] {
			settings[k] = v
		}
	}
	if d := scriptsDigest(o.Workload); d != "" { // the same file name may hold other scripts elsewhere
		settings["workload.digest"] = d
	}
	runID := f.runID
	if runID == "" {
		runID = worker.RunID(o.Label, settings)
	}
	if o.Seed == 0 { // every worker draws the same run constants
		h := fnv.New64a()
		h.Write([]byte(runID))
		o.Seed = h.Sum64() | 1
	}
	o.Worker, o.Workers = i, n
	host := os.Getenv("RIGHTSIZE_HOST") // k8s job's pods: the pod's name
	if host == "" {
		host, _ = os.Hostname()
	}
	cfg := worker.Config{RunID: runID, Worker: i, Workers: n, Wait: f.wait, Settings: settings, Host: host}
	return func(st *store.Store) (scenario.Meeting, error) {
		m, err := worker.New(st, cfg)
		if err != nil {
			return nil, badInput(err)
		}
		return m, nil
	}, nil
}

// writeWorkers prints the workers table of a multi-worker run (nothing
// for a single-process run).
func writeWorkers(ctx context.Context, w io.Writer, st *store.Store, runID string) error {
	ws, err := analysis.WorkerSummaries(ctx, st, runID)
	if err != nil || len(ws) == 0 {
		return err
	}
	fmt.Fprintln(w, "\nWorkers")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "worker\tstatus\thost\tclock offset\tsteps\tpeak TPM\tpeak driver CPU\tdriver µs/txn\tdriver CPU\t")
	for _, x := range ws {
		fmt.Fprintf(tw, "%d/%d\t%s\t%s\t%s\t%d\t%.0f\t%.1f %%\t%.1f\t%s\t\n", x.Worker.Worker, x.Workers, x.Status, x.Host,
			x.ClockOffset.Round(10*time.Microsecond), x.Steps, x.Figures.PeakTPM, x.Figures.PeakDriverCPUPct,
			x.Figures.PeakDriverCPUUsPerTxn, x.DriverCPU.Round(time.Millisecond))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, x := range ws {
		if x.Note != "" {
			fmt.Fprintf(w, "  worker %d/%d: %s\n", x.Worker.Worker, x.Workers, x.Note)
		}
	}
	return nil
}

// scriptsDigest is a hash of a pgbench workload's scripts as parsed (""
// for TPC-C), which the workers of a run must share.
func scriptsDigest(w driver.Workload) string {
	wl, ok := w.(*workload.Workload)
	if !ok {
		return ""
	}
	h := fnv.New64a()
	for _, s := range wl.Scripts {
		fmt.Fprintf(h, "%s@%d\n", filepath.Base(s.Name), s.Weight)
		for _, c := range s.Commands {
			fmt.Fprintf(h, "%d %d %q %q %q %q\n", c.Kind, c.Line, c.Text, c.SQL, c.Var, c.Params)
		}
	}
	return strconv.FormatUint(h.Sum64(), 16)
}
