package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/rightsize/rightsize/cost"
	"github.com/rightsize/rightsize/report"
	"github.com/rightsize/rightsize/store"
)

// newReportCmd is "rightsize report [RUN ...] [--probe ID|LABEL ...]": one
// offline HTML file with the charts and tables of one or several runs, side
// by side, and of probes.
func newReportCmd() *cobra.Command {
	var out, title, costFile, sweepKey, fitKey string
	var probeKeys []string
	var probesLatest bool
	cmd := &cobra.Command{
		Use:   "report [RUN ...] [--probe ID|LABEL ...]",
		Short: "Write one offline HTML file with the charts and tables of runs and probes, compared side by side",
		Long:  reportLong,
		Example: `  rightsize report                                  # the latest run and its host's probes, to report.html
  rightsize report baseline "8 cores" -o cores.html
  rightsize report hammerdb:hammerdb.log baseline   # an imported HammerDB run next to a measured one
  rightsize report baseline --probe nvme --probes-latest    # the run's host's probes, and the probe labelled nvme
  rightsize report --probe hdd --probe ssd -o storage.html  # two machines' storage probes, no run`,
		RunE: func(cmd *cobra.Command, args []string) error {
			st, err := openResults(cmd)
			if err != nil {
				return err
			}
			defer st.Close()
			ctx := cmd.Context()
			costRes, err := reportCost(cmd, st, costFile)
			if err != nil {
				return err
			}
			if len(args) == 0 && costRes != nil {
				args = linkedRuns(costRes)
			}
			sweep, err := reportSweep(cmd, st, sweepKey)
			if err != nil {
				return err
			}
			if len(args) == 0 && sweep != nil {
				args = sweepRuns(sweep)
			}
			fitRep, err := reportFit(cmd, st, fitKey)
			if err != nil {
				return err
			}
			if len(args) == 0 && fitRep != nil {
				args = fitRuns(fitRep)
			}
			var runs []report.RunData
			if len(args) > 0 || (len(probeKeys) == 0 && costRes == nil && sweep == nil && fitRep == nil) {
				if runs, err = loadReportRuns(ctx, st, args); err != nil {
					return err
				}
			}
			if probesLatest && (len(probeKeys) == 0 || cmd.Flags().Changed("probes-latest")) {
				if err := report.AttachHostProbes(ctx, st, runs); err != nil {
					return err
				}
			}
			probes, err := report.LoadProbes(ctx, st, probeKeys...)
			if err != nil {
				return probeError(cmd, st, err)
			}
			opts := report.Options{Title: title, Version: version, Probes: probes, Cost: costRes, Sweep: sweep, Fit: fitRep}
			return writeReport(cmd, out, runs, opts, costFile)
		},
	}
	f := cmd.Flags()
	f.StringVarP(&out, "output", "o", "report.html", `the HTML file to write ("-" for standard output)`)
	f.StringVar(&title, "title", "", `the report's title (default "rightsize report")`)
	f.StringArrayVar(&probeKeys, "probe", nil, "add a probe by id, label or unique id prefix (repeatable); turns the default probes off unless --probes-latest is given")
	f.BoolVar(&probesLatest, "probes-latest", true, "add the latest probe of each kind measured on a reported run's host")
	f.StringVar(&sweepKey, "sweep", "", "add the sweep section of this sweep (id or label); without RUN, the report shows the sweep's runs")
	f.StringVar(&fitKey, "fit", "", "add the right-size search section of this fit (id or label); without RUN, the report shows its measured runs")
	f.StringVar(&costFile, "cost", "", "add the cost section from this cost file (see rightsize cost); without RUN, the report shows the runs it links")
	return cmd
}

// reportLong is rightsize report's help text.
const reportLong = `Write one self-contained HTML file (it opens offline: the chart library is
embedded) with, for each RUN: a summary, TPM/NOPM/TPM per user by virtual
users, CPU and disk by virtual users, transaction latency percentiles,
throughput and latency over time, and the environment and settings, with
the settings that differ between runs highlighted.

RUN is a run id, a label (the latest run with that label), or a unique
prefix of a run id; without RUN, the latest run. Several RUNs are compared
side by side, in the order given.

Probes (rightsize probe storage, cpu, backup) have their own sections:
storage (the study table of each job; IOPS and latency by block size),
single-thread CPU, and backup and restore. Probes of several machines are
shown side by side. Which probes:
  - by default, for each kind (storage, cpu, backup), the latest probe whose
    host is a reported run's host (the run's host.name; case and domain are
    ignored: db1 matches DB1.example.com). Runs on two hosts bring both
    hosts' probes; an imported HammerDB run has no host and brings none.
  - --probe ID|LABEL adds a probe by id, label (the latest probe with that
    label) or unique id prefix; repeatable. Naming probes turns the default
    off, unless --probes-latest is given too.
  - --probes-latest=false leaves the default probes out.
With --probe and no RUN, the report has the probes only, and no run.
rightsize probe prints the id of each probe it stores.`

