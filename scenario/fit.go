package scenario

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"strconv"
	"time"

	"github.com/rightsize/rightsize/capacity"
	"github.com/rightsize/rightsize/cgroup"
	"github.com/rightsize/rightsize/drift"
	"github.com/rightsize/rightsize/fit"
	"github.com/rightsize/rightsize/registry"
	"github.com/rightsize/rightsize/store"
)

// FitKind is the store.Sweep kind a fit is stored as: one point per
// measured candidate (position = its place in the search order), the
// priced candidates, the criteria and the currency in the sweep's Spec, so
// the search can be replayed from the store (LoadFit) and resumed.
const FitKind = "fit"

// FitOptions describe a right-size search on a managed server.
type FitOptions struct {
	// Candidates are priced and sorted cheapest first (fit.Price).
	Candidates []fit.Priced
	Criteria   fit.Criteria
	Currency   string
	Label      string
	// Run is the autopilot every measured candidate gets.
	Run RunOptions
	// Resume continues the fit with this id or label: candidates measured
	// completely are reused, not measured again (same build, same settings).
	Resume string
	// OnCandidate, when set, is told before a candidate is measured.
	OnCandidate func(p fit.Priced)
	// MeasureAll measures the candidates cheapest first, as without a
	// model: predictions are shown and decide nothing (--measure-all).
	MeasureAll bool
	// From is a stored run the model learns from before anything is
	// measured (--from RUN; "" none: the first candidate measured).
	From string
	// OnPredict, when set, is told each round of predictions and the
	// candidate measured next (fit.Options.OnPredict).
	OnPredict func(r fit.Round)
}

// FitResult is a search as stored: its id, status and the result.
type FitResult struct {
	ID       string      `json:"fit_id"`
	Label    string      `json:"label,omitempty"`
	Status   string      `json:"status"`
	Currency string      `json:"currency"`
	Result   *fit.Result `json:"result"`
}

// RunFit searches the candidates on t's managed server: each candidate is
// applied through the sweep kinds' Apply (cpus, memory, io, version), the
// server restarted in place (registry.Target.Restart), the built database
// restored and the autopilot run. t stays the caller's to close (closed
// already when the last restart failed). A result with no fit wraps
// fit.ErrNoFit; Ctrl-C stores the fit as partial, and RunFit with Resume
// continues it.
func RunFit(ctx context.Context, st *store.Store, t *registry.Target, o FitOptions) (*FitResult, error) {
	if err := o.Run.Validate(); err != nil {
		return nil, err
	}
	if o.Run.Rate > 0 {
		return nil, badOptions{OptionError{"rate", "does not fit: fit finds the configuration whose users, running back to back, reach the target; drop --rate (sweep a paced workload to see its latency by configuration)"}}
	}
	if t.Server == nil {
		return nil, bad("fit restarts the server for each candidate: use a managed target (--target %s), not %s", registry.ManagedForms(), t.Name)
	}
	if _, ok := t.DB.(Restorer); !ok {
		return nil, bad("fit restores the built database for each candidate, which %s cannot do; use --target embedded", t.Name)
	}
	if o.Run.Workload == nil {
		if _, err := ReadySchema(ctx, t); err != nil {
			return nil, err
		}
	}
	if err := checkCandidateCaps(t, o.Candidates); err != nil {
		return nil, err
	}
	if err := checkCopySpaceUnlessResumed(ctx, t, o.Resume); err != nil {
		return nil, err
	}
	sw, err := openFit(ctx, st, &o, newPredictSpec(t.Options.Caps, o))
	if err != nil {
		return nil, err
	}
	if o.Resume == "" {
		if err := t.Unthrottled(func() error { return t.DB.(Restorer).Snapshot(ctx) }); err != nil {
			return nil, fmt.Errorf("snapshot the built database: %w", err)
		}
	}
	m := &fitMeasurer{st: st, t: t, engine: t.Registered, base: t.Options, run: o.Run, sw: sw, onCand: o.OnCandidate,
		cands: o.Candidates, done: map[int]store.SweepPoint{}, calls: map[int]int{}, runs: newFitRuns(st, sw)}
	for _, p := range sw.Points {
		m.done[p.Position] = p
	}
	so, err := searchOptions(ctx, st, sw, o)
	if err != nil {
		return nil, err
	}
	res, serr := fit.SearchWith(ctx, o.Candidates, m, o.Criteria, so)
	status := store.StatusComplete
	if ctx.Err() != nil {
		status = store.StatusPartial
	} else if serr != nil && !errors.Is(serr, fit.ErrNoFit) {
		status = store.StatusFailed
	}
	bg := context.WithoutCancel(ctx)
	if err := st.FinishSweep(bg, sw.ID, status, time.Now().UTC()); err != nil {
		return nil, err
	}
	out := &FitResult{ID: sw.ID, Label: sw.Label, Status: status, Currency: o.Currency, Result: res}
	if status == store.StatusPartial {
		return out, fmt.Errorf("fit interrupted: what was measured is stored as fit %s (partial); continue it with --resume %s", sw.ID, sw.ID)
	}
	return out, serr
}

