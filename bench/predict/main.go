// Command predict evaluates the capacity model on stored sweeps (issue 33's
// benchmark, run by bench/predict.sh): it predicts every point of a cpus ×
// I/O grid from one of them, replays fit over the grid at three targets
// with and without predictions, and predicts a memory sweep from two of its
// points, printing predicted beside measured and the errors.
//
//	go run ./bench/predict -store S [-grid grid-none,grid-2000,grid-400] [-memory mem] [-rounds N] [-shapes stmt,bw,...] [-reads m4,m8]
//
// -reads prints, per memory sweep, the device reads per transaction over
// each step's window and after its warm-up (capacity.SteadyReads) beside
// the miss curve's from the first value.
//
// -shapes predicts each listed sweep from its first value alone (issue
// 48's shapes: statements mode, bandwidth limits, quota 0.25, memory from
// one point, 16 users, 2 and 8 warehouses) and prints per point the error
// and whether the band held; -grid "" skips the grid.
//
// With N rounds the grid's sweeps were measured N times, interleaved
// (round r > 1 of sweep L is labelled L.r): each round's points are
// predicted from that round's base (the machine's speed drifts between
// rounds), and the median prediction is compared with the median measured.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"runtime"
	"slices"
	"sort"
	"strings"

	"github.com/rightsize/rightsize/capacity"
	"github.com/rightsize/rightsize/caps"
	"github.com/rightsize/rightsize/cost"
	"github.com/rightsize/rightsize/fit"
	"github.com/rightsize/rightsize/scenario"
	"github.com/rightsize/rightsize/store"
)

func main() {
	loc := flag.String("store", "", "the results store the sweeps are in")
	grid := flag.String("grid", "grid-none,grid-2000,grid-400", "the cpus sweeps of the grid (labels), the base's first")
	mem := flag.String("memory", "mem", "the memory sweep (label; \"\" none)")
	rounds := flag.Int("rounds", 1, "rounds of the grid and the shapes: round r > 1 of sweep L is labelled L.r")
	shapeList := flag.String("shapes", "", "sweeps (labels) each predicted from its first value alone (issue 48's shapes); \"\" none")
	readList := flag.String("reads", "", "memory sweeps (labels) whose reads per transaction the miss curve predicts from the first value; \"\" none")
	sweepGlob := flag.String("sweep-files", "", "sweep --predict --json files, a round each, summarised as the shapes are (the cgroup v2 guest's bandwidth sweeps); \"\" none")
	costsFile := flag.String("write-costs", "", "write the cost file the grid's fits are priced with to this file and exit (bench/predict-tpcb.sh's real fit)")
	flag.Parse()
	if *costsFile != "" {
		if err := os.WriteFile(*costsFile, []byte(costs), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "predict:", err)
			os.Exit(1)
		}
		return
	}
	if *sweepGlob != "" {
		if err := sweepFiles(*sweepGlob); err != nil {
			fmt.Fprintln(os.Stderr, "predict:", err)
			os.Exit(1)
		}
	}
	if *readList != "" {
		if err := runReads(context.Background(), *loc, strings.Split(*readList, ",")); err != nil {
			fmt.Fprintln(os.Stderr, "predict:", err)
			os.Exit(1)
		}
	}
	if *shapeList != "" {
		if err := runShapes(context.Background(), *loc, strings.Split(*shapeList, ","), *rounds); err != nil {
			fmt.Fprintln(os.Stderr, "predict:", err)
			os.Exit(1)
		}
	}
	if *grid == "" {
		return
	}
	if err := run(context.Background(), *loc, strings.Split(*grid, ","), *mem, *rounds); err != nil {
		fmt.Fprintln(os.Stderr, "predict:", err)
		os.Exit(1)
	}
}

// runShapes opens the store and evaluates the shapes.
func runShapes(ctx context.Context, loc string, labels []string, rounds int) error {
	st, err := store.Open(ctx, loc)
	if err != nil {
		return err
	}
	defer st.Close()
	return shapes(ctx, st, labels, rounds)
}

