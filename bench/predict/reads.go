package main

import (
	"context"
	"fmt"
	"math"

	"github.com/rightsize/rightsize/capacity"
	"github.com/rightsize/rightsize/store"
)

// runReads opens the store and prints the reads of each memory sweep.
func runReads(ctx context.Context, loc string, labels []string) error {
	st, err := store.Open(ctx, loc)
	if err != nil {
		return err
	}
	defer st.Close()
	for _, l := range labels {
		if err := reads(ctx, st, l); err != nil {
			return err
		}
	}
	return nil
}

// reads prints, for a memory sweep (its first value the base), each
// point's device reads per transaction over the window and after the
// cache's warm-up (capacity.SteadyReads), the blocks read from outside
// shared_buffers, and the miss curve's reads from the base's (window and
// steady), with the error against the steady reads measured (issue 48
// item 3: the curve checked against reads at 3+ sizes).
func reads(ctx context.Context, st *store.Store, label string) error {
	pts, err := sweepPoints(ctx, st, label)
	if err != nil {
		return err
	}
	if len(pts) < 2 {
		return fmt.Errorf("memory sweep %s: %d points, want 2 or more", label, len(pts))
	}
	w := pts[0].d.Config.Warehouses
	curve := capacity.NewMissCurve(w)
	base := pts[0]
	baseSteady, _, _ := capacity.SteadyReads(base.steps[0])
	fmt.Printf("memory sweep %s, %d warehouses, base %s: reads per transaction\n", label, w, base.config)
	fmt.Printf("  %-8s %8s %8s %6s %8s %8s %8s %8s %8s\n", "memory", "window", "steady", "drop", "blocks", "curve", "err", "curve/s", "err/s")
	var errs []float64
	for i, p := range pts {
		s, drop, _ := capacity.SteadyReads(p.steps[0])
		mem := fmt.Sprintf("%dM", p.d.Config.CacheBytes>>20)
		if i == 0 {
			fmt.Printf("  %-8s %8.2f %8.2f %5ds %8.2f %8s\n", mem, p.d.ReadIOs.Mean, s, drop, p.d.BlocksRead, "(base)")
			continue
		}
		cw := curve.ReadsAt(base.d.Config.CacheBytes, p.d.Config.CacheBytes, base.d.ReadIOs.Mean)
		cs := curve.ReadsAt(base.d.Config.CacheBytes, p.d.Config.CacheBytes, baseSteady)
		e := (cs - s) / s * 100
		errs = append(errs, math.Abs(e))
		fmt.Printf("  %-8s %8.2f %8.2f %5ds %8.2f %8.2f %+7.0f%% %8.2f %+7.0f%%\n", mem, p.d.ReadIOs.Mean, s, drop, p.d.BlocksRead,
			cw, (cw-p.d.ReadIOs.Mean)/p.d.ReadIOs.Mean*100, cs, e)
	}
	fmt.Printf("  %s: steady reads from the steady base: error median %.0f %%, worst %.0f %%\n\n", label, median(errs), worst(errs))
	return nil
}
