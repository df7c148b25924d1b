// Package study runs a whole study plan (package plan): every
// configuration measured by package execute with the study's policy (built
// once per engine, version and data directory, then restored; a run stored
// complete kept), probed and measured with the autopilot, the sweeps, the
// right-size search, and the cost model linked to the runs, all stored in
// one results store. A rerun skips what the store already holds for the
// plan and says so. The caller writes the report from the Result.
package study

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/rightsize/rightsize/analysis"
	"github.com/rightsize/rightsize/caps"
	"github.com/rightsize/rightsize/cost"
	"github.com/rightsize/rightsize/driver"
	"github.com/rightsize/rightsize/execute"
	"github.com/rightsize/rightsize/fit"
	"github.com/rightsize/rightsize/instance"
	"github.com/rightsize/rightsize/internal/units"
	"github.com/rightsize/rightsize/internal/yamlfile"
	"github.com/rightsize/rightsize/plan"
	"github.com/rightsize/rightsize/probe/backup"
	"github.com/rightsize/rightsize/registry"
	"github.com/rightsize/rightsize/scenario"
	"github.com/rightsize/rightsize/steady"
	"github.com/rightsize/rightsize/store"
)

// Prober probes a configuration's storage (the command implements it with
// the storage probe): path is the data directory, ioLimit the
// configuration's --io-limit ("" for none); it returns the stored probe's id.
type Prober interface {
	ProbeStorage(ctx context.Context, path, ioLimit, label string, sp plan.StorageProbe) (string, error)
}

// Options are what the runner needs besides the plan.
type Options struct {
	// Prober runs the plan's storage probe (nil: the probe is skipped, said so).
	Prober Prober
	// Out gets the progress lines.
	Out io.Writer
	// Version and Commit are recorded with every run.
	Version, Commit string
	// OnRun, when set, is applied to each run's options (live progress).
	OnRun func(o *scenario.RunOptions)
}

// Result is what a study stored: per configuration its run, the sweeps,
// the fit and the evaluated cost model.
type Result struct {
	Runs   map[string]string // configuration name -> run id
	Order  []string          // configuration names in plan order
	Probes []string          // probe ids
	Sweeps []string          // sweep ids
	Fit    string            // fit id ("" without one)
	Cost   *cost.Result
	// Skipped says what a rerun found already stored, or what this build
	// does not run.
	Skipped []string
}

// Run runs the plan p, storing into st.
func Run(ctx context.Context, st *store.Store, p *plan.Plan, o Options) (*Result, error) {
	r := &runner{st: st, p: p, o: o, res: &Result{Runs: map[string]string{}}, start: time.Now(), left: p.Estimate().Total}
	if r.o.Out == nil {
		r.o.Out = io.Discard
	}
	steps := []func(context.Context) error{r.checkCaps, r.configurations, r.sweeps, r.neighbour, r.fit, r.cost}
	for _, step := range steps {
		if err := step(ctx); err != nil {
			return r.res, err
		}
		if ctx.Err() != nil {
			return r.res, ctx.Err()
		}
	}
	return r.res, nil
}

type runner struct {
	st    *store.Store
	p     *plan.Plan
	o     Options
	res   *Result
	start time.Time
	left  time.Duration // estimated time left from the plan's durations
}

func (r *runner) say(format string, a ...any) {
	fmt.Fprintf(r.o.Out, format+"\n", a...)
}

// spent counts planned time as done and says what is left.
func (r *runner) spent(d time.Duration) {
	r.left = max(0, r.left-d)
}

func (r *runner) eta() string {
	return fmt.Sprintf("%s elapsed, about %s of measuring left", time.Since(r.start).Round(time.Second), r.left.Round(time.Second))
}

// label is the run label of a configuration: PLAN/CONFIGURATION.
func (r *runner) label(name string) string { return r.p.Name + "/" + name }

// checkCaps makes sure before anything is measured that every managed
// configuration's caps can be applied here (registry.CheckCaps: a group with
// its limits made where its server's would go, read back, removed).
func (r *runner) checkCaps(ctx context.Context) error {
	for i := range r.p.Configurations {
		c := &r.p.Configurations[i]
		if !c.Managed() {
			continue
		}
		spec, opt, err := TargetOptions(r.p, c)
		if err == nil {
			err = registry.CheckCaps(spec, opt)
		}
		if err != nil {
			return fmt.Errorf("configuration %s: %w", c.Name, err)
		}
	}
	return nil
}

