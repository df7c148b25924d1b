package cgroup

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
)

// Report says what a confinement asked for and what was really applied
// (read back from the group's files), what was not and why, and what a
// fallback did instead.
type Report struct {
	Version    int      `json:"cgroup_version,omitempty"`
	Group      string   `json:"group,omitempty"`
	Asked      Limits   `json:"asked"`
	Applied    Limits   `json:"applied"`
	PinnedCPUs string   `json:"pinned_cpus,omitempty"` // affinity fallback for cores
	NotApplied []string `json:"not_applied,omitempty"`
	// Missing names the caps in NotApplied in a word each ("CPU quota",
	// "memory", "I/O"), for "caps not applied: memory, I/O".
	Missing []string `json:"missing,omitempty"`
	// Placement is where the group was made on cgroup v2 and how that
	// place was found (Placement.String).
	Placement string `json:"placement,omitempty"`
	// BestEffort is set when the run asked to go on without the caps
	// that cannot apply (--caps best-effort).
	BestEffort bool     `json:"best_effort,omitempty"`
	Notes      []string `json:"notes,omitempty"`
	// NoGroup is why no group was made (no hierarchy, not root): nothing
	// but the cores' affinity applies.
	NoGroup string `json:"no_cgroup,omitempty"`
}

// The words Report.Missing names the caps in (one definition for every
// view and for the sweeps and fits that check them).
const (
	CapQuota  = "CPU quota"
	CapMemory = "memory"
	CapIO     = "I/O"
)

// groupSeq numbers the groups this process creates.
var groupSeq atomic.Int64

// Confinement is a process tree's group, or, when no group can be made,
// the affinity fallback for its cores.
type Confinement struct {
	Group  *Group // nil without a usable hierarchy
	h      *Hierarchy
	report Report
	pin    []int
}

// Options say where a confinement's group goes and what happens when a
// limit cannot apply.
type Options struct {
	// Parent is --cgroup-parent: the group to make groups under.
	Parent string
	// BestEffort applies what can be and reports the rest (--caps
	// best-effort); otherwise a limit that cannot apply is a
	// NotAppliedError and nothing is left made.
	BestEffort bool
}

// machine is what Confine needs to know of this machine (tests fake it).
type machine struct {
	place   func(need []string, named string) (*Hierarchy, error)
	root    bool
	systemd bool // systemd is PID 1 (a delegated scope can be asked of it)
}

func thisMachine() machine {
	return machine{place: Place, root: os.Geteuid() == 0, systemd: exists("/run/systemd/system")}
}

// Confine creates the group rightsize-<pid>-<name>-<n> with asked applied,
// after removing groups a killed rightsize left, where Place puts it. A
// limit that cannot be applied is a NotAppliedError naming it, why and the
// fix, unless o.BestEffort: then cores fall back to CPU affinity (Pin), of
// a memory limit only the engine's cache setting (made by the caller)
// stays, and the report says what was not applied.
func Confine(name string, asked Limits, o Options) (*Confinement, error) {
	return confine(thisMachine(), name, asked, o)
}

func confine(m machine, name string, asked Limits, o Options) (*Confinement, error) {
	c := &Confinement{report: Report{Asked: asked, BestEffort: o.BestEffort}}
	h, err := m.place(needed(asked), o.Parent)
	switch {
	case errors.Is(err, ErrUnavailable):
		c.fallback(fmt.Sprintf("no cgroup hierarchy (%v)", err))
		return c.require(o, m)
	case err != nil: // a hierarchy, but no place for groups in it
		c.fallback(err.Error())
		return c.require(o, m)
	case h.Version == 1 && !m.root:
		c.fallback(fmt.Sprintf("not running as root (creating control groups under %s needs root)", h.Parent(h.Available()[0])))
		return c.require(o, m)
	}
	c.h = h
	if h.Placement != nil {
		c.report.Placement = h.Placement.String()
	}
	_, _ = h.CleanStale()
	// several servers of one rightsize (the neighbour scenario) each get
	// a group of their own
	g, err := h.Create(fmt.Sprintf("%s-%d", name, groupSeq.Add(1)))
	if err != nil {
		c.fallback(err.Error())
		return c.require(o, m)
	}
	c.Group, c.report.Version, c.report.Group = g, h.Version, g.Name
	// each limit on its own, so that one the machine lacks does not stop the others
	for _, p := range limitParts(asked) {
		if err := g.Set(p.l); err != nil {
			if p.l.CPUs != "" {
				c.pinCores(err.Error())
				continue
			}
			c.notApplied(p, err.Error())
		}
	}
	if n := writeLimitNote(h.Version, asked); n != "" {
		c.report.Notes = append(c.report.Notes, n)
	}
	return c.require(o, m)
}

