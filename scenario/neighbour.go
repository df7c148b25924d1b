package scenario

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"runtime"
	"strconv"
	"sync"
	"time"

	"github.com/rightsize/rightsize/instance"
	"github.com/rightsize/rightsize/probe/backup"
	"github.com/rightsize/rightsize/probe/result"
	"github.com/rightsize/rightsize/store"
	"github.com/rightsize/rightsize/target"
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
	ID      string            `json:"scenario_id"`
	Label   string            `json:"label,omitempty"`
	Status  string            `json:"status"`
	Points  []SweepPoint      `json:"runs"` // value "n1 baseline" ...
	Backups []NeighbourBackup `json:"backups"`
}

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

// RunNeighbour runs the scenario over copies of the build that spec and
// base open (the managed server's data directory, copied once per
// instance next to it and removed at the end). Every server and its cgroup
// are stopped when it returns, also after Ctrl-C (what was measured is
// kept, the scenario marked partial).
func RunNeighbour(ctx context.Context, st *store.Store, spec string, base target.Options, o NeighbourOptions) (*NeighbourResult, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	if base.Caps.WALDir != "" {
		return nil, bad("--wal-dir: the neighbour scenario copies each instance's data directory, and the copies cannot share one WAL directory")
	}
	if err := target.CheckCaps(spec, base); err != nil {
		return nil, badOptions{err}
	}
	event := func(f string, a ...any) {
		if o.OnEvent != nil {
			o.OnEvent(fmt.Sprintf(f, a...))
		}
	}
	dirs, err := cloneBuild(ctx, spec, base, o.Instances, event)
	defer func() {
		for _, d := range dirs {
			_ = os.RemoveAll(d)
		}
	}()
	if err != nil {
		return nil, err
	}
	var targets []*target.Target
	defer func() {
		for _, t := range targets {
			_ = t.Close()
		}
	}()
	for i, d := range dirs {
		opt := base
		opt.DataDir = d
		t, err := target.Open(ctx, spec, opt)
		if err != nil {
			return nil, fmt.Errorf("start instance %d: %w", i+1, err)
		}
		targets = append(targets, t)
		event("instance n%d: %s on %s", i+1, t.Name, d)
		if r, ok := t.CapsReport(); ok {
			event("instance n%d caps: %s", i+1, r.Summary())
		}
	}
	bg := context.WithoutCancel(ctx)
	sw := &store.Sweep{Label: o.Label, Kind: NeighbourKind, Spec: map[string]string{
		"instances": strconv.Itoa(o.Instances), "backup_instances": strconv.Itoa(o.BackupInstances),
		"backup_every": o.BackupEvery.String(), "backup_cycles": strconv.Itoa(o.BackupCycles)}}
	for _, phase := range []string{"baseline", "backup"} {
		for i := range targets {
			sw.Values = append(sw.Values, fmt.Sprintf("n%d %s", i+1, phase))
		}
	}
	if err := st.CreateSweep(bg, sw); err != nil {
		return nil, err
	}
	res := &NeighbourResult{ID: sw.ID, Label: o.Label}
	for p, phase := range []string{"baseline", "backup"} {
		if ctx.Err() != nil {
			break
		}
		backups := 0
		if phase == "backup" {
			backups = o.BackupInstances
		}
		event("phase %s: %d instances under load, backups on %d", phase, len(targets), backups)
		points, bk := runPhase(ctx, st, targets, sw, p*len(targets), phase, backups, o)
		for _, pt := range points {
			if err := st.SetSweepPoint(bg, sw.ID, pt); err != nil {
				return nil, err
			}
		}
		res.Backups = append(res.Backups, bk...)
	}
	status := store.StatusComplete
	if ctx.Err() != nil {
		status = store.StatusPartial
	}
	if err := st.FinishSweep(bg, sw.ID, status, time.Now().UTC()); err != nil {
		return nil, err
	}
	loaded, err := LoadSweepResult(bg, st, sw.ID, 0.1)
	if err != nil {
		return nil, err
	}
	res.Status, res.Points = loaded.Status, loaded.Points
	if status == store.StatusPartial {
		return res, fmt.Errorf("neighbour scenario interrupted: what was measured is stored as %s (partial)", sw.ID)
	}
	return res, nil
}

// cloneBuild checks the build behind spec, stops its server and copies its
// data directory once per instance.
func cloneBuild(ctx context.Context, spec string, base target.Options, n int, event func(string, ...any)) ([]string, error) {
	t, err := target.Open(ctx, spec, base)
	if err != nil {
		return nil, fmt.Errorf("open the build: %w", err)
	}
	if t.Server == nil {
		t.Close()
		return nil, bad("the neighbour scenario starts its own servers: use a managed target (--target embedded or mariadb), not %s", t.Name)
	}
	if _, err := ReadySchema(ctx, t); err != nil {
		t.Close()
		return nil, err
	}
	src := t.Server.DataDir()
	if err := t.Close(); err != nil {
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

// runPhase drives every target at once (one run each) and, on the first
// backups of them, the backup loop; it returns the sweep points from
// position first and the backup loops.
func runPhase(ctx context.Context, st *store.Store, targets []*target.Target, sw *store.Sweep, first int, phase string, backups int, o NeighbourOptions) ([]store.SweepPoint, []NeighbourBackup) {
	points := make([]store.SweepPoint, len(targets))
	bks := make([]NeighbourBackup, backups)
	var wg sync.WaitGroup
	for i, t := range targets {
		wg.Add(1)
		go func() {
			defer wg.Done()
			points[i] = neighbourRun(ctx, st, t, sw, first+i, phase, o)
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

func neighbourRun(ctx context.Context, st *store.Store, t *target.Target, sw *store.Sweep, pos int, phase string, o NeighbourOptions) store.SweepPoint {
	v := sw.Values[pos]
	point := store.SweepPoint{Position: pos, Value: v, Status: store.StatusFailed}
	ro := o.Run
	label := sw.Label
	if label == "" {
		label = "neighbour-" + sw.ID
	}
	ro.Label = label + " " + v
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
func backupLoop(ctx context.Context, st *store.Store, t *target.Target, n int, sw *store.Sweep, o NeighbourOptions) NeighbourBackup {
	b := NeighbourBackup{Instance: n}
	spec, err := backup.FromTarget(ctx, t)
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
	label := sw.Label
	if label == "" {
		label = "neighbour-" + sw.ID
	}
	p := &store.Probe{Kind: store.ProbeBackup, Label: fmt.Sprintf("%s n%d backup", label, n), Host: r.Host, Result: raw}
	if err := st.AddProbe(context.WithoutCancel(ctx), p); err == nil {
		b.ProbeID = p.ID
	}
	return b
}
