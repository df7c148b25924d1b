package cost

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/shopspring/decimal"

	"github.com/rightsize/rightsize/analysis"
	"github.com/rightsize/rightsize/internal/yamlfile"
	"github.com/rightsize/rightsize/steady"
	"github.com/rightsize/rightsize/store"
)

// Runs is where linked runs are read from; *store.Store implements it.
type Runs interface {
	Resolve(ctx context.Context, idOrLabel string) (string, error)
	LoadRun(ctx context.Context, id string) (*store.Run, []store.Step, error)
}

var _ Runs = (*store.Store)(nil)

// Perf is a linked run's performance.
type Perf struct {
	RunID string `json:"run_id"`
	Label string `json:"label,omitempty"`
	analysis.Headline
	// AvgTPMCI and AvgNOPMCI are the confidence intervals of AvgTPM and
	// AvgNOPM (half-width 0 when a step has none).
	AvgTPMCI  steady.Interval `json:"avg_tpm_ci"`
	AvgNOPMCI steady.Interval `json:"avg_nopm_ci"`
	// Drift is the drift between runs that widened those intervals (a
	// step measured once); nil when every step was repeated.
	Drift *steady.Drift `json:"drift,omitempty"`
	// Figure names the figure of merit a pgbench workload's run holds in
	// its NOPM figures ("TPM of every script", "TPM of SCRIPT"); "" for
	// TPC-C (NOPM).
	Figure string `json:"figure,omitempty"`
}

// FigureOf names run's figure of merit as Perf.Figure does ("" for TPC-C).
func FigureOf(run *store.Run) string {
	if m, ok := run.WorkloadMerit(); ok {
		return m.Name()
	}
	return ""
}

// Figure is the name of the linked runs' figure of merit: NOPM for
// TPC-C, or their pgbench workload's ("TPM of every script") when every
// linked run has the same one.
func (r *Result) Figure() string {
	name := ""
	for i, c := range r.Configs {
		if c.Run == nil {
			continue
		}
		if i > 0 && name != "" && c.Run.Figure != name {
			return "NOPM"
		}
		name = c.Run.Figure
	}
	if name == "" {
		return "NOPM"
	}
	return name
}

// Result is a cost file evaluated: every config priced, compared with the
// baseline, and, with linked runs, its price/performance.
type Result struct {
	File     string `json:"file"`
	Currency string `json:"currency"`
	Baseline string `json:"baseline,omitempty"`
	Years    int    `json:"years"`
	// Configs are in file order.
	Configs []ConfigResult `json:"configs"`
}

// ConfigResult is one config's cost, savings and price/performance.
type ConfigResult struct {
	Breakdown
	// Savings is baseline total − this total (nil without a baseline);
	// SavingsPct is Savings / baseline total × 100.
	Savings    *Money   `json:"savings,omitempty"`
	SavingsPct *float64 `json:"savings_pct,omitempty"`
	// Run is the linked run's performance (nil when none is linked).
	Run *Perf `json:"run,omitempty"`
	// PerNOPM and PerTPM are Total / peak NOPM and Total / peak TPM, as
	// TPC price/performance divides by the reported (peak) throughput.
	PerNOPM *Money `json:"price_per_nopm,omitempty"`
	PerTPM  *Money `json:"price_per_tpm,omitempty"`
	// NOPMPerCore is peak NOPM / LicensedCores.
	NOPMPerCore *float64 `json:"nopm_per_licensed_core,omitempty"`
	// AvgTPMRatio and AvgNOPMRatio are this run's average over all steps
	// divided by the baseline run's (nil unless both have a run).
	AvgTPMRatio  *float64 `json:"avg_tpm_vs_baseline,omitempty"`
	AvgNOPMRatio *float64 `json:"avg_nopm_vs_baseline,omitempty"`
	// Indistinct is set when this run's and the baseline run's intervals
	// of the average TPM overlap: neither beats the other at this
	// precision. AvgTPMCI and BaselineAvgTPMCI are those intervals.
	Indistinct       bool             `json:"not_distinguishable,omitempty"`
	BaselineAvgTPMCI *steady.Interval `json:"baseline_avg_tpm_ci,omitempty"`
	// baseRun is the baseline's run compared with (compare), for the
	// headline's note of the drift.
	baseRun *Perf
}

