// Package drift finds the A/A history of a run's configuration in the
// results store — the runs of the same target, engine and version,
// settings, caps, host and load on it — and measures the spread between
// them (steady.PooledDrift): what widens a single run's intervals in every
// verdict.
package drift

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/rightsize/rightsize/steady"
	"github.com/rightsize/rightsize/store"
	"github.com/rightsize/rightsize/tpcc"
)

// notConfiguration are the run flags that do not change what a run
// measures: how long, how labelled, where stored, how judged. Every other
// flag, the host, the engine's version and settings and the caps make a
// configuration (ConfigKey). calibrate's runs and pause are run's flags
// besides.
var notConfiguration = map[string]bool{"baseline": true, "confidence": true, "data-dir": true, "duration": true,
	"duration-max": true, "duration-min": true, "json": true, "junit": true, "label": true, "max-cv": true,
	"max-latency-regression": true, "max-regression": true, "metrics-addr": true, "precision": true,
	"progress-interval": true, "rampup": true, "rampup-max": true, "rampup-min": true, "repeat": true,
	"repeat-max": true, "run-id": true, "seed": true, "store": true, "users": true, "wait-interval": true,
	"worker": true, "worker-wait": true, "reconnect-timeout": true, "note": true, "interval": true, "runs": true, "pause": true}

// configEnv are the Run.Env keys (and prefixes, ending in ".") that make
// a configuration: the host, the engine and its settings, the caps, how
// the driver connected.
var configEnv = append([]string{"host.name", "host.cpu_model", "engine", "engine.version", "caps.asked", "setting.", "driver."},
	store.WorkloadConfigKeys...)

// ConfigKey is what runs of one configuration on one host share: the
// target, engine and version, mode, warehouses, keying and isolation, the
// host, the server's settings, the caps and the flags that shape the load
// (not the users, durations, labels or thresholds). Runs with one key are
// A/A history: their spread is the drift between runs.
func ConfigKey(r store.Run) string {
	parts := recordedKey(r)
	for k, v := range r.Flags {
		if !notConfiguration[k] && !strings.Contains(k, ".") {
			parts = append(parts, "flag."+k+"="+v)
		}
	}
	slices.Sort(parts)
	return strings.Join(parts, "\n")
}

// RecordedKey is ConfigKey without the command line's flags: what the run
// recorded of its configuration (the target, engine and version, mode,
// warehouses, keying and isolation, the workload, the host, the server's
// settings and the caps asked). fit's candidates are run without their
// command line (the caps are the candidate's), so their A/A history is the
// runs of one RecordedKey: the same candidate in earlier fits, runs and
// rightsize calibrate at its caps.
func RecordedKey(r store.Run) string {
	parts := recordedKey(r)
	slices.Sort(parts)
	return strings.Join(parts, "\n")
}

// recordedKey are RecordedKey's parts, unsorted.
func recordedKey(r store.Run) []string {
	var parts []string
	add := func(k, v string) { parts = append(parts, k+"="+v) }
	add("source", r.Source)
	add("target", r.Target)
	add("engine", r.Engine+" "+r.EngineVersion)
	add("mode", r.Mode)
	add("warehouses", strconv.Itoa(r.Warehouses))
	add("keying", strconv.FormatBool(r.KeyingThinking))
	add("isolation", r.Isolation)
	for k, v := range r.Env {
		for _, c := range configEnv {
			if k == c || strings.HasSuffix(c, ".") && strings.HasPrefix(k, c) {
				add("env."+k, v)
				break
			}
		}
	}
	return parts
}

// MaxHistoryRuns bounds the A/A history MeasureDrifts reads: the latest
// runs of the configuration.
const MaxHistoryRuns = 30

// History is the results store as Measure reads it.
type History interface {
	ListRuns(ctx context.Context) ([]store.Run, error)
	LoadRun(ctx context.Context, id string) (*store.Run, []store.Step, error)
}

var _ History = (*store.Store)(nil)

// Figures are the drift between runs of one configuration per figure; a
// zero Drift is one not measured (steady.DefaultDrift applies).
type Figures struct {
	TPM, NOPM, P90 steady.Drift
}

// Of is the drift of run's figure of merit: a pgbench workload's TPM
// (every script's transactions), else TPC-C's NOPM.
func (f Figures) Of(run store.Run) steady.Drift {
	if _, ok := run.WorkloadMerit(); ok {
		return f.TPM
	}
	return f.NOPM
}

// Measure estimates the drift between runs of run's configuration on its
// host from the store's A/A history: every complete step of the latest
// MaxHistoryRuns runs with its ConfigKey (the run itself included, each
// repeat one value; rightsize calibrate stores such runs on purpose), one
// group per users count, pooled (steady.PooledDrift). A figure with too
// few values stays zero: the default.
func Measure(ctx context.Context, st History, run store.Run) (Figures, error) {
	key := ConfigKey(run)
	return measure(ctx, st, func(r store.Run) bool { return ConfigKey(r) == key })
}

// MeasureBefore is Measure over the runs of run's RecordedKey that
// started before since (a fit's start): the history as it stood then, so
// a verdict replayed later (report --fit, --resume) is the one given
// then, and the fit's own runs of a candidate, which judge it by their
// own spread, do not count twice.
func MeasureBefore(ctx context.Context, st History, run store.Run, since time.Time) (Figures, error) {
	key := RecordedKey(run)
	return measure(ctx, st, func(r store.Run) bool { return r.StartedAt.Before(since) && RecordedKey(r) == key })
}

// measure is the drift over the latest MaxHistoryRuns runs that same picks.
func measure(ctx context.Context, st History, same func(store.Run) bool) (Figures, error) {
	runs, err := st.ListRuns(ctx)
	if err != nil {
		return Figures{}, fmt.Errorf("list runs for the drift between runs: %w", err)
	}
	tpm, nopm, p90 := map[int][]float64{}, map[int][]float64{}, map[int][]float64{}
	n := 0
	for _, r := range runs { // newest first
		if n == MaxHistoryRuns || r.Status == store.StatusRunning || r.Status == store.StatusFailed || !same(r) {
			continue
		}
		_, steps, err := st.LoadRun(ctx, r.ID)
		if err != nil {
			return Figures{}, fmt.Errorf("load run %s for the drift between runs: %w", r.ID, err)
		}
		n++
		for _, s := range steps {
			if s.Partial || s.TPM <= 0 {
				continue
			}
			tpm[s.Users], nopm[s.Users] = append(tpm[s.Users], s.TPM), append(nopm[s.Users], s.NOPM)
			if t := tpcc.Merit.Counted(s.Txn); t != nil {
				p90[s.Users] = append(p90[s.Users], t.P90Ms)
			}
		}
	}
	var d Figures
	for _, x := range []struct {
		groups map[int][]float64
		to     *steady.Drift
	}{{tpm, &d.TPM}, {nopm, &d.NOPM}, {p90, &d.P90}} {
		if m, ok := steady.PooledDrift(slices.Collect(maps.Values(x.groups))); ok {
			*x.to = m
		}
	}
	return d, nil
}