// configurations measures every configuration not yet stored complete.
func (r *runner) configurations(ctx context.Context) error {
	n := len(r.p.Configurations)
	for i := range r.p.Configurations {
		c := &r.p.Configurations[i]
		r.res.Order = append(r.res.Order, c.Name)
		cfg, err := r.configOf(c)
		if err != nil {
			return fmt.Errorf("configuration %s: %w", c.Name, err)
		}
		res, err := execute.Run(ctx, r.st, cfg, r.policy(c, i, n))
		if res.Kept != "" {
			r.res.Runs[c.Name] = res.Kept
			r.res.Skipped = append(r.res.Skipped, fmt.Sprintf("configuration %s: run %s already stored", c.Name, res.Kept))
			r.say("configuration %d of %d, %s: already stored as run %s, skipped", i+1, n, c.Name, res.Kept)
			r.spent(r.p.Autopilot.RunDuration())
			continue
		}
		if err != nil {
			return fmt.Errorf("configuration %s: %w", c.Name, err)
		}
		r.res.Runs[c.Name] = res.RunID()
	}
	return nil
}

// configOf is configuration c as package execute measures it: its target,
// the plan's database and autopilot, labelled PLAN/CONFIGURATION.
func (r *runner) configOf(c *plan.Configuration) (execute.Config, error) {
	spec, opt, err := TargetOptions(r.p, c)
	if err != nil {
		return execute.Config{}, err
	}
	b := r.p.Build
	return execute.Config{Name: c.Name, Spec: spec, Target: opt, Run: r.baseRunOptions(c.Name),
		Build: execute.Build{Warehouses: b.Warehouses, Seed: b.Seed, Loaders: b.Loaders, Tables: b.Kind(), Scale: b.Scale, Layout: b.Layout(), Init: r.p.InitPath()}}, nil
}

// built is the study's policy for a configuration's database: built where
// missing (in the study's own data directories), restored before use.
func (r *runner) built(c *plan.Configuration) execute.Policy {
	return execute.Policy{BuildMissing: true, MakeDataDir: c.Managed(), Out: r.o.Out}
}

// policy is the study's policy for configuration i of n: a complete run
// of its label kept, the database built or restored, the storage probe
// and the live progress before the run, the backups after it.
func (r *runner) policy(c *plan.Configuration, i, n int) execute.Policy {
	p := r.built(c)
	p.SkipStored = true
	p.Opening = func() { r.say("configuration %d of %d, %s (%s)", i+1, n, c.Name, r.eta()) }
	p.Ready = func(ctx context.Context, t *registry.Target, o *scenario.RunOptions) (func(), error) {
		if c.Managed() {
			r.probe(ctx, t, c)
		}
		r.progress(o)
		return nil, nil
	}
	p.Measured = func(ctx context.Context, t *registry.Target, res *scenario.Result, err error) error {
		r.spent(r.p.Autopilot.RunDuration())
		if res != nil && err == nil && c.Managed() {
			r.backups(ctx, t, c)
		}
		return err
	}
	return p
}

// backups times the plan's backup and restore cycles of c's database
// (the backup probe), stored as a probe labelled PLAN/CONFIGURATION backup.
func (r *runner) backups(ctx context.Context, t *registry.Target, c *plan.Configuration) {
	b := r.p.Backups
	if b == nil {
		return
	}
	r.say("  %s: %d backup cycles every %s", c.Name, max(b.Cycles, 1), b.EveryValue())
	spec, err := t.BackupSpec(ctx)
	if err == nil {
		var res backup.Result
		res, err = backup.Run(ctx, spec, backup.Options{Cycles: b.Cycles, Every: b.EveryValue()}, nil)
		if len(res.Cycles) > 0 {
			raw, jerr := json.Marshal(res)
			if jerr == nil {
				p := &store.Probe{Kind: store.ProbeBackup, Label: r.label(c.Name) + " backup", Host: res.Host, Result: raw}
				if aerr := r.st.AddProbe(context.WithoutCancel(ctx), p); aerr == nil {
					r.res.Probes = append(r.res.Probes, p.ID)
				}
			}
		}
	}
	r.spent(time.Duration(b.Cycles) * b.EveryValue())
	if err != nil {
		r.say("  %s: backups failed: %v", c.Name, err)
		r.res.Skipped = append(r.res.Skipped, fmt.Sprintf("%s: backups failed: %v", c.Name, err))
	}
}

