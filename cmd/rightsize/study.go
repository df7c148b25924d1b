package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/rightsize/rightsize/cost"
	"github.com/rightsize/rightsize/internal/units"
	"github.com/rightsize/rightsize/internal/yamlfile"
	"github.com/rightsize/rightsize/plan"
	"github.com/rightsize/rightsize/probe/storage"
	"github.com/rightsize/rightsize/registry"
	"github.com/rightsize/rightsize/report"
	"github.com/rightsize/rightsize/scenario"
	"github.com/rightsize/rightsize/store"
	"github.com/rightsize/rightsize/study"
)

// newStudyCmd is "rightsize study validate|init|run": a whole study from
// one plan file.
func newStudyCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "study",
		Short: "A whole study from one plan file: validate it, write an example, run it",
		Long: `A study plan (YAML) describes a whole study: configurations (managed
servers with caps and versions, or external servers by DSN with the password
in an environment variable), the storage probe, the build, the autopilot,
sweeps, the noisy-neighbour scenario, backups, the cost model, fit and the
report. See examples/ and rightsize study init.`,
	}
	cmd.AddCommand(newStudyValidateCmd(), newStudyInitCmd(), newStudyRunCmd())
	return cmd
}

func newStudyValidateCmd() *cobra.Command {
	var maxDuration time.Duration
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "validate PLAN.yaml",
		Short: "Check a plan: every problem with its line and column, and the estimated duration",
		Long: `Check a study plan and the cost file it names: unknown fields, values that
cannot be applied, configurations that do not exist, each printed as
FILE:LINE:COLUMN: FIELD: PROBLEM. Then print the estimated duration from the
plan's own durations (the caps where the autopilot leaves rampup, duration
or repeats to the time-to-answer rules: an upper bound) (ramp-ups and steps
× repeats per configuration and
sweep value, probes, backup intervals, the neighbour's phases, and at most
every fit candidate); building databases and starting servers are not
counted. --max-duration refuses a plan estimated longer. Exit code 2 when
the plan has a problem.`,
		Example: `  rightsize study validate examples/fewer-cores-faster-storage.yaml
  rightsize study validate study.yaml --max-duration 15m`,
		Args: exactArgs(1, "give one PLAN.yaml"),
		RunE: func(cmd *cobra.Command, args []string) error {
			p, err := loadPlan(cmd.ErrOrStderr(), args[0])
			if err != nil {
				return err
			}
			e := p.Estimate()
			if asJSON {
				if err := writeJSON(cmd.OutOrStdout(), e); err != nil {
					return err
				}
			} else {
				printEstimate(cmd.OutOrStdout(), p, e)
			}
			if maxDuration > 0 && e.Total > maxDuration {
				line, col := p.DurationPos()
				return badInput(&yamlfile.Error{File: p.Path, Line: line, Column: col, Field: "autopilot.duration",
					Msg: fmt.Sprintf("the plan is estimated at %s, more than --max-duration %s: shorten the durations, steps or values", e.Total, maxDuration)})
			}
			return nil
		},
	}
	cmd.Flags().DurationVar(&maxDuration, "max-duration", 0, "refuse a plan estimated longer than this (e.g. 15m)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the estimate as JSON")
	return cmd
}

// loadPlan loads a plan; every problem is printed on its own line to
// errOut as FILE:LINE:COLUMN: FIELD: PROBLEM, and the error (bad input)
// counts them.
func loadPlan(errOut io.Writer, path string) (*plan.Plan, error) {
	p, err := plan.Load(path)
	if err == nil {
		return p, nil
	}
	var es yamlfile.Errors
	if errors.As(err, &es) && len(es) > 0 {
		for _, e := range es {
			fmt.Fprintln(errOut, e)
		}
		if len(es) == 1 {
			return nil, badInput(fmt.Errorf("%s: 1 problem (above)", path))
		}
		return nil, badInput(fmt.Errorf("%s: %d problems (listed above)", path, len(es)))
	}
	if errors.Is(err, os.ErrNotExist) {
		return nil, badInput(fmt.Errorf("no plan file %s (rightsize study init writes an example)", path))
	}
	return nil, costInputError(err)
}

func printEstimate(w io.Writer, p *plan.Plan, e plan.Estimate) {
	fmt.Fprintf(w, "%s: valid: study %q, %s", p.Path, p.Name, report.Plural(len(p.Configurations), "configuration"))
	if len(p.Sweeps) > 0 {
		fmt.Fprintf(w, ", %s", report.Plural(len(p.Sweeps), "sweep"))
	}
	if p.Neighbour != nil {
		fmt.Fprint(w, ", noisy neighbour")
	}
	if p.Fit != nil {
		fmt.Fprint(w, ", fit")
	}
	if p.CostModel != nil {
		fmt.Fprintf(w, ", cost model %s", p.CostPath())
	}
	if wl := p.Autopilot.WorkloadOf(); wl != nil {
		name, scripts := wl.Describe()
		fmt.Fprintf(w, ", workload %s: %s (built: %s)", name, scripts, p.Build.Kind())
	}
	fmt.Fprintln(w)
	t := &alignedRows{}
	for _, part := range e.Parts {
		d := part.Duration.String()
		if part.UpTo {
			d = "up to " + d
		}
		t.add("  "+part.What, d)
	}
	t.add("estimated duration", e.Total.String())
	t.write(w)
	fmt.Fprintln(w, "(building the database and starting servers come on top)")
	if p.CostModel == nil {
		return
	}
	t = &alignedRows{}
	for _, c := range p.Configurations {
		if cf := p.CostModel.Find(c.Cost); cf != nil {
			t.add(fmt.Sprintf("  %s → %s", c.Name, cf.Name), p.CostModel.Currency+" "+cf.Price(p.CostModel.Years).Total.Cents())
		}
	}
	if len(t.rows) > 0 {
		fmt.Fprintf(w, "priced by %s:\n", p.CostPath())
		t.write(w)
	}
}

