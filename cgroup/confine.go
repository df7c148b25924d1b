package cgroup

import (
	"errors"
	"fmt"
	"os"
	"strings"
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
}

// Confinement is a process tree's group, or, when no group can be made,
// the affinity fallback for its cores.
type Confinement struct {
	Group  *Group // nil without a usable hierarchy
	report Report
	pin    []int
}

// Confine creates the group rightsize-<pid>-<name> with asked applied,
// after removing groups a killed rightsize left. It does not fail when
// cgroups cannot be used: the report says what was not applied; cores fall
// back to CPU affinity (Pin). Only an unexpected error creating a group
// that should work is returned.
func Confine(name string, asked Limits) (*Confinement, error) {
	c := &Confinement{report: Report{Asked: asked}}
	h, err := Detect()
	if err != nil {
		c.fallback(fmt.Sprintf("no cgroup hierarchy (%v)", err))
		return c, nil
	}
	if os.Geteuid() != 0 {
		c.fallback("not running as root (creating control groups needs root or a delegated cgroup)")
		return c, nil
	}
	_, _ = h.CleanStale()
	g, err := h.Create(name)
	if err != nil {
		c.fallback(err.Error())
		return c, nil
	}
	c.Group, c.report.Version, c.report.Group = g, h.Version, g.Name
	// each limit on its own, so that one the machine lacks does not stop the others
	parts := []struct {
		what string
		l    Limits
		ok   bool
	}{
		{"cores " + asked.CPUs, Limits{CPUs: asked.CPUs}, asked.CPUs != ""},
		{fmt.Sprintf("CPU quota %.2f cores", asked.Quota), Limits{Quota: asked.Quota}, asked.Quota > 0},
		{fmt.Sprintf("memory limit %d MiB", asked.Memory>>20), Limits{Memory: asked.Memory}, asked.Memory > 0},
		{"I/O limit", Limits{IO: asked.IO}, len(asked.IO) > 0},
	}
	for _, p := range parts {
		if !p.ok {
			continue
		}
		if err := g.Set(p.l); err != nil {
			c.report.NotApplied = append(c.report.NotApplied, fmt.Sprintf("%s: %v", p.what, err))
			if p.l.CPUs != "" {
				c.pin, _ = ParseCPUList(asked.CPUs)
				c.report.PinnedCPUs = asked.CPUs
			}
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

// fallback records that no group exists: cores are pinned by affinity,
// everything else is not applied.
func (c *Confinement) fallback(why string) {
	a := c.report.Asked
	if a.CPUs != "" {
		c.pin, _ = ParseCPUList(a.CPUs)
		c.report.PinnedCPUs = a.CPUs
		c.report.Notes = append(c.report.Notes, "cores "+a.CPUs+" set by CPU affinity (taskset) instead of a cpuset: "+why)
	}
	if a.Quota > 0 {
		c.report.NotApplied = append(c.report.NotApplied, fmt.Sprintf("CPU quota %.2f cores: %s", a.Quota, why))
	}
	if a.Memory > 0 {
		c.report.NotApplied = append(c.report.NotApplied, fmt.Sprintf("memory limit %d MiB (only the engine's cache setting applies): %s", a.Memory>>20, why))
	}
	if len(a.IO) > 0 {
		c.report.NotApplied = append(c.report.NotApplied, "I/O limit: "+why)
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
		on = append(on, "affinity "+r.PinnedCPUs)
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
	for _, n := range r.Notes {
		s += "; note: " + n
	}
	return s
}
