package scenario

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/rightsize/rightsize/caps"
	"github.com/rightsize/rightsize/cgroup"
	"github.com/rightsize/rightsize/driver"
	"github.com/rightsize/rightsize/instance"
	"github.com/rightsize/rightsize/probe/backup"
	"github.com/rightsize/rightsize/probe/result"
	"github.com/rightsize/rightsize/registry"
	"github.com/rightsize/rightsize/store"
)

// NeighbourKind is the store.Sweep kind of a noisy-neighbour scenario: its
// values are "n<instance> <phase>", one run each.
const NeighbourKind = "neighbour"

// NeighbourOptions describe a noisy-neighbour scenario (study B test 5):
// Instances managed servers of one engine on the same storage, each with
// its own copy of one build, all driven at once; phase "baseline" without
// backups, then phase "backup" with the backup probe looping on the first
// BackupInstances of them while all keep their load.
type NeighbourOptions struct {
	Instances       int
	BackupInstances int
	BackupEvery     time.Duration
	BackupCycles    int
	BackupBinDir    string // PostgreSQL binaries for pg_basebackup (--pg-bin)
	Label           string
	// Run is every instance's run in each phase (Users, Rampup, Duration ...).
	Run RunOptions
	// Resume continues the scenario with this id or label: the instances,
	// backup settings, users, ramp-up and duration are the stored ones,
	// and only the runs not stored complete are measured.
	Resume string
	// OnEvent, when set, is told what happens (clones, starts, phases).
	OnEvent func(string)
}

// NeighbourBackup is one instance's backup loop in the backup phase.
type NeighbourBackup struct {
	Instance int                  `json:"instance"`
	ProbeID  string               `json:"probe_id,omitempty"`
	Cycles   []result.BackupCycle `json:"cycles"`
	Error    string               `json:"error,omitempty"`
}

// NeighbourResult is a finished (or interrupted) scenario.
type NeighbourResult struct {
	ID     string       `json:"scenario_id"`
	Label  string       `json:"label,omitempty"`
	Status string       `json:"status"`
	Points []SweepPoint `json:"runs"` // value "n1 baseline" ...
	// Cores says how --cpus was given out: each instance its own cores,
	// or shared ("" without --cpus).
	Cores   string            `json:"cores,omitempty"`
	Backups []NeighbourBackup `json:"backups"`
	// Workload names a pgbench workload's scripts ("tpcb: tpcb-like@1";
	// "" for TPC-C) and Figure its figure of merit, which the points'
	// NOPM and New-Order latencies then hold (SweepResult.Figure).
	Workload string `json:"workload,omitempty"`
	Figure   string `json:"figure,omitempty"`
}

// neighbourPhases are the scenario's phases in order.
var neighbourPhases = []string{"baseline", "backup"}

// Validate checks the options before anything starts.
func (o *NeighbourOptions) Validate() error {
	if o.Instances < 1 {
		return bad("--instances must be at least 1 (got %d)", o.Instances)
	}
	if o.BackupInstances < 0 || o.BackupInstances > o.Instances {
		return bad("--backup-instances must be between 0 and --instances %d (got %d)", o.Instances, o.BackupInstances)
	}
	if o.BackupCycles < 1 || o.BackupEvery < 0 {
		return bad("--backup-cycles must be at least 1 and --backup-every not negative")
	}
	if len(o.Run.Users) != 1 {
		return bad("--users: the neighbour scenario drives every instance with one number of users (got %v)", o.Run.Users)
	}
	return o.Run.Validate()
}

// InstanceCores gives out --cpus to n instances on a machine of ncpu
// cores. When n × ceil(cpus) cores fit, each instance gets cores of its
// own: instance i (0-based) the next ceil(cpus) from the highest down,
// and the driver the cores left (all of them when none is left). When
// they do not fit, every instance gets the same highest cores (as one
// server would) and note says they share them. cpus 0: no cores, no note.
func InstanceCores(n int, cpus float64, ncpu int) (cores [][]int, driver []int, note string) {
	if cpus <= 0 || n < 1 {
		return nil, nil, ""
	}
	whole := caps.WholeCores(cpus)
	if n*whole > ncpu {
		shared := span(ncpu-whole, ncpu)
		for range n {
			cores = append(cores, shared)
		}
		return cores, nil, fmt.Sprintf("--cpus %g for %d instances needs %d cores and this machine has %d: the instances share cores %s",
			cpus, n, n*whole, ncpu, cgroup.FormatCPUList(shared))
	}
	var parts []string
	for i := range n {
		own := span(ncpu-(i+1)*whole, ncpu-i*whole)
		cores = append(cores, own)
		parts = append(parts, fmt.Sprintf("n%d %s", i+1, cgroup.FormatCPUList(own)))
	}
	note = "each instance has cores of its own: " + strings.Join(parts, ", ")
	if left := ncpu - n*whole; left > 0 {
		driver = span(0, left)
		return cores, driver, note + "; the driver " + cgroup.FormatCPUList(driver)
	}
	return cores, span(0, ncpu), note + "; the driver shares them (no core left)"
}