// TargetOptions returns the target spec and options of configuration c.
func TargetOptions(p *plan.Plan, c *plan.Configuration) (string, registry.Options, error) {
	if !c.Managed() {
		spec, err := externalDSN(c)
		return spec, registry.Options{CreateDB: true, PoolSize: runtime.NumCPU() + 1}, err
	}
	e, spec, ok := registry.ManagedNamed(c.Engine)
	if !ok {
		e, spec, _ = registry.ManagedNamed(registry.ManagedNames()[0])
	}
	versions := e.Managed.Versions
	opt := registry.Options{CreateDB: true, PoolSize: runtime.NumCPU() + 1, Settings: c.Settings, DataDir: c.DataDir, PGBin: c.PGBin}
	opt.Connections = driver.PeakConnections(p.Autopilot.UsersList(), p.Autopilot.Connections)
	if versions != nil && c.PGBin == "" {
		opt.PGVersion = c.Version
	}
	if opt.DataDir == "" {
		opt.DataDir = studyDataDir(p.Name, c, versions, buildTag(p))
	}
	var err error
	if opt.Caps.BestEffort, err = caps.ParseMode(c.Caps); err != nil {
		return spec, opt, err
	}
	opt.Caps.DriverCPUs, opt.Caps.CgroupParent = c.DriverCPUs, c.CgroupParent
	if c.Cpus > 0 {
		opt.Caps.CPUs = c.Cpus
	}
	if c.Memory != "" {
		if opt.Caps.Memory, err = units.ParseSize(c.Memory); err != nil {
			return spec, opt, err
		}
	}
	if c.IO != "" && c.IO != "none" {
		if opt.Caps.IO, err = caps.ParseIOLimit(c.IO); err != nil {
			return spec, opt, err
		}
	}
	opt.Caps.WALDir = c.WALDir
	return spec, opt, nil
}

// buildTag names what the plan builds for its data directories:
// plan.BuildTPCC, plan.BuildTPCB, or for an init file its kind and the
// hash of the file's text (a changed init file is built again, in a
// directory of its own).
func buildTag(p *plan.Plan) string {
	kind := p.Build.Kind()
	if kind != plan.BuildInit {
		return kind
	}
	h := fnv.New32a()
	if b, err := os.ReadFile(p.InitPath()); err == nil {
		h.Write(b)
	}
	return fmt.Sprintf("%s%08x", kind, h.Sum32())
}

// studyDataDir is the data directory of a managed configuration without
// data_dir: one per study, engine and version (or installed binaries), so
// configurations that share them share one build; a pgbench workload's
// build (tables: plan.BuildTPCB ...) has its own, apart from TPC-C's.
func studyDataDir(study string, c *plan.Configuration, versions *registry.Versions, tables string) string {
	v := c.Version
	if v == "" && versions != nil {
		v = versions.Default
	}
	if c.PGBin != "" {
		h := fnv.New32a()
		h.Write([]byte(c.PGBin))
		v = fmt.Sprintf("-bin%08x", h.Sum32())
	}
	if tables != "" && tables != plan.BuildTPCC {
		v += "-" + tables
	}
	return filepath.Join(instance.DefaultBaseDir(), "data", fmt.Sprintf("study-%s-%s%s", safeName(study), c.Engine, v))
}

func safeName(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' {
			return r
		}
		return '_'
	}, s)
}

// externalDSN puts the password from the configuration's environment
// variable into its DSN.
func externalDSN(c *plan.Configuration) (string, error) {
	if c.PasswordEnv == "" {
		return c.Target, nil
	}
	pw, ok := os.LookupEnv(c.PasswordEnv)
	if !ok {
		return "", fmt.Errorf("the environment variable %s (password_env) is not set", c.PasswordEnv)
	}
	u, err := url.Parse(c.Target)
	if err != nil || u.User == nil {
		return "", fmt.Errorf("target %q: name the user (scheme://user@host/...) for the password in %s", c.Target, c.PasswordEnv)
	}
	u.User = url.UserPassword(u.User.Username(), pw)
	return u.String(), nil
}

// builtReady is the study's policy for a sweep, the fit or the neighbour
// over c: the database built or restored (r.built); *opened says the
// target opened with it ready (else the error is the opening's), and then
// ready is called with the run options.
func (r *runner) builtReady(c *plan.Configuration, opened *bool, ready func(o *scenario.RunOptions)) execute.Policy {
	p := r.built(c)
	p.Ready = func(_ context.Context, _ *registry.Target, o *scenario.RunOptions) (func(), error) {
		*opened = true
		ready(o)
		return nil, nil
	}
	return p
}

