// Package history follows one headline figure of the runs whose label
// starts with a prefix, oldest first, and finds where it changed
// (package changepoint): what a nightly job reads to see a slow drift that
// a gate between two runs misses.
package history

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/rightsize/rightsize/analysis"
	"github.com/rightsize/rightsize/changepoint"
	"github.com/rightsize/rightsize/store"
)

// Figure is a headline figure (analysis.Headline) a history can follow.
type Figure struct {
	// Name is the figure's --figure name; Title names it in sentences.
	Name, Title string
	// Of reads the figure.
	Of func(analysis.Headline) float64
}

// Figures is the registry of figures, the first the default.
var Figures = []Figure{
	{"tpm", "peak TPM", func(f analysis.Headline) float64 { return f.PeakTPM }},
	{"nopm", "peak NOPM", func(f analysis.Headline) float64 { return f.PeakNOPM }},
	{"avg-tpm", "average TPM over all steps", func(f analysis.Headline) float64 { return f.AvgTPM }},
	{"avg-nopm", "average NOPM over all steps", func(f analysis.Headline) float64 { return f.AvgNOPM }},
	{"driver-us", "driver µs per transaction at the peak driver CPU", func(f analysis.Headline) float64 { return f.PeakDriverCPUUsPerTxn }},
}

// FigureNamed returns the figure called name; the error names them all.
func FigureNamed(name string) (Figure, error) {
	var names []string
	for _, f := range Figures {
		if f.Name == name {
			return f, nil
		}
		names = append(names, f.Name)
	}
	return Figure{}, fmt.Errorf("unknown figure %q: use one of %s", name, strings.Join(names, ", "))
}

// Point is one run of a history.
type Point struct {
	RunID   string    `json:"run_id"`
	Label   string    `json:"label"`
	Started time.Time `json:"started_at"`
	Status  string    `json:"status"`
	Value   float64   `json:"value"`
}

// Change is a change point: the run at Index (of Points) is the first of
// a new segment. Before and After are the means of the segments it
// separates, ChangePct the relative change of After from Before.
type Change struct {
	Index     int       `json:"index"`
	RunID     string    `json:"run_id"`
	Started   time.Time `json:"started_at"`
	Before    float64   `json:"before"`
	After     float64   `json:"after"`
	ChangePct float64   `json:"change_pct"`
	PValue    float64   `json:"p_value"`
}

// History is a figure over runs with its change points (by Index).
type History struct {
	Prefix      string   `json:"label_prefix"`
	Figure      string   `json:"figure"`
	FigureTitle string   `json:"figure_title"`
	Points      []Point  `json:"runs"`
	Changes     []Change `json:"change_points"`
	// PValue and Permutations are the significance test's.
	PValue       float64 `json:"p_value"`
	Permutations int     `json:"permutations"`
	// Skipped counts the runs with the prefix that have no value of the
	// figure (still running, or no step measured).
	Skipped int `json:"skipped"`
}

// Load builds the history of figure f over the runs of st whose label
// starts with prefix.
func Load(ctx context.Context, st *store.Store, prefix string, f Figure, o changepoint.Options) (*History, error) {
	runs, err := analysis.ListRunSummaries(ctx, st)
	if err != nil {
		return nil, fmt.Errorf("history of %q: %w", prefix, err)
	}
	return Build(runs, prefix, f, o), nil
}

// Build is Load's work on runs already listed: the runs with the prefix
// and a value of the figure, oldest first, and their change points.
func Build(runs []analysis.RunSummary, prefix string, f Figure, o changepoint.Options) *History {
	o = o.Defaults()
	h := &History{Prefix: prefix, Figure: f.Name, FigureTitle: f.Title, PValue: o.PValue, Permutations: o.Permutations,
		Points: []Point{}, Changes: []Change{}}
	for _, r := range runs {
		if !strings.HasPrefix(r.Label, prefix) {
			continue
		}
		v := f.Of(r.Figures)
		if r.Status == store.StatusRunning || r.Figures.Steps == 0 || v <= 0 {
			h.Skipped++
			continue
		}
		h.Points = append(h.Points, Point{RunID: r.ID, Label: r.Label, Started: r.StartedAt, Status: r.Status, Value: v})
	}
	slices.SortStableFunc(h.Points, func(a, b Point) int { return a.Started.Compare(b.Started) })
	values := make([]float64, len(h.Points))
	for i, p := range h.Points {
		values[i] = p.Value
	}
	cps := changepoint.EDivisive(values, o)
	slices.SortFunc(cps, func(a, b changepoint.ChangePoint) int { return a.Index - b.Index })
	for i, cp := range cps {
		from, to := 0, len(values)
		if i > 0 {
			from = cps[i-1].Index
		}
		if i+1 < len(cps) {
			to = cps[i+1].Index
		}
		before, after := mean(values[from:cp.Index]), mean(values[cp.Index:to])
		p := h.Points[cp.Index]
		h.Changes = append(h.Changes, Change{Index: cp.Index, RunID: p.RunID, Started: p.Started, Before: before, After: after,
			ChangePct: 100 * (after - before) / before, PValue: cp.PValue})
	}
	return h
}

// Segment returns the index of the segment (between change points) the
// point at i lies in, and that segment's mean.
func (h *History) Segment(i int) (int, float64) {
	seg, from, to := 0, 0, len(h.Points)
	for _, c := range h.Changes {
		if c.Index <= i {
			seg, from = seg+1, c.Index
		} else {
			to = c.Index
			break
		}
	}
	vs := make([]float64, 0, to-from)
	for _, p := range h.Points[from:to] {
		vs = append(vs, p.Value)
	}
	return seg, mean(vs)
}

// PText shows a permutation p-value: "p 0.030", or "p < 0.010" when no
// permutation reached the statistic (the test cannot say less than
// 1/(permutations+1)).
func (h *History) PText(p float64) string {
	if p == 0 {
		return fmt.Sprintf("p < %.3f", 1/float64(h.Permutations+1))
	}
	return fmt.Sprintf("p %.3f", p)
}

func mean(x []float64) float64 {
	var s float64
	for _, v := range x {
		s += v
	}
	return s / float64(len(x))
}
