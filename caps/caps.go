// Package caps holds the configuration caps of a managed server (--cpus,
// --driver-cpus, --memory, --io-limit, --wal-dir, --set), parses and
// validates them, and turns them into a Plan: the cores of the server and
// of the driver, the engine settings they imply and the cgroup limits.
//
// Memory split (Split): of --memory SIZE, the share of the engine's
// Tuning (half for PostgreSQL and a quarter for MariaDB), and at least its
// Reserve (PostgreSQL 64 MiB, MariaDB 128 MiB), is left for everything
// else the server's processes use (connections, work memory, the WAL/redo
// buffers and the page cache of its files); the rest goes to the engine's
// cache, through its Tuning's cache settings (PostgreSQL shared_buffers,
// and effective_cache_size set to the same so the planner assumes no
// more; MariaDB innodb_buffer_pool_size). Each engine's numbers and
// settings live in its package (engine/postgres.Tuning,
// engine/mysql.Tuning). The cgroup memory limit is SIZE and includes
// the page cache, so the OS cache cannot hide a small engine cache.
// Builds and index creation need more than a run (maintenance_work_mem per
// parallel index build): build without --memory and cap the runs.
package caps

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/rightsize/rightsize/cgroup"
	"github.com/rightsize/rightsize/engine"
	"github.com/rightsize/rightsize/internal/units"
)

// Caps are what a managed server may use. The zero value caps nothing.
type Caps struct {
	// CPUs is the server's cores: whole (a cpuset of N cores) or
	// fractional (the cpuset of the next whole number, plus a CFS quota).
	CPUs float64 `json:"cpus,omitempty"`
	// Cores, when set with CPUs, are the cores of the server's cpuset
	// (ceil(CPUs) of them) instead of the highest numbered; the neighbour
	// scenario gives each instance its own.
	Cores []int `json:"cores,omitempty"`
	// DriverCPUs is a cpu list for the driver (rightsize itself); "" pins
	// it to the cores the server does not get, when there are any.
	DriverCPUs string `json:"driver_cpus,omitempty"`
	// Memory is the server's memory in bytes (see the package comment for
	// the split).
	Memory int64 `json:"memory_bytes,omitempty"`
	// IO throttles the devices of the data and WAL directories.
	IO IOLimit `json:"io,omitzero"`
	// WALDir puts the transaction log on another path.
	WALDir string `json:"wal_dir,omitempty"`
	// Set are engine settings (key=value), applied last.
	Set map[string]string `json:"set,omitempty"`
	// CgroupParent is --cgroup-parent: the group under which the server's
	// group is made ("": found by cgroup.Place).
	CgroupParent string `json:"cgroup_parent,omitempty"`
	// BestEffort is --caps best-effort: a cap that cannot be applied is
	// reported, not refused.
	BestEffort bool `json:"best_effort,omitempty"`
}

// CgroupOptions are how the server's group is placed and enforced.
func (c Caps) CgroupOptions() cgroup.Options {
	return cgroup.Options{Parent: c.CgroupParent, BestEffort: c.BestEffort}
}

// IOLimit is a block I/O limit; zero fields are unlimited.
type IOLimit struct {
	ReadIOPS  uint64 `json:"riops,omitempty"`
	WriteIOPS uint64 `json:"wiops,omitempty"`
	ReadBPS   uint64 `json:"rbps,omitempty"`
	WriteBPS  uint64 `json:"wbps,omitempty"`
}

// IsZero reports whether l limits nothing.
func (l IOLimit) IsZero() bool { return l == IOLimit{} }

// String writes l as ParseIOLimit reads it ("none" when zero).
func (l IOLimit) String() string {
	kv := cgroup.DeviceLimit{ReadIOPS: l.ReadIOPS, WriteIOPS: l.WriteIOPS, ReadBPS: l.ReadBPS, WriteBPS: l.WriteBPS}.Keys()
	if len(kv) == 0 {
		return "none"
	}
	return strings.Join(kv, ",")
}

