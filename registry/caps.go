package registry

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"runtime"
	"slices"
	"strings"

	"github.com/rightsize/rightsize/caps"
	"github.com/rightsize/rightsize/cgroup"
	"github.com/rightsize/rightsize/engine"
)

// capsPlan validates opt.Caps for a managed server tuned by tuning whose
// data lives in dataDir and returns the plan and its cgroup limits.
// Nothing is started; every problem is caps.ErrBad (bad input).
func capsPlan(tuning engine.Tuning, opt Options, dataDir string) (caps.Plan, cgroup.Limits, error) {
	p, err := opt.Caps.Plan(tuning, runtime.NumCPU())
	if err != nil {
		return p, cgroup.Limits{}, err
	}
	var devices []cgroup.Device
	if !opt.Caps.IO.IsZero() {
		for _, dir := range []string{dataDir, opt.Caps.WALDir} {
			if dir == "" {
				continue
			}
			d, err := cgroup.DeviceOf("/sys", cgroup.Existing(dir))
			if err != nil {
				return p, cgroup.Limits{}, caps.Bad("--io-limit: %v", err)
			}
			if !slices.Contains(devices, d) {
				devices = append(devices, d)
			}
		}
	}
	return p, p.Limits(opt.Caps.IO, devices), nil
}

// mergeSettings returns base with the plan's settings over it, and the
// user's own settings (--set) over both.
func mergeSettings(base map[string]string, p caps.Plan, user map[string]string) map[string]string {
	s := maps.Clone(base)
	if s == nil {
		s = map[string]string{}
	}
	maps.Copy(s, p.Settings)
	maps.Copy(s, user)
	return s
}

// pinDriver pins rightsize (the driver) to the plan's driver cores, or
// to every core when the caps give the server all of them; the returned
// function restores the affinity it had (nil when nothing was pinned).
func pinDriver(opt Options, p caps.Plan) (func(), error) {
	if opt.Caps.CPUs == 0 && opt.Caps.DriverCPUs == "" {
		return nil, nil
	}
	cpus := p.DriverCPUs
	if cpus == nil {
		for i := range runtime.NumCPU() {
			cpus = append(cpus, i)
		}
	}
	before, err := cgroup.Affinity(os.Getpid())
	if err != nil {
		return nil, fmt.Errorf("read the driver's CPU affinity: %w", err)
	}
	if err := cgroup.Pin(os.Getpid(), cpus); err != nil {
		return nil, fmt.Errorf("pin the driver to cores %s: %w", cgroup.FormatCPUList(cpus), err)
	}
	return func() { _ = cgroup.Pin(os.Getpid(), before) }, nil
}

// Limited is a managed server that runs under caps.
type Limited interface {
	// Limits says what was asked and applied, read back.
	Limits() cgroup.Report
	// OOMKills is how many server processes the OOM killer killed.
	OOMKills() int64
}

// CapsReport is what the target's server runs under (ok false when it is
// not a managed server under caps).
func (t *Target) CapsReport() (cgroup.Report, bool) {
	l, ok := t.Server.(Limited)
	if !ok {
		return cgroup.Report{}, false
	}
	return l.Limits(), true
}

// ioLifter is a managed server under caps whose I/O limits can be lifted
// for a while (cgroup.Confinement.LiftIO).
type ioLifter interface {
	LiftIO() (restore func() error, err error)
}

// Unthrottled runs fn, work that is not measured (restoring the built
// database), with the server's I/O limits lifted, and puts them back
// before it returns: restoring a 200 MB database through a 1 MB/s write
// limit would take minutes, and the limit applies from the next run's
// first step all the same. Without a server under I/O limits it only
// runs fn.
func (t *Target) Unthrottled(fn func() error) error {
	l, ok := t.Server.(ioLifter)
	if !ok {
		return fn()
	}
	restore, err := l.LiftIO()
	if err != nil {
		return err
	}
	ferr := fn()
	if rerr := restore(); rerr != nil {
		return errors.Join(ferr, fmt.Errorf("put the I/O limits back: %w", rerr))
	}
	return ferr
}

// ServerOOMKills is how many of the managed server's processes the
// kernel's OOM killer killed under its memory limit.
func (t *Target) ServerOOMKills() int64 {
	if l, ok := t.Server.(Limited); ok {
		return l.OOMKills()
	}
	return 0
}

// ServerIOCgroup is the directory of the managed server's cgroup whose
// block I/O counters are its own (telemetry.Sampler.ServerIO); "" when
// the server runs in no group of rightsize's (not managed, or no caps).
func (t *Target) ServerIOCgroup() string {
	if g, ok := t.Server.(interface{ IODir() string }); ok {
		return g.IODir()
	}
	return ""
}

// IsBadCaps reports whether err is a cap that cannot be applied: refused
// by validation, or not applicable on this machine (cgroup.ErrNotApplied).
func IsBadCaps(err error) bool {
	return errors.Is(err, caps.ErrBad) || errors.Is(err, cgroup.ErrNotApplied)
}