// checkCandidateCaps makes sure, before anything is measured, that every
// candidate's caps can be applied (registry.CheckCaps).
func checkCandidateCaps(t *registry.Target, cands []fit.Priced) error {
	for _, p := range cands {
		opt, err := CandidateOptions(t.Registered, p.Candidate, t.Options)
		if err == nil {
			err = registry.CheckCaps(t.Spec, opt)
		}
		if err != nil {
			return bad("candidate %s: %v", p.Candidate, err)
		}
	}
	return nil
}

// searchOptions are the search options of a stored fit: its model, when
// it was stored with one (the model predicts the criteria's figure of
// merit: TPC-C's NOPM or a pgbench workload's).
func searchOptions(ctx context.Context, st *store.Store, sw *store.Sweep, o FitOptions) (fit.Options, error) {
	ps, ok, err := loadPredictSpec(sw)
	if err != nil || !ok {
		return fit.Options{}, err
	}
	return ps.options(ctx, st, o.Criteria, o.OnPredict)
}

// openFit creates the stored fit with the model settings ps, or loads the
// one to resume (whose candidates, criteria and model settings then
// replace o's).
func openFit(ctx context.Context, st *store.Store, o *FitOptions, ps predictSpec) (*store.Sweep, error) {
	if o.Resume != "" {
		sw, err := st.LoadSweep(ctx, o.Resume)
		if err != nil {
			return nil, badOptions{fmt.Errorf("--resume: %w", err)}
		}
		if sw.Kind != FitKind {
			return nil, bad("--resume %s: that is a %s sweep, not a fit", o.Resume, sw.Kind)
		}
		if err := decodeFitSpec(sw, &o.Candidates, &o.Criteria, &o.Currency); err != nil {
			return nil, err
		}
		return sw, nil
	}
	if len(o.Candidates) == 0 {
		return nil, bad("fit: no candidates: give --cpus (and --memory, --io, --version) to try")
	}
	cj, err := json.Marshal(o.Candidates)
	if err != nil {
		return nil, err
	}
	crj, err := json.Marshal(o.Criteria)
	if err != nil {
		return nil, err
	}
	values := make([]string, len(o.Candidates))
	for i, c := range o.Candidates {
		values[i] = c.Candidate.String()
	}
	pj, err := json.Marshal(ps)
	if err != nil {
		return nil, err
	}
	sw := &store.Sweep{Label: o.Label, Kind: FitKind, Values: values,
		Spec: map[string]string{"candidates": string(cj), "criteria": string(crj), "currency": o.Currency, fitPredictKey: string(pj)}}
	if err := st.CreateSweep(context.WithoutCancel(ctx), sw); err != nil {
		return nil, err
	}
	return sw, nil
}

func decodeFitSpec(sw *store.Sweep, cands *[]fit.Priced, cr *fit.Criteria, currency *string) error {
	if err := json.Unmarshal([]byte(sw.Spec["candidates"]), cands); err != nil {
		return fmt.Errorf("fit %s: stored candidates: %w", sw.ID, err)
	}
	if err := json.Unmarshal([]byte(sw.Spec["criteria"]), cr); err != nil {
		return fmt.Errorf("fit %s: stored criteria: %w", sw.ID, err)
	}
	*currency = sw.Spec["currency"]
	return nil
}

// fitMeasurer measures candidates on the managed server, restarted in
// place for each from the options it was opened with (base), or replays
// the ones the store already holds.
type fitMeasurer struct {
	st     *store.Store
	t      *registry.Target
	engine registry.Engine
	base   registry.Options
	run    RunOptions
	sw     *store.Sweep
	cands  []fit.Priced
	done   map[int]store.SweepPoint
	onCand func(fit.Priced)
	calls  map[int]int // how many times each candidate was measured
	runs   *fitRuns
}

// position is candidate c's stored position for its next run: its index
// among the candidates for the first run, then that plus the number of
// candidates for each run again (fit.Criteria.Runs), so a re-measured
// candidate keeps each of its runs (-1: not a candidate).
func (m *fitMeasurer) position(c fit.Candidate) int {
	return nextPosition(m.cands, m.calls, c)
}