// progress gives o the live progress (Options.OnRun).
func (r *runner) progress(o *scenario.RunOptions) {
	if r.o.OnRun != nil {
		r.o.OnRun(o)
	}
}

// probe runs the plan's storage probe in c's data directory, inside c's
// I/O limit.
func (r *runner) probe(ctx context.Context, t *registry.Target, c *plan.Configuration) {
	if r.p.Probe == nil || r.p.Probe.Storage == nil {
		return
	}
	sp := *r.p.Probe.Storage
	if r.o.Prober == nil {
		r.res.Skipped = append(r.res.Skipped, c.Name+": storage probe (no prober)")
		return
	}
	dir := filepath.Dir(t.Server.DataDir())
	io := c.IO
	if io == "none" {
		io = ""
	}
	id, err := r.o.Prober.ProbeStorage(ctx, dir, io, r.label(c.Name), sp)
	if err != nil {
		r.say("  %s: storage probe failed: %v", c.Name, err)
		r.res.Skipped = append(r.res.Skipped, fmt.Sprintf("%s: storage probe failed: %v", c.Name, err))
		return
	}
	r.res.Probes = append(r.res.Probes, id)
	r.say("  %s: storage probed (probe %s)", c.Name, id)
}

// runOptions are the autopilot of the plan for configuration name, with
// the live progress.
func (r *runner) runOptions(name string) (scenario.RunOptions, error) {
	ro := r.baseRunOptions(name)
	if r.o.OnRun != nil {
		r.o.OnRun(&ro)
	}
	return ro, nil
}

// baseRunOptions are the autopilot of the plan for configuration name,
// labelled PLAN/CONFIGURATION, the study recorded as its flags.
func (r *runner) baseRunOptions(name string) scenario.RunOptions {
	ro := r.p.Autopilot.RunOptions()
	ro.Warehouses, ro.Label, ro.Version, ro.Commit = r.p.Build.Warehouses, r.label(name), r.o.Version, r.o.Commit
	ro.Flags = map[string]string{"study": r.p.Name, "study.configuration": name}
	return ro
}

// fixedLengths turns the time-to-answer rules off (the neighbour's phases
// have their own fixed lengths; one repeat when the plan left repeats out).
func fixedLengths(ro *scenario.RunOptions) {
	if ro.RepeatAuto {
		ro.Repeats = 1
	}
	ro.Answer, ro.RepeatAuto = steady.Plan{}, false
}

func (r *runner) config(name string) *plan.Configuration {
	for i := range r.p.Configurations {
		if r.p.Configurations[i].Name == name {
			return &r.p.Configurations[i]
		}
	}
	return nil
}

// sweeps runs the plan's sweeps (a complete sweep of the same label is
// kept; a partial one is resumed).
func (r *runner) sweeps(ctx context.Context) error {
	for i, s := range r.p.Sweeps {
		label := fmt.Sprintf("%s/sweep-%s-%s", r.p.Name, s.Kind, s.Configuration)
		so := scenario.SweepOptions{Kind: s.Kind, Label: label, KneeThreshold: 0.10}
		if v, err := units.ParseShare(s.KneeThreshold); err == nil { // validated with the plan; "" is 10 %
			so.KneeThreshold = v / 100
		}
		for _, v := range s.Values {
			so.Values = append(so.Values, v.Value)
		}
		if sw, err := r.st.LoadSweep(ctx, label); err == nil {
			if sw.Status == store.StatusComplete {
				r.res.Sweeps = append(r.res.Sweeps, sw.ID)
				r.res.Skipped = append(r.res.Skipped, fmt.Sprintf("sweep %s: already stored as %s", label, sw.ID))
				r.say("sweep %d of %d, %s: already stored as %s, skipped", i+1, len(r.p.Sweeps), label, sw.ID)
				continue
			}
			so.Resume, so.Values = sw.ID, nil
		}
		r.say("sweep %d of %d: %s of %s over %s (%s)", i+1, len(r.p.Sweeps), s.Kind, s.Configuration, strings.Join(so.Values, ", "), r.eta())
		c, opened := r.config(s.Configuration), false
		cfg, err := r.configOf(c)
		if err != nil {
			return err
		}
		so.OnValue = func(_ int, v string) { r.say("  %s = %s", s.Kind, v) }
		res, err := execute.Sweep(ctx, r.st, cfg, so, r.builtReady(c, &opened, r.progress))
		if !opened {
			return err // the target did not open, or its database is not ready
		}
		r.spent(time.Duration(len(s.Values)) * r.p.Autopilot.RunDuration())
		if res != nil {
			r.res.Sweeps = append(r.res.Sweeps, res.ID)
		}
		if err != nil {
			return fmt.Errorf("sweep %s: %w", label, err)
		}
	}
	return nil
}

