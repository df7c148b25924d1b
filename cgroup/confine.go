package cgroup

import (
	"errors"
	"fmt"
	"os"
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
	Notes      []string `json:"notes,omitempty"`
	// NoGroup is why no group was made (no hierarchy, not root): nothing
	// but the cores' affinity applies.
	NoGroup string `json:"no_cgroup,omitempty"`
}

// groupSeq numbers the groups this process creates.
var groupSeq atomic.Int64

// Confinement is a process tree's group, or, when no group can be made,
// the affinity fallback for its cores.
type Confinement struct {
	Group  *Group // nil without a usable hierarchy
	report Report
	pin    []int
}

// machine is what Confine needs to know of this machine (tests fake it).
type machine struct {
	detect func() (*Hierarchy, error)
	root   bool
}

func thisMachine() machine { return machine{detect: Detect, root: os.Geteuid() == 0} }

// Confine creates the group rightsize-<pid>-<name>-<n> with asked applied,
// after removing groups a killed rightsize left. It does not fail when
// cgroups cannot be used (no hierarchy, not root, a controller missing):
// the report says what was not applied and why; cores fall back to CPU
// affinity (Pin), and of a memory limit only the engine's cache setting
// (made by the caller) stays. Only an unexpected error creating a group
// that should work is returned.
func Confine(name string, asked Limits) (*Confinement, error) {
	return confine(thisMachine(), name, asked)
}

func confine(m machine, name string, asked Limits) (*Confinement, error) {
	c := &Confinement{report: Report{Asked: asked}}
	h, err := m.detect()
	if err != nil {
		c.fallback(fmt.Sprintf("no cgroup hierarchy (%v)", err))
		return c, nil
	}
	if !m.root {
		c.fallback(fmt.Sprintf("not running as root (creating control groups under %s needs root)", h.Parent(h.Available()[0])))
		return c, nil
	}
	_, _ = h.CleanStale()
	// several servers of one rightsize (the neighbour scenario) each get
	// a group of their own
	g, err := h.Create(fmt.Sprintf("%s-%d", name, groupSeq.Add(1)))
	if err != nil {
		c.fallback(err.Error())
		return c, nil
	}
	c.Group, c.report.Version, c.report.Group = g, h.Version, g.Name
	// each limit on its own, so that one the machine lacks does not stop the others
	for _, p := range limitParts(asked) {
		if err := g.Set(p.l); err != nil {
			if p.l.CPUs != "" {
				c.pinCores(err.Error())
				continue
			}
			c.report.NotApplied = append(c.report.NotApplied, fmt.Sprintf("%s%s: %v", p.what, p.instead, err))
		}
	}
	if len(asked.IO) > 0 && h.Version == 1 {
		for _, d := range asked.IO {
			if d.WriteIOPS > 0 || d.WriteBPS > 0 {
				c.report.Notes = append(c.report.Notes, WriteLimitNote)
				break
			}
		}
	}
	return c, nil
}

// limitPart is one limit of asked, named for the report, with what stays
// of it when it cannot apply.
type limitPart struct {
	what, instead string
	l             Limits
}

// limitParts splits asked into its limits (only those asked).
func limitParts(asked Limits) []limitPart {
	var out []limitPart
	if asked.CPUs != "" {
		out = append(out, limitPart{what: "cpuset " + asked.CPUs, l: Limits{CPUs: asked.CPUs}})
	}
	if asked.Quota > 0 {
		out = append(out, limitPart{what: fmt.Sprintf("CPU quota %.2f cores", asked.Quota), l: Limits{Quota: asked.Quota}})
	}
	if asked.Memory > 0 {
		out = append(out, limitPart{what: fmt.Sprintf("memory limit %d MiB", asked.Memory>>20),
			instead: " (only the engine's cache setting applies, not a limit on its processes and page cache)", l: Limits{Memory: asked.Memory}})
	}
	if len(asked.IO) > 0 {
		out = append(out, limitPart{what: "I/O limit", l: Limits{IO: asked.IO}})
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
		c.report.NotApplied = append(c.report.NotApplied, p.what+p.instead)
	}
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
// server that embeds its Confinement answers target.Limited with it).
func (c *Confinement) Limits() Report { return c.Report() }

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
	if c == nil || c.Group == nil {
		return nil
	}
	return c.Group.Remove()
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
		s += fmt.Sprintf(" (cgroup v%d %s)", r.Version, r.Group)
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
