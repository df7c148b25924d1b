package cgroup

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// fakeGroup makes one group of a fake v2 tree: its controllers, its
// processes, and cgroup.type unless it is the real root.
func fakeGroup(t *testing.T, dir, controllers string, procs []int, root bool) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	var ps []string
	for _, p := range procs {
		ps = append(ps, strconv.Itoa(p))
	}
	files := map[string]string{"cgroup.controllers": controllers, "cgroup.subtree_control": "", "cgroup.procs": strings.Join(ps, "\n")}
	if !root {
		files["cgroup.type"] = "domain"
	}
	for f, v := range files {
		if err := os.WriteFile(filepath.Join(dir, f), []byte(v+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// The placement order of Placement's doc on fake v2 trees: the root
// group; rightsize alone in its group moves into a leaf; a companion
// process sends the groups to the nearest process-free ancestor that
// offers the controllers; --cgroup-parent wins; nothing usable is an
// error naming why each place failed.
func TestPlacementOrder(t *testing.T) {
	const me, other = 4242, 99
	all := "cpuset cpu io memory pids"
	need := []string{CPUSet, Memory, IO}
	type tree struct {
		root, user, scope string // their controllers ("" for none)
		rootIsReal        bool
		rootProcs         []int
		scopeProcs        []int
	}
	for _, c := range []struct {
		name   string
		tr     tree
		in     string // own group: "root", "scope" or "leaf" (scope/rightsize-<me>-self)
		named  string
		parent string // "root", "user", "scope" or "" for an error
		how    string
		leaf   bool
		errHas []string
	}{
		{name: "root cgroup", tr: tree{root: all, user: all, scope: all, rootIsReal: true, rootProcs: []int{1, me}}, in: "root",
			parent: "root", how: "root cgroup"},
		{name: "alone in a service", tr: tree{root: all, user: all, scope: all, rootIsReal: true, rootProcs: []int{1}, scopeProcs: []int{me}}, in: "scope",
			parent: "scope", how: "own group, rightsize moved into rightsize-4242-self", leaf: true},
		{name: "placed before", tr: tree{root: all, user: all, scope: all, rootIsReal: true, rootProcs: []int{1}}, in: "leaf",
			parent: "scope", how: "own group, rightsize moved into rightsize-4242-self", leaf: true},
		{name: "session with a shell", tr: tree{root: all, user: all, scope: all, rootIsReal: true, rootProcs: []int{1}, scopeProcs: []int{other, me}}, in: "scope",
			parent: "user", how: "nearest ancestor with no process"},
		{name: "ancestor lacks io and cpuset", tr: tree{root: all, user: "memory pids", scope: "memory pids", rootIsReal: true, rootProcs: []int{1}, scopeProcs: []int{other, me}}, in: "scope",
			parent: "root", how: "root cgroup"},
		{name: "named parent", tr: tree{root: all, user: all, scope: all, rootIsReal: true, rootProcs: []int{1}, scopeProcs: []int{other, me}}, in: "scope",
			named: "/user.slice", parent: "user", how: "--cgroup-parent"},
		{name: "container with a companion", tr: tree{root: all, user: all, scope: all, rootProcs: []int{other, me}}, in: "root",
			errHas: []string{"holds other processes (pids 99)", "no-internal-processes"}},
		{name: "container, rightsize alone", tr: tree{root: all, user: all, scope: all, rootProcs: []int{me}}, in: "root",
			parent: "root", how: "own group, rightsize moved into rightsize-4242-self", leaf: true},
		{name: "nothing delegated", tr: tree{root: "", user: "", scope: "", rootProcs: []int{1}, scopeProcs: []int{me}}, in: "scope",
			errHas: []string{"offers none of cpuset, memory, io"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			mount := t.TempDir()
			user := filepath.Join(mount, "user.slice")
			scope := filepath.Join(user, "session-1.scope")
			fakeGroup(t, mount, c.tr.root, c.tr.rootProcs, c.tr.rootIsReal)
			if c.in != "root" { // a container's namespace root holds rightsize's group alone
				fakeGroup(t, user, c.tr.user, nil, false)
				fakeGroup(t, scope, c.tr.scope, c.tr.scopeProcs, false)
			}
			own := map[string]string{"root": mount, "scope": scope, "leaf": filepath.Join(scope, selfLeaf(me))}[c.in]
			if c.in == "leaf" {
				fakeGroup(t, own, c.tr.scope, []int{me}, false)
			}
			p, err := place(v2Tree{mount: mount, own: own, pid: me}, need, c.named, nil)
			if c.parent == "" {
				wantPlaceError(t, p, err, c.errHas)
				if _, serr := os.Stat(filepath.Join(scope, selfLeaf(me))); !errors.Is(serr, os.ErrNotExist) {
					t.Errorf("a failed placement left its leaf: %v", serr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			want := map[string]string{"root": mount, "user": user, "scope": scope}[c.parent]
			if p.Parent != want || p.How != c.how || (p.Leaf != "") != c.leaf {
				t.Fatalf("placement %+v, want parent %s, how %q, leaf %v", p, want, c.how, c.leaf)
			}
			if got := readOr(want, "cgroup.subtree_control"); !strings.Contains(got, "+memory") {
				t.Errorf("controllers not enabled in %s: %q", want, got)
			}
			if !c.leaf {
				return
			}
			if got := readOr(p.Leaf, "cgroup.procs"); got != strconv.Itoa(me) {
				t.Errorf("rightsize not moved into its leaf: %q", got)
			}
			// another group in the parent keeps the placement; the last one gone releases it
			other := filepath.Join(want, "rightsize-4242-pg-1")
			fakeGroup(t, other, all, nil, false)
			if err := p.release(); err != nil || !exists(p.Leaf) {
				t.Fatalf("released with a group left: %v, leaf exists %v", err, exists(p.Leaf))
			}
			_ = os.RemoveAll(other)
			if err := p.release(); err != nil {
				t.Fatal(err)
			}
			if exists(p.Leaf) {
				t.Error("leaf left after release")
			}
			if got := readOr(want, "cgroup.subtree_control"); !strings.Contains(got, "-memory") {
				t.Errorf("controllers not disabled on release: %q", got)
			}
			if got := readOr(want, "cgroup.procs"); !strings.Contains(got, strconv.Itoa(me)) {
				t.Errorf("rightsize not moved back: %q", got)
			}
		})
	}
}

// A cap asked that cannot apply is an error naming the cap, why and the
// fix, and leaves no group; best effort goes on and says what is missing.
func TestConfineStrict(t *testing.T) {
	asked := Limits{CPUs: "1", Memory: 256 << 20, IO: []DeviceLimit{{Device: Device{254, 0}, ReadIOPS: 100}}}
	root := fakeV2(t, "cpuset cpu")
	place := func([]string, string) (*Hierarchy, error) { return NewV2(root) }
	noPlace := func([]string, string) (*Hierarchy, error) {
		return nil, errors.New("no group can take controllers for rightsize's groups: x holds other processes")
	}
	for _, c := range []struct {
		name string
		m    machine
		has  []string
	}{
		{"controllers missing", machine{place: place, root: true},
			[]string{"cannot apply memory and I/O: memory limit 256 MiB", "the memory controller is not available", "fix: delegate memory io to the group", "--caps best-effort"}},
		{"no group offers a controller", machine{place: func([]string, string) (*Hierarchy, error) {
			return nil, errors.New("no group can take controllers for rightsize's groups: /x offers none of io (cgroup.controllers: cpu memory pids)")
		}}, []string{"cannot apply memory and I/O", "fix: delegate memory io to the group", "Delegate=cpu cpuset io memory pids"}},
		{"no placement under systemd", machine{place: noPlace, systemd: true},
			[]string{"cannot apply memory and I/O: no group can take controllers", "systemd-run --user --scope -p Delegate=yes rightsize", "--cgroup-parent PATH"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			conf, err := confine(c.m, "pg", asked, Options{})
			if conf != nil || !errors.Is(err, ErrNotApplied) {
				t.Fatalf("confine = %v, %v; want ErrNotApplied", conf, err)
			}
			for _, want := range c.has {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q, want %q in it", err, want)
				}
			}
			if entries, _ := os.ReadDir(root); hasGroup(entries) {
				t.Errorf("a refused confinement left a group in %s", root)
			}
			conf, err = confine(c.m, "pg", asked, Options{BestEffort: true})
			if err != nil {
				t.Fatal(err)
			}
			defer conf.Close()
			if r := conf.Report(); strings.Join(r.Missing, ", ") != "memory, I/O" || !r.BestEffort {
				t.Errorf("best effort: missing %q, best_effort %v", r.Missing, r.BestEffort)
			}
		})
	}
}

func hasGroup(entries []os.DirEntry) bool {
	for _, e := range entries {
		if e.IsDir() {
			return true
		}
	}
	return false
}

// The errno of a refused cgroup write is named with its likely cause.
func TestExplain(t *testing.T) {
	for errno, want := range map[syscall.Errno]string{
		syscall.EBUSY:  "no-internal-processes rule",
		syscall.EACCES: "not delegated to this user",
		syscall.EROFS:  "read-only here, as in a container without delegation",
	} {
		if got := explain(fmt.Errorf("write x: %w", errno)); !strings.Contains(got.Error(), want) || !errors.Is(got, errno) {
			t.Errorf("%v: %v", errno, got)
		}
	}
}

// Step 5 of the placement order on fake v2 trees: a delegated systemd
// scope is asked for only when no place gives every controller; rightsize
// then moves into a leaf of it; when systemd refuses, what the tree gives
// stays, or the error says both why the tree and why systemd failed.
func TestPlacementSystemdScope(t *testing.T) {
	const me, other = 4242, 99
	all := "cpuset cpu io memory pids"
	need := []string{CPUSet, Memory, IO}
	scopeHow := "systemd scope rightsize-4242.scope (Delegate=yes), rightsize moved into rightsize-4242-self"
	for _, c := range []struct {
		name        string
		user        string // the session's ancestors' controllers
		scopeErr    error
		asked       bool // the scope was asked for
		parent, how string
		errHas      []string
	}{
		{name: "the tree gives every controller", user: all, parent: "user", how: "nearest ancestor with no process"},
		{name: "nothing in the tree", user: "", asked: true, parent: "scope", how: scopeHow},
		{name: "the tree gives some", user: "memory pids", asked: true, parent: "scope", how: scopeHow},
		{name: "systemd refuses, the tree gives some", user: "memory pids", scopeErr: errors.New("no manager"), asked: true,
			parent: "user", how: "nearest ancestor with no process"},
		{name: "systemd refuses, nothing in the tree", user: "", scopeErr: errors.New("systemd scope: no manager"), asked: true,
			errHas: []string{"holds other processes", "systemd scope: no manager"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			mount := t.TempDir()
			user := filepath.Join(mount, "user.slice")
			session := filepath.Join(user, "session-1.scope")
			scope := filepath.Join(user, "user@1000.service", scopeUnit(me))
			fakeGroup(t, mount, "", []int{1}, false) // a namespace root offering nothing
			fakeGroup(t, user, c.user, nil, false)
			fakeGroup(t, session, c.user, []int{other, me}, false)
			asked := false
			scoper := func() (string, error) {
				asked = true
				if c.scopeErr != nil {
					return "", c.scopeErr
				}
				fakeGroup(t, scope, all, []int{me}, false)
				return scope, nil
			}
			p, err := place(v2Tree{mount: mount, own: session, pid: me}, need, "", scoper)
			if asked != c.asked {
				t.Errorf("scope asked %v, want %v", asked, c.asked)
			}
			if c.parent == "" {
				wantPlaceError(t, p, err, c.errHas)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			want := map[string]string{"user": user, "scope": scope}[c.parent]
			if p.Parent != want || p.How != c.how {
				t.Fatalf("placement %+v, want parent %s, how %q", p, want, c.how)
			}
			if c.parent == "scope" && p.Leaf != filepath.Join(scope, selfLeaf(me)) {
				t.Errorf("leaf %q, want rightsize moved into a leaf of the scope", p.Leaf)
			}
		})
	}
}

// wantPlaceError fails unless place returned an error naming every part
// of errHas.
func wantPlaceError(t *testing.T, p Placement, err error, errHas []string) {
	t.Helper()
	if err == nil {
		t.Fatalf("placed at %+v, want an error", p)
	}
	for _, want := range errHas {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q, want %q in it", err, want)
		}
	}
}