// Headline is the sentence the studies end with: "new beats old: 1.23×
// its average TPM over all steps (1.25× NOPM), for 39.2 % less" ("" without
// a baseline run to compare with); when the two runs' intervals of the
// average TPM overlap, "new against old: not distinguishable at this
// precision (average TPM over all steps 10,200 ± 300 against 10,000 ± 250,
// 1.02×; 1.01× NOPM), for 39.2 % less".
func (cr *ConfigResult) Headline(baseline string) string {
	if cr.AvgTPMRatio == nil || cr.SavingsPct == nil || cr.Name == baseline {
		return ""
	}
	price := fmt.Sprintf("for %.1f %% less", *cr.SavingsPct)
	if *cr.SavingsPct < 0 {
		price = fmt.Sprintf("for %.1f %% more", -*cr.SavingsPct)
	}
	price += driftSaid(cr.Run, cr.baseRun)
	tpm, nopm := fmtRatio(*cr.AvgTPMRatio), fmtRatio(*cr.AvgNOPMRatio)
	if cr.Run != nil && cr.Run.Figure != "" { // a pgbench workload: its figure of merit named
		fig := cr.Run.Figure
		return cr.workloadHeadline(baseline, fig, tpm, nopm, price)
	}
	if cr.Indistinct {
		return fmt.Sprintf("%s against %s: %s (average TPM over all steps %s against %s, %s; %s NOPM), %s", cr.Name, baseline,
			steady.Indistinguishable, withHalf(cr.Run.AvgTPMCI), withHalf(*cr.BaselineAvgTPMCI), tpm, nopm, price)
	}
	if *cr.AvgTPMRatio >= 1 {
		return fmt.Sprintf("%s beats %s: %s its average TPM over all steps (%s NOPM), %s", cr.Name, baseline, tpm, nopm, price)
	}
	return fmt.Sprintf("%s reaches %s %s's average TPM over all steps (%s NOPM), %s", cr.Name, tpm, baseline, nopm, price)
}

// workloadHeadline is Headline for runs of a pgbench workload whose
// figure of merit is fig: "TPM of every script" is their TPM, said once;
// a script's is said beside the TPM.
func (cr *ConfigResult) workloadHeadline(baseline, fig, tpm, nopm, price string) string {
	avg, also := "average TPM over all steps", " ("+nopm+" "+fig+")"
	if fig == store.FigureEveryScript {
		avg, also = "average TPM of every script over all steps", ""
	}
	if cr.Indistinct {
		also = strings.Replace(also, " (", "; ", 1)
		also = strings.TrimSuffix(also, ")")
		return fmt.Sprintf("%s against %s: %s (%s %s against %s, %s%s), %s", cr.Name, baseline,
			steady.Indistinguishable, avg, withHalf(cr.Run.AvgTPMCI), withHalf(*cr.BaselineAvgTPMCI), tpm, also, price)
	}
	if also == "" {
		also = " (the workload's figure of merit)"
	}
	if *cr.AvgTPMRatio >= 1 {
		return fmt.Sprintf("%s beats %s: %s its %s%s, %s", cr.Name, baseline, tpm, avg, also, price)
	}
	return fmt.Sprintf("%s reaches %s %s's %s%s, %s", cr.Name, tpm, baseline, avg, also, price)
}

func fmtRatio(x float64) string { return strconv.FormatFloat(x, 'f', 2, 64) + "×" }

// Evaluate prices every config, computes savings against the baseline and
// reads linked runs from runs (nil: no run is read, and a config with a
// run is an error). An unknown run is a *yamlfile.Error at its line.
func Evaluate(ctx context.Context, f *File, runs Runs) (*Result, error) {
	res := &Result{File: f.Path, Currency: f.Currency, Baseline: f.Baseline, Years: f.Years}
	var base *Breakdown
	for i := range f.Configs {
		cf := &f.Configs[i]
		cr := ConfigResult{Breakdown: cf.Price(f.Years)}
		if cf.Run != "" {
			p, err := loadPerf(ctx, f, i, runs)
			if err != nil {
				return nil, err
			}
			cr.Run = p
			cr.pricePerformance()
		}
		res.Configs = append(res.Configs, cr)
		if cf.Name == f.Baseline {
			base = &res.Configs[i].Breakdown
		}
	}
	if base != nil {
		var baseRun *Perf
		for i := range res.Configs {
			if res.Configs[i].Name == f.Baseline {
				baseRun = res.Configs[i].Run
			}
		}
		for i := range res.Configs {
			res.Configs[i].savings(base.Total.Decimal)
			res.Configs[i].compare(baseRun)
		}
	}
	return res, nil
}

