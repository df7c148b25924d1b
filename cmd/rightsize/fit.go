package main

import (
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"

	"github.com/spf13/cobra"

	"github.com/rightsize/rightsize/analysis"
	"github.com/rightsize/rightsize/caps"
	"github.com/rightsize/rightsize/cost"
	"github.com/rightsize/rightsize/execute"
	"github.com/rightsize/rightsize/fit"
	"github.com/rightsize/rightsize/internal/units"
	"github.com/rightsize/rightsize/report"
	"github.com/rightsize/rightsize/scenario"
	"github.com/rightsize/rightsize/store"
)

// fitFlags are rightsize fit's flags.
type fitFlags struct {
	target, headroom, at, confidence string
	maxP90, targetTPS                float64
	cpus, memory, io, versions       []string
	costFile, config                 string
	dryRun, measureAll               bool
	runs                             int
	resume, from                     string
	tf                               targetFlags
	rf                               runFlags
}

// newFitCmd is "rightsize fit": the cheapest configuration that meets a
// target, measured on the managed server (scenario.RunFit).
func newFitCmd() *cobra.Command {
	var f fitFlags
	cmd := &cobra.Command{
		Use:   "fit --target-nopm N|from:RUN --cpus LIST [--memory LIST] [--io LIST] [--version LIST] --cost FILE --config NAME",
		Short: "Find the cheapest configuration that meets a NOPM and latency target, by measuring it",
		Long: `Price every candidate (--cpus × --memory × --io × --version) with the cost
model of --config in --cost FILE (its vm_cores become the candidate's cpus,
rounded up to whole cores for per-core licences; items and licences per
vm_core or memory_gb scale; everything else stays as written) and try them
cheapest first (ties: fewer cores, then less memory), skipping every
candidate that a measured one with at least its resources already missed,
and stopping at the first that meets the target: every cheaper one was
measured and missed or is dominated by one that missed.

"Meets": the NOPM at --at (peak, or a users count) reaches --target-nopm
(from:RUN takes a stored run's NOPM; --headroom 20% adds a margin) with its
confidence interval wholly above the target, and the New-Order p90 is at
most --max-p90-ms. With --workload, --target-tps is the figure's TPS (every
script's, or --figure SCRIPT's) and --max-p90-ms limits that figure's p90. --confidence range (the default) judges the interval of
each repeat's step (batch means): the repeat reaching lowest decides; mean
judges the t interval of the mean across repeats. A target inside the
interval is a miss, "not distinguishable at this precision" from the
target; the answer names the measured candidates whose intervals overlap
its own.

Each candidate measured restarts the managed server (--target embedded or
mariadb; build first) with its caps, restores the built database and runs
the autopilot (--users and the time-to-answer flags as run has them). By
default fit uses the time-to-answer rules: --rampup auto --duration auto
--precision 2% --repeat auto, within --rampup-max, --duration-max and
--repeat-max; give --rampup, --duration or --repeat a value to fix it. The
level of the intervals is 95 %. One stored run per candidate, grouped as one
fit (report --fit); a candidate whose interval holds the target (not
distinguishable from it) is measured again, up to --runs runs (3), and
judged on their mean, and the answer names a cheaper one that still holds
it.
Ctrl-C keeps what was measured; --resume FIT reuses every candidate
already measured and measures the rest with the flags of its first run.
--dry-run prints the candidates priced, in the order they would be tried,
and the target, and measures nothing.`,
		Example: `  rightsize fit --target-nopm 5000 --cpus 0.5,1,1.5,2 --memory 256M,512M,1G --cost costs.yaml --config new-4vc-ssd --dry-run
  rightsize fit --target-nopm from:old-16vc --headroom 20% --cpus 1,2 --cost costs.yaml --config new-4vc-ssd --dry-run`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runFit(cmd, &f) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.target, "target-nopm", "", "the NOPM to meet: a number, or from:RUN (a stored run id or label)")
	fl.Float64Var(&f.targetTPS, "target-tps", 0, "with --workload: the transactions per second to meet (every script's, or --figure SCRIPT's)")
	fl.StringVar(&f.headroom, "headroom", "0%", "margin above the target, e.g. 20%")
	fl.Float64Var(&f.maxP90, "max-p90-ms", 0, "p90 limit in ms: New-Order's, or a pgbench workload's figure's (0: none)")
	fl.StringVar(&f.at, "at", "peak", "the step judged: peak, or a users count")
	fl.StringVar(&f.confidence, "confidence", "range", "range (every repeat's interval must lie above the target) or mean (the interval of the mean across repeats)")
	fl.StringSliceVar(&f.cpus, "cpus", nil, "cpus to try, e.g. 0.5,1,1.5,2")
	fl.StringSliceVar(&f.memory, "memory", nil, "memory sizes to try, e.g. 256M,512M,1G")
	fl.StringArrayVar(&f.io, "io", nil, "I/O limits to try: none or riops=N:wiops=N:rbps=SIZE:wbps=SIZE (repeatable)")
	fl.StringSliceVar(&f.versions, "version", nil, "PostgreSQL versions to try, e.g. 15,17")
	fl.StringVar(&f.costFile, "cost", "", "the cost file pricing the candidates")
	fl.StringVar(&f.config, "config", "", "the cost file's config the candidates vary")
	fl.BoolVar(&f.dryRun, "dry-run", false, "print the priced candidates in search order and the target; measure nothing")
	fl.StringVar(&f.resume, "resume", "", "continue an interrupted fit (id or label): candidates measured completely are reused")
	fl.StringVar(&f.from, "from", "", "a stored run (id or label) the model learns the demands from before measuring anything")
	fl.IntVar(&f.runs, "runs", fit.DefaultRuns, "the most runs measured of a candidate whose interval holds the target (1: never again)")
	fl.BoolVar(&f.measureAll, "measure-all", false, "measure candidates cheapest first until one meets, as without a model: predictions are shown and rule out nothing")
	f.tf.registerBase(cmd)
	f.rf.register(cmd)
	return cmd
}

