package scenario

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/rightsize/rightsize/analysis"
	"github.com/rightsize/rightsize/caps"
	"github.com/rightsize/rightsize/cgroup"

	"github.com/rightsize/rightsize/engine"
	"github.com/rightsize/rightsize/internal/units"
	"github.com/rightsize/rightsize/loader"
	"github.com/rightsize/rightsize/registry"
	"github.com/rightsize/rightsize/store"
)

// SweepKind is one kind of configuration sweep: what its values mean and
// how a value becomes the managed server's configuration.
type SweepKind struct {
	Name    string
	Example string // a --values example
	// Unavailable, when set, says why this build cannot sweep this kind
	// yet and what to use meanwhile.
	Unavailable string
	// Order validates the values and puts them in measuring order (most
	// resource first).
	Order func(values []string) ([]string, error)
	// Apply returns the options that open engine e's target with value
	// applied.
	Apply func(e registry.Engine, value string, opt registry.Options) (registry.Options, error)
	// Varies are the caps its values set, as cgroup.Report.Missing names
	// them: a point where one of them is not applied (--caps best-effort)
	// is refused.
	Varies []string
	// Rebuild: a value changes the server's data format, so it gets a data
	// directory of its own, where the same database (warehouses and seed
	// of the sweep's build) is built once and restored like the others.
	Rebuild bool
}

// SweepKinds is the registry of sweep kinds: each value is applied to the
// managed server's options by its kind's Apply (--memory, --cpus,
// --io-limit, --pg-version).
func SweepKinds() []SweepKind {
	return []SweepKind{
		{Name: "memory", Example: "2G,1G,512M,256M", Order: orderSizes, Apply: applyMemory, Varies: []string{cgroup.CapMemory}},
		{Name: "cpus", Example: "2,1.5,1,0.5", Order: orderCPUs, Apply: applyCPUs, Varies: []string{cgroup.CapQuota}},
		{Name: "io", Example: "none,riops=2000:wiops=500", Order: orderIO, Apply: applyIO, Varies: []string{cgroup.CapIO}},
		{Name: "version", Example: "13,17", Order: orderVersions, Apply: applyVersion, Rebuild: true},
	}
}

// LookupSweepKind returns the registered kind called name.
func LookupSweepKind(name string) (SweepKind, error) {
	var names []string
	for _, k := range SweepKinds() {
		if k.Name == name {
			if k.Unavailable != "" {
				return k, bad("sweep %s %s", name, k.Unavailable)
			}
			return k, nil
		}
		names = append(names, k.Name)
	}
	return SweepKind{}, bad("unknown sweep kind %q: use one of %s", name, strings.Join(names, ", "))
}

func orderSizes(values []string) ([]string, error) {
	return orderBy(values, func(v string) (float64, error) {
		n, err := units.ParseSize(v)
		if err != nil {
			return 0, err
		}
		return float64(n >> 10), nil
	})
}

func orderCPUs(values []string) ([]string, error) {
	return orderBy(values, func(v string) (float64, error) { return caps.ParseCPUs(v, runtime.NumCPU()) })
}

// orderIO puts "none" first and keeps the given order of the limits.
func orderIO(values []string) ([]string, error) {
	return orderBy(values, func(v string) (float64, error) {
		l, err := caps.ParseIOLimit(v)
		if l.IsZero() {
			return 1, err
		}
		return 0, err
	})
}

// orderBy validates values with key and sorts them by key, largest first
// (stable: equal keys keep their order).
func orderBy(values []string, key func(string) (float64, error)) ([]string, error) {
	type keyed struct {
		v string
		k float64
	}
	var s []keyed
	for _, v := range values {
		k, err := key(v)
		if err != nil {
			return nil, bad("--values %w", err)
		}
		s = append(s, keyed{v, k})
	}
	slices.SortStableFunc(s, func(a, b keyed) int { return cmp.Compare(b.k, a.k) })
	out := make([]string, len(s))
	for i, x := range s {
		out[i] = x.v
	}
	return out, nil
}

