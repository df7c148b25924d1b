package scenario

import (
	"context"
	"fmt"
	"time"

	"github.com/rightsize/rightsize/analysis"
	"github.com/rightsize/rightsize/capacity"
	"github.com/rightsize/rightsize/drift"
	"github.com/rightsize/rightsize/steady"
	"github.com/rightsize/rightsize/store"
	"github.com/rightsize/rightsize/tpcc"
)

// SweepPrediction is what the capacity model expected of a sweep value
// before it was measured: predicted from the first value measured (the
// most resources), reads against the cache from every value measured
// before it. Its NOPM is the sweep's figure of merit (TPC-C's NOPM, or a
// pgbench workload's figure per minute: Prediction.Figure names it).
type SweepPrediction struct {
	capacity.Prediction
	// ErrorPct is (predicted − measured) / measured figure, %.
	ErrorPct float64 `json:"error_pct"`
	// InBand tells the measured figure lies within the predicted band.
	InBand bool `json:"in_band"`
}

// Predict sets each measured point's prediction (sweep --predict, the
// report's sweep section). Points are in measuring order, most resources
// first; the first measured point is the model's base and is not
// predicted. A point the model cannot learn from or predict keeps none,
// and PredictNote says why.
func (r *SweepResult) Predict(ctx context.Context, st *store.Store) error {
	if r.Kind != "cpus" && r.Kind != "memory" && r.Kind != "io" {
		for i := range r.Points {
			r.Points[i].PredictNote = "not predicted: the model predicts cores, memory and I/O limits, not a " + r.Kind + " sweep"
		}
		return nil
	}
	if r.Rate > 0 {
		for i := range r.Points {
			r.Points[i].PredictNote = "not predicted: the runs were paced (--rate), and the model predicts users that run back to back"
		}
		return nil
	}
	var base *capacity.Demands
	var curve []capacity.CachePoint
	for i := range r.Points {
		p := &r.Points[i]
		if !p.Decides() {
			switch {
			case p.RunID != "" && p.Status == store.StatusComplete:
				p.PredictNote = "not compared: the value's run measured no throughput in its window (0 per minute), against which an error has no meaning"
			case p.Status != "":
				p.PredictNote = "not compared: the value's run is " + p.Status
			}
			continue
		}
		d, run, err := pointDemands(ctx, st, p.RunID)
		if err != nil {
			p.PredictNote = err.Error()
			continue
		}
		if base == nil {
			if d.Drift, err = BaseDrift(ctx, st, run); err != nil {
				return err
			}
			if d.CoreGrowth, err = BaseGrowth(ctx, st, run); err != nil {
				return err
			}
			base = &d
			p.PredictNote = "the model's base: the other values are predicted from it"
		} else if m, err := capacity.New(*base, capacity.NewReadCurve(curve...)); err != nil {
			p.PredictNote = err.Error()
		} else {
			pr := m.Predict(d.Config)
			p.Predicted = &SweepPrediction{Prediction: pr, ErrorPct: (pr.NOPM - p.NOPM) / p.NOPM * 100,
				InBand: pr.NOPMLow <= p.NOPM && p.NOPM <= pr.NOPMHigh}
		}
		curve = append(curve, capacity.PointOf(d))
	}
	return nil
}

// pointDemands are the demands of a stored run's peak step (its first
// complete repeat), under the caps the run asked, and the run.
func pointDemands(ctx context.Context, st *store.Store, runID string) (capacity.Demands, *store.Run, error) {
	run, steps, err := st.LoadRun(ctx, runID)
	if err != nil {
		return capacity.Demands{}, nil, fmt.Errorf("load run %s: %w", runID, err)
	}
	cfg, err := configOfRun(run)
	if err != nil {
		return capacity.Demands{}, nil, err
	}
	var think time.Duration
	if run.KeyingThinking {
		think = tpcc.MeanKeyingThinking()
	}
	s, ok := peakStep(steps)
	if !ok {
		return capacity.Demands{}, nil, fmt.Errorf("run %s: no complete step", runID)
	}
	d, err := capacity.FromStepOf(s, cfg, think, RunMerit(run))
	return d, run, err
}

// BaseDrift is the drift between runs of base run's configuration, of
// its figure of merit (drift.Figures.Of), from the store's A/A history
// as it stood when the base was measured: the runs of its recorded
// configuration on its host started up to the base, itself included
// (drift.MeasureBefore); the zero Drift where they are too few.
func BaseDrift(ctx context.Context, st *store.Store, run *store.Run) (steady.Drift, error) {
	d, err := drift.MeasureBefore(ctx, st, *run, run.StartedAt.Add(time.Nanosecond))
	return d.Of(*run), err
}

// peakStep is the first complete repeat of the step with the highest mean
// NOPM (the step a sweep point's figures come from).
func peakStep(steps []store.Step) (store.Step, bool) {
	best := -1
	aggs := analysis.Aggregate(steps)
	for i, a := range aggs {
		if best < 0 || a.NOPM.Mean > aggs[best].NOPM.Mean {
			best = i
		}
	}
	for _, s := range steps {
		if best >= 0 && s.Index == aggs[best].Index && !s.Partial {
			return s, true
		}
	}
	return store.Step{}, false
}

// StepDemands are the capacity model's demands of each complete step of
// a stored run (results show); a step they cannot be derived from (no
// server CPU: a remote server, an import) is left out.
func StepDemands(run *store.Run, steps []store.Step) []StepDemand {
	cfg, err := configOfRun(run)
	if err != nil {
		return nil
	}
	var think time.Duration
	if run.KeyingThinking {
		think = tpcc.MeanKeyingThinking()
	}
	var out []StepDemand
	for _, s := range steps {
		if d, err := capacity.FromStepOf(s, cfg, think, RunMerit(run)); err == nil {
			out = append(out, StepDemand{Repeat: s.Repeat, Users: s.Users, Demands: d})
		}
	}
	return out
}

// StepDemand is one step's demands.
type StepDemand struct {
	Repeat int `json:"repeat"`
	Users  int `json:"users"`
	capacity.Demands
}