// alignedRows prints label/value rows with the values aligned.
type alignedRows struct{ rows [][2]string }

func (a *alignedRows) add(label, value string) { a.rows = append(a.rows, [2]string{label, value}) }

func (a *alignedRows) write(w io.Writer) {
	width := 0
	for _, r := range a.rows {
		width = max(width, len([]rune(r[0])))
	}
	for _, r := range a.rows {
		fmt.Fprintf(w, "%s%*s  %s\n", r[0], width-len([]rune(r[0])), "", r[1])
	}
}

func newStudyInitCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "init [DIR]",
		Short: "Write a commented example plan (study.yaml) and its cost file (costs.yaml)",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir := "."
			if len(args) == 1 {
				dir = args[0]
			}
			planText, costs := plan.InitFiles()
			files := []struct {
				name string
				text []byte
			}{{"study.yaml", planText}, {"costs.yaml", costs}}
			for _, f := range files {
				if _, err := os.Stat(filepath.Join(dir, f.name)); err == nil {
					return badInput(fmt.Errorf("%s already exists: init writes a new plan; remove it or give another directory", filepath.Join(dir, f.name)))
				}
			}
			for _, f := range files {
				if err := os.WriteFile(filepath.Join(dir, f.name), f.text, 0o644); err != nil {
					return badInput(fmt.Errorf("write %s: %w", f.name, err))
				}
			}
			fmt.Fprintf(cmd.OutOrStdout(), "wrote %s and %s; check them with: rightsize study validate %s\n",
				filepath.Join(dir, "study.yaml"), filepath.Join(dir, "costs.yaml"), filepath.Join(dir, "study.yaml"))
			return nil
		},
	}
	return cmd
}

func newStudyRunCmd() *cobra.Command {
	var output string
	var interval time.Duration
	cmd := &cobra.Command{
		Use:   "run PLAN.yaml",
		Short: "Run a study plan: every configuration, probe, sweep and fit, then one report with the cost table",
		Long: `Run a whole study plan: for each configuration (i of n) start its managed
server with its caps and version (or connect to its external server), build
the plan's database there once (configurations of the same engine, version
and data directory share the build and restore it), probe its storage inside
its I/O limit, and run the autopilot; then the sweeps, the fit and the cost
model linked to the runs; and write one report (report.output, or -o).
Runs are labelled PLAN/CONFIGURATION. A rerun skips what the store already
holds complete for the plan (and says so), resumes a partial sweep or fit,
and measures the rest. Progress lines give the configuration, the step and
the measuring time left by the plan's durations. An autopilot that leaves
rampup, duration or repeats out has them decided by the time-to-answer rules
(steady state, ±precision, repeats that agree) within the plan's caps, and
the cost headlines call a configuration better only when the intervals of
the average TPM separate ("not distinguishable at this precision").`,
		Example: `  rightsize study run examples/fewer-cores-faster-storage.yaml
  rightsize study run study.yaml -o study.html`,
		Args: exactArgs(1, "give one PLAN.yaml"),
		RunE: func(cmd *cobra.Command, args []string) error {
			p, err := loadPlan(cmd.ErrOrStderr(), args[0])
			if err != nil {
				return err
			}
			return runStudy(cmd, p, output, interval)
		},
	}
	cmd.Flags().StringVarP(&output, "output", "o", "", "the report file (default: the plan's report.output, else PLAN.html)")
	cmd.Flags().DurationVar(&interval, "progress-interval", 10*time.Second, "without a terminal, print a progress line this often during a step (0: none)")
	return cmd
}