// needed are the controllers the limits of asked use.
func needed(asked Limits) []string {
	var out []string
	for _, x := range []struct {
		c  string
		on bool
	}{{CPUSet, asked.CPUs != ""}, {CPU, asked.Quota > 0}, {Memory, asked.Memory > 0}, {IO, len(asked.IO) > 0}} {
		if x.on {
			out = append(out, x.c)
		}
	}
	return out
}

// require returns c, or, when a limit was not applied and o does not ask
// for best effort, a NotAppliedError after removing what was made.
func (c *Confinement) require(o Options, m machine) (*Confinement, error) {
	if o.BestEffort || len(c.report.NotApplied) == 0 {
		return c, nil
	}
	r := c.Report()
	_ = c.Close()
	return nil, &NotAppliedError{Report: r, Fix: fixFor(r, m)}
}

// limitPart is one limit of asked, named for the report, with what stays
// of it when it cannot apply.
type limitPart struct {
	what, short, instead string
	l                    Limits
}

// limitParts splits asked into its limits (only those asked).
func limitParts(asked Limits) []limitPart {
	var out []limitPart
	if asked.CPUs != "" {
		out = append(out, limitPart{what: "cpuset " + asked.CPUs, l: Limits{CPUs: asked.CPUs}})
	}
	if asked.Quota > 0 {
		out = append(out, limitPart{what: fmt.Sprintf("CPU quota %.2f cores", asked.Quota), short: CapQuota, l: Limits{Quota: asked.Quota}})
	}
	if asked.Memory > 0 {
		out = append(out, limitPart{what: fmt.Sprintf("memory limit %d MiB", asked.Memory>>20), short: CapMemory,
			instead: " (only the engine's cache setting applies, not a limit on its processes and page cache)", l: Limits{Memory: asked.Memory}})
	}
	if len(asked.IO) > 0 {
		out = append(out, limitPart{what: "I/O limit", short: CapIO, l: Limits{IO: asked.IO}})
	}
	return out
}

// pinCores records that the asked cores apply by CPU affinity, not a
// cpuset, and why.
func (c *Confinement) pinCores(why string) {
	c.pin, _ = ParseCPUList(c.report.Asked.CPUs)
	c.report.PinnedCPUs = c.report.Asked.CPUs
	if c.Group != nil {
		c.report.Notes = append(c.report.Notes, "cores "+c.report.Asked.CPUs+" set by CPU affinity instead of a cpuset: "+why)
	}
}

// fallback records that no group exists, and why: cores are pinned by
// affinity, every other limit is not applied.
func (c *Confinement) fallback(why string) {
	c.report.NoGroup = why
	for _, p := range limitParts(c.report.Asked) {
		if p.l.CPUs != "" {
			c.pinCores(why)
			continue
		}
		c.notApplied(p, "")
	}
}

// notApplied records that limit p was not applied, and why ("": the
// group's absence, said in NoGroup).
func (c *Confinement) notApplied(p limitPart, why string) {
	s := p.what + p.instead
	if why != "" {
		s += ": " + why
	}
	c.report.NotApplied = append(c.report.NotApplied, s)
	c.report.Missing = append(c.report.Missing, p.short)
}

// ProcsFiles are the files a starting process writes its pid to (nil
// without a group).
func (c *Confinement) ProcsFiles() []string {
	if c == nil || c.Group == nil {
		return nil
	}
	return c.Group.ProcsFiles()
}

// PinCPUs are the cores a starting process pins itself to when no cpuset
// applies (nil otherwise).
func (c *Confinement) PinCPUs() []int {
	if c == nil {
		return nil
	}
	return c.pin
}

// Add puts a started process (and its threads) under the confinement.
func (c *Confinement) Add(pid int) error {
	if c == nil {
		return nil
	}
	var errs []error
	if c.Group != nil {
		errs = append(errs, c.Group.Add(pid))
	}
	if c.pin != nil {
		errs = append(errs, Pin(pid, c.pin))
	}
	return errors.Join(errs...)
}

// Report reads the limits back and returns what was and was not applied.
func (c *Confinement) Report() Report {
	if c == nil {
		return Report{}
	}
	r := c.report
	if c.Group != nil {
		if got, err := c.Group.Read(); err == nil {
			r.Applied = got
			if r.Asked.CPUs == "" {
				r.Applied.CPUs = "" // the parent's cores, not a cap
			}
		} else {
			r.NotApplied = append(r.NotApplied, "read back: "+err.Error())
		}
	}
	return r
}