// limited reports whether l limits anything.
func limited(l cgroup.Limits) bool {
	return l.CPUs != "" || l.Quota > 0 || l.Memory > 0 || len(l.IO) > 0
}

// CheckCaps validates opt's caps for the server spec would start, and
// unless they are best effort makes and removes a group with their limits
// where the server's would go (cgroup.Check), without starting anything (caps.ErrBad when they cannot apply, ErrBadTarget for
// an unknown spec).
func CheckCaps(spec string, opt Options) error {
	e, managed, err := EngineOf(spec)
	if err != nil {
		return err
	}
	if !managed {
		if !opt.Caps.IsZero() {
			return caps.Bad("--cpus, --memory, --io-limit and --wal-dir need a managed server (--target %s), not %s", ManagedForms(), Redact(spec))
		}
		return nil
	}
	if err := checkWALDir(e, opt); err != nil {
		return err
	}
	dataDir := opt.DataDir
	if dataDir == "" {
		dataDir = e.Managed.DataDir() // where Start puts it
	}
	_, l, err := capsPlan(e.Tuning, opt, dataDir)
	if err != nil || !limited(l) || opt.Caps.BestEffort {
		return err
	}
	// a cap asked is a cap applied: try it where the server's group would go
	_, err = cgroup.Check(l, opt.Caps.CgroupOptions())
	return err
}

// checkWALDir refuses --wal-dir for a managed server that cannot keep its
// transaction log elsewhere (ManagedServer.WALDir "").
func checkWALDir(e Engine, opt Options) error {
	if opt.Caps.WALDir != "" && e.Managed != nil && e.Managed.WALDir == "" {
		return caps.Bad("--wal-dir: the %s cannot keep its transaction log elsewhere", e.Managed.Display)
	}
	return nil
}

// EngineOf finds the registered engine of spec and whether spec names a
// server rightsize manages.
func EngineOf(spec string) (Engine, bool, error) {
	for _, e := range Engines() {
		if e.Match(spec) {
			for _, f := range e.Forms {
				if f.Managed && (f.Long == spec || (spec == "" && f.Long == "embedded")) {
					return e, true, nil
				}
			}
			return e, false, nil
		}
	}
	return Engine{}, false, fmt.Errorf("%w %q: use %s", ErrBadTarget, spec, usage())
}

// ManagedNames are the names a plan gives the managed servers
// (ManagedServer.Name), in the registry's order.
func ManagedNames() []string {
	var names []string
	for _, e := range Engines() {
		if e.Managed != nil {
			names = append(names, e.Managed.Name)
		}
	}
	return names
}

// ManagedForms are the --target values that start a managed server, for
// messages ("embedded or mariadb").
func ManagedForms() string {
	var forms []string
	for _, e := range Engines() {
		for _, f := range e.Forms {
			if f.Managed {
				forms = append(forms, f.Long)
			}
		}
	}
	if len(forms) < 2 {
		return strings.Join(forms, "")
	}
	return strings.Join(forms[:len(forms)-1], ", ") + " or " + forms[len(forms)-1]
}

// ManagedNamed is the engine whose managed server a plan calls name, and
// the --target value that starts it (ok false when none).
func ManagedNamed(name string) (e Engine, spec string, ok bool) {
	for _, e := range Engines() {
		if e.Managed == nil || e.Managed.Name != name {
			continue
		}
		for _, f := range e.Forms {
			if f.Managed {
				return e, f.Long, true
			}
		}
	}
	return Engine{}, "", false
}

// VersionError says that the managed servers asked about do not start
// Version; Offered are the versions they start (none when they run the
// installed server).
type VersionError struct {
	Version string
	Offered []Versions
}

// Error names what they start: "rightsize downloads PostgreSQL 13, 14".
func (e *VersionError) Error() string {
	lists := make([]string, len(e.Offered))
	for i, vs := range e.Offered {
		lists[i] = vs.Product + " " + strings.Join(vs.List, ", ")
	}
	if len(lists) == 0 {
		return "version " + e.Version + ": the server runs the installed one"
	}
	return "rightsize downloads " + strings.Join(lists, "; ")
}

// CheckVersion is nil when the managed server called engine
// (ManagedServer.Name; "" for any of them) starts version v, else a
// *VersionError. --pg-version, a plan's versions and the version sweep
// are checked here.
func CheckVersion(engine, v string) error {
	ve := &VersionError{Version: v}
	for _, e := range Engines() {
		m := e.Managed
		if m == nil || m.Versions == nil || engine != "" && m.Name != engine {
			continue
		}
		if slices.Contains(m.Versions.List, v) {
			return nil
		}
		ve.Offered = append(ve.Offered, *m.Versions)
	}
	return ve
}

// Versioned are the display names of the managed servers that start
// other versions than the installed one ("embedded PostgreSQL").
func Versioned() []string {
	var names []string
	for _, e := range Engines() {
		if e.Managed != nil && e.Managed.Versions != nil {
			names = append(names, e.Managed.Display)
		}
	}
	return names
}