// nextPosition is the stored position of candidate c's next run (see
// fitMeasurer.position), counted in calls.
func nextPosition(cands []fit.Priced, calls map[int]int, c fit.Candidate) int {
	for i, p := range cands {
		if p.Candidate == c {
			k := calls[i]
			calls[i]++
			return i + k*len(cands)
		}
	}
	return -1
}

// Measure implements fit.Measurer.
func (m *fitMeasurer) Measure(ctx context.Context, c fit.Candidate) (fit.Measured, error) {
	pos := m.position(c)
	if p, ok := m.done[pos]; ok && p.Status == store.StatusComplete && p.RunID != "" {
		return m.runs.measured(ctx, p.RunID)
	}
	if m.onCand != nil && pos >= 0 {
		m.onCand(m.cands[pos%len(m.cands)])
	}
	point := store.SweepPoint{Position: pos, Value: c.String()}
	ms, err := m.measure(ctx, c, &point)
	if perr := m.st.SetSweepPoint(context.WithoutCancel(ctx), m.sw.ID, point); perr != nil && err == nil {
		err = perr
	}
	if err != nil && (ctx.Err() != nil || errors.Is(err, ErrBadOptions)) {
		return ms, err
	}
	// A candidate that cannot start or dies under its caps misses the
	// target; what its run measured (if anything) is judged.
	return ms, nil
}

func (m *fitMeasurer) measure(ctx context.Context, c fit.Candidate, point *store.SweepPoint) (fit.Measured, error) {
	fail := func(err error) (fit.Measured, error) {
		point.Status, point.Reason = store.StatusFailed, err.Error()
		return fit.Measured{}, err
	}
	opt, err := CandidateOptions(m.engine, c, m.base)
	if err != nil {
		return fail(err)
	}
	if err := m.t.Restart(ctx, opt); err != nil {
		err = fmt.Errorf("restart the server with %s: %w", c, err)
		if registry.IsBadCaps(err) {
			err = badOptions{err}
		}
		return fail(err)
	}
	if err := requireCaps(m.t, cgroup.CapQuota, cgroup.CapMemory, cgroup.CapIO); err != nil {
		return fail(err)
	}
	if err := m.t.Unthrottled(func() error { return m.t.DB.(Restorer).Restore(ctx) }); err != nil {
		return fail(fmt.Errorf("restore the built database for %s: %w", c, err))
	}
	ro := m.run
	ro.Label = fmt.Sprintf("%s %s", RunLabel(FitKind, m.sw.ID, m.sw.Label), c)
	if k := point.Position / max(1, len(m.cands)); k > 0 {
		ro.Label += fmt.Sprintf(" run %d", k+1) // measured again: it held the target
	}
	ro.Flags = maps.Clone(ro.Flags)
	if ro.Flags == nil {
		ro.Flags = map[string]string{}
	}
	ro.Flags["fit"], ro.Flags["fit.candidate"] = m.sw.ID, c.String()
	res, err := Run(ctx, m.st, m.t, ro)
	if res == nil {
		return fail(err)
	}
	point.RunID, point.Status = res.Run.ID, res.Run.Status
	if err != nil && ctx.Err() == nil {
		point.Reason = err.Error()
	}
	ms, lerr := m.runs.measured(context.WithoutCancel(ctx), res.Run.ID)
	if lerr != nil {
		return ms, lerr
	}
	return ms, err
}

// fitRuns reads a fit's stored runs with the drift between runs of each
// one's configuration from the store's history before the fit started
// (drift.MeasureBefore: a replay judges as the fit did). That history
// does not change during the fit, so each configuration's is read once,
// and so is the host's growth with cores (GrowthBefore) for each
// workload.
type fitRuns struct {
	st     *store.Store
	since  time.Time
	drifts map[string]drift.Figures        // by drift.RecordedKey
	growth map[string][]capacity.CoreRatio // by growthKey
}

func newFitRuns(st *store.Store, sw *store.Sweep) *fitRuns {
	return &fitRuns{st: st, since: sw.StartedAt, drifts: map[string]drift.Figures{}, growth: map[string][]capacity.CoreRatio{}}
}