// applyMemory gives the managed server value as --memory: its cache
// (the engine's Tuning: PostgreSQL shared_buffers and
// effective_cache_size, MariaDB innodb_buffer_pool_size) gets what
// caps.Split leaves after its processes' share, and the whole is its
// cgroup memory limit, page cache included.
func applyMemory(e registry.Engine, value string, opt registry.Options) (registry.Options, error) {
	n, err := units.ParseSize(value)
	if err != nil {
		return opt, bad("--values %w", err)
	}
	if e.Tuning.Cache == nil {
		return opt, bad("sweep memory: no cache setting known for %s", e.Name)
	}
	opt.Caps.Memory = n
	return opt, nil
}

// applyCPUs gives the managed server value as --cpus.
func applyCPUs(_ registry.Engine, value string, opt registry.Options) (registry.Options, error) {
	n, err := caps.ParseCPUs(value, runtime.NumCPU())
	if err != nil {
		return opt, bad("--values %w", err)
	}
	opt.Caps.CPUs = n
	return opt, nil
}

// applyIO gives the managed server value as --io-limit ("none": no limit).
func applyIO(_ registry.Engine, value string, opt registry.Options) (registry.Options, error) {
	l, err := caps.ParseIOLimit(value)
	if err != nil {
		return opt, bad("--values %w", err)
	}
	opt.Caps.IO = l
	return opt, nil
}

// orderVersions checks the versions against those the registry's managed
// servers start (kept in the order given: versions are not more or less
// of a resource).
func orderVersions(values []string) ([]string, error) {
	for _, v := range values {
		if err := registry.CheckVersion("", v); err != nil {
			return nil, bad("--values %s: %v", v, err)
		}
	}
	return values, nil
}

// applyVersion gives the embedded PostgreSQL value as --pg-version, with a
// data directory of its own (a cluster belongs to one major version):
// --data-dir DIR becomes DIR-pgVALUE, the default one the version's default.
// Engines whose managed server starts no other versions refuse it.
func applyVersion(e registry.Engine, value string, opt registry.Options) (registry.Options, error) {
	if e.Managed == nil || e.Managed.Versions == nil {
		return opt, bad("sweep version: only the %s downloads other versions, not %s", strings.Join(registry.Versioned(), ", "), e.Name)
	}
	if opt.PGBin != "" {
		return opt, bad("sweep version: --pg-bin fixes the binaries; leave it out so each version is downloaded")
	}
	opt.PGVersion = value
	if opt.DataDir != "" {
		opt.DataDir = strings.TrimSuffix(opt.DataDir, "/") + "-pg" + value
	}
	return opt, nil
}

// ensureBuilt makes t hold the database the sweep started from: the same
// warehouses and seed, built once in this data directory (and snapshot),
// restored from that snapshot on later uses.
func ensureBuilt(ctx context.Context, t *registry.Target, want engine.Meta) error {
	r := t.DB.(Restorer)
	if m, err := ReadySchema(ctx, t); err == nil && m.Warehouses == want.Warehouses && m.Seed == want.Seed {
		if err := t.Unthrottled(func() error { return r.Restore(ctx) }); err == nil {
			return nil
		}
	} else if _, err := loader.Build(ctx, t, loader.Config{Warehouses: want.Warehouses, Seed: want.Seed, Loaders: runtime.NumCPU()}); err != nil {
		return err
	}
	return t.Unthrottled(func() error { return r.Snapshot(ctx) })
}

// CheckSweep validates a sweep's values before anything starts: each is
// applied to base and the caps it gives are checked for the server spec
// starts (more cores than the machine has, too little memory, an I/O limit
// on a device that cannot be found).
func CheckSweep(spec string, base registry.Options, kindName string, values []string) error {
	kind, err := LookupSweepKind(kindName)
	if err != nil {
		return err
	}
	if len(values) == 0 {
		return bad("--values: give at least one value, e.g. --values %s", kind.Example)
	}
	if values, err = kind.Order(values); err != nil {
		return err
	}
	e, managed, err := registry.EngineOf(spec)
	if err != nil {
		return badOptions{err}
	}
	if !managed {
		return bad("a sweep restarts the server for each value: use a managed target (--target %s), not %s", registry.ManagedForms(), registry.Redact(spec))
	}
	for _, v := range values {
		opt, err := kind.Apply(e, v, base)
		if err == nil {
			err = registry.CheckCaps(spec, opt)
		}
		if err != nil {
			return bad("--values %s: %v", v, err)
		}
	}
	return nil
}

