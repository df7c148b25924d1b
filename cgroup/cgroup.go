// Package cgroup puts a process tree under CPU, memory and block I/O limits
// with Linux control groups, version 1 (one hierarchy per controller, as on
// this project's test machines) or version 2 (one unified hierarchy), behind
// one type.
//
// A Hierarchy says where groups are made: under the group rightsize itself
// runs in (read from /proc/self/cgroup), so a sandbox or a systemd slice
// keeps its own accounting. Groups are named rightsize-<pid>-<name>, so
// CleanStale can remove the groups of a rightsize that was killed (its pid
// is gone) at the next start.
//
// What each version writes (see the kernel's Documentation/admin-guide/cgroup-v1
// and cgroup-v2.rst):
//
//	limit         v1 file                                v2 file
//	cores         cpuset.cpus (+ cpuset.mems)            cpuset.cpus (+ cpuset.mems)
//	CFS quota     cpu.cfs_quota_us, cpu.cfs_period_us    cpu.max "QUOTA PERIOD"
//	memory        memory.limit_in_bytes                  memory.max
//	block I/O     blkio.throttle.{read,write}_{iops,bps}_device   io.max "MAJ:MIN riops= wiops= rbps= wbps="
//	OOM kills     memory.oom_control "oom_kill N"        memory.events "oom_kill N"
//
// Both memory limits include the page cache of the group's files. cgroup v1
// charges buffered writeback to the root group, not to the writer: a v1
// write limit only throttles direct (O_DIRECT) and fsync-driven writes
// (WriteLimitNote); v2 charges writeback to the group a file's pages are
// charged to, often not the writer's (WriteLimitNoteV2).
package cgroup

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// The controllers a group may use, by their v2 names.
const (
	CPUSet = "cpuset"
	CPU    = "cpu"
	Memory = "memory"
	IO     = "io"
)

// Controllers lists the controllers rightsize uses.
var Controllers = []string{CPUSet, CPU, Memory, IO}

// v1Name is a controller's v1 hierarchy name.
func v1Name(c string) string {
	if c == IO {
		return "blkio"
	}
	return c
}

// WriteLimitNote says why a v1 write limit may not hold.
const WriteLimitNote = "cgroup v1 charges buffered writeback to the root group: write limits apply only to direct and fsync-driven writes (PostgreSQL's WAL and checkpoints fsync; background writeback escapes)"

// WriteLimitNoteV2 says what a v2 write limit throttles and what escapes
// it (bench/PREDICT.md, "cgroup v2": before rightsize's managed
// PostgreSQL settled its steps, the same 50K limit measured 76 to 1,088
// NOPM).
const WriteLimitNoteV2 = "cgroup v2 throttles the writeback of the pages charged to the limited group: files whose pages another group cached first escape write limits, while a burst the group dirtied itself is written back at the limit; a managed PostgreSQL creates its WAL segments anew (wal_recycle=off, wal_init_zero=off: a recycled segment cached by an earlier server's group would escape the limit), and checkpoints and drops its WAL's cached pages after restoring a step's database, so that what it writes in the step is its group's"

// writeLimitNote is the note a write limit on a hierarchy of version v
// carries ("" when asked limits no writes).
func writeLimitNote(v int, asked Limits) string {
	for _, d := range asked.IO {
		if d.WriteIOPS > 0 || d.WriteBPS > 0 {
			if v == 1 {
				return WriteLimitNote
			}
			return WriteLimitNoteV2
		}
	}
	return ""
}

// Hierarchy is where groups are created: one parent directory per
// controller (v1) or one parent directory for all (v2).
type Hierarchy struct {
	Version int
	// Placement is where and how a v2 hierarchy's groups are placed (nil
	// from Detect and on v1).
	Placement *Placement
	// parents maps each available controller to the directory under which
	// groups are created (for v2 every controller maps to the same one).
	parents map[string]string
}

// NewV1 returns a version 1 hierarchy with the given parent directories by
// controller (cpuset, cpu, memory, io).
func NewV1(parents map[string]string) *Hierarchy {
	return &Hierarchy{Version: 1, parents: parents}
}

// NewV2 returns a version 2 hierarchy whose groups are made under parent;
// the controllers are those listed in parent/cgroup.controllers.
func NewV2(parent string) (*Hierarchy, error) {
	b, err := os.ReadFile(filepath.Join(parent, "cgroup.controllers"))
	if err != nil {
		return nil, fmt.Errorf("cgroup v2 at %s: %w", parent, err)
	}
	h := &Hierarchy{Version: 2, parents: map[string]string{}}
	for _, c := range strings.Fields(string(b)) {
		for _, want := range Controllers {
			if c == want {
				h.parents[c] = parent
			}
		}
	}
	return h, nil
}