func runFit(cmd *cobra.Command, f *fitFlags) error {
	resuming := f.resume != "" && !f.dryRun
	if resuming {
		if err := resumeFlags(cmd, f.resume); err != nil {
			return err
		}
	}
	f.rf.answer.autoByDefault(cmd)
	if resuming {
		// the stored fit has its candidates, prices and criteria
		o, err := f.rf.options(cmd)
		if err != nil {
			return err
		}
		f.tf.forUsers(o.Users, o.Connections)
		return measureFit(cmd, f, scenario.FitOptions{Run: o, Label: o.Label, Resume: f.resume}, nil)
	}
	cands, err := f.candidates()
	if err != nil {
		return badInput(err)
	}
	cr, err := f.criteria(cmd)
	if err != nil {
		return err
	}
	if f.costFile == "" {
		return badInput(errors.New("--cost FILE is required: the cost file that prices the candidates"))
	}
	model, err := cost.Load(f.costFile)
	if err != nil {
		return costInputError(err)
	}
	base := model.Find(f.config)
	if base == nil {
		return badInput(fmt.Errorf("--config %q is not a config of %s (configs: %s)", f.config, f.costFile, strings.Join(configNames(model), ", ")))
	}
	priced := fit.Price(*base, model.Years, cands)
	var baseline *cost.Breakdown
	if c := model.Find(model.Baseline); c != nil {
		b := c.Price(model.Years)
		baseline = &b
	}
	if f.dryRun {
		printFitPlan(cmd.OutOrStdout(), priced, cr, model.Currency, baseline)
		return nil
	}
	o, err := f.rf.options(cmd)
	if err != nil {
		return err
	}
	if err := scenario.CheckAt(cr.AtUsers, o.Users); err != nil {
		return badInput(err)
	}
	f.tf.forUsers(o.Users, o.Connections)
	from, err := f.fromRun(cmd)
	if err != nil {
		return err
	}
	fo := scenario.FitOptions{Candidates: priced, Criteria: cr, Currency: model.Currency, Label: o.Label, Run: o, Resume: f.resume,
		MeasureAll: f.measureAll, From: from}
	return measureFit(cmd, f, fo, baseline)
}

// fromRun resolves --from to a run id ("" without it).
func (f *fitFlags) fromRun(cmd *cobra.Command) (string, error) {
	if f.from == "" {
		return "", nil
	}
	st, id, err := openRun(cmd, f.from)
	if err != nil {
		return "", err
	}
	st.Close()
	return id, nil
}

// measureFit runs the search on the managed server and prints the answer
// and the evidence.
func measureFit(cmd *cobra.Command, f *fitFlags, fo scenario.FitOptions, baseline *cost.Breakdown) error {
	if fo.Resume == "" {
		if err := scenario.CheckCandidates(fo.Candidates); err != nil {
			return badInput(err)
		}
	}
	return withStore(cmd, func(st *store.Store) error {
		fo.Run.Version, fo.Run.Commit = version, commit
		c, err := f.tf.config(false, 2, fo.Run)
		if err != nil {
			return err
		}
		return fitOn(cmd, st, c, f, fo, baseline)
	})
}