// SweepOptions describe a sweep: one run per value of Kind.
type SweepOptions struct {
	Kind   string
	Values []string
	Label  string // the sweep's label; runs are labelled "LABEL KIND=VALUE"
	// KneeThreshold is the drop in NOPM (or rise in New-Order p90) against
	// the best value that marks the knee, as a fraction (0.10).
	KneeThreshold float64
	// Run is the run every value gets (its Label is set per value).
	Run RunOptions
	// Resume continues the sweep with this id or label: values already
	// measured completely are kept.
	Resume string
	// OnValue, when set, is told before each value starts.
	OnValue func(position int, value string)
	// OnWarning, when set, gets warnings (the database fits in memory ...).
	OnWarning func(string)
	// OnStarted, when set, is told the target once the server runs with
	// a value (to say what its caps applied).
	OnStarted func(t *registry.Target)
}

// SweepPoint is one value of a sweep with its figures (from analysis.Aggregate
// of its run: the step with the highest NOPM).
type SweepPoint struct {
	Value         string  `json:"value"`
	RunID         string  `json:"run_id,omitempty"`
	Status        string  `json:"status"`
	Reason        string  `json:"reason,omitempty"`
	Users         int     `json:"users"`
	TPM           float64 `json:"tpm"`
	NOPM          float64 `json:"nopm"`
	NewOrderP90Ms float64 `json:"new_order_p90_ms"`
	NewOrderP99Ms float64 `json:"new_order_p99_ms"`
	// NOPMHalf is the half-width of NOPM's interval: across the repeats,
	// or one repeat's batch-means interval widened by the drift between
	// runs (the default 10 % CV); 0 when unknown.
	NOPMHalf         float64 `json:"nopm_half,omitempty"`
	BlocksReadPerTxn float64 `json:"blocks_read_per_txn"`
	DiskReadMBps     float64 `json:"disk_read_mbps"`
	// Predicted is the capacity model's prediction of the point from the
	// values measured before it (SweepResult.Predict; nil: not asked, the
	// base, or not predictable: PredictNote says why).
	Predicted   *SweepPrediction `json:"predicted,omitempty"`
	PredictNote string           `json:"predict_note,omitempty"`
	// DriverShares: a cpus value that left the driver no core of its own
	// (see DriverShare).
	DriverShares bool `json:"driver_shares,omitempty"`
}

// Measured reports whether the point has figures.
func (p SweepPoint) Measured() bool { return p.RunID != "" && p.NOPM > 0 }

// Decides reports whether the point may decide the best value and the
// knee: figures of its whole interval (a partial point, whose server died
// or was stopped mid-run, has figures but decides nothing).
func (p SweepPoint) Decides() bool { return p.Measured() && p.Status == store.StatusComplete }

// SweepResult is a sweep as stored, with its figures and knee.
type SweepResult struct {
	ID        string       `json:"sweep_id"`
	Label     string       `json:"label,omitempty"`
	Kind      string       `json:"kind"`
	Status    string       `json:"status"`
	Threshold float64      `json:"knee_threshold"`
	DBBytes   int64        `json:"database_bytes"`
	Points    []SweepPoint `json:"points"`
	// Knee is the index in Points of the smallest value that still holds
	// (see KneeRule); -1 when none does. KneeFound is false when every
	// measured value holds (no knee within the values tried).
	Knee      int    `json:"knee"`
	KneeFound bool   `json:"knee_found"`
	KneeRule  string `json:"knee_rule"`
	// KneeNote, when set, says why no knee is called although a value
	// falls beyond the threshold: the difference is within the points'
	// precision (see kneeJudged).
	KneeNote string `json:"knee_note,omitempty"`
	// DriverShare, in a cpus sweep, names the values that left the driver
	// no core of its own and how to measure fairly (nil when none did).
	DriverShare *DriverShare `json:"driver_share,omitempty"`
	// Figure, in a sweep of a pgbench workload, names its figure of merit,
	// which the points' NOPM and New-Order latencies then hold (per minute:
	// "every script" or the --figure script's name); "" for TPC-C.
	Figure string `json:"figure,omitempty"`
	// Rate, in a sweep of a paced pgbench workload (run --rate), is the
	// transactions per second its runs were paced to: the values then
	// differ by their latency while their users keep the rate.
	Rate float64 `json:"rate,omitempty"`
}

