package cgroup

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

// Placement is where rightsize makes its groups in a cgroup v2 hierarchy,
// and how that place was found. cgroup v2's no-internal-processes rule
// forbids a group that holds processes (other than the root) to enable
// controllers for children, and under systemd no shell, service or pod
// sits in the root. Place tries, in this order:
//
//  1. --cgroup-parent PATH, when given (nothing else is tried);
//  2. rightsize's own group, when it may enable controllers: the root
//     group, or a group that holds no process;
//  3. rightsize's own group after rightsize moved itself into a leaf child
//     rightsize-<pid>-self, when rightsize is the only process in it and
//     may write it (root, or a subtree delegated to its user), as
//     container runtimes and systemd's delegated services do;
//  4. the nearest ancestor that holds no process (the groups are then
//     siblings of rightsize's own);
//  5. where systemd is PID 1 and none of these gives every controller the
//     limits need: a transient scope rightsize-<pid>.scope with
//     Delegate=yes that systemd (the user's manager when not root) moves
//     rightsize into, then 3 in it. systemd removes the scope when
//     rightsize exits.
//
// Among 2-4 the first that can give every controller the limits need is
// used; else the one that gives the most (when 5 fails too).
type Placement struct {
	Parent string `json:"parent"`
	How    string `json:"how"`
	// Leaf is the group rightsize moved itself into to leave Parent
	// without processes ("" when it did not move).
	Leaf string `json:"leaf,omitempty"`
	// cover is how many of the needed controllers Parent gives.
	cover int
}

// String is the placement in one phrase for summaries.
func (p Placement) String() string { return p.How + " " + p.Parent }

// placeMu serialises moving this process between groups and enabling or
// disabling controllers (several servers of one run confine at once).
var placeMu sync.Mutex

// v2Tree is what placement needs to know of a v2 hierarchy.
type v2Tree struct {
	mount string // the mount point: the root group or the cgroup namespace's root
	own   string // the directory of the group this process is in
	pid   int
}

// selfLeaf is the name of the leaf group rightsize moves itself into.
func selfLeaf(pid int) string { return fmt.Sprintf("rightsize-%d-self", pid) }

// candidate is one place groups could be made, with what making it usable
// takes.
type candidate struct {
	dir, how string
	moveSelf bool // rightsize must first move itself into a leaf child
	cover    int  // how many of the needed controllers dir can give
}

// place finds the parent for groups that need the controllers need (named:
// --cgroup-parent) and makes it usable: controllers enabled in its
// cgroup.subtree_control, rightsize moved into a leaf when that is what
// frees it. scope (nil where systemd is not PID 1) moves rightsize into a
// delegated transient scope: tried when no place gives every controller.
func place(t v2Tree, need []string, named string, scope scoper) (Placement, error) {
	placeMu.Lock()
	defer placeMu.Unlock()
	if named != "" {
		dir := namedParent(t.mount, named)
		if err := enableAll(dir); err != nil {
			return Placement{}, fmt.Errorf("--cgroup-parent %s: %w", named, err)
		}
		return Placement{Parent: dir, How: "--cgroup-parent", cover: len(need)}, nil
	}
	p, err := firstUsable(t, need)
	if scope == nil || err == nil && p.cover >= len(need) {
		return p, err
	}
	if err == nil {
		_ = p.undo() // the scope is tried from rightsize's own group
	}
	dir, serr := scope()
	if serr != nil {
		if err == nil {
			return firstUsable(t, need) // what the tree gives, as without systemd
		}
		return Placement{}, fmt.Errorf("%w; %v", err, serr)
	}
	t.own = dir
	return firstUsable(t, need)
}

// firstUsable makes the first usable candidate, most controllers first.
func firstUsable(t v2Tree, need []string) (Placement, error) {
	cands, tried := candidates(t, need)
	slices.SortStableFunc(cands, func(a, b candidate) int { return b.cover - a.cover })
	for _, c := range cands {
		p, err := c.use(t.pid)
		if err == nil {
			return p, nil
		}
		tried = append(tried, err.Error())
	}
	return Placement{}, fmt.Errorf("no group can take controllers for rightsize's groups: %s", strings.Join(tried, "; "))
}

