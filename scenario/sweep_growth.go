package scenario

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/rightsize/rightsize/capacity"
	"github.com/rightsize/rightsize/store"
)

// MaxGrowthGroups bounds the history BaseGrowth reads: the latest sweeps
// and fits that measured more than one whole-core count.
const MaxGrowthGroups = 30

// BaseGrowth are the changes of the server's CPU per transaction with its
// whole cores that base run's host measured before it: in each earlier
// sweep or fit of the same workload, mode and engine on the host (any
// warehouses, users or settings), every two complete runs alike but for
// their cores (one core or more each), the ratio of their peak steps'
// server CPU per transaction. The runs of base's own sweep or fit are not
// history. capacity.Demands.CoreGrowth takes them.
func BaseGrowth(ctx context.Context, st *store.Store, base *store.Run) ([]capacity.CoreRatio, error) {
	return GrowthBefore(ctx, st, base, base.StartedAt)
}

// GrowthBefore is BaseGrowth from the runs started before since (a fit's
// start: the history as it stood then, as drift.MeasureBefore reads it).
func GrowthBefore(ctx context.Context, st *store.Store, base *store.Run, since time.Time) ([]capacity.CoreRatio, error) {
	runs, err := st.ListRuns(ctx)
	if err != nil {
		return nil, fmt.Errorf("list runs for the host's growth with cores: %w", err)
	}
	key, own := growthKey(*base), groupOf(*base)
	var order []string
	groups := map[string][]store.Run{}
	for _, r := range runs { // newest first
		g := groupOf(r)
		if g == "" || g == own || r.Status != store.StatusComplete || !r.StartedAt.Before(since) || growthKey(r) != key {
			continue
		}
		if _, ok := groups[g]; !ok {
			order = append(order, g)
		}
		groups[g] = append(groups[g], r)
	}
	var out []capacity.CoreRatio
	n := 0
	for _, g := range order {
		if n == MaxGrowthGroups {
			break
		}
		rs, err := groupRatios(ctx, st, g, groups[g])
		if err != nil {
			return nil, err
		}
		if len(rs) > 0 {
			n++
			out = append(out, rs...)
		}
	}
	return out, nil
}

// groupRatios are the ratios of one sweep's or fit's runs (see BaseGrowth).
func groupRatios(ctx context.Context, st *store.Store, group string, runs []store.Run) ([]capacity.CoreRatio, error) {
	type point struct {
		like  capacity.Config // the configuration but for its cores
		cores float64
		cpu   float64
	}
	var pts []point
	cores := map[float64]bool{}
	for i := range runs {
		cfg, err := configOfRun(&runs[i])
		if c := cfg.Cores(); err == nil && c >= 1 {
			cores[c] = true
		}
	}
	if len(cores) < 2 {
		return nil, nil
	}
	for _, r := range runs {
		d, _, err := pointDemands(ctx, st, r.ID)
		if err != nil || d.CPUSec.Mean <= 0 {
			continue // a run without server CPU or a complete step teaches nothing
		}
		c := d.Config.Cores()
		if c < 1 {
			continue
		}
		like := d.Config
		like.CPUs, like.DriverShares = 0, false
		pts = append(pts, point{like: like, cores: c, cpu: d.CPUSec.Mean})
	}
	slices.SortFunc(pts, func(a, b point) int { return cmp.Compare(b.cores, a.cores) })
	var out []capacity.CoreRatio
	for i, a := range pts {
		for _, b := range pts[i+1:] {
			if a.like == b.like && b.cores < a.cores {
				out = append(out, capacity.CoreRatio{From: a.cores, To: b.cores, Ratio: b.cpu / a.cpu, Source: group})
			}
		}
	}
	return out, ctx.Err()
}

// groupOf names the sweep or fit run r was measured in ("" neither).
func groupOf(r store.Run) string {
	if id := r.Flags["sweep"]; id != "" {
		return "sweep " + id
	}
	if id := r.Flags["fit"]; id != "" {
		return "fit " + id
	}
	return ""
}

// growthKey is what runs whose ratios stand for r's share: the host, the
// engine and its version, the target, the mode, the workload and how its
// users key and think and isolate and the rate pacing them (not the
// warehouses, users, settings or caps).
func growthKey(r store.Run) string {
	parts := []string{r.Source, r.Target, r.Engine + " " + r.EngineVersion, r.Mode, strconv.FormatBool(r.KeyingThinking), r.Isolation}
	for _, k := range append([]string{"host.name", "host.cpu_model"}, store.WorkloadConfigKeys...) {
		parts = append(parts, k+"="+r.Env[k])
	}
	return strings.Join(parts, "\n")
}
