package main

import (
	"reflect"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/rightsize/rightsize/plan"
)

// runKeys are the plan keys that say the flags run, sweep, fit and
// neighbour share
// (runFlags, answerFlags and the target's).
var runKeys = map[string]string{
	"users": "autopilot.users", "rampup": "autopilot.rampup", "duration": "autopilot.duration", "repeat": "autopilot.repeats",
	"rampup-min": "autopilot.rampup_min", "rampup-max": "autopilot.rampup_max", "duration-min": "autopilot.duration_min",
	"duration-max": "autopilot.duration_max", "precision": "autopilot.precision", "confidence": "autopilot.confidence",
	"max-cv": "autopilot.max_cv", "repeat-max": "autopilot.repeats_max", "rebuild-between-repeats": "autopilot.rebuild_between_repeats",
	"mode": "autopilot.mode", "keying-thinking": "autopilot.keying_thinking", "delivery": "autopilot.delivery",
	"connections": "autopilot.connections", "seed": "autopilot.seed", "reconnect-timeout": "autopilot.reconnect_timeout",
	"driver-procs": "autopilot.driver_procs", "driver-loops": "autopilot.driver_loops", "no-waits": "autopilot.no_waits", "prewarm": "autopilot.prewarm",
	"wait-interval": "autopilot.wait_interval", "isolation": "autopilot.isolation",
	"warehouses": "build.warehouses", "target": "configurations.target", "pg-bin": "configurations.pg_bin", "data-dir": "configurations.data_dir",
	"set": "configurations.settings", "pg-version": "configurations.version",
	"cpus": "configurations.cpus", "driver-cpus": "configurations.driver_cpus", "memory": "configurations.memory",
	"io-limit": "configurations.io", "wal-dir": "configurations.wal_dir", "cgroup-parent": "configurations.cgroup_parent",
	"caps":     "configurations.caps",
	"workload": "autopilot.workload", "define": "autopilot.define", "random-seed": "autopilot.random_seed",
	"scale": "autopilot.scale", "figure": "autopilot.figure", "rate": "autopilot.rate",
	"latency-limit": "autopilot.latency_limit", "protocol": "autopilot.protocol", "max-tries": "autopilot.max_tries", "connect": "autopilot.connect",
}

// commandKeys are the plan keys of each command's own flags (over
// runKeys: fit's --cpus and --confidence are its own).
var commandKeys = map[string]map[string]string{
	"run":   {},
	"sweep": {"values": "sweeps.values", "knee-threshold": "sweeps.knee_threshold"},
	"fit": {"target-nopm": "fit.target_nopm", "headroom": "fit.headroom", "max-p90-ms": "fit.max_p90_ms", "at": "fit.at",
		"confidence": "fit.confidence", "cpus": "fit.cpus", "memory": "fit.memory", "io": "fit.io", "version": "fit.versions",
		"cost": "cost", "config": "fit.cost", "measure-all": "fit.measure_all", "runs": "fit.runs", "from": "fit.from", "target-tps": "fit.target_tps"},
	"neighbour": {"instances": "neighbour.instances", "backup-instances": "neighbour.backup_instances",
		"backup-every": "neighbour.backup_every", "backup-cycles": "neighbour.backup_cycles", "users": "neighbour.users",
		"rampup": "neighbour.rampup", "duration": "neighbour.duration"},
}

// notInPlans are the flags a plan has no key for, and why: each says how
// a run is shown, watched or launched, not what is measured.
var notInPlans = map[string]string{
	// output: study run writes the report and its own progress lines
	"json":              "output: study run writes the report (report.output, -o)",
	"progress-interval": "output: study run --progress-interval",
	"predict":           "output: the study's report shows the sweep's predictions",
	"dry-run":           "output: study validate prints the estimate and checks the plan without measuring",
	"metrics-addr":      "watching, not measuring: live Prometheus metrics of one run process",
	"log":               "output: run's per-transaction log files (pgbench -l)", "log-prefix": "output: run --log's file names",
	"sampling-rate": "output: run --log's sampling", "aggregate-interval": "output: run --log's aggregated lines",
	// names: a study labels its runs PLAN/CONFIGURATION
	"label": "a study labels its runs name/CONFIGURATION (name:)",
	// resuming: a rerun of the study resumes what its store holds by label
	"resume": "a rerun of study run resumes partial sweeps and fits by label",
	// the regression gate compares one run with another after it:
	// rightsize compare --max-regression does it on a study's runs
	"baseline": "gating: rightsize compare on the study's runs", "max-regression": "gating: rightsize compare",
	"max-latency-regression": "gating: rightsize compare", "junit": "gating: rightsize compare --junit",
	// one process of a run measured by several (kubejob writes their
	// command lines); a study is one process
	"worker": "multi-process runs: one process's place", "workers": "multi-process runs: one process's place",
	"run-id": "multi-process runs: the shared run's id", "worker-wait": "multi-process runs: the meeting's wait",
}

// TestFlagsHavePlanKeys keeps plan files saying everything run, sweep, fit
// and neighbour say: every flag of theirs has a plan key that exists, or is
// in notInPlans with its reason.
func TestFlagsHavePlanKeys(t *testing.T) {
	keys := map[string]bool{}
	planKeys(reflect.TypeOf(plan.Plan{}), "", keys)
	for _, cmd := range []*cobra.Command{newRunCmd(), newSweepCmd(), newFitCmd(), newNeighbourCmd()} {
		name := strings.Fields(cmd.Use)[0]
		cmd.Flags().VisitAll(func(f *pflag.Flag) {
			key, ok := commandKeys[name][f.Name]
			if !ok {
				key, ok = runKeys[f.Name]
			}
			_, excepted := notInPlans[f.Name]
			switch {
			case f.Name == "help":
			case ok && !keys[key]:
				t.Errorf("%s --%s: plan key %s is not a key of plan.Plan", name, f.Name, key)
			case !ok && !excepted:
				t.Errorf("%s --%s: no plan key says it; add one (plan.Plan, validated by the flag's parser) or a reason to notInPlans", name, f.Name)
			}
		})
	}
}

// planKeys collects the dotted yaml keys of t (a list's items under the
// list's key).
func planKeys(t reflect.Type, prefix string, into map[string]bool) {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return
	}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if !f.IsExported() || name == "" || name == "-" {
			continue
		}
		key := strings.TrimPrefix(prefix+"."+name, ".")
		into[key] = true
		planKeys(f.Type, key, into)
	}
}
