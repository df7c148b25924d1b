package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/rightsize/rightsize/kubejob"
	"github.com/rightsize/rightsize/pgbench/script"
	"github.com/rightsize/rightsize/pgbench/workload"
	"github.com/rightsize/rightsize/registry"
	"github.com/rightsize/rightsize/store"
	"github.com/rightsize/rightsize/worker"
)

func newK8sCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "k8s",
		Short: "Run rightsize as N workers on Kubernetes: print the Indexed Job and its Secret",
	}
	cmd.AddCommand(newK8sJobCmd(), newK8sStoreCheckCmd())
	return cmd
}

func newK8sJobCmd() *cobra.Command {
	var rf runFlags
	var wait time.Duration
	o := kubejob.Options{}
	cmd := &cobra.Command{
		Use:   "job --workers N --target DSN --store postgres://... [run flags]",
		Short: "Print a Kubernetes Indexed Job (one pod per worker) and the Secret with the DSNs",
		Long: `k8s job prints two objects for kubectl apply -f -: a Secret holding the
--target and --store DSNs, and an Indexed Job of --workers pods (completion
mode Indexed, parallelism = completions = N). Pod i runs "rightsize run
--workers N" and takes its worker number from JOB_COMPLETION_INDEX; all pods
store under one --run-id in the shared PostgreSQL results store, where they
meet and start each step together. An init container checks that the store
is reachable. Resource requests are sized from the measured driver costs for
each worker's share of the largest --users step: memory per user and per
connection (the users' own, or the --connections they share, and with
--delivery deferred one delivery worker's per 10 of the pod's --warehouses),
CPU per transaction. The run flags given here
(--users, --duration, ...) are passed on to every worker. With --workload
FILE (pgbench scripts), a third object, the ConfigMap NAME-scripts, holds
the script files; the pods mount it read-only at /etc/rightsize/scripts
and run --workload from there.`,
		Example: `  rightsize k8s job --workers 8 --target postgres://u:p@db:5432/tpcc --store postgres://u:p@results:5432/rightsize \
    --users 256 --rampup 1m --duration 5m --label 8x32 > job.yaml
  kubectl apply -f job.yaml
  rightsize k8s job --workers 4 --target postgres://u:p@db:5432/bench --store postgres://u:p@results:5432/rightsize \
    --workload tpcb@9 --workload mine.sql@1 --users 64 --duration 5m > job.yaml`,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ro, err := rf.options(cmd)
			if err != nil {
				return err
			}
			o.StoreDSN = storeLocation(cmd)
			if !store.IsPostgres(o.StoreDSN) {
				return badInput(fmt.Errorf("--store %q: workers meet in a shared PostgreSQL results store; give --store postgres://...", o.StoreDSN))
			}
			if e, _, err := registry.EngineOf(o.TargetDSN); !strings.Contains(o.TargetDSN, "://") || (err == nil && !e.Caps.Server) {
				return badInput(fmt.Errorf("--target %q: the workers need a database server they all reach (postgres://..., mysql://..., sqlserver://...)", o.TargetDSN))
			}
			if o.RunID == "" {
				o.RunID = o.Name + "-" + time.Now().UTC().Format("20060102-150405")
			}
			if o.Image == "" {
				o.Image = defaultImage()
			}
			o.MaxUsers, o.KeyingThinking, o.Connections, o.Warehouses = maxOf(ro.Users), ro.KeyingThinking, ro.Connections, ro.Warehouses
			o.DeferredDelivery = ro.Delivery.Deferred()
			o.Workload = !rf.workload.isTPCC()
			if o.Scripts, err = k8sScripts(rf.workload.specs); err != nil {
				return badInput(err)
			}
			o.RunArgs = append(passedRunFlags(cmd), "--worker-wait="+wait.String())
			if o.HostNetwork && !cmd.Flags().Changed("metrics-port") {
				o.MetricsPort = 0 // a node's port: one pod per node would fit
			}
			secret, job, err := kubejob.Build(o)
			if err != nil {
				return badInput(err)
			}
			if cm := kubejob.Scripts(o); cm != nil {
				return kubejob.Write(cmd.OutOrStdout(), secret, cm, job)
			}
			return kubejob.Write(cmd.OutOrStdout(), secret, job)
		},
	}
	cmd.Flags().IntVar(&o.Workers, "workers", 0, "number of workers (pods)")
	cmd.Flags().StringVarP(&o.TargetDSN, "target", "t", "", "the database the workers drive (postgres://..., mysql://...)")
	cmd.Flags().StringVar(&o.Name, "name", "rightsize", "name of the Job (the Secret is NAME-dsn)")
	cmd.Flags().StringVar(&o.Namespace, "namespace", "", "namespace of both objects (default: kubectl's)")
	cmd.Flags().StringVar(&o.Image, "image", "", "container image (default ghcr.io/rightsize/rightsize:VERSION, the tag make image gives; build it with make image (scripts/image.sh: an OCI tarball for ctr images import or docker load) or the Dockerfile)")
	cmd.Flags().StringVar(&o.RunID, "run-id", "", "the run id every worker stores under (default NAME-YYYYMMDD-HHMMSS)")
	cmd.Flags().IntVar(&o.MetricsPort, "metrics-port", 9464, "port of each pod's live Prometheus metrics (0: none)")
	cmd.Flags().BoolVar(&o.HostNetwork, "host-network", false, "run the pods on their node's network, tolerating a node with no network plugin (NotReady); --metrics-port then defaults to 0: given, it is a port of the node and the scheduler places one pod per node")
	cmd.Flags().DurationVar(&wait, "worker-wait", worker.DefaultWait, "start without the pods not running this long after the first (passed to run)")
	rf.register(cmd)
	return cmd
}