// span is the cores lo..hi−1.
func span(lo, hi int) []int {
	out := make([]int, 0, max(hi-lo, 0))
	for c := lo; c < hi; c++ {
		out = append(out, c)
	}
	return out
}

// RunNeighbour runs the scenario over copies of the build that spec and
// base open (the managed server's data directory, copied once per
// instance next to it and removed at the end). Every server and its cgroup
// are stopped when it returns, also after Ctrl-C (what was measured is
// kept, the scenario marked partial); o.Resume continues such a scenario.
func RunNeighbour(ctx context.Context, st *store.Store, spec string, base registry.Options, o NeighbourOptions) (*NeighbourResult, error) {
	bg := context.WithoutCancel(ctx)
	sw, err := resumeNeighbour(ctx, st, &o)
	if err != nil {
		return nil, err
	}
	if err := o.Validate(); err != nil {
		return nil, err
	}
	if base.Caps.WALDir != "" {
		return nil, bad("--wal-dir: the neighbour scenario copies each instance's data directory, and the copies cannot share one WAL directory")
	}
	if err := registry.CheckCaps(spec, base); err != nil {
		return nil, badOptions{err}
	}
	event := func(f string, a ...any) {
		if o.OnEvent != nil {
			o.OnEvent(fmt.Sprintf(f, a...))
		}
	}
	if sw != nil {
		complete := len(completePositions(sw))
		event("resuming %s: %d of %d runs stored complete", sw.ID, complete, len(sw.Values))
		if complete == len(sw.Values) {
			// no server starts, so nothing else reclaims what a rightsize
			// killed after its last run (stopping its servers) left
			instance.Reclaim(eventWriter(event))
			return finishNeighbour(ctx, st, sw, nil)
		}
	}
	cores, driver, coresNote := InstanceCores(o.Instances, base.Caps.CPUs, runtime.NumCPU())
	if coresNote != "" {
		event("cores: %s", coresNote)
	}
	dirs, err := cloneBuild(ctx, spec, base, o.Instances, o.Run.Workload, event)
	defer func() {
		for _, d := range dirs {
			_ = os.RemoveAll(d)
		}
	}()
	if err != nil {
		return nil, err
	}
	targets, err := startInstances(ctx, spec, base, dirs, cores, driver, event)
	defer func() { // in reverse: each restores the driver's affinity it found
		for _, t := range slices.Backward(targets) {
			_ = t.Close()
		}
	}()
	if err != nil {
		return nil, err
	}
	if sw == nil {
		if sw, err = createNeighbour(bg, st, o, coresNote); err != nil {
			return nil, err
		}
	}
	backups, err := runPhases(ctx, st, targets, sw, o, event)
	if err != nil {
		return nil, err
	}
	return finishNeighbour(ctx, st, sw, backups)
}

// startInstances starts one server per copy, instance i on cores[i] when
// cores are given out (the driver on driver); it returns those started
// (the caller closes them, also on error).
func startInstances(ctx context.Context, spec string, base registry.Options, dirs []string, cores [][]int, driver []int,
	event func(string, ...any)) ([]*registry.Target, error) {
	var targets []*registry.Target
	for i, d := range dirs {
		opt := base
		opt.DataDir = d
		if cores != nil {
			opt.Caps.Cores = cores[i]
			if opt.Caps.DriverCPUs == "" && driver != nil {
				opt.Caps.DriverCPUs = cgroup.FormatCPUList(driver)
			}
		}
		t, err := registry.Open(ctx, spec, opt)
		if err != nil {
			return targets, fmt.Errorf("start instance %d: %w", i+1, err)
		}
		targets = append(targets, t)
		event("instance n%d: %s on %s", i+1, t.Name, d)
		if r, ok := t.CapsReport(); ok {
			event("instance n%d caps: %s", i+1, r.Summary())
		}
	}
	return targets, nil
}