// ParseIOLimit reads "riops=N,wiops=N,rbps=SIZE,wbps=SIZE" (any subset;
// ":" also separates, as sweep values use) or "none".
func ParseIOLimit(s string) (IOLimit, error) {
	var l IOLimit
	s = strings.TrimSpace(s)
	if s == "" || s == "none" {
		return l, nil
	}
	for _, kv := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ':' }) {
		k, v, ok := strings.Cut(kv, "=")
		var n uint64
		var err error
		switch k = strings.TrimSpace(strings.ToLower(k)); k {
		case "riops", "wiops":
			n, err = strconv.ParseUint(strings.TrimSpace(v), 10, 64)
		case "rbps", "wbps":
			var b int64
			b, err = units.ParseSize(v)
			n = uint64(b)
		default:
			return l, fmt.Errorf("--io-limit %q: unknown key %q; use riops=N,wiops=N,rbps=SIZE,wbps=SIZE or none", s, k)
		}
		if !ok || err != nil || n == 0 {
			return l, fmt.Errorf("--io-limit %q: %s needs a positive value (riops=2000, rbps=100M)", s, k)
		}
		switch k {
		case "riops":
			l.ReadIOPS = n
		case "wiops":
			l.WriteIOPS = n
		case "rbps":
			l.ReadBPS = n
		case "wbps":
			l.WriteBPS = n
		}
	}
	return l, nil
}

// ParseCPUs reads --cpus: a positive number of cores, at most ncpu, in
// steps of 0.01.
func ParseCPUs(s string, ncpu int) (float64, error) {
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || !(v > 0) || math.IsInf(v, 0) { // NaN is not above 0
		return 0, fmt.Errorf("--cpus %q: want a positive number of cores such as 2 or 1.5", s)
	}
	if v > float64(ncpu) {
		return 0, fmt.Errorf("--cpus %s: this machine has %d cores; use at most %d", s, ncpu, ncpu)
	}
	if v < 0.01 {
		return 0, fmt.Errorf("--cpus %s: use at least 0.01 of a core", s)
	}
	return v, nil
}

// ParseMode reads --caps: strict ("" too; a cap that cannot be applied
// stops the run) or best-effort (Caps.BestEffort).
func ParseMode(s string) (bestEffort bool, err error) {
	switch s {
	case "", "strict":
		return false, nil
	case "best-effort":
		return true, nil
	}
	return false, fmt.Errorf("--caps %q: use strict (the default: a cap that cannot be applied stops the run) or best-effort", s)
}

// minCache is the smallest engine cache --memory may leave.
const minCache = 32 << 20

// Split divides --memory between the engine's cache and the rest (see the
// package comment).
func Split(t engine.Tuning, size int64) (cache, rest int64) {
	rest = t.Reserve
	if t.RestShare > 0 {
		rest = max(size/t.RestShare, rest)
	}
	return size - rest, rest
}

// MinMemory is the smallest --memory the engine starts with.
func MinMemory(t engine.Tuning) int64 { return t.Reserve + minCache }

// IsZero reports whether c caps nothing.
func (c Caps) IsZero() bool {
	return c.CPUs == 0 && c.DriverCPUs == "" && c.Memory == 0 && c.IO.IsZero() && c.WALDir == "" && len(c.Set) == 0
}

// Plan is how caps apply to one engine on one machine.
type Plan struct {
	ServerCPUs []int   // cpuset of the server (nil: all)
	Quota      float64 // CFS quota in cores (0: none)
	DriverCPUs []int   // affinity of the driver (nil: not pinned)
	Memory     int64   // cgroup memory limit (0: none)
	Cache      int64   // engine cache bytes (0: engine default)
	// Settings are the engine settings the caps imply, then Caps.Set.
	Settings map[string]string
}

// ErrBad marks caps that cannot be applied (bad input).
var ErrBad = errors.New("bad caps")

