package analysis

import (
	"context"
	"errors"

	"github.com/rightsize/rightsize/store"
)

// Headline is a run's headline figures over its aggregated steps: the
// peak (the step with the highest mean across repeats) and the average
// over all steps (each users count once, its repeats averaged), as the
// published studies compare them.
type Headline struct {
	PeakTPM       float64 `json:"peak_tpm"`
	PeakTPMUsers  int     `json:"peak_tpm_users"`
	PeakNOPM      float64 `json:"peak_nopm"`
	PeakNOPMUsers int     `json:"peak_nopm_users"`
	AvgTPM        float64 `json:"avg_tpm"`
	AvgNOPM       float64 `json:"avg_nopm"`
	// Steps is the number of distinct users counts averaged.
	Steps int `json:"steps"`
	// PeakDriverCPUPct is the highest driver CPU of a step (its mean
	// across repeats), in % of one core; PeakDriverCPUUsers and
	// PeakDriverCPUUsPerTxn are that step's users and driver CPU per
	// transaction (µs). All 0 when the driver CPU was not measured.
	PeakDriverCPUPct      float64 `json:"peak_driver_cpu_pct"`
	PeakDriverCPUUsers    int     `json:"peak_driver_cpu_users"`
	PeakDriverCPUUsPerTxn float64 `json:"peak_driver_cpu_us_per_txn"`
}

// RunFigures computes Figures from Aggregate's result.
func RunFigures(aggs []StepAggregate) Headline {
	var f Headline
	seen := map[int]bool{}
	for _, a := range aggs {
		if a.TPM.Mean > f.PeakTPM || f.Steps == 0 {
			f.PeakTPM, f.PeakTPMUsers = a.TPM.Mean, a.Users
		}
		if a.NOPM.Mean > f.PeakNOPM || f.Steps == 0 {
			f.PeakNOPM, f.PeakNOPMUsers = a.NOPM.Mean, a.Users
		}
		if a.DriverCPUPct > f.PeakDriverCPUPct {
			f.PeakDriverCPUPct, f.PeakDriverCPUUsers, f.PeakDriverCPUUsPerTxn = a.DriverCPUPct, a.Users, a.DriverCPUUsPerTxn
		}
		if seen[a.Users] {
			continue
		}
		seen[a.Users] = true
		f.AvgTPM += a.TPM.Mean
		f.AvgNOPM += a.NOPM.Mean
		f.Steps++
	}
	if f.Steps > 0 {
		f.AvgTPM /= float64(f.Steps)
		f.AvgNOPM /= float64(f.Steps)
	}
	return f
}

// RunSummary is a run with a digest of its steps, for listings.
type RunSummary struct {
	store.Run
	// Steps is the number of steps stored.
	Steps int `json:"steps"`
	// Figures are the run's headline figures (RunFigures of Aggregate),
	// the same peak TPM and NOPM the summary and the report show.
	Figures Headline `json:"figures"`
}

// ListRunSummaries lists the runs (newest first) with a digest of each
// run's steps, its figures computed by Aggregate and RunFigures from the
// steps' throughput (store.ListRunSteps).
func ListRunSummaries(ctx context.Context, st *store.Store) ([]RunSummary, error) {
	runs, err := st.ListRunSteps(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]RunSummary, 0, len(runs))
	for _, r := range runs {
		out = append(out, RunSummary{Run: r.Run, Steps: len(r.Steps), Figures: RunFigures(Aggregate(r.Steps))})
	}
	return out, nil
}

// WorkerSummary is one worker of a multi-worker run with the headline
// figures of its own steps (its driver CPU shows it was not the bottleneck).
type WorkerSummary struct {
	store.Worker
	Steps   int      `json:"steps"`
	Figures Headline `json:"figures"`
}

// WorkerSummaries returns the workers of a run with their figures (none
// for a single-process run).
func WorkerSummaries(ctx context.Context, st *store.Store, runID string) ([]WorkerSummary, error) {
	workers, err := st.Workers(ctx, runID)
	if err != nil {
		return nil, err
	}
	out := make([]WorkerSummary, 0, len(workers))
	for _, w := range workers {
		ws := WorkerSummary{Worker: w}
		if w.WorkerRunID != "" {
			_, steps, err := st.LoadRun(ctx, w.WorkerRunID)
			if err != nil && !errors.Is(err, store.ErrNotFound) {
				return nil, err
			}
			ws.Steps, ws.Figures = len(steps), RunFigures(Aggregate(steps))
		}
		out = append(out, ws)
	}
	return out, nil
}