// sweepRate is SweepResult.Rate of a sweep's runs.
func sweepRate(runs []*store.Run) float64 {
	for _, r := range runs {
		if r != nil {
			return r.Rate()
		}
	}
	return 0
}

// sweepFigure is SweepResult.Figure of a sweep's runs.
func sweepFigure(runs []*store.Run) string {
	for _, r := range runs {
		if r == nil {
			continue
		}
		if m, ok := r.WorkloadMerit(); ok && m.All() {
			return "every script"
		} else if ok {
			return m.Txn
		}
	}
	return ""
}

// KneeRule documents Knee.
const KneeRule = "values are measured from most to least resource; the best value has the highest NOPM; " +
	"a value holds while its NOPM is at most the threshold below the best and its New-Order p90 at most the threshold above the best's; " +
	"the knee is the last value that holds before the first that does not"

// KneeRuleOf is KneeRule as a sweep of figure (SweepResult.Figure) names
// its figures: TPC-C's NOPM and New-Order p90, or the workload's figure
// (meritName) and its p90.
func KneeRuleOf(figure string) string {
	if figure == "" {
		return KneeRule
	}
	return strings.ReplaceAll(strings.ReplaceAll(KneeRule, "New-Order p90", "p90"), "NOPM", meritName(figure))
}

// meritName names a sweep's figure (SweepResult.Figure) as every view
// names it: "NOPM" for TPC-C, else "TPM of every script" or "TPM of
// SCRIPT" (store.Merit.Name).
func meritName(figure string) string {
	if figure == "" {
		return "NOPM"
	}
	return "TPM of " + figure
}

// Knee applies KneeRule to points in measuring order (kneeJudged without
// its note).
func Knee(points []SweepPoint, threshold float64) (knee int, found bool) {
	knee, found, _ = kneeJudged(points, threshold, "NOPM")
	return knee, found
}

// RunSweep measures t once per value: for each it restarts the managed
// server in place with the value applied (registry.Target.Restart),
// restores the built state (Restorer), runs o.Run through Run, and records
// the value's run in the store's sweep. t stays the caller's to close
// (closed already when the last restart failed). Ctrl-C ends the sweep as
// partial: RunSweep with Resume continues it.
func RunSweep(ctx context.Context, st *store.Store, t *registry.Target, o SweepOptions) (*SweepResult, error) {
	kind, built, err := checkSweepTarget(ctx, t, o)
	if err != nil {
		return nil, err
	}
	dbBytes := databaseBytes(ctx, t)
	if err := checkCopySpaceUnlessResumed(ctx, t, o.Resume); err != nil {
		return nil, err
	}
	sw, err := openSweep(ctx, st, kind, o, dbBytes)
	if err != nil {
		return nil, err
	}
	warnFits(kind, sw.Values, dbBytes, t.Registered.Tuning, o.OnWarning)
	warnDriverShare(kind, sw.Values, t.Options.Caps.DriverCPUs, runtime.NumCPU(), o.OnWarning)
	if o.Resume == "" {
		if err := t.Unthrottled(func() error { return t.DB.(Restorer).Snapshot(ctx) }); err != nil {
			return nil, fmt.Errorf("snapshot the built database: %w", err)
		}
	}
	m := &sweepMeasurer{st: st, t: t, base: t.Options, kind: kind, sw: sw, o: o, built: built}
	cut, err := m.measureAll(ctx)
	if err != nil {
		return nil, err
	}
	return finishSweep(ctx, st, sw, o.KneeThreshold, dbBytes, cut)
}