// Has reports whether controller c is available.
func (h *Hierarchy) Has(c string) bool { _, ok := h.parents[c]; return ok }

// Parent is the directory under which groups of controller c are made.
func (h *Hierarchy) Parent(c string) string { return h.parents[c] }

// Available lists the available controllers in Controllers order.
func (h *Hierarchy) Available() []string {
	var out []string
	for _, c := range Controllers {
		if h.Has(c) {
			out = append(out, c)
		}
	}
	return out
}

// ErrUnavailable reports that no usable cgroup hierarchy exists (no
// controller mounted, or not allowed to create groups).
var ErrUnavailable = errors.New("no usable cgroup controller")

// Detect finds the hierarchy of this machine from /proc/self/mountinfo and
// /proc/self/cgroup: v1 when any of the controllers is mounted as v1, else
// v2 when the unified hierarchy has controllers. Its groups would be made
// under rightsize's own group; Place finds where they can be.
func Detect() (*Hierarchy, error) {
	l, err := readLayout()
	if err != nil {
		return nil, err
	}
	return l.hierarchy("")
}

// Place finds where groups whose limits need the controllers need can be
// made, and makes that place usable: on v1 under rightsize's own group of
// each controller (named: --cgroup-parent, a path below each controller's
// mount); on v2 in the order Placement describes, which may move
// rightsize itself into a leaf group (undone by Release).
func Place(need []string, named string) (*Hierarchy, error) {
	l, err := readLayout()
	if err != nil {
		return nil, err
	}
	if l.v2 == nil || len(l.v1) > 0 {
		return l.hierarchy(named)
	}
	p, err := place(*l.v2, need, named, systemdScoper())
	if err != nil {
		return nil, err
	}
	h, err := NewV2(p.Parent)
	if err != nil {
		return nil, errors.Join(err, p.release())
	}
	h.Placement = &p
	return h, nil
}

// Release undoes what Place did to make room for groups (rightsize moved
// back out of its leaf) once no group of it is left; a no-op on v1.
func (h *Hierarchy) Release() error {
	if h == nil {
		return nil
	}
	return h.Placement.release()
}

// layout is where the controllers are mounted and rightsize's own groups.
type layout struct {
	v1 map[string][2]string // controller → mount point, own group's path in it
	v2 *v2Tree
}

func readLayout() (layout, error) {
	mounts, err := readMounts("/proc/self/mountinfo")
	if err != nil {
		return layout{}, err
	}
	own, err := readOwnGroups("/proc/self/cgroup")
	if err != nil {
		return layout{}, err
	}
	l := layout{v1: map[string][2]string{}}
	for _, m := range mounts {
		switch m.fstype {
		case "cgroup":
			for _, c := range Controllers {
				if m.opts[v1Name(c)] {
					l.v1[c] = [2]string{m.point, strings.TrimPrefix(own[v1Name(c)], m.root)}
				}
			}
		case "cgroup2":
			l.v2 = &v2Tree{mount: m.point, own: filepath.Join(m.point, strings.TrimPrefix(own[""], m.root)), pid: os.Getpid()}
		}
	}
	return l, nil
}

// hierarchy is the layout's hierarchy with groups under rightsize's own
// group, or under named below the mount point.
func (l layout) hierarchy(named string) (*Hierarchy, error) {
	if len(l.v1) > 0 {
		parents := map[string]string{}
		for c, m := range l.v1 {
			parents[c] = filepath.Join(m[0], m[1])
			if named == "" {
				continue
			}
			parents[c] = namedParent(m[0], named)
			if !exists(parents[c]) {
				return nil, fmt.Errorf("--cgroup-parent %s: no such group %s", named, parents[c])
			}
		}
		return NewV1(parents), nil
	}
	if l.v2 != nil {
		dir := l.v2.own
		if named != "" {
			dir = namedParent(l.v2.mount, named)
		}
		h, err := NewV2(dir)
		if err == nil && len(h.parents) > 0 {
			return h, nil
		}
	}
	return nil, ErrUnavailable
}

type mount struct {
	root, point, fstype string
	opts                map[string]bool
}