type badCaps struct{ msg string }

func (b badCaps) Error() string        { return b.msg }
func (b badCaps) Is(target error) bool { return target == ErrBad }

// Bad returns an ErrBad error with this message.
func Bad(format string, a ...any) error { return badCaps{fmt.Sprintf(format, a...)} }

func bad(format string, a ...any) error { return Bad(format, a...) }

// WholeCores is how many whole cores --cpus N spans: N rounded up (1.5
// spans 2; a quota then applies).
func WholeCores(cpus float64) int { return int(math.Ceil(cpus - 1e-9)) }

// Plan validates c for the engine tuned by t on a machine with ncpu cores
// and returns what to apply. The server gets the highest numbered cores,
// the driver the others.
func (c Caps) Plan(t engine.Tuning, ncpu int) (Plan, error) {
	p := Plan{Settings: map[string]string{}}
	if c.CPUs > float64(ncpu) {
		return p, bad("--cpus %g: this machine has %d cores; use at most %d", c.CPUs, ncpu, ncpu)
	}
	if c.CPUs > 0 {
		whole := WholeCores(c.CPUs)
		for i := ncpu - whole; i < ncpu && c.Cores == nil; i++ {
			p.ServerCPUs = append(p.ServerCPUs, i)
		}
		if c.Cores != nil {
			if len(c.Cores) != whole || slices.Min(c.Cores) < 0 || slices.Max(c.Cores) >= ncpu {
				return p, bad("cores %s for --cpus %g: want %d of the machine's cores 0-%d", cgroup.FormatCPUList(c.Cores), c.CPUs, whole, ncpu-1)
			}
			p.ServerCPUs = slices.Sorted(slices.Values(c.Cores))
		}
		if float64(whole) != c.CPUs {
			p.Quota = c.CPUs
		}
		for i := 0; i < ncpu; i++ {
			if !slices.Contains(p.ServerCPUs, i) {
				p.DriverCPUs = append(p.DriverCPUs, i)
			}
		}
		if t.Parallelism != nil {
			maps.Copy(p.Settings, t.Parallelism(whole))
		}
	}
	if c.DriverCPUs != "" {
		cpus, err := cgroup.ParseCPUList(c.DriverCPUs)
		if err != nil {
			return p, bad("--driver-cpus: %v", err)
		}
		if len(cpus) == 0 || slices.Max(cpus) >= ncpu {
			return p, bad("--driver-cpus %s: this machine has cores 0-%d", c.DriverCPUs, ncpu-1)
		}
		p.DriverCPUs = cpus
	}
	if c.Memory > 0 {
		if t.Cache == nil {
			return p, bad("--memory: no cache setting known for %s", t.Engine)
		}
		if min := MinMemory(t); c.Memory < min {
			return p, bad("--memory %s is below what %s runs in; use at least %dM (%dM for its processes, the rest for its cache)",
				units.FormatSize(c.Memory), t.Engine, min>>20, t.Reserve>>20)
		}
		p.Memory = c.Memory
		p.Cache, _ = Split(t, c.Memory)
		maps.Copy(p.Settings, t.Cache(p.Cache))
	}
	maps.Copy(p.Settings, c.Set)
	return p, nil
}

// Limits are the cgroup limits of the plan; devices are those of the
// paths with an I/O limit.
func (p Plan) Limits(io IOLimit, devices []cgroup.Device) cgroup.Limits {
	l := cgroup.Limits{Quota: p.Quota, Memory: p.Memory}
	if p.ServerCPUs != nil {
		l.CPUs = cgroup.FormatCPUList(p.ServerCPUs)
	}
	if !io.IsZero() {
		for _, d := range devices {
			l.IO = append(l.IO, cgroup.DeviceLimit{Device: d, ReadIOPS: io.ReadIOPS, WriteIOPS: io.WriteIOPS, ReadBPS: io.ReadBPS, WriteBPS: io.WriteBPS})
		}
	}
	return l
}