// loadReportRuns loads the runs named by keys (run ids, labels or prefixes),
// or the latest run without keys.
func loadReportRuns(ctx context.Context, st *store.Store, keys []string) ([]report.RunData, error) {
	var ids []string
	for _, a := range keys {
		id, err := resolveRun(ctx, st, a)
		if err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	runs, err := report.Load(ctx, st, ids...)
	if err != nil {
		if len(ids) == 0 {
			return nil, badInput(fmt.Errorf("%w; or report probes alone with --probe ID", err))
		}
		if errors.Is(err, store.ErrNotFound) {
			return nil, badInput(err)
		}
		return nil, err
	}
	return runs, nil
}

// reportCost evaluates the report's cost file (nil without one).
func reportCost(cmd *cobra.Command, st *store.Store, path string) (*cost.Result, error) {
	if path == "" {
		return nil, nil
	}
	f, err := cost.Load(path)
	if err != nil {
		return nil, costInputError(err)
	}
	res, err := cost.Evaluate(cmd.Context(), f, st)
	if err != nil {
		return nil, costInputError(err)
	}
	return res, nil
}

// linkedRuns are the run ids a cost model links, in config order, once each.
func linkedRuns(res *cost.Result) []string {
	var ids []string
	seen := map[string]bool{}
	for _, c := range res.Configs {
		if c.Run != nil && !seen[c.Run.RunID] {
			seen[c.Run.RunID] = true
			ids = append(ids, c.Run.RunID)
		}
	}
	return ids
}

// reportContents names what a report shows: "A vs B; probes: x, y".
func reportContents(runs []report.RunData, extra []store.Probe) string {
	var parts []string
	if len(runs) > 0 {
		parts = append(parts, strings.Join(report.Labels(runs), " vs "))
	} else {
		parts = append(parts, "no run")
	}
	seen := map[string]bool{}
	var probes []store.Probe
	for _, p := range extra {
		if !seen[p.ID] {
			seen[p.ID] = true
			probes = append(probes, p)
		}
	}
	for _, r := range runs {
		for _, p := range r.Probes {
			if !seen[p.ID] {
				seen[p.ID] = true
				probes = append(probes, p)
			}
		}
	}
	if len(probes) > 0 {
		labels := report.ProbeLabels(probes)
		for i, p := range probes {
			labels[i] = p.Kind + " " + labels[i]
		}
		parts = append(parts, "probes: "+strings.Join(labels, ", "))
	}
	return strings.Join(parts, "; ")
}

// probeError turns an unknown or ambiguous --probe into bad input that
// lists the store's latest probes (no other command lists them).
func probeError(cmd *cobra.Command, st *store.Store, err error) error {
	if !errors.Is(err, store.ErrNotFound) && !strings.Contains(err.Error(), "ambiguous") && !strings.Contains(err.Error(), "empty") {
		return err
	}
	all, lerr := st.ListProbes(cmd.Context(), "")
	if lerr != nil || len(all) == 0 {
		return badInput(fmt.Errorf("--probe: %w (the store has no probes: measure with rightsize probe storage, cpu or backup)", err))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "--probe: %v; the latest probes:", err)
	for i, p := range all {
		if i == 10 {
			fmt.Fprintf(&b, "\n  ... %d more", len(all)-i)
			break
		}
		fmt.Fprintf(&b, "\n  %s  %-7s %-20s host %s, %s", p.ID, p.Kind, orNone(p.Label), orNone(p.Host), p.CreatedAt.Local().Format("2006-01-02 15:04"))
	}
	return badInput(errors.New(b.String()))
}

// orNone is s, or "-" when empty.
func orNone(s string) string {
	if strings.TrimSpace(s) == "" {
		return "-"
	}
	return s
}

// writeFileAtomic writes path through a temporary file in the same
// directory, renamed into place once complete: an interrupted write never
// leaves a truncated file.
func writeFileAtomic(path string, fill func(*os.File) error) error {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*")
	if err != nil {
		return badInput(fmt.Errorf("write %s: %w", path, err))
	}
	tmp := f.Name()
	defer os.Remove(tmp)
	if err := fill(f); err != nil {
		f.Close()
		return err
	}
	if err := f.Chmod(0o644); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return os.Rename(tmp, path)
}

// writeReport writes the HTML report to out ("-" for standard output) and
// says on standard error what a written file holds.
func writeReport(cmd *cobra.Command, out string, runs []report.RunData, opts report.Options, costFile string) error {
	if out == "-" {
		return report.HTML(cmd.OutOrStdout(), runs, opts)
	}
	if err := writeFileAtomic(out, func(f *os.File) error { return report.HTML(f, runs, opts) }); err != nil {
		return err
	}
	contents := reportContents(runs, opts.Probes)
	if opts.Cost != nil {
		contents += "; cost model " + costFile
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "wrote %s: %s (open it in a browser; it needs no network)\n", out, contents)
	return nil
}