// readMounts parses mountinfo lines: ID PARENT MAJ:MIN ROOT POINT OPTS ... - FSTYPE SOURCE SUPEROPTS.
func readMounts(path string) ([]mount, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read mounts: %w", err)
	}
	defer f.Close()
	var out []mount
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		pre, post, ok := strings.Cut(sc.Text(), " - ")
		a, b := strings.Fields(pre), strings.Fields(post)
		if !ok || len(a) < 5 || len(b) < 3 {
			continue
		}
		m := mount{root: a[3], point: a[4], fstype: b[0], opts: map[string]bool{}}
		for _, o := range strings.Split(b[2], ",") {
			m.opts[o] = true
		}
		out = append(out, m)
	}
	return out, sc.Err()
}

// readOwnGroups maps each v1 controller ("" for v2) to this process's group path.
func readOwnGroups(path string) (map[string]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read own cgroups: %w", err)
	}
	out := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 {
			continue
		}
		if parts[1] == "" {
			out[""] = parts[2]
		}
		for _, c := range strings.Split(parts[1], ",") {
			out[c] = parts[2]
		}
	}
	return out, nil
}

// Group is one control group, with a directory per controller (v1) or one
// directory (v2).
type Group struct {
	Name    string
	version int
	dirs    map[string]string // controller → directory
}

var groupName = regexp.MustCompile(`^rightsize-(\d+)-`)

// Create makes the group rightsize-<pid>-<name> under every available
// controller. For v2 it first enables the controllers in the parent's
// cgroup.subtree_control, unless Place did.
func (h *Hierarchy) Create(name string) (*Group, error) {
	if len(h.parents) == 0 {
		return nil, ErrUnavailable
	}
	g := &Group{Name: fmt.Sprintf("rightsize-%d-%s", os.Getpid(), name), version: h.Version, dirs: map[string]string{}}
	if h.Version == 2 && h.Placement == nil { // Place enabled them already
		parent := h.parents[h.Available()[0]]
		var enable []string
		for _, c := range h.Available() {
			enable = append(enable, "+"+c)
		}
		if err := writeFile(filepath.Join(parent, "cgroup.subtree_control"), strings.Join(enable, " ")); err != nil {
			return nil, fmt.Errorf("enable controllers %v under %s: %w", h.Available(), parent, err)
		}
	}
	made := map[string]bool{}
	for _, c := range h.Available() {
		dir := filepath.Join(h.parents[c], g.Name)
		if made[dir] { // v2: one directory for every controller
			g.dirs[c] = dir
			continue
		}
		made[dir] = true
		if err := os.Mkdir(dir, 0o755); err != nil {
			_ = g.Remove()
			return nil, fmt.Errorf("create cgroup %s: %w", dir, err)
		}
		g.dirs[c] = dir
	}
	if dir, ok := g.dirs[CPUSet]; ok {
		// A v1 cpuset group takes no task until cpus and mems are set;
		// start with the parent's.
		for _, f := range []string{"cpuset.cpus", "cpuset.mems"} {
			v := readParent(dir, f)
			if v == "" {
				continue
			}
			if err := writeFile(filepath.Join(dir, f), v); err != nil && g.version == 1 {
				_ = g.Remove()
				return nil, fmt.Errorf("cgroup %s: %w", f, err)
			}
		}
	}
	g.record()
	return g, nil
}

// readParent reads file f of dir's parent: its effective value (v1
// cpuset.effective_cpus, v2 cpuset.cpus.effective), else f itself.
func readParent(dir, f string) string {
	parent := filepath.Dir(dir)
	for _, name := range []string{strings.Replace(f, "cpuset.", "cpuset.effective_", 1), f + ".effective", f} {
		if b, err := os.ReadFile(filepath.Join(parent, name)); err == nil && strings.TrimSpace(string(b)) != "" {
			return strings.TrimSpace(string(b))
		}
	}
	return ""
}

// Dir is the group's directory for controller c ("" when not available).
func (g *Group) Dir(c string) string { return g.dirs[c] }

// Has reports whether the group has controller c.
func (g *Group) Has(c string) bool { _, ok := g.dirs[c]; return ok }

// ProcsFiles are the cgroup.procs files a process writes its pid to to
// join the group (one per v1 controller directory).
func (g *Group) ProcsFiles() []string {
	seen := map[string]bool{}
	var out []string
	for _, c := range Controllers {
		if d, ok := g.dirs[c]; ok && !seen[d] {
			seen[d] = true
			out = append(out, filepath.Join(d, "cgroup.procs"))
		}
	}
	return out
}