// runPhases runs each phase for the instances whose run of that phase is
// not stored complete, storing each run's point; it returns the backup
// loops it ran.
func runPhases(ctx context.Context, st *store.Store, targets []*registry.Target, sw *store.Sweep, o NeighbourOptions,
	event func(string, ...any)) ([]NeighbourBackup, error) {
	done := completePositions(sw)
	var backups []NeighbourBackup
	for p, phase := range neighbourPhases {
		var drive []int
		for i := range targets {
			if !done[p*len(targets)+i] {
				drive = append(drive, i)
			}
		}
		if ctx.Err() != nil || len(drive) == 0 {
			continue
		}
		nb := 0
		if phase == "backup" {
			nb = o.BackupInstances
		}
		event("phase %s: %d instances under load, backups on %d", phase, len(drive), nb)
		if len(drive) < len(targets) {
			event("phase %s: %d instances' runs are kept complete from before and not measured again; the others run with fewer neighbours under load", phase, len(targets)-len(drive))
		}
		points, bk := runPhase(ctx, st, targets, sw, p*len(targets), phase, drive, nb, o)
		for _, pt := range points {
			if err := st.SetSweepPoint(context.WithoutCancel(ctx), sw.ID, pt); err != nil {
				return backups, err
			}
		}
		backups = append(backups, bk...)
	}
	return backups, nil
}

// resumeNeighbour loads the scenario o.Resume names and takes its
// instances, backup settings and run shape into o (nil without Resume).
func resumeNeighbour(ctx context.Context, st *store.Store, o *NeighbourOptions) (*store.Sweep, error) {
	if o.Resume == "" {
		return nil, nil
	}
	sw, err := st.LoadSweep(ctx, o.Resume)
	if err != nil {
		return nil, badOptions{fmt.Errorf("--resume: %w", err)}
	}
	if sw.Kind != NeighbourKind {
		return nil, bad("--resume %s: that is a %s sweep, not a neighbour scenario; continue it with rightsize sweep %s --resume %s", o.Resume, sw.Kind, sw.Kind, o.Resume)
	}
	o.Label = sw.Label
	var errs []error
	atoi := func(k string, dst *int) {
		v, err := strconv.Atoi(sw.Spec[k])
		errs = append(errs, err)
		*dst = v
	}
	dur := func(k string, dst *time.Duration) {
		if s, ok := sw.Spec[k]; ok { // run shapes stored since --resume exists
			v, err := time.ParseDuration(s)
			errs = append(errs, err)
			*dst = v
		}
	}
	atoi("instances", &o.Instances)
	atoi("backup_instances", &o.BackupInstances)
	atoi("backup_cycles", &o.BackupCycles)
	dur("backup_every", &o.BackupEvery)
	dur("rampup", &o.Run.Rampup)
	dur("duration", &o.Run.Duration)
	if _, ok := sw.Spec["users"]; ok {
		o.Run.Users = []int{0}
		atoi("users", &o.Run.Users[0])
	}
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("--resume %s: the stored scenario's settings: %w", o.Resume, err)
	}
	if want, got := sw.Spec["workload"], describeWorkload(o.Run.Workload); want != got {
		return nil, bad("--resume %s: the scenario ran workload %q and this one is %q: give the scenario's --workload again", o.Resume, cmp.Or(want, "tpcc"), cmp.Or(got, "tpcc"))
	}
	if len(sw.Values) != 2*o.Instances {
		return nil, fmt.Errorf("--resume %s: %d runs stored for %d instances", o.Resume, len(sw.Values), o.Instances)
	}
	return sw, nil
}

// createNeighbour stores a new scenario with what --resume needs.
func createNeighbour(ctx context.Context, st *store.Store, o NeighbourOptions, coresNote string) (*store.Sweep, error) {
	sw := &store.Sweep{Label: o.Label, Kind: NeighbourKind, Spec: map[string]string{
		"instances": strconv.Itoa(o.Instances), "backup_instances": strconv.Itoa(o.BackupInstances),
		"backup_every": o.BackupEvery.String(), "backup_cycles": strconv.Itoa(o.BackupCycles),
		"users": strconv.Itoa(o.Run.Users[0]), "rampup": o.Run.Rampup.String(), "duration": o.Run.Duration.String()}}
	if coresNote != "" {
		sw.Spec["cores"] = coresNote
	}
	if w := describeWorkload(o.Run.Workload); w != "" {
		sw.Spec["workload"] = w
	}
	for _, phase := range neighbourPhases {
		for i := range o.Instances {
			sw.Values = append(sw.Values, fmt.Sprintf("n%d %s", i+1, phase))
		}
	}
	return sw, st.CreateSweep(ctx, sw)
}