// point is one measured configuration.
type point struct {
	cand   fit.Candidate
	d      capacity.Demands
	nopm   float64
	runID  string
	steps  []store.Step
	config string
}

func run(ctx context.Context, loc string, grid []string, mem string, rounds int) error {
	st, err := store.Open(ctx, loc)
	if err != nil {
		return err
	}
	defer st.Close()
	var rs [][]point
	for r := 1; r <= rounds; r++ {
		var pts []point
		for _, label := range grid {
			if r > 1 {
				label = fmt.Sprintf("%s.%d", label, r)
			}
			p, err := sweepPoints(ctx, st, label)
			if err != nil {
				return err
			}
			pts = append(pts, p...)
		}
		if len(pts) == 0 || (r > 1 && len(pts) != len(rs[0])) {
			return fmt.Errorf("round %d: %d grid points measured (round 1: %d)", r, len(pts), len(rs[0]))
		}
		rs = append(rs, pts)
	}
	errs := predictRounds(rs, nil)
	fmt.Printf("grid: %d points predicted from %s, %d round(s), medians: NOPM error median %.1f %%, worst %.1f %%\n\n", len(errs), rs[0][0].config, len(rs), median(errs), worst(errs))
	if one := indexOf(rs[0], "cpus 1"); one > 0 {
		errs = predictNearest(rs, map[int]bool{0: true, one: true})
		fmt.Printf("grid: %d points, each predicted from the nearer of %s and %s (as fit does once it has measured both), medians: NOPM error median %.1f %%, worst %.1f %%\n\n",
			len(errs), rs[0][0].config, rs[0][one].config, median(errs), worst(errs))
	}
	if err := fits(ctx, medianPoints(rs)); err != nil {
		return err
	}
	if mem == "" {
		return nil
	}
	m, err := sweepPoints(ctx, st, mem)
	if err != nil || len(m) < 3 {
		return fmt.Errorf("memory sweep %s: %v (%d points; want at least 3)", mem, err, len(m))
	}
	// predicted from the largest and the third: the others are out of sample
	curve := []capacity.CachePoint{capacity.PointOf(m[0].d), capacity.PointOf(m[2].d)}
	errs = predictRounds([][]point{m}, curve)
	fmt.Printf("memory: predicted from %s and %s: NOPM error median %.1f %%, worst %.1f %%\n", m[0].config, m[2].config, median(errs), worst(errs))
	return nil
}

// sweepPoints are a stored sweep's measured points with their demands.
func sweepPoints(ctx context.Context, st *store.Store, label string) ([]point, error) {
	res, err := scenario.LoadSweepResult(ctx, st, label, 0)
	if err != nil {
		return nil, fmt.Errorf("sweep %s: %w", label, err)
	}
	var out []point
	for _, p := range res.Points {
		if !p.Decides() {
			continue
		}
		run, steps, err := st.LoadRun(ctx, p.RunID)
		if err != nil {
			return nil, err
		}
		ds := scenario.StepDemands(run, steps)
		if len(ds) == 0 {
			return nil, fmt.Errorf("run %s: no demands", p.RunID)
		}
		d := ds[0].Demands
		if len(out) == 0 { // the base: the band takes its A/A history's drift, as sweep --predict does
			if d.Drift, err = scenario.BaseDrift(ctx, st, run); err != nil {
				return nil, err
			}
			if d.CoreGrowth, err = scenario.BaseGrowth(ctx, st, run); err != nil {
				return nil, err
			}
		}
		c := fit.Candidate{Cpus: d.Config.CPUs, Memory: d.Config.CacheBytes, IO: ioOf(run)}
		out = append(out, point{cand: c, d: d, nopm: p.NOPM, runID: p.RunID, steps: steps, config: c.String()})
	}
	return out, nil
}

// ioOf is the I/O limit a run asked ("" none).
func ioOf(run *store.Run) string {
	var c caps.Caps
	if err := jsonUnmarshal(run.Env["caps.asked"], &c); err != nil || c.IO.IsZero() {
		return ""
	}
	return c.IO.String()
}