// checkSweepTarget checks o and that t can be swept (a managed server that
// restores its built database), before anything is stored or restarted;
// it returns the kind and the build every value runs on.
func checkSweepTarget(ctx context.Context, t *registry.Target, o SweepOptions) (SweepKind, engine.Meta, error) {
	kind, err := LookupSweepKind(o.Kind)
	if err != nil {
		return kind, engine.Meta{}, err
	}
	if err := o.Run.Validate(); err != nil {
		return kind, engine.Meta{}, err
	}
	if o.KneeThreshold <= 0 || o.KneeThreshold >= 1 {
		return kind, engine.Meta{}, bad("--knee-threshold must be between 0 and 100 %% (got %.4g %%)", o.KneeThreshold*100)
	}
	if t.Server == nil {
		return kind, engine.Meta{}, bad("a sweep restarts the server for each value: use a managed target (--target %s), not %s", registry.ManagedForms(), t.Name)
	}
	if _, ok := t.DB.(Restorer); !ok {
		return kind, engine.Meta{}, bad("a sweep restores the built database for each value, which %s cannot do; use --target embedded", t.Name)
	}
	built, err := sweptDatabase(ctx, t, kind, o.Run)
	if err != nil {
		return kind, built, err
	}
	if o.Resume == "" && len(o.Values) > 0 {
		if err := CheckSweep(t.Spec, t.Options, kind.Name, o.Values); err != nil {
			return kind, built, err
		}
	}
	return kind, built, nil
}

// finishSweep stores the sweep's status and reads back its result; a
// value cut short or an interrupted sweep is an error beside the result.
func finishSweep(ctx context.Context, st *store.Store, sw *store.Sweep, threshold float64, dbBytes int64, cut []string) (*SweepResult, error) {
	bg := context.WithoutCancel(ctx)
	status := store.StatusComplete
	if ctx.Err() != nil || len(cut) > 0 {
		status = store.StatusPartial
	}
	if err := st.FinishSweep(bg, sw.ID, status, time.Now().UTC()); err != nil {
		return nil, err
	}
	res, err := LoadSweepResult(bg, st, sw.ID, threshold)
	if err != nil {
		return nil, err
	}
	res.DBBytes = dbBytes
	if len(cut) > 0 && ctx.Err() == nil {
		return res, fmt.Errorf("sweep %s is partial: %s did not measure its whole interval and decides nothing; --resume %s measures it again",
			sw.ID, strings.Join(cut, ", "), sw.ID)
	}
	if status == store.StatusPartial {
		return res, fmt.Errorf("sweep interrupted: what was measured is stored as sweep %s (partial); continue it with --resume %s", sw.ID, sw.ID)
	}
	return res, nil
}

// openSweep creates the sweep, or loads the one to resume.
func openSweep(ctx context.Context, st *store.Store, kind SweepKind, o SweepOptions, dbBytes int64) (*store.Sweep, error) {
	if o.Resume != "" {
		sw, err := st.LoadSweep(ctx, o.Resume)
		if err != nil {
			return nil, badOptions{fmt.Errorf("--resume: %w", err)}
		}
		if sw.Kind != kind.Name {
			return nil, bad("--resume %s: that is a %s sweep, not %s", o.Resume, sw.Kind, kind.Name)
		}
		return sw, nil
	}
	if len(o.Values) == 0 {
		return nil, bad("--values: give at least one value, e.g. --values %s", kind.Example)
	}
	values, err := kind.Order(o.Values)
	if err != nil {
		return nil, err
	}
	sw := &store.Sweep{Label: o.Label, Kind: kind.Name, Values: values,
		Spec: map[string]string{"knee_threshold": strconv.FormatFloat(o.KneeThreshold, 'f', -1, 64), "database_bytes": strconv.FormatInt(dbBytes, 10)}}
	if err := st.CreateSweep(context.WithoutCancel(ctx), sw); err != nil {
		return nil, err
	}
	return sw, nil
}

// sweepMeasurer measures a sweep's values on one target, restarted in
// place for each from the options it was opened with (base).
type sweepMeasurer struct {
	st    *store.Store
	t     *registry.Target
	base  registry.Options
	kind  SweepKind
	sw    *store.Sweep
	o     SweepOptions
	built engine.Meta // the build every value runs on
}