// finishNeighbour marks the scenario complete, or partial when ctx was
// cancelled, and reads it back with every backup loop stored for it
// (this session's loops that stored nothing keep their error).
func finishNeighbour(ctx context.Context, st *store.Store, sw *store.Sweep, session []NeighbourBackup) (*NeighbourResult, error) {
	bg := context.WithoutCancel(ctx)
	status := store.StatusComplete
	if ctx.Err() != nil {
		status = store.StatusPartial
	}
	if err := st.FinishSweep(bg, sw.ID, status, time.Now().UTC()); err != nil {
		return nil, err
	}
	res, err := LoadNeighbour(bg, st, sw.ID)
	if err != nil {
		return nil, err
	}
	for _, b := range session {
		if b.ProbeID == "" {
			res.Backups = append(res.Backups, b)
		}
	}
	if status == store.StatusPartial {
		return res, fmt.Errorf("neighbour scenario interrupted: what was measured is stored as %s (partial); continue it with --resume %s", sw.ID, sw.ID)
	}
	return res, nil
}

// LoadNeighbour reads a stored scenario: its runs' figures and, per
// backed-up instance, the latest backup probe stored for it while the
// scenario ran (labelled "LABEL nN backup").
func LoadNeighbour(ctx context.Context, st *store.Store, idOrLabel string) (*NeighbourResult, error) {
	loaded, err := LoadSweepResult(ctx, st, idOrLabel, 0.1)
	if err != nil {
		return nil, err
	}
	sw, err := st.LoadSweep(ctx, loaded.ID)
	if err != nil {
		return nil, err
	}
	res := &NeighbourResult{ID: sw.ID, Label: sw.Label, Status: sw.Status, Points: loaded.Points, Cores: sw.Spec["cores"],
		Workload: sw.Spec["workload"], Figure: loaded.Figure}
	probes, err := st.ListProbes(ctx, store.ProbeBackup) // newest first
	if err != nil {
		return nil, err
	}
	n, _ := strconv.Atoi(sw.Spec["instances"])
	for i := 1; i <= n; i++ {
		want := backupLabel(sw, i)
		for _, p := range probes {
			if p.Label != want || p.CreatedAt.Before(sw.StartedAt) || (!sw.EndedAt.IsZero() && p.CreatedAt.After(sw.EndedAt)) {
				continue
			}
			var r result.Backup
			if err := json.Unmarshal(p.Result, &r); err != nil {
				return nil, fmt.Errorf("backup probe %s: %w", p.ID, err)
			}
			res.Backups = append(res.Backups, NeighbourBackup{Instance: i, ProbeID: p.ID, Cycles: r.Cycles})
			break
		}
	}
	return res, nil
}

// backupLabel is the label of instance n's backup probe.
func backupLabel(sw *store.Sweep, n int) string {
	return fmt.Sprintf("%s n%d backup", runLabel(sw), n)
}

// runLabel is the scenario's label, or one made of its id.
func runLabel(sw *store.Sweep) string { return RunLabel(NeighbourKind, sw.ID, sw.Label) }

// cloneBuild checks the build behind spec (TPC-C's schema, or for a
// workload w that one of its users connects: checkBuildFor), stops its
// server, checks the room for the copies (checkCloneSpace) and copies its
// data directory once per instance.
func cloneBuild(ctx context.Context, spec string, base registry.Options, n int, w driver.Workload, event func(string, ...any)) ([]string, error) {
	t, err := registry.Open(ctx, spec, base)
	if err != nil {
		return nil, fmt.Errorf("open the build: %w", err)
	}
	if t.Server == nil {
		t.Close()
		return nil, bad("the neighbour scenario starts its own servers: use a managed target (--target %s), not %s", registry.ManagedForms(), t.Name)
	}
	if err := checkBuildFor(ctx, t, w); err != nil {
		t.Close()
		return nil, err
	}
	src := t.Server.DataDir()
	if err := t.Close(); err != nil {
		return nil, err
	}
	if err := checkCloneSpace(src, n); err != nil {
		return nil, err
	}
	var dirs []string
	for i := 1; i <= n; i++ {
		if ctx.Err() != nil {
			return dirs, ctx.Err()
		}
		d := fmt.Sprintf("%s-n%d-%d", src, i, os.Getpid())
		dirs = append(dirs, d)
		event("copying the build for instance n%d", i)
		if err := instance.CloneDataDir(src, d); err != nil {
			return dirs, err
		}
	}
	return dirs, nil
}