// predictRounds predicts each round's points from that round's first
// (reads from curve) and prints, per configuration, the median measured
// NOPM, the spread of the measured (largest less smallest over the
// median), the median prediction with the base round's band and the
// error; it returns the absolute NOPM errors, %, of the points other than
// the base.
func predictRounds(rs [][]point, curve []capacity.CachePoint) []float64 {
	return printRounds(rs, map[int]bool{0: true}, func(pts []point) (func(point) capacity.Prediction, error) {
		m, err := capacity.New(pts[0].d, capacity.NewReadCurve(curve...))
		if err != nil {
			return nil, err
		}
		return func(p point) capacity.Prediction { return m.Predict(p.d.Config) }, nil
	})
}

// predictNearest predicts each round's points as fit does once it has
// measured the points at bases: each from the measured point nearest to
// it (fit.Model).
func predictNearest(rs [][]point, bases map[int]bool) []float64 {
	return printRounds(rs, bases, func(pts []point) (func(point) capacity.Prediction, error) {
		m := &fit.Model{ConfigOf: configOf}
		for i := range pts {
			if bases[i] {
				if err := m.Learn(pts[i].cand, fit.MeasuredOf(pts[i].runID, pts[i].steps)); err != nil {
					return nil, err
				}
			}
		}
		return func(p point) capacity.Prediction {
			pr, why := m.Predict(p.cand)
			if pr == nil {
				return capacity.Prediction{Limit: why}
			}
			return *pr
		}, nil
	})
}

// printRounds predicts every round's points by the predictor made from
// that round (predictor) and prints the medians; points at bases are the
// measured ones, not counted in the errors returned.
func printRounds(rs [][]point, bases map[int]bool, predictor func([]point) (func(point) capacity.Prediction, error)) []float64 {
	preds := make([][]capacity.Prediction, len(rs))
	for r, pts := range rs {
		predict, err := predictor(pts)
		if err != nil {
			fmt.Println("  no model:", err)
			return nil
		}
		for _, p := range pts {
			preds[r] = append(preds[r], predict(p))
		}
	}
	fmt.Printf("  %-36s %9s %7s %9s %19s %8s %5s  %s\n", "configuration", "measured", "spread", "predicted", "band (round 1)", "error", "held", "limit")
	var errs []float64
	for i, p := range rs[0] {
		var meas, pred []float64
		held := 0
		for r := range rs {
			meas, pred = append(meas, rs[r][i].nopm), append(pred, preds[r][i].NOPM)
			if preds[r][i].NOPMLow <= rs[r][i].nopm && rs[r][i].nopm <= preds[r][i].NOPMHigh {
				held++
			}
		}
		mm, pm, pr := median(meas), median(pred), preds[0][i]
		e := (pm - mm) / mm * 100
		mark := ""
		if bases[i] {
			mark = "  (base)"
		} else {
			errs = append(errs, math.Abs(e))
		}
		fmt.Printf("  %-36s %9.0f %6.1f%% %9.0f %8.0f to %8.0f %+7.1f%% %2d/%-2d  %s%s\n", p.config, mm, spreadPct(meas), pm, pr.NOPMLow, pr.NOPMHigh, e, held, len(rs), pr.Limit, mark)
	}
	return errs
}

// indexOf is the index of the point of configuration config (-1: none).
func indexOf(pts []point, config string) int {
	for i, p := range pts {
		if p.config == config {
			return i
		}
	}
	return -1
}

// medianPoints is, per configuration, the round whose NOPM is the median.
func medianPoints(rs [][]point) []point {
	out := make([]point, len(rs[0]))
	for i := range rs[0] {
		var ps []point
		for r := range rs {
			ps = append(ps, rs[r][i])
		}
		sort.Slice(ps, func(a, b int) bool { return ps[a].nopm < ps[b].nopm })
		out[i] = ps[(len(ps)-1)/2]
	}
	return out
}