// Join writes pid to every file of ProcsFiles (the same as Group.Add, for
// a process that only has the file names, such as a start helper).
func Join(procsFiles []string, pid int) error {
	for _, f := range procsFiles {
		if err := writeFile(f, strconv.Itoa(pid)); err != nil {
			return fmt.Errorf("join cgroup %s: %w", filepath.Dir(f), err)
		}
	}
	return nil
}

// Add moves pid (and, for v1 cgroup.procs, all its threads) into the group.
func (g *Group) Add(pid int) error { return Join(g.ProcsFiles(), pid) }

// PIDs lists the processes in the group.
func (g *Group) PIDs() []int {
	seen := map[int]bool{}
	var out []int
	for _, f := range g.ProcsFiles() {
		b, _ := os.ReadFile(f)
		for _, s := range strings.Fields(string(b)) {
			if pid, err := strconv.Atoi(s); err == nil && !seen[pid] {
				seen[pid] = true
				out = append(out, pid)
			}
		}
	}
	return out
}

// Remove moves the processes still in the group to the parent group and
// removes the group's directories. It is idempotent.
func (g *Group) Remove() error {
	var errs []error
	for _, c := range Controllers {
		dir, ok := g.dirs[c]
		if !ok {
			continue
		}
		if err := removeDir(dir); err != nil {
			errs = append(errs, err)
			continue
		}
		delete(g.dirs, c)
	}
	if len(g.dirs) == 0 {
		g.dropRecord()
	}
	return errors.Join(errs...)
}

// removeDir empties and removes one group directory. Its processes move
// to the parent, or on v2 to rightsize's leaf beside it when rightsize
// moved itself there (the parent then takes no process).
func removeDir(dir string) error {
	parentProcs := filepath.Join(filepath.Dir(dir), "cgroup.procs")
	if leaf := filepath.Join(filepath.Dir(dir), selfLeaf(os.Getpid())); leaf != dir && exists(leaf) {
		parentProcs = filepath.Join(leaf, "cgroup.procs")
	}
	var err error
	for i := 0; i < 50; i++ {
		b, rerr := os.ReadFile(filepath.Join(dir, "cgroup.procs"))
		if errors.Is(rerr, os.ErrNotExist) {
			if _, serr := os.Stat(dir); errors.Is(serr, os.ErrNotExist) {
				return nil
			}
		}
		for _, s := range strings.Fields(string(b)) {
			_ = writeFile(parentProcs, s)
		}
		if err = syscall.Rmdir(dir); err == nil || errors.Is(err, os.ErrNotExist) {
			return nil
		}
		if errors.Is(err, syscall.ENOTEMPTY) && isFakeTree(dir) {
			// a test tree on an ordinary file system holds regular files
			return os.RemoveAll(dir)
		}
		time.Sleep(20 * time.Millisecond)
	}
	return fmt.Errorf("remove cgroup %s: %w", dir, err)
}

// CleanStale removes the groups left by a rightsize that died without
// removing them (rightsize-<pid>-* whose pid no longer runs, and those
// recorded in <base dir>/cgroups by a maker that is gone, under whatever
// parent); their processes, if any, are moved to the parent group. It
// returns the directories removed.
func (h *Hierarchy) CleanStale() ([]string, error) {
	var removed []string
	var errs []error
	seen := map[string]bool{}
	for _, c := range h.Available() {
		parent := h.parents[c]
		if seen[parent] {
			continue
		}
		seen[parent] = true
		entries, err := os.ReadDir(parent)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		for _, e := range entries {
			m := groupName.FindStringSubmatch(e.Name())
			if !e.IsDir() || m == nil {
				continue
			}
			pid, _ := strconv.Atoi(m[1])
			if pid == os.Getpid() || processAlive(pid) {
				continue
			}
			dir := filepath.Join(parent, e.Name())
			if err := removeDir(dir); err != nil {
				errs = append(errs, err)
				continue
			}
			removed = append(removed, dir)
		}
	}
	more, err := cleanRecorded() // a dead rightsize's groups under other parents
	return append(removed, more...), errors.Join(append(errs, err)...)
}

// writeFile writes one value to a cgroup interface file (truncating a
// regular file in a test tree).
func writeFile(path, value string) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_TRUNC, 0)
	if errors.Is(err, os.ErrNotExist) && isFakeTree(filepath.Dir(path)) {
		f, err = os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	}
	if err != nil {
		return err
	}
	if _, err := f.WriteString(value); err != nil {
		f.Close()
		return fmt.Errorf("write %q to %s: %w", value, path, err)
	}
	return f.Close()
}

func readFile(path string) (string, error) {
	b, err := os.ReadFile(path)
	return strings.TrimSpace(string(b)), err
}