// measureAll measures the values not stored complete, storing each
// value's point, until they are done or ctx ends; it returns the values
// whose run ended before its interval did, and stops at bad options.
func (m *sweepMeasurer) measureAll(ctx context.Context) ([]string, error) {
	done := completePositions(m.sw)
	var cut []string
	for i, v := range m.sw.Values {
		if done[i] {
			continue
		}
		if ctx.Err() != nil {
			break
		}
		if m.o.OnValue != nil {
			m.o.OnValue(i, v)
		}
		point := store.SweepPoint{Position: i, Value: v}
		err := m.measure(ctx, v, &point)
		if err != nil && errors.Is(err, ErrBadOptions) {
			return cut, err
		}
		if perr := m.st.SetSweepPoint(context.WithoutCancel(ctx), m.sw.ID, point); perr != nil {
			return cut, perr
		}
		if point.Status == store.StatusPartial && ctx.Err() == nil {
			cut = append(cut, m.kind.Name+"="+v)
		}
	}
	return cut, nil
}

// measure restarts the server with v applied, restores the built state
// and runs; point gets the outcome. A failed restart leaves the target
// closed; the next value's restart starts it again.
func (m *sweepMeasurer) measure(ctx context.Context, v string, point *store.SweepPoint) error {
	fail := func(err error) error {
		point.Status, point.Reason = store.StatusFailed, err.Error()
		if ctx.Err() != nil {
			point.Status = store.StatusPartial
		}
		return err
	}
	kind, t := m.kind, m.t
	opt, err := kind.Apply(t.Registered, v, m.base)
	if err != nil {
		return fail(err)
	}
	if err := t.Restart(ctx, opt); err != nil {
		err = fmt.Errorf("restart the server with %s=%s: %w", kind.Name, v, err)
		if registry.IsBadCaps(err) {
			err = badOptions{err} // the same on every value: stop, exit 2
		}
		return fail(err)
	}
	if err := requireCaps(t, kind.Varies...); err != nil {
		return fail(err)
	}
	if m.o.OnStarted != nil {
		m.o.OnStarted(t)
	}
	if kind.Rebuild {
		if err := ensureBuilt(ctx, t, m.built); err != nil {
			return fail(fmt.Errorf("build the database for %s=%s: %w", kind.Name, v, err))
		}
	} else if err := t.Unthrottled(func() error { return t.DB.(Restorer).Restore(ctx) }); err != nil {
		return fail(fmt.Errorf("restore the built database for %s=%s: %w", kind.Name, v, err))
	}
	res, err := Run(ctx, m.st, t, m.runOptions(v))
	if res != nil {
		point.RunID, point.Status = res.Run.ID, res.Run.Status
		if err != nil && ctx.Err() == nil {
			point.Reason = err.Error()
		}
		return err
	}
	return fail(err)
}

// runOptions are the sweep's run options for value v: its label and the
// flags that tie the run to the sweep.
func (m *sweepMeasurer) runOptions(v string) RunOptions {
	ro := m.o.Run
	ro.Label = fmt.Sprintf("%s %s=%s", RunLabel(m.sw.Kind, m.sw.ID, m.sw.Label), m.kind.Name, v)
	ro.Flags = maps.Clone(ro.Flags)
	if ro.Flags == nil {
		ro.Flags = map[string]string{}
	}
	ro.Flags["sweep"], ro.Flags["sweep.kind"], ro.Flags["sweep.value"] = m.sw.ID, m.kind.Name, v
	return ro
}

// databaseBytes is the benchmark database's size (tables and indexes), 0
// when the engine cannot tell.
func databaseBytes(ctx context.Context, t *registry.Target) int64 {
	sizes, err := t.TableSizes(ctx)
	if err != nil {
		return 0
	}
	var n int64
	for _, s := range sizes {
		n += s.DataBytes + s.IndexBytes
	}
	return n
}