// spreadPct is (largest − smallest) / median of x, %.
func spreadPct(x []float64) float64 {
	lo, hi := slices.Min(x), slices.Max(x)
	return (hi - lo) / median(x) * 100
}

// costs prices the grid: cores and their licences.
const costs = `configs:
  - name: vm
    host_cores: 16
    vm_cores: 2
    memory_gb: 1
    hardware: [{item: vCPU, per: vm_core, price: 450}]
    licences: [{name: DB, per: vm_core, pack: 2, pack_price: 1000, minimum: 2}]
`

// fits replays fit over the grid at a low, a middle and a high target,
// proven by measurement and predicted, and compares answers and counts.
func fits(ctx context.Context, pts []point) error {
	f, err := cost.Parse("costs.yaml", []byte(costs))
	if err != nil {
		return err
	}
	var cands []fit.Candidate
	by := map[fit.Candidate]point{}
	for _, p := range pts {
		cands = append(cands, p.cand)
		by[p.cand] = p
	}
	priced := fit.Price(*f.Find("vm"), 1, cands)
	nopms := make([]float64, 0, len(pts))
	for _, p := range pts {
		nopms = append(nopms, p.nopm)
	}
	sort.Float64s(nopms)
	for _, q := range []float64{0.25, 0.5, 0.75} {
		target := nopms[int(q*float64(len(nopms)-1))] * 0.97
		cr := fit.Criteria{TargetNOPM: target, Mean: true}
		ref, _ := fit.Search(ctx, priced, grid(by), cr)
		model := &fit.Model{ConfigOf: configOf}
		got, _ := fit.SearchWith(ctx, priced, grid(by), cr, fit.Options{Predictor: model})
		same := answer(ref) == answer(got)
		fmt.Printf("fit at NOPM %.0f: measured all: %s (%d measured); predicted: %s (%d measured, %d ruled out by prediction); same answer: %v\n",
			target, answer(ref), ref.Measured(), answer(got), got.Measured(), got.ByPrediction(), same)
	}
	fmt.Println()
	return nil
}

func answer(r *fit.Result) string {
	if r.Best < 0 {
		return "none"
	}
	return r.Trials[r.Best].Candidate.String()
}

// grid measures a candidate by returning its stored run.
type grid map[fit.Candidate]point

func (g grid) Measure(_ context.Context, c fit.Candidate) (fit.Measured, error) {
	p, ok := g[c]
	if !ok {
		return fit.Measured{}, fmt.Errorf("%s not in the grid", c)
	}
	return fit.MeasuredOf(p.runID, p.steps), nil
}

// configOf is a grid candidate's configuration on this host.
func configOf(c fit.Candidate) capacity.Config {
	n := runtime.NumCPU()
	// the grid runs TPC-C in procedures mode, rightsize's default, as fit's
	// candidates carry their base's mode (scenario's configOf)
	cfg := capacity.Config{CPUs: c.Cpus, CacheBytes: c.Memory, HostCPUs: float64(n), DriverShares: caps.Caps{CPUs: c.Cpus}.DriverShares(n), Mode: "procedures"}
	if l, err := caps.ParseIOLimit(c.IO); err == nil {
		cfg.ReadIOPS, cfg.WriteIOPS, cfg.ReadBps, cfg.WriteBps = float64(l.ReadIOPS), float64(l.WriteIOPS), float64(l.ReadBPS), float64(l.WriteBPS)
	}
	return cfg
}

func median(x []float64) float64 {
	if len(x) == 0 {
		return math.NaN()
	}
	s := append([]float64(nil), x...)
	sort.Float64s(s)
	if n := len(s); n%2 == 1 {
		return s[n/2]
	} else {
		return (s[n/2-1] + s[n/2]) / 2
	}
}

func worst(x []float64) float64 {
	w := math.NaN()
	for _, v := range x {
		if math.IsNaN(w) || v > w {
			w = v
		}
	}
	return w
}

func jsonUnmarshal(s string, v any) error {
	if s == "" {
		return errors.New("empty")
	}
	return json.Unmarshal([]byte(s), v)
}