// neighbour runs the plan's noisy-neighbour scenario over copies of its
// configuration's build (kept when stored complete, else run again).
func (r *runner) neighbour(ctx context.Context) error {
	n := r.p.Neighbour
	if n == nil {
		return nil
	}
	label := r.p.Name + "/neighbour"
	if sw, err := r.st.LoadSweep(ctx, label); err == nil && sw.Status == store.StatusComplete {
		r.res.Sweeps = append(r.res.Sweeps, sw.ID)
		r.res.Skipped = append(r.res.Skipped, "neighbour: already stored as "+sw.ID)
		r.say("neighbour: already stored as %s, skipped", sw.ID)
		return nil
	}
	c, opened := r.config(n.Configuration), false
	cfg, err := r.configOf(c)
	if err != nil {
		return err
	}
	// the live progress given before the neighbour's own users and lengths, as it always was
	ro, _ := r.runOptions(c.Name)
	ro.Users = []int{n.Users}
	ro.Rampup, ro.Duration = n.Timing()
	fixedLengths(&ro)
	ro.Label = label
	cfg.Run = ro
	cycles := max(n.BackupCycles, 1)
	o := scenario.NeighbourOptions{Instances: n.Instances, BackupInstances: n.BackupInstances, BackupEvery: n.EveryValue(),
		BackupCycles: cycles, Label: label, OnEvent: func(e string) { r.say("  %s", e) }}
	res, err := execute.Neighbour(ctx, r.st, cfg, o, r.builtReady(c, &opened, func(*scenario.RunOptions) {
		r.say("neighbour: %d instances of %s, %d with backups (%s)", n.Instances, c.Name, n.BackupInstances, r.eta())
	}))
	if !opened {
		return err // the target did not open, or its database is not ready
	}
	if res != nil {
		r.res.Sweeps = append(r.res.Sweeps, res.ID)
	}
	if err != nil {
		return fmt.Errorf("neighbour: %w", err)
	}
	return nil
}

// fit runs the plan's right-size search.
func (r *runner) fit(ctx context.Context) error {
	f := r.p.Fit
	if f == nil {
		return nil
	}
	label := r.p.Name + "/fit"
	fo := scenario.FitOptions{Label: label}
	if sw, err := r.st.LoadSweep(ctx, label); err == nil {
		if sw.Status == store.StatusComplete {
			r.res.Fit = sw.ID
			r.res.Skipped = append(r.res.Skipped, "fit: already stored as "+sw.ID)
			r.say("fit: already stored as %s, skipped", sw.ID)
			return nil
		}
		fo.Resume = sw.ID
	} else if err := r.fitCandidates(ctx, f, &fo); err != nil {
		return err
	}
	c, opened := r.config(f.Configuration), false
	cfg, err := r.configOf(c)
	if err != nil {
		return err
	}
	// the live progress given before the fit's own users, as it always was
	cfg.Run, _ = r.runOptions(c.Name)
	cfg.Run.Label = label
	fo.MeasureAll = f.MeasureAll
	if fo.From, err = r.fitFrom(ctx, f.From); err != nil {
		return err
	}
	if u := f.UsersList(); len(u) > 0 {
		cfg.Run.Users = u
	}
	fo.OnCandidate = func(p fit.Priced) {
		r.say("  fit candidate %s (%s %s)", p.Candidate, fo.Currency, p.Cost.Total.Cents())
	}
	res, err := execute.Fit(ctx, r.st, cfg, fo, r.builtReady(c, &opened, func(*scenario.RunOptions) {
		r.say("fit: %d candidates of %s (%s)", len(fo.Candidates), c.Name, r.eta())
	}))
	if !opened {
		return err // the target did not open, or its database is not ready
	}
	if res != nil {
		r.res.Fit = res.ID
		r.say("fit: %s", res.Result.Answer(res.Currency, nil))
	}
	if err != nil && !errors.Is(err, fit.ErrNoFit) {
		return fmt.Errorf("fit: %w", err)
	}
	return nil
}