// runStudy runs the plan and writes its report.
func runStudy(cmd *cobra.Command, p *plan.Plan, output string, interval time.Duration) error {
	if p.Store != "" && !cmd.Flags().Changed("store") {
		_ = cmd.Flags().Set("store", p.Store)
	}
	st, err := openStore(cmd)
	if err != nil {
		return err
	}
	defer st.Close()
	errOut := cmd.ErrOrStderr()
	var prog *stepProgress
	o := study.Options{Prober: studyProber{cmd: cmd, st: st}, Out: errOut, Version: version, Commit: commit,
		OnRun: func(ro *scenario.RunOptions) {
			if prog != nil {
				prog.finish()
			}
			prog = liveProgress(errOut, interval, ro)
		}}
	res, runErr := study.Run(cmd.Context(), st, p, o)
	if prog != nil {
		prog.finish()
	}
	if res == nil {
		return runErr
	}
	out := cmd.OutOrStdout()
	writeStudy(out, p, res)
	if rerr := writeStudyReport(cmd, st, p, res, output); rerr != nil && runErr == nil {
		runErr = rerr
	}
	if runErr != nil {
		if errors.Is(runErr, scenario.ErrBadOptions) || errors.Is(runErr, registry.ErrBadTarget) || registry.IsBadCaps(runErr) {
			return badInput(runErr)
		}
		return fmt.Errorf("%w (what was measured is stored; rerun the same command to continue)", runErr)
	}
	return nil
}

// studyProber runs the plan's storage probe with the probe command's code.
type studyProber struct {
	cmd *cobra.Command
	st  *store.Store
}

func (s studyProber) ProbeStorage(_ context.Context, path, ioLimit, label string, sp plan.StorageProbe) (string, error) {
	jobs, err := storageJobs(sp.Preset, sp.DurationValue(), storage.Job{}, "8k", true)
	if err != nil {
		return "", err
	}
	size := int64(1 << 30)
	if sp.Size != "" {
		if size, err = units.ParseSize(sp.Size); err != nil {
			return "", err
		}
	}
	eng, err := storage.ResolveEngine("auto")
	if err != nil {
		return "", err
	}
	pr := storageProbe{path: path, preset: sp.Preset, engine: eng, builtinIO: "auto", ioLimit: ioLimit, label: label, size: size, jobs: jobs}
	p, _, err := pr.run(s.cmd, s.st, func(string) {})
	if p == nil {
		return "", err
	}
	return p.ID, err
}

// writeStudy prints what the study stored and the cost headline.
func writeStudy(w io.Writer, p *plan.Plan, res *study.Result) {
	fmt.Fprintf(w, "\nstudy %s\n", p.Name)
	if wl := p.Autopilot.WorkloadOf(); wl != nil {
		name, scripts := wl.Describe()
		fmt.Fprintf(w, "  workload %s: %s; figure of merit: %s (not NOPM: not TPC-C)\n", name, scripts, p.Autopilot.FigureName())
	}
	t := &alignedRows{}
	for _, name := range res.Order {
		t.add("  "+name, "run "+dash(res.Runs[name]))
	}
	for _, id := range res.Sweeps {
		t.add("  sweep", id+"   (rightsize report --sweep "+id+")")
	}
	if res.Fit != "" {
		t.add("  fit", res.Fit+"   (rightsize report --fit "+res.Fit+")")
	}
	t.write(w)
	for _, s := range res.Skipped {
		fmt.Fprintf(w, "  skipped: %s\n", s)
	}
	if res.Cost != nil {
		fmt.Fprintln(w)
		_ = cost.WriteText(w, res.Cost)
	}
}

// writeStudyReport writes the study's one report: every configuration's
// run, its probes, the first sweep, the fit and the cost section.
func writeStudyReport(cmd *cobra.Command, st *store.Store, p *plan.Plan, res *study.Result, output string) error {
	ctx := context.WithoutCancel(cmd.Context())
	if output == "" {
		output = p.Report.Output
	}
	if output == "" {
		output = strings.TrimSuffix(filepath.Base(p.Path), filepath.Ext(p.Path)) + ".html"
	}
	var ids []string
	for _, name := range res.Order {
		if id := res.Runs[name]; id != "" {
			ids = append(ids, id)
		}
	}
	var runs []report.RunData
	var err error
	if len(ids) > 0 {
		if runs, err = report.Load(ctx, st, ids...); err != nil {
			return err
		}
	}
	probes, err := report.LoadProbes(ctx, st, res.Probes...)
	if err != nil {
		return err
	}
	opts := report.Options{Title: p.Report.Title, Version: version, Probes: probes, Cost: res.Cost}
	if opts.Title == "" { // the study's, not its sweep's or fit's
		opts.Title = "rightsize study " + p.Name
	}
	if len(res.Sweeps) > 0 {
		if opts.Sweep, err = reportSweep(cmd, st, res.Sweeps[0]); err != nil {
			return err
		}
	}
	if res.Fit != "" {
		if opts.Fit, err = reportFit(cmd, st, res.Fit); err != nil {
			return err
		}
	}
	if len(runs) == 0 && len(probes) == 0 && opts.Cost == nil && opts.Sweep == nil && opts.Fit == nil {
		return nil
	}
	if err := writeFileAtomic(output, func(f *os.File) error { return report.HTML(f, runs, opts) }); err != nil {
		return err
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "wrote %s (open it in a browser; it needs no network)\n", output)
	return nil
}

// exactArgs requires n arguments, else bad input with msg.
func exactArgs(n int, msg string) cobra.PositionalArgs {
	return func(_ *cobra.Command, args []string) error {
		if len(args) != n {
			return badInput(errors.New(msg))
		}
		return nil
	}
}