// runPhase drives the targets listed in drive at once (one run each) and,
// on the first backups of all targets, the backup loop; it returns the
// sweep points (position first+i for target i) and the backup loops.
func runPhase(ctx context.Context, st *store.Store, targets []*registry.Target, sw *store.Sweep, first int, phase string, drive []int, backups int, o NeighbourOptions) ([]store.SweepPoint, []NeighbourBackup) {
	points := make([]store.SweepPoint, len(drive))
	bks := make([]NeighbourBackup, backups)
	var wg sync.WaitGroup
	for j, i := range drive {
		wg.Add(1)
		go func() {
			defer wg.Done()
			points[j] = neighbourRun(ctx, st, targets[i], sw, first+i, phase, o)
		}()
	}
	for i := 0; i < backups; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			bks[i] = backupLoop(ctx, st, targets[i], i+1, sw, o)
		}()
	}
	wg.Wait()
	return points, bks
}

func neighbourRun(ctx context.Context, st *store.Store, t *registry.Target, sw *store.Sweep, pos int, phase string, o NeighbourOptions) store.SweepPoint {
	v := sw.Values[pos]
	point := store.SweepPoint{Position: pos, Value: v, Status: store.StatusFailed}
	ro := o.Run
	ro.Label = runLabel(sw) + " " + v
	ro.Flags = maps.Clone(ro.Flags)
	if ro.Flags == nil {
		ro.Flags = map[string]string{}
	}
	ro.Flags["neighbour"], ro.Flags["neighbour.instance"], ro.Flags["neighbour.phase"] = sw.ID, v[:len(v)-len(phase)-1], phase
	// concurrent runs must not each adapt the process-wide GOMAXPROCS
	ro.DriverProcs = max(ro.DriverProcs, runtime.NumCPU())
	ro.OnStepStart, ro.OnProgress, ro.OnCreated = nil, nil, nil
	res, err := Run(ctx, st, t, ro)
	if res != nil {
		point.RunID, point.Status = res.Run.ID, res.Run.Status
	}
	if err != nil && ctx.Err() == nil {
		point.Reason = err.Error()
	}
	if ctx.Err() != nil && point.Status != store.StatusComplete {
		point.Status = store.StatusPartial
	}
	return point
}

// backupLoop runs the backup probe's cycles on one instance and stores them
// as a backup probe labelled with the scenario.
func backupLoop(ctx context.Context, st *store.Store, t *registry.Target, n int, sw *store.Sweep, o NeighbourOptions) NeighbourBackup {
	b := NeighbourBackup{Instance: n}
	spec, err := t.BackupSpec(ctx)
	if err != nil {
		b.Error = err.Error()
		return b
	}
	r, runErr := backup.Run(ctx, spec, backup.Options{Cycles: o.BackupCycles, Every: o.BackupEvery, BinDir: o.BackupBinDir}, nil)
	b.Cycles = r.Cycles
	if runErr != nil {
		b.Error = runErr.Error()
	}
	if len(r.Cycles) == 0 {
		return b
	}
	raw, err := json.Marshal(r)
	if err != nil {
		b.Error = errors.Join(runErr, err).Error()
		return b
	}
	p := &store.Probe{Kind: store.ProbeBackup, Label: backupLabel(sw, n), Host: r.Host, Result: raw}
	if err := st.AddProbe(context.WithoutCancel(ctx), p); err == nil {
		b.ProbeID = p.ID
	}
	return b
}

// describeWorkload names a pgbench workload and its scripts as a
// scenario records it ("tpcb: tpcb-like@1"; "" for TPC-C).
func describeWorkload(w driver.Workload) string {
	if w == nil {
		return ""
	}
	if d, ok := w.(describedWorkload); ok {
		name, scripts := d.Describe()
		return name + ": " + scripts
	}
	return "custom"
}

// checkBuildFor checks that t's database is built for workload w before
// it is copied: TPC-C's schema (ReadySchema), or one user of a pgbench
// workload connected and closed again (tpcb's reads its :scale from
// pgbench_branches).
func checkBuildFor(ctx context.Context, t *registry.Target, w driver.Workload) error {
	if w == nil {
		_, err := ReadySchema(ctx, t)
		return err
	}
	u, err := w.NewUser(ctx, t.DB, driver.UserConfig{Users: 1, Seed: 1, MaxTries: 1})
	if err != nil {
		return bad("the build to copy does not hold the workload's tables: %v", err)
	}
	return u.Close(ctx)
}

// eventWriter passes each line written to it on to event.
type eventWriter func(string, ...any)

func (e eventWriter) Write(p []byte) (int, error) {
	for _, l := range strings.Split(strings.TrimRight(string(p), "\n"), "\n") {
		e("%s", l)
	}
	return len(p), nil
}