// namedParent resolves --cgroup-parent: a path below the mount point, or a
// path in the hierarchy ("/user.slice/x", as /proc/self/cgroup writes it).
func namedParent(mount, named string) string {
	if strings.HasPrefix(filepath.Clean(named)+"/", filepath.Clean(mount)+"/") {
		return filepath.Clean(named)
	}
	return filepath.Join(mount, named)
}

// candidates lists the places in the order of Placement's doc, each with
// how many needed controllers it offers, and why the others cannot serve.
func candidates(t v2Tree, need []string) ([]candidate, []string) {
	own, moved := t.own, filepath.Base(t.own) == selfLeaf(t.pid)
	if moved {
		own = filepath.Dir(own) // placed before by this process
	}
	var out []candidate
	var tried []string
	add := func(c candidate) {
		c.cover = coverage(c.dir, need)
		if c.cover == 0 && len(need) > 0 {
			tried = append(tried, fmt.Sprintf("%s offers none of %s (cgroup.controllers: %s)", c.dir, strings.Join(need, ", "), readOr(c.dir, "cgroup.controllers")))
			return
		}
		out = append(out, c)
	}
	procs := processes(own)
	switch {
	case isRootGroup(own):
		add(candidate{dir: own, how: "root cgroup"})
	case len(procs) == 0 && !moved:
		add(candidate{dir: own, how: "own group (no process in it)"})
	case moved || len(procs) == 1 && procs[0] == t.pid:
		how := "own group"
		if filepath.Base(own) == scopeUnit(t.pid) {
			how = "systemd scope " + scopeUnit(t.pid) + " (Delegate=yes)"
		}
		add(candidate{dir: own, how: how + ", rightsize moved into " + selfLeaf(t.pid), moveSelf: true})
	default:
		tried = append(tried, fmt.Sprintf("%s holds other processes (%s) beside rightsize, so it cannot enable controllers for children (cgroup v2's no-internal-processes rule)", own, pidList(procs, t.pid)))
	}
	for dir := filepath.Dir(own); strings.HasPrefix(dir+"/", filepath.Clean(t.mount)+"/") && dir != own; dir = filepath.Dir(dir) {
		switch {
		case isRootGroup(dir):
			add(candidate{dir: dir, how: "root cgroup"})
		case len(processes(dir)) == 0:
			add(candidate{dir: dir, how: "nearest ancestor with no process"})
		}
		if dir == filepath.Clean(t.mount) {
			break
		}
	}
	return out, tried
}

// use makes c's directory usable for groups and returns the placement.
func (c candidate) use(pid int) (Placement, error) {
	p := Placement{Parent: c.dir, How: c.how, cover: c.cover}
	if c.moveSelf {
		leaf := filepath.Join(c.dir, selfLeaf(pid))
		if err := os.Mkdir(leaf, 0o755); err != nil && !errors.Is(err, os.ErrExist) {
			return p, fmt.Errorf("%s: create the leaf to move rightsize into: %w", c.dir, explain(err))
		}
		if err := writeFile(filepath.Join(leaf, "cgroup.procs"), strconv.Itoa(pid)); err != nil {
			_ = syscall.Rmdir(leaf)
			return p, fmt.Errorf("%s: move rightsize into %s: %w", c.dir, leaf, explain(err))
		}
		p.Leaf = leaf
	}
	if err := enableAll(c.dir); err != nil {
		_ = p.undo()
		return Placement{}, err
	}
	return p, nil
}