// measured reads a stored run's aggregates and intervals, and its drift.
func (f *fitRuns) measured(ctx context.Context, runID string) (fit.Measured, error) {
	run, steps, err := f.st.LoadRun(ctx, runID)
	if err != nil {
		return fit.Measured{}, fmt.Errorf("load run %s: %w", runID, err)
	}
	ms := fit.MeasuredOf(runID, steps)
	key := drift.RecordedKey(*run)
	d, ok := f.drifts[key]
	if !ok {
		if d, err = drift.MeasureBefore(ctx, f.st, *run, f.since); err != nil {
			return ms, err
		}
		f.drifts[key] = d
	}
	ms.Drift = d.Of(*run)
	gk := growthKey(*run)
	g, ok := f.growth[gk]
	if !ok {
		if g, err = GrowthBefore(ctx, f.st, run, f.since); err != nil {
			return ms, err
		}
		f.growth[gk] = g
	}
	ms.CoreGrowth = g
	return ms, nil
}

// CheckCandidates fails (ErrBadOptions) when a dimension the candidates
// vary cannot be applied by this build, before anything is started.
func CheckCandidates(cands []fit.Priced) error {
	need := map[string]bool{"cpus": true}
	for _, c := range cands {
		need["memory"] = need["memory"] || c.Memory > 0
		need["io"] = need["io"] || c.IO != ""
		need["version"] = need["version"] || c.Version != ""
	}
	for _, k := range []string{"cpus", "memory", "io", "version"} {
		if !need[k] {
			continue
		}
		if _, err := LookupSweepKind(k); err != nil {
			return bad("fit cannot vary %s: %v", k, err)
		}
	}
	return nil
}

// CandidateOptions applies a candidate's cpus, memory, I/O limit and
// version to base with the sweep kinds' Apply: a fit candidate is the
// same configuration a sweep value would be.
func CandidateOptions(e registry.Engine, c fit.Candidate, base registry.Options) (registry.Options, error) {
	dims := [][2]string{{"cpus", strconv.FormatFloat(c.Cpus, 'f', -1, 64)}}
	if c.Memory > 0 {
		dims = append(dims, [2]string{"memory", strconv.FormatInt(c.Memory, 10)})
	}
	if c.IO != "" {
		dims = append(dims, [2]string{"io", c.IO})
	}
	if c.Version != "" {
		dims = append(dims, [2]string{"version", c.Version})
	}
	opt := base
	for _, d := range dims {
		k, err := LookupSweepKind(d[0])
		if err != nil {
			return opt, err
		}
		if opt, err = k.Apply(e, d[1], opt); err != nil {
			return opt, err
		}
	}
	return opt, nil
}

// errNotStored stops a replay at a candidate the stored fit never measured.
var errNotStored = errors.New("not measured in the stored fit")

// replay measures nothing: it returns what the stored fit measured.
type replay struct {
	runs  *fitRuns
	cands []fit.Priced
	byPos map[int]store.SweepPoint
	calls map[int]int
}

func (r replay) Measure(ctx context.Context, c fit.Candidate) (fit.Measured, error) {
	pos := nextPosition(r.cands, r.calls, c)
	if pos < 0 {
		return fit.Measured{}, errNotStored
	}
	sp, ok := r.byPos[pos]
	if !ok || sp.RunID == "" {
		if ok && sp.Status == store.StatusFailed {
			return fit.Measured{}, nil // it could not run: it missed
		}
		return fit.Measured{}, errNotStored
	}
	return r.runs.measured(ctx, sp.RunID)
}

// LoadFit reads a stored fit and replays its search from the stored
// measurements (the same decisions the search made).
func LoadFit(ctx context.Context, st *store.Store, idOrLabel string) (*FitResult, error) {
	sw, err := st.LoadSweep(ctx, idOrLabel)
	if err != nil {
		return nil, err
	}
	if sw.Kind != FitKind {
		return nil, fmt.Errorf("%s is a %s sweep, not a fit", idOrLabel, sw.Kind)
	}
	out := &FitResult{ID: sw.ID, Label: sw.Label, Status: sw.Status}
	var cands []fit.Priced
	var cr fit.Criteria
	if err := decodeFitSpec(sw, &cands, &cr, &out.Currency); err != nil {
		return nil, err
	}
	r := replay{runs: newFitRuns(st, sw), cands: cands, byPos: map[int]store.SweepPoint{}, calls: map[int]int{}}
	for _, p := range sw.Points {
		r.byPos[p.Position] = p
	}
	so, err := searchOptions(ctx, st, sw, FitOptions{Criteria: cr})
	if err != nil {
		return nil, err
	}
	res, err := fit.SearchWith(ctx, cands, r, cr, so)
	if err != nil && !errors.Is(err, fit.ErrNoFit) && !errors.Is(err, errNotStored) {
		return nil, err
	}
	out.Result = res
	return out, nil
}