// fitOn measures the search over the command's configuration c
// (execute.Fit with the command's policy) and prints the answer.
func fitOn(cmd *cobra.Command, st *store.Store, c execute.Config, f *fitFlags, fo scenario.FitOptions, baseline *cost.Breakdown) error {
	ctx := cmd.Context()
	errOut := cmd.ErrOrStderr()
	var prog *stepProgress
	if !f.rf.json {
		fo.OnCandidate = func(p fit.Priced) {
			prog.finish()
			fmt.Fprintf(errOut, "candidate %s (%s %s): restarting the server, restoring the built database\n", p.Candidate, fo.Currency, p.Cost.Total.Cents())
		}
		fo.OnPredict = func(r fit.Round) {
			prog.finish()
			printPredictions(errOut, r, fo.Currency)
		}
	}
	res, err := execute.Fit(ctx, st, c, fo, scenarioPolicy(cmd, &f.tf, f.rf, &prog))
	if res == nil || res.Result == nil || errors.Is(err, scenario.ErrBadOptions) {
		return err
	}
	if f.rf.json {
		if jerr := writeJSON(cmd.OutOrStdout(), res); jerr != nil {
			return jerr
		}
	} else {
		out := cmd.OutOrStdout()
		fmt.Fprintf(out, "\nfit %s (%s)\n", res.ID, res.Status)
		if werr := res.Result.WriteText(out, res.Currency, baseline); werr != nil {
			return werr
		}
		fmt.Fprintf(out, "  report: rightsize report --fit %s\n", res.ID)
	}
	if errors.Is(err, fit.ErrNoFit) {
		return badInput(fmt.Errorf("%s", res.Result.Answer(res.Currency, baseline)))
	}
	return err
}

func configNames(f *cost.File) []string {
	var out []string
	for _, c := range f.Configs {
		out = append(out, c.Name)
	}
	return out
}

// candidates parses the candidate lists.
func (f *fitFlags) candidates() ([]fit.Candidate, error) {
	if len(f.cpus) == 0 {
		return nil, errors.New("--cpus is required: the cpus to try, e.g. --cpus 0.5,1,2")
	}
	var cpus []float64
	for _, s := range f.cpus {
		n, err := caps.ParseCPUs(s, runtime.NumCPU())
		if err != nil {
			return nil, err
		}
		cpus = append(cpus, n)
	}
	var mem []int64
	for _, s := range f.memory {
		n, err := units.ParseSize(s)
		if err != nil {
			return nil, fmt.Errorf("--memory %w", err)
		}
		mem = append(mem, n)
	}
	return fit.Enumerate(cpus, mem, f.io, f.versions), nil
}

// criteria reads the target (a number or from:RUN), headroom, step and
// confidence.
func (f *fitFlags) criteria(cmd *cobra.Command) (fit.Criteria, error) {
	cr := fit.Criteria{MaxP90Ms: f.maxP90, Runs: f.runs}
	if err := fit.CheckRuns(f.runs); err != nil {
		return cr, badInput(fmt.Errorf("--runs %d: %w", f.runs, err))
	}
	var err error
	if cr.Mean, err = scenario.ParseConfidence(f.confidence); err != nil {
		return cr, badInput(err)
	}
	if cr.AtUsers, err = scenario.ParseAt(f.at); err != nil {
		return cr, badInput(err)
	}
	head, err := scenario.ParseHeadroom(f.headroom)
	if err != nil {
		return cr, badInput(err)
	}
	if wl, err := f.rf.workload.workload(cmd.Name()); err != nil {
		return cr, badInput(err)
	} else if wl != nil {
		return f.workloadCriteria(cr, head, wl.FigureScript)
	}
	if f.targetTPS != 0 {
		return cr, badInput(errors.New("--target-tps is a pgbench workload's target: add --workload tpcb or --workload FILE, or give TPC-C's --target-nopm"))
	}
	if f.target == "" {
		return cr, badInput(errors.New("--target-nopm is required: a number, or from:RUN (a stored run id or label)"))
	}
	base, from, err := scenario.ParseTargetNOPM(f.target)
	if err != nil {
		return cr, badInput(err)
	}
	if from != "" {
		if base, err = targetFromRun(cmd, from, cr.AtUsers); err != nil {
			return cr, err
		}
	}
	cr.TargetNOPM = fit.Target(base, head)
	return cr, nil
}