// Limits is Report: what the confined server runs under, read back (a
// server that embeds its Confinement answers registry.Limited with it).
func (c *Confinement) Limits() Report { return c.Report() }

// IODir is the group's directory of the I/O controller (v1: its blkio
// directory; v2: the group's), where the kernel counts its block I/O;
// "" without a group or without the controller.
func (c *Confinement) IODir() string {
	if c == nil || c.Group == nil {
		return ""
	}
	return c.Group.Dir(IO)
}

// OOMKills is how many processes the OOM killer killed in the group.
func (c *Confinement) OOMKills() int64 {
	if c == nil || c.Group == nil {
		return 0
	}
	n, _ := c.Group.OOMKills()
	return n
}

// Close removes the group (processes still in it move to the parent).
func (c *Confinement) Close() error {
	if c == nil {
		return nil
	}
	var err error
	if c.Group != nil {
		err = c.Group.Remove()
	}
	return errors.Join(err, c.h.Release())
}

// Summary is one line: what applies and what does not.
func (r Report) Summary() string {
	var on []string
	a := r.Applied
	if a.CPUs != "" {
		on = append(on, "cpuset "+a.CPUs)
	}
	if r.PinnedCPUs != "" {
		on = append(on, "cores "+r.PinnedCPUs+" by CPU affinity")
	}
	if a.Quota > 0 {
		on = append(on, fmt.Sprintf("CPU quota %.2f", a.Quota))
	}
	if a.Memory > 0 {
		on = append(on, fmt.Sprintf("memory limit %d MiB", a.Memory>>20))
	}
	for _, d := range a.IO {
		on = append(on, fmt.Sprintf("I/O %s riops=%d wiops=%d rbps=%d wbps=%d", d.Device, d.ReadIOPS, d.WriteIOPS, d.ReadBPS, d.WriteBPS))
	}
	s := "applied: none"
	if len(on) > 0 {
		s = "applied: " + strings.Join(on, ", ")
	}
	if r.Group != "" {
		s += fmt.Sprintf(" (cgroup v%d %s", r.Version, r.Group)
		if r.Placement != "" {
			s += "; placement: " + r.Placement
		}
		s += ")"
	}
	for _, n := range r.NotApplied {
		s += "; NOT applied: " + n
	}
	if r.NoGroup != "" {
		s += "; no cgroup: " + r.NoGroup
	}
	for _, n := range r.Notes {
		s += "; note: " + n
	}
	return s
}

// Check is a dry run of Confine: it makes a group for asked where a run
// would, applies asked, reads it back and removes it again (a placement
// undone). The report says what applied; the error is Confine's (a
// NotAppliedError unless o.BestEffort).
func Check(asked Limits, o Options) (Report, error) {
	c, err := Confine("check", asked, o)
	var na *NotAppliedError
	if errors.As(err, &na) {
		return na.Report, err
	}
	if err != nil {
		return Report{}, err
	}
	r := c.Report()
	return r, c.Close()
}

// Enter moves this process (all its threads) into the group and returns
// the function that moves it back to the groups it was in, to call before
// Close: a group's Remove would move it to the group's parent, which on
// cgroup v2 takes no process once controllers are enabled there.
func (c *Confinement) Enter() (leave func() error, err error) {
	if c == nil || c.Group == nil {
		return func() error { return nil }, nil
	}
	back, err := ownProcsFiles()
	if err != nil {
		return nil, err
	}
	if err := c.Group.Add(os.Getpid()); err != nil {
		return nil, err
	}
	return func() error { return Join(back, os.Getpid()) }, nil
}

// ownProcsFiles are the cgroup.procs files of the groups this process is
// in, one per hierarchy.
func ownProcsFiles() ([]string, error) {
	l, err := readLayout()
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var out []string
	add := func(dir string) {
		if f := filepath.Join(dir, "cgroup.procs"); !seen[f] {
			seen[f] = true
			out = append(out, f)
		}
	}
	for _, c := range Controllers {
		if m, ok := l.v1[c]; ok {
			add(filepath.Join(m[0], m[1]))
		}
	}
	if len(l.v1) == 0 && l.v2 != nil {
		add(l.v2.own)
	}
	return out, nil
}

// LiftIO lifts the group's I/O limits until the returned function puts
// them back (Group.LiftIO); without a group it does nothing.
func (c *Confinement) LiftIO() (restore func() error, err error) {
	if c == nil || c.Group == nil {
		return func() error { return nil }, nil
	}
	return c.Group.LiftIO()
}