// passedRunFlags returns the run flags given on the command line, as
// arguments for the workers' run.
func passedRunFlags(cmd *cobra.Command) []string {
	var probe runFlags
	run := &cobra.Command{}
	probe.register(run)
	var args []string
	cmd.Flags().Visit(func(f *pflag.Flag) {
		if run.Flags().Lookup(f.Name) == nil {
			return
		}
		sv, ok := f.Value.(pflag.SliceValue)
		if !ok {
			args = append(args, "--"+f.Name+"="+f.Value.String())
			return
		}
		for _, v := range sv.GetSlice() { // --workload, --define: one each
			if f.Name == "workload" {
				v = podScript(v)
			}
			args = append(args, "--"+f.Name+"="+v)
		}
	})
	return args
}

// k8sScripts reads the script files of --workload for the ConfigMap, by
// their base names (nil: TPC-C or built-in scripts only).
func k8sScripts(specs []string) (map[string]string, error) {
	var out map[string]string
	for _, spec := range specs {
		path, _, err := script.SplitWeight(spec)
		if err != nil {
			return nil, err
		}
		if workload.IsBuiltin(path) || path == "tpcc" {
			continue
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("--workload %s: %w", spec, err)
		}
		key := filepath.Base(path)
		if !configMapKey.MatchString(key) {
			return nil, fmt.Errorf("--workload %s: the pods read it as %s/%s, and a ConfigMap's keys take letters, digits, '-', '_' and '.' only: rename the file", spec, kubejob.ScriptDir, key)
		}
		if _, dup := out[key]; dup {
			return nil, fmt.Errorf("--workload %s: two scripts are named %s, and the pods read them from one directory: rename one", spec, key)
		}
		if out == nil {
			out = map[string]string{}
		}
		out[key] = string(b)
	}
	return out, nil
}

var configMapKey = regexp.MustCompile(`^[-._a-zA-Z0-9]+$`)

// podScript is a --workload value as the pods give it: a script file
// under kubejob.ScriptDir, where the ConfigMap puts it (its @WEIGHT kept).
func podScript(spec string) string {
	path, _, err := script.SplitWeight(spec)
	if err != nil || workload.IsBuiltin(path) || path == "tpcc" {
		return spec
	}
	return kubejob.ScriptDir + "/" + filepath.Base(path) + strings.TrimPrefix(spec, path)
}

func maxOf(xs []int) int {
	m := 0
	for _, x := range xs {
		m = max(m, x)
	}
	return m
}

func defaultImage() string {
	tag := version
	if tag == "dev" || tag == "" {
		tag = "latest"
	}
	return "ghcr.io/rightsize/rightsize:" + tag
}

func newK8sStoreCheckCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "store-check",
		Short: "Check that the results store is reachable (the Job's init container); creates its schema if missing",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			st, err := openStore(cmd)
			if err != nil {
				return err
			}
			defer st.Close()
			v, err := st.Version(cmd.Context())
			if err != nil {
				return badInput(fmt.Errorf("results store: %w", err))
			}
			fmt.Fprintf(cmd.OutOrStdout(), "results store reachable: schema version %d\n", v)
			return nil
		},
	}
}