// workloadCriteria is criteria for a pgbench workload: --target-tps on
// its figure of merit (figure: --figure's script, "" every script's),
// judged per minute and predicted by the capacity model (from --from, a
// stored run of the same workload and figure, and the candidates
// measured); no versions.
func (f *fitFlags) workloadCriteria(cr fit.Criteria, head float64, figure string) (fit.Criteria, error) {
	switch {
	case f.target != "":
		return cr, badInput(errors.New("--target-nopm is TPC-C's: a pgbench workload's target is --target-tps N"))
	case f.targetTPS <= 0:
		return cr, badInput(fmt.Errorf("--target-tps must be a positive number of transactions per second with --workload (got %g)", f.targetTPS))
	case len(f.versions) > 0:
		return cr, badInput(errors.New("--version builds TPC-C's database per version; drop --version with --workload"))
	}
	cr.Merit = &store.Merit{Txn: figure, PerMinute: "TPM"}
	cr.TargetNOPM = fit.Target(f.targetTPS*60, head)
	return cr, nil
}

// targetFromRun reads a stored run's NOPM (peak or at a users step).
func targetFromRun(cmd *cobra.Command, key string, at int) (float64, error) {
	st, id, err := openRun(cmd, key)
	if err != nil {
		return 0, err
	}
	defer st.Close()
	_, steps, err := st.LoadRun(cmd.Context(), id)
	if err != nil {
		return 0, err
	}
	n, err := fit.TargetFrom(analysis.Aggregate(steps), at)
	if err != nil {
		return 0, badInput(fmt.Errorf("--target-nopm from:%s: %w", key, err))
	}
	return n, nil
}

func printFitPlan(w io.Writer, priced []fit.Priced, cr fit.Criteria, currency string, baseline *cost.Breakdown) {
	at := "the peak step"
	if cr.AtUsers > 0 {
		at = fmt.Sprintf("%d users", cr.AtUsers)
	}
	how := "every repeat's 95 % interval above it"
	if cr.Mean {
		how = "the 95 % interval of the mean of the repeats above it"
	}
	if cr.Merit != nil {
		fmt.Fprintf(w, "target: TPS %g (TPM %.0f) at %s (%s)", cr.TargetNOPM/60, cr.TargetNOPM, at, how)
	} else {
		fmt.Fprintf(w, "target: NOPM %.0f at %s (%s)", cr.TargetNOPM, at, how)
	}
	if cr.MaxP90Ms > 0 {
		fmt.Fprintf(w, ", %s at most %g ms", cr.P90Name(), cr.MaxP90Ms)
	}
	fmt.Fprintf(w, "\n%d candidates, in the order fit tries them (cheapest first; a candidate dominated by one that missed is skipped):\n", len(priced))
	t := &alignedRows{}
	for i, p := range priced {
		v := currency + " " + p.Cost.Total.Cents()
		if baseline != nil {
			if s, pct := cost.Savings(baseline.Total, p.Cost.Total); pct != nil {
				v += fmt.Sprintf("  saves %s (%.1f %%) vs %s", s.Cents(), *pct, baseline.Name)
			}
		}
		t.add(fmt.Sprintf("  %2d. %s", i+1, p.Candidate), v)
	}
	t.write(w)
}

// reportFit loads a stored fit for the report (nil without --fit).
func reportFit(cmd *cobra.Command, st *store.Store, key string) (*report.Fit, error) {
	if key == "" {
		return nil, nil
	}
	fr, err := scenario.LoadFit(cmd.Context(), st, key)
	if errors.Is(err, store.ErrNotFound) {
		return nil, badInput(fmt.Errorf("--fit %s: %w", key, err))
	}
	if err != nil {
		return nil, err
	}
	return reportFitOf(fr), nil
}

// reportFitOf turns a stored fit into the report's shape.
func reportFitOf(fr *scenario.FitResult) *report.Fit {
	r := fr.Result
	out := &report.Fit{ID: fr.ID, Label: fr.Label, Status: fr.Status, Currency: fr.Currency, RunLabel: scenario.RunLabel(scenario.FitKind, fr.ID, fr.Label),
		Answer: r.Answer(fr.Currency, nil), TargetNOPM: r.Criteria.TargetNOPM, MaxP90Ms: r.Criteria.MaxP90Ms, Best: r.Best,
		Predicted: r.Predicted, MeasureAll: r.MeasureAll, Trials: r.Trials, Merit: r.Criteria.Merit}
	for _, p := range r.Indistinct {
		out.Indistinct = append(out.Indistinct, r.PairText(p))
	}
	return out
}

// fitRuns are the runs a fit measured.
func fitRuns(f *report.Fit) []string {
	var ids []string
	for _, t := range f.Trials {
		if t.RunID != "" {
			ids = append(ids, t.RunID)
		}
	}
	return ids
}