func loadPerf(ctx context.Context, f *File, i int, runs Runs) (*Perf, error) {
	cf := &f.Configs[i]
	bad := func(format string, args ...any) error {
		p := cf.at.Of("run")
		return &yamlfile.Error{File: f.Path, Line: p.Line, Column: p.Column, Field: fmt.Sprintf("configs[%d].run", i), Msg: fmt.Sprintf(format, args...)}
	}
	if runs == nil {
		return nil, bad("no results store to read run %q from", cf.Run)
	}
	id, err := runs.Resolve(ctx, cf.Run)
	if errors.Is(err, store.ErrNotFound) {
		return nil, bad("no run or label %q in the results store (see: rightsize results list)", cf.Run)
	}
	if err != nil {
		return nil, fmt.Errorf("config %s: resolve run %q: %w", cf.Name, cf.Run, err)
	}
	r, steps, err := runs.LoadRun(ctx, id)
	if err != nil {
		return nil, fmt.Errorf("config %s: load run %s: %w", cf.Name, id, err)
	}
	if len(steps) == 0 {
		return nil, bad("run %q (%s) has no measured step", cf.Run, id)
	}
	p := &Perf{RunID: id, Label: r.Label, Headline: analysis.RunFigures(analysis.Aggregate(steps)), Figure: FigureOf(r)}
	p.AvgTPMCI, p.AvgNOPMCI = averageIntervals(steps)
	d, err := measuredDrift(ctx, runs, *r)
	if err != nil {
		return nil, fmt.Errorf("config %s: %w", cf.Name, err)
	}
	p.AvgTPMCI, p.AvgNOPMCI, p.Drift = widenAverages(steps, p.AvgTPMCI, p.AvgNOPMCI, d)
	return p, nil
}

func (cr *ConfigResult) pricePerformance() {
	per := func(x float64) *Money {
		if x <= 0 {
			return nil
		}
		return &Money{cr.Total.Div(decimal.NewFromFloat(x))}
	}
	cr.PerNOPM = per(cr.Run.PeakNOPM)
	cr.PerTPM = per(cr.Run.PeakTPM)
	if cr.LicensedCores > 0 {
		v := cr.Run.PeakNOPM / float64(cr.LicensedCores)
		cr.NOPMPerCore = &v
	}
}

// compare sets the average-over-all-steps ratios against the baseline run.
func (cr *ConfigResult) compare(base *Perf) {
	if base == nil || cr.Run == nil || base.AvgTPM <= 0 || base.AvgNOPM <= 0 {
		return
	}
	cr.baseRun = base
	t, n := cr.Run.AvgTPM/base.AvgTPM, cr.Run.AvgNOPM/base.AvgNOPM
	cr.AvgTPMRatio, cr.AvgNOPMRatio = &t, &n
	a, b := cr.Run.AvgTPMCI, base.AvgTPMCI
	if a.Half > 0 && b.Half > 0 && steady.Compare(a, b) == steady.Indistinguishable {
		cr.Indistinct, cr.BaselineAvgTPMCI = true, &b
	}
}

func (cr *ConfigResult) savings(base decimal.Decimal) {
	s, pct := Savings(Money{base}, cr.Total)
	cr.Savings, cr.SavingsPct = &s, pct
}

// Savings is base − total and its share of base in percent (nil when base
// is not positive).
func Savings(base, total Money) (Money, *float64) {
	s := Money{base.Sub(total.Decimal)}
	if !base.IsPositive() {
		return s, nil
	}
	v, _ := s.Div(base.Decimal).Mul(hundred).Float64()
	return s, &v
}