// warnFits warns when a memory sweep cannot show a knee: the database fits
// in the engine's cache (its share of the memory, caps.Split) at the
// smallest value tried. A database larger than that cache but smaller than
// the memory still shows one: its reads come from the page cache, each a
// system call and a copy.
func warnFits(kind SweepKind, values []string, dbBytes int64, tuning engine.Tuning, warn func(string)) {
	if kind.Name != "memory" || warn == nil || dbBytes == 0 || len(values) == 0 {
		return
	}
	smallest, err := units.ParseSize(values[len(values)-1])
	if err != nil {
		return
	}
	cache, _ := caps.Split(tuning, smallest)
	if dbBytes > cache {
		return
	}
	warn(fmt.Sprintf("the database (%.0f MiB) fits in the engine's cache at every value tried (smallest %s leaves it %.0f MiB): a memory knee needs a database larger than that cache; build more warehouses or add smaller values",
		float64(dbBytes)/(1<<20), values[len(values)-1], float64(cache)/(1<<20)))
}

// LoadSweepResult reads a stored sweep with its runs' figures and knee.
func LoadSweepResult(ctx context.Context, st *store.Store, idOrLabel string, threshold float64) (*SweepResult, error) {
	sw, err := st.LoadSweep(ctx, idOrLabel)
	if err != nil {
		return nil, err
	}
	if threshold <= 0 {
		threshold, _ = strconv.ParseFloat(sw.Spec["knee_threshold"], 64)
	}
	res := &SweepResult{ID: sw.ID, Label: sw.Label, Kind: sw.Kind, Status: sw.Status, Threshold: threshold, KneeRule: KneeRule}
	res.DBBytes, _ = strconv.ParseInt(sw.Spec["database_bytes"], 10, 64)
	byPos := map[int]store.SweepPoint{}
	for _, p := range sw.Points {
		byPos[p.Position] = p
	}
	runs := make([]*store.Run, len(sw.Values)) // nil: not run
	for i, v := range sw.Values {
		sp, ok := byPos[i]
		p := SweepPoint{Value: v, Status: "not measured"}
		if ok {
			p.RunID, p.Status, p.Reason = sp.RunID, sp.Status, sp.Reason
		}
		if p.RunID != "" {
			if runs[i], err = p.fill(ctx, st); err != nil {
				return nil, err
			}
		}
		res.Points = append(res.Points, p)
	}
	res.Figure, res.Rate = sweepFigure(runs), sweepRate(runs)
	res.KneeRule = KneeRuleOf(res.Figure)
	res.Knee, res.KneeFound, res.KneeNote = kneeJudged(res.Points, threshold, meritName(res.Figure))
	if sw.Kind == "cpus" {
		res.DriverShare = markDriverShares(sw.Values, res.Points, runs)
	}
	return res, nil
}

// fill takes the point's figures from its run's peak step (highest NOPM)
// as analysis.Aggregate computes them, and returns the run (an empty one
// when it was deleted since).
func (p *SweepPoint) fill(ctx context.Context, st *store.Store) (*store.Run, error) {
	run, steps, err := st.LoadRun(ctx, p.RunID)
	if errors.Is(err, store.ErrNotFound) {
		p.RunID = "" // deleted since
		return &store.Run{}, nil
	}
	if err != nil {
		return nil, err
	}
	aggs := analysis.Aggregate(steps)
	best := -1
	for i, a := range aggs {
		if best < 0 || a.NOPM.Mean > aggs[best].NOPM.Mean {
			best = i
		}
	}
	if best < 0 {
		return run, nil
	}
	a := aggs[best]
	p.Users, p.TPM, p.NOPM = a.Users, a.TPM.Mean, a.NOPM.Mean
	p.NOPMHalf = pointHalf(a)
	p.BlocksReadPerTxn, p.DiskReadMBps = a.BlocksReadPerTxn, a.Host.DiskReadMBps
	if x := RunMerit(run).Of(a.Txn); x != nil {
		p.NewOrderP90Ms, p.NewOrderP99Ms = x.P90Ms, x.P99Ms
	}
	return run, nil
}

// completePositions are the positions of a sweep's (or scenario's) points
// stored complete: what --resume does not measure again.
func completePositions(sw *store.Sweep) map[int]bool {
	done := map[int]bool{}
	for _, p := range sw.Points {
		if p.Status == store.StatusComplete {
			done[p.Position] = true
		}
	}
	return done
}
