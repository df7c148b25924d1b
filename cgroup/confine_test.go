package cgroup

import (
	"errors"
	"os/exec"
	"strings"
	"testing"
)

// Confine's fallbacks on fake machines: no hierarchy, not root, a
// controller missing. The report says which limit applies, which does not
// and why; cores fall back to CPU affinity.
func TestConfineFallbacks(t *testing.T) {
	asked := Limits{CPUs: "1", Quota: 0.5, Memory: 256 << 20, IO: []DeviceLimit{{Device: Device{254, 0}, ReadIOPS: 100}}}
	v2 := func(controllers string) func(*testing.T) func() (*Hierarchy, error) {
		return func(t *testing.T) func() (*Hierarchy, error) {
			root := fakeV2(t, controllers)
			return func() (*Hierarchy, error) { return NewV2(root) }
		}
	}
	none := func(*testing.T) func() (*Hierarchy, error) {
		return func() (*Hierarchy, error) { return nil, ErrUnavailable }
	}
	v1 := func(t *testing.T) func() (*Hierarchy, error) {
		dir := t.TempDir()
		return func() (*Hierarchy, error) { return NewV1(map[string]string{CPUSet: dir, Memory: dir}), nil }
	}
	for _, c := range []struct {
		name    string
		detect  func(*testing.T) func() (*Hierarchy, error)
		root    bool
		group   bool   // a group is made
		pinned  string // cores by affinity
		applied Limits
		not     []string // each NOT applied entry, in order, contains this
		summary []string
	}{
		{name: "no hierarchy", detect: none, root: true, pinned: "1",
			not:     []string{"CPU quota 0.50 cores", "memory limit 256 MiB (only the engine's cache setting applies", "I/O limit"},
			summary: []string{"applied: cores 1 by CPU affinity", "no cgroup: no cgroup hierarchy (no usable cgroup controller)"}},
		{name: "not root, v1", detect: v1, pinned: "1",
			not:     []string{"CPU quota", "memory limit 256 MiB (only the engine's cache setting applies", "I/O limit"},
			summary: []string{"NOT applied: memory limit 256 MiB", "no cgroup: not running as root (creating control groups under "}},
		{name: "root, every controller", detect: v2("cpuset cpu io memory"), root: true, group: true, applied: asked},
		{name: "root, no cpuset and cpu controllers", detect: v2("memory io"), root: true, group: true, pinned: "1",
			applied: Limits{Memory: asked.Memory, IO: asked.IO},
			not:     []string{"CPU quota 0.50 cores: cannot apply a CPU quota: the cpu controller is not available"},
			summary: []string{"cores 1 by CPU affinity, memory limit 256 MiB", "note: cores 1 set by CPU affinity instead of a cpuset: cannot apply a cpuset: the cpuset controller is not available"}},
		{name: "root, no memory controller", detect: v2("cpuset cpu io"), root: true, group: true,
			applied: Limits{CPUs: "1", Quota: 0.5, IO: asked.IO},
			not:     []string{"memory limit 256 MiB (only the engine's cache setting applies, not a limit on its processes and page cache): cannot apply a memory limit: the memory controller is not available"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			detect := c.detect(t)
			place := func([]string, string) (*Hierarchy, error) { return detect() }
			conf, err := confine(machine{place: place, root: c.root}, "pg", asked, Options{BestEffort: true})
			if err != nil {
				t.Fatal(err)
			}
			defer conf.Close()
			r := conf.Report()
			if (conf.Group != nil) != c.group || (r.Group != "") != c.group || (r.NoGroup == "") != c.group {
				t.Errorf("group %v (%q), no_cgroup %q; want a group: %v", conf.Group != nil, r.Group, r.NoGroup, c.group)
			}
			if r.PinnedCPUs != c.pinned || FormatCPUList(conf.PinCPUs()) != c.pinned {
				t.Errorf("pinned %q / %v, want %q", r.PinnedCPUs, conf.PinCPUs(), c.pinned)
			}
			if r.Applied.CPUs != c.applied.CPUs || r.Applied.Quota != c.applied.Quota || r.Applied.Memory != c.applied.Memory || len(r.Applied.IO) != len(c.applied.IO) {
				t.Errorf("applied %+v, want %+v", r.Applied, c.applied)
			}
			if len(r.NotApplied) != len(c.not) {
				t.Fatalf("not applied %q, want %d entries like %q", r.NotApplied, len(c.not), c.not)
			}
			for i, want := range c.not {
				if !strings.Contains(r.NotApplied[i], want) {
					t.Errorf("not applied[%d] = %q, want %q in it", i, r.NotApplied[i], want)
				}
			}
			for _, want := range c.summary {
				if !strings.Contains(r.Summary(), want) {
					t.Errorf("summary %q, want %q in it", r.Summary(), want)
				}
			}
		})
	}
}