// fitFrom resolves the fit's from (a configuration of this plan, or a
// stored run's id or label) to a run id ("" without it).
func (r *runner) fitFrom(ctx context.Context, from string) (string, error) {
	if from == "" {
		return "", nil
	}
	if id, ok := r.res.Runs[from]; ok {
		return id, nil
	}
	id, err := r.st.Resolve(ctx, from)
	if err != nil {
		return "", fmt.Errorf("fit from %s: %w", from, err)
	}
	return id, nil
}

// fitCandidates prices the plan's fit candidates and sets its criteria.
func (r *runner) fitCandidates(ctx context.Context, f *plan.Fit, fo *scenario.FitOptions) error {
	model := r.p.CostModel
	if model == nil {
		return errors.New("fit: the plan names no cost file")
	}
	base := model.Find(f.Cost)
	if base == nil {
		return fmt.Errorf("fit: cost config %q not in %s", f.Cost, r.p.CostPath())
	}
	var cpus []float64
	for _, s := range f.Cpus {
		n, err := caps.ParseCPUs(s.Value, runtime.NumCPU())
		if err != nil {
			return fmt.Errorf("fit: %w", err)
		}
		cpus = append(cpus, n)
	}
	var mem []int64
	for _, s := range f.Memory {
		n, err := units.ParseSize(s.Value)
		if err != nil {
			return fmt.Errorf("fit: %w", err)
		}
		mem = append(mem, n)
	}
	strs := func(l []yamlfile.Str) []string {
		var out []string
		for _, s := range l {
			out = append(out, s.Value)
		}
		return out
	}
	fo.Candidates = fit.Price(*base, model.Years, fit.Enumerate(cpus, mem, strs(f.IO), strs(f.Versions)))
	fo.Currency = model.Currency
	cr, err := r.criteria(ctx, f)
	fo.Criteria = cr
	return err
}

func (r *runner) criteria(ctx context.Context, f *plan.Fit) (fit.Criteria, error) {
	// validated with the plan; "" is range, peak and no headroom
	cr := fit.Criteria{MaxP90Ms: f.MaxP90Ms, Runs: cmp.Or(f.Runs, fit.DefaultRuns)}
	cr.Mean, _ = scenario.ParseConfidence(cmp.Or(f.Confidence, "range"))
	cr.AtUsers, _ = scenario.ParseAt(cmp.Or(f.At, "peak"))
	head, _ := scenario.ParseHeadroom(cmp.Or(f.Headroom, "0"))
	if r.p.Autopilot.WorkloadOf() != nil { // judged on its figure of merit, per minute, as fit --target-tps
		cr.Merit = &store.Merit{Txn: r.p.Autopilot.Figure, PerMinute: "TPM"}
		cr.TargetNOPM = fit.Target(f.TargetTPS*60, head)
		return cr, nil
	}
	base, from, err := scenario.ParseTargetNOPM(f.TargetNOPM)
	if err != nil {
		return cr, fmt.Errorf("fit target_nopm: %w", err)
	}
	if from != "" {
		key := from
		if id, ok := r.res.Runs[from]; ok {
			key = id // a configuration of this plan
		}
		id, err := r.st.Resolve(ctx, key)
		if err != nil {
			return cr, fmt.Errorf("fit target_nopm from:%s: %w", from, err)
		}
		_, steps, err := r.st.LoadRun(ctx, id)
		if err != nil {
			return cr, err
		}
		if base, err = fit.TargetFrom(analysis.Aggregate(steps), cr.AtUsers); err != nil {
			return cr, err
		}
	}
	cr.TargetNOPM = fit.Target(base, head)
	return cr, nil
}

// cost evaluates the plan's cost model with each configuration's run
// linked to the cost config it names.
func (r *runner) cost(ctx context.Context) error {
	model := r.p.CostModel
	if model == nil {
		return nil
	}
	linked := *model
	linked.Configs = append([]cost.Config(nil), model.Configs...)
	for _, c := range r.p.Configurations {
		if c.Cost == "" {
			continue
		}
		for i := range linked.Configs {
			if linked.Configs[i].Name == c.Cost && r.res.Runs[c.Name] != "" {
				linked.Configs[i].Run = r.res.Runs[c.Name]
			}
		}
	}
	res, err := cost.Evaluate(ctx, &linked, r.st)
	if err != nil {
		return fmt.Errorf("cost: %w", err)
	}
	r.res.Cost = res
	return nil
}