// enableAll enables in dir's cgroup.subtree_control every controller of
// Controllers that dir has.
func enableAll(dir string) error {
	b, err := os.ReadFile(filepath.Join(dir, "cgroup.controllers"))
	if err != nil {
		return fmt.Errorf("%s is not a cgroup v2 group: %w", dir, err)
	}
	var enable []string
	for _, c := range Controllers {
		if slices.Contains(strings.Fields(string(b)), c) {
			enable = append(enable, "+"+c)
		}
	}
	if len(enable) == 0 {
		return fmt.Errorf("%s offers none of the controllers %s", dir, strings.Join(Controllers, ", "))
	}
	if err := writeFile(filepath.Join(dir, "cgroup.subtree_control"), strings.Join(enable, " ")); err != nil {
		return fmt.Errorf("enable %s in %s: %w", strings.Join(enable, " "), dir, explain(err))
	}
	return nil
}

// explain names the likely cause of a cgroup write's errno.
func explain(err error) error {
	switch {
	case errors.Is(err, syscall.EBUSY):
		return fmt.Errorf("%w (the group holds processes: cgroup v2's no-internal-processes rule)", err)
	case errors.Is(err, syscall.EACCES), errors.Is(err, syscall.EPERM):
		return fmt.Errorf("%w (not delegated to this user)", err)
	case errors.Is(err, syscall.EROFS):
		return fmt.Errorf("%w (the cgroup file system is read-only here, as in a container without delegation)", err)
	}
	return err
}

// undo moves rightsize back out of its leaf and removes it, after
// disabling the controllers it enabled in the parent (a group that held
// processes had none enabled). It does so only when no other group is
// left under the parent; otherwise the placement stays.
func (p Placement) undo() error {
	if p.Leaf == "" {
		return nil
	}
	entries, err := os.ReadDir(p.Parent)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if e.IsDir() && e.Name() != filepath.Base(p.Leaf) {
			return nil // other groups use the controllers
		}
	}
	var disable []string
	for _, c := range strings.Fields(readOr(p.Parent, "cgroup.subtree_control")) {
		disable = append(disable, "-"+strings.TrimPrefix(c, "+"))
	}
	if len(disable) > 0 {
		if err := writeFile(filepath.Join(p.Parent, "cgroup.subtree_control"), strings.Join(disable, " ")); err != nil {
			return fmt.Errorf("disable controllers in %s: %w", p.Parent, err)
		}
	}
	return removeDir(p.Leaf)
}

// release undoes the placement once its last group is gone (see undo).
func (p *Placement) release() error {
	if p == nil {
		return nil
	}
	placeMu.Lock()
	defer placeMu.Unlock()
	return p.undo()
}

// coverage is how many of need dir's cgroup.controllers lists.
func coverage(dir string, need []string) int {
	have := strings.Fields(readOr(dir, "cgroup.controllers"))
	n := 0
	for _, c := range need {
		if slices.Contains(have, c) {
			n++
		}
	}
	return n
}

// isRootGroup reports whether dir is the hierarchy's real root, the one
// group exempt from the no-internal-processes rule (it has no cgroup.type;
// a cgroup namespace's root has one).
func isRootGroup(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, "cgroup.type"))
	return errors.Is(err, os.ErrNotExist) && exists(filepath.Join(dir, "cgroup.controllers"))
}

func exists(path string) bool { _, err := os.Stat(path); return err == nil }

// processes lists the pids in dir's cgroup.procs.
func processes(dir string) []int {
	var out []int
	for _, s := range strings.Fields(readOr(dir, "cgroup.procs")) {
		if pid, err := strconv.Atoi(s); err == nil {
			out = append(out, pid)
		}
	}
	return out
}

// pidList writes pids other than self, at most five.
func pidList(pids []int, self int) string {
	var s []string
	for _, p := range pids {
		if p != self && len(s) < 5 {
			s = append(s, strconv.Itoa(p))
		}
	}
	if n := len(pids) - 1; n > len(s) {
		s = append(s, fmt.Sprintf("%d in all", n))
	}
	return "pids " + strings.Join(s, ", ")
}

// readOr reads dir/file, "" when it cannot.
func readOr(dir, file string) string {
	v, _ := readFile(filepath.Join(dir, file))
	return v
}