// A process added to a fallback confinement is pinned to the cores by
// affinity (a real process, the kernel's affinity read back), not put in
// a group.
func TestConfineFallbackPins(t *testing.T) {
	none := func([]string, string) (*Hierarchy, error) { return nil, errors.New("none") }
	conf, err := confine(machine{place: none}, "pg", Limits{CPUs: "0"}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if conf.ProcsFiles() != nil {
		t.Errorf("procs files %v without a group", conf.ProcsFiles())
	}
	cmd := exec.Command("sleep", "30")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	if err := conf.Add(cmd.Process.Pid); err != nil {
		t.Fatal(err)
	}
	if got, err := Affinity(cmd.Process.Pid); err != nil || FormatCPUList(got) != "0" {
		t.Errorf("affinity %v, %v; want 0", got, err)
	}
	if err := conf.Close(); err != nil {
		t.Errorf("close without a group: %v", err)
	}
}

// A write limit carries the note of its hierarchy's version: v1's
// writeback escapes to the root group, v2's is charged to whichever group
// a file's pages are charged to; a read limit carries neither.
func TestConfineWriteLimitNotes(t *testing.T) {
	dev := Device{254, 0}
	v1 := func(t *testing.T) (*Hierarchy, error) {
		return NewV1(map[string]string{IO: t.TempDir()}), nil
	}
	v2 := func(t *testing.T) (*Hierarchy, error) { return NewV2(fakeV2(t, "io")) }
	for _, c := range []struct {
		name    string
		place   func(*testing.T) (*Hierarchy, error)
		version int
		limit   DeviceLimit
		want    string // "" for no write-limit note
	}{
		{"v1 wbps", v1, 1, DeviceLimit{Device: dev, WriteBPS: 1 << 20}, WriteLimitNote},
		{"v1 wiops", v1, 1, DeviceLimit{Device: dev, WriteIOPS: 100}, WriteLimitNote},
		{"v2 wbps", v2, 2, DeviceLimit{Device: dev, WriteBPS: 1 << 20}, WriteLimitNoteV2},
		{"v2 wiops", v2, 2, DeviceLimit{Device: dev, WriteIOPS: 100}, WriteLimitNoteV2},
		{"v1 riops", v1, 1, DeviceLimit{Device: dev, ReadIOPS: 100}, ""},
		{"v2 rbps", v2, 2, DeviceLimit{Device: dev, ReadBPS: 1 << 20}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			place := func([]string, string) (*Hierarchy, error) { return c.place(t) }
			conf, err := confine(machine{place: place, root: true}, "pg", Limits{IO: []DeviceLimit{c.limit}}, Options{BestEffort: true})
			if err != nil {
				t.Fatal(err)
			}
			defer conf.Close()
			r := conf.Report()
			if r.Group == "" || r.Version != c.version {
				t.Fatalf("group %q of cgroup v%d: want a group of v%d", r.Group, r.Version, c.version)
			}
			var notes []string
			for _, n := range r.Notes {
				if n == WriteLimitNote || n == WriteLimitNoteV2 {
					notes = append(notes, n)
				}
			}
			switch {
			case c.want == "" && len(notes) > 0:
				t.Errorf("notes %q, want no write-limit note", notes)
			case c.want != "" && (len(notes) != 1 || notes[0] != c.want || !strings.Contains(r.Summary(), "note: "+c.want)):
				t.Errorf("notes %q, summary %q: want %q once", notes, r.Summary(), c.want)
			}
		})
	}
}
