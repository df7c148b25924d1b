// Package doctor says what this machine allows rightsize to do: the cgroup
// hierarchy and its controllers, whether each cap (--cpus, --memory,
// --io-limit, --wal-dir, --pg-version) can be applied and how, the engines
// and their binaries, fio, free space, and the identity rightsize runs as.
//
// A cap's verdict is a trial, never a reading of the controllers listed:
// for each of --cpus (a cpuset), --cpus 1.5 (a quota), --memory and
// --io-limit it makes a group where a run would (cgroup.Check: the same
// placement), writes the limit, reads it back and removes the group; yes
// only when the limit read back is the one written.
package doctor

import (
	"context"
	"fmt"
	"github.com/rightsize/rightsize/diskspace"
	"io"
	"os"
	"os/exec"
	"os/user"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/rightsize/rightsize/cgroup"
	"github.com/rightsize/rightsize/instance"
	"github.com/rightsize/rightsize/registry"
)

// Report is what Check found.
type Report struct {
	Root         bool      `json:"root"`
	User         string    `json:"user"`
	ServerUser   string    `json:"server_user"` // the unprivileged user PostgreSQL runs as when rightsize is root
	ServerUserOK bool      `json:"server_user_exists"`
	CPUs         int       `json:"cpus"`
	Cgroup       Cgroup    `json:"cgroup"`
	Engines      []Engine  `json:"engines"`
	Fio          string    `json:"fio"` // version, "" when not installed
	BaseDir      string    `json:"base_dir"`
	FreeBytes    uint64    `json:"free_bytes"`
	DataDir      string    `json:"data_dir"`
	Device       string    `json:"data_device,omitempty"` // MAJ:MIN of the data directory's disk
	DeviceError  string    `json:"data_device_error,omitempty"`
	Space        DataSpace `json:"data_space"`
	Verdicts     []Verdict `json:"verdicts"`
	// Trials are the caps tried in a group made and removed (see the
	// package comment), by capability.
	Trials []Trial `json:"trials"`
}

// Trial is one cap tried for real: the limit written to a group made where
// a run would make it, read back, the group removed.
type Trial struct {
	Capability string `json:"capability"`
	OK         bool   `json:"ok"`
	// Placement is where the group was made and how that place was found.
	Placement string `json:"placement,omitempty"`
	// Why is what failed and the fix ("" when OK).
	Why string `json:"why,omitempty"`
}

// Cgroup describes the hierarchy groups would be made in.
type Cgroup struct {
	Version     int               `json:"version"` // 0: none usable
	Controllers []string          `json:"controllers"`
	Parents     map[string]string `json:"parents,omitempty"`
	Error       string            `json:"error,omitempty"`
}

// Engine is one managed engine and its binaries.
type Engine struct {
	Name     string   `json:"name"`
	Binaries []string `json:"binaries"` // what is installed or cached
	Note     string   `json:"note,omitempty"`
}

// Verdict is one capability, one line.
type Verdict struct {
	Capability string `json:"capability"`
	OK         bool   `json:"ok"`
	How        string `json:"how"`
}

// Check inspects the machine; dataDir is the data directory to check the
// I/O device and free space of ("": the default base directory), parent
// the --cgroup-parent to try the caps under ("": where a run would find).
func Check(ctx context.Context, dataDir, parent string) Report {
	r := Report{Root: os.Geteuid() == 0, ServerUser: instance.SystemUser, CPUs: runtime.NumCPU(), BaseDir: instance.DefaultBaseDir()}
	if u, err := user.Current(); err == nil {
		r.User = u.Username
	}
	_, err := user.Lookup(instance.SystemUser)
	r.ServerUserOK = err == nil
	r.DataDir = dataDir
	if r.DataDir == "" {
		r.DataDir = r.BaseDir
	}
	probe := cgroup.Existing(r.DataDir)
	r.FreeBytes = freeBytes(probe)
	r.Space = dataSpace(r.DataDir, r.FreeBytes)
	dev, err := cgroup.DeviceOf("/sys", probe)
	if err != nil {
		r.DeviceError = err.Error()
	} else {
		r.Device = dev.String()
	}
	if h, err := cgroup.Detect(); err != nil {
		r.Cgroup.Error = err.Error()
	} else {
		r.Cgroup.Version, r.Cgroup.Controllers, r.Cgroup.Parents = h.Version, h.Available(), map[string]string{}
		for _, c := range h.Available() {
			r.Cgroup.Parents[c] = h.Parent(c)
		}
	}
	for _, e := range registry.Engines() {
		if m := e.Managed; m != nil {
			found, note := m.Binaries(ctx, r.BaseDir)
			r.Engines = append(r.Engines, Engine{Name: m.Name, Binaries: found, Note: note})
		}
	}
	if path, err := exec.LookPath("fio"); err == nil {
		out, _ := command(ctx, path, "--version")
		r.Fio = strings.TrimSpace(out)
	}
	r.Trials = trials(r, dev, parent)
	r.Verdicts = verdicts(r)
	return r
}

// Trial capabilities, as the verdicts name them.
const (
	capCores    = "--cpus N (whole cores)"
	capFraction = "--cpus 1.5 (fractions)"
	capMemory   = "--memory"
	capIO       = "--io-limit"
)

// trials tries each cap in a group of its own (cgroup.Check).
func trials(r Report, dev cgroup.Device, parent string) []Trial {
	last := fmt.Sprint(r.CPUs - 1)
	limits := []struct {
		name string
		l    cgroup.Limits
	}{
		{capCores, cgroup.Limits{CPUs: last}},
		{capFraction, cgroup.Limits{CPUs: last, Quota: 0.5}},
		{capMemory, cgroup.Limits{Memory: 256 << 20}},
		{capIO, cgroup.Limits{IO: []cgroup.DeviceLimit{{Device: dev, ReadIOPS: 1000, WriteIOPS: 1000}}}},
	}
	var out []Trial
	for _, x := range limits {
		if x.name == capIO && r.DeviceError != "" {
			out = append(out, Trial{Capability: x.name, Why: r.DeviceError})
			continue
		}
		rep, err := cgroup.Check(x.l, cgroup.Options{Parent: parent})
		t := Trial{Capability: x.name, Placement: rep.Placement, OK: err == nil && sameLimits(rep.Applied, x.l)}
		switch {
		case err != nil:
			t.Why = err.Error()
		case !t.OK && (rep.NoGroup != "" || len(rep.Notes) > 0):
			t.Why = strings.Join(append([]string{rep.NoGroup}, rep.Notes...), "; ")
			t.Why = strings.TrimPrefix(t.Why, "; ")
		case !t.OK:
			t.Why = fmt.Sprintf("read back %+v after writing %+v", rep.Applied, x.l)
		}
		out = append(out, t)
	}
	return out
}

// sameLimits reports whether got holds the limit a trial is about: the
// quota of a fraction (its cores may come by affinity), else every limit of
// want.
func sameLimits(got, want cgroup.Limits) bool {
	if want.Quota > 0 {
		return got.Quota == want.Quota
	}
	return got.CPUs == want.CPUs && got.Memory == want.Memory && slices.Equal(got.IO, want.IO)
}

// trial is the trial of capability name.
func (r Report) trial(name string) Trial {
	for _, t := range r.Trials {
		if t.Capability == name {
			return t
		}
	}
	return Trial{Capability: name, Why: "not tried"}
}

func command(ctx context.Context, name string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, name, args...).CombinedOutput()
	return string(out), err
}

// verdicts are one line per capability; the caps' come from their trials.
func verdicts(r Report) []Verdict {
	where := func(t Trial) string {
		if t.Placement == "" {
			return fmt.Sprintf(" (cgroup v%d)", r.Cgroup.Version)
		}
		return fmt.Sprintf(" (cgroup v%d, groups under %s)", r.Cgroup.Version, t.Placement)
	}
	var v []Verdict
	if t := r.trial(capCores); t.OK {
		v = append(v, Verdict{capCores, true, fmt.Sprintf("cpuset, tried%s; the driver on the cores left (%d cores here)", where(t), r.CPUs)})
	} else {
		v = append(v, Verdict{capCores, true, "CPU affinity (taskset) of the server, no cpuset: " + t.Why})
	}
	if t := r.trial(capFraction); t.OK {
		v = append(v, Verdict{capFraction, true, "CFS quota (" + map[bool]string{true: "cpu.max", false: "cpu.cfs_quota_us"}[r.Cgroup.Version == 2] + "), tried" + where(t)})
	} else {
		v = append(v, Verdict{capFraction, false, t.Why})
	}
	if t := r.trial(capMemory); t.OK {
		v = append(v, Verdict{capMemory, true, "engine cache setting and a cgroup memory limit including the page cache, tried" + where(t) + "; OOM kills read back"})
	} else {
		v = append(v, Verdict{capMemory, false, t.Why})
	}
	switch t := r.trial(capIO); {
	case !t.OK:
		v = append(v, Verdict{capIO, false, t.Why})
	case r.Cgroup.Version == 1:
		v = append(v, Verdict{capIO, true, "blkio throttle on device " + r.Device + ", tried" + where(t) + "; reads and direct/fsync writes only: " + cgroup.WriteLimitNote})
	default:
		v = append(v, Verdict{capIO, true, "io.max on device " + r.Device + ", tried" + where(t) + "; writes: " + cgroup.WriteLimitNoteV2})
	}
	v = append(v, Verdict{"--wal-dir", true, walDirs()})
	v = append(v, Verdict{"--pg-version", true, "downloads PostgreSQL " + instance.VersionList() + " on first use (about 15 MB each); installed ones with --pg-bin DIR"})
	if !r.Root {
		v = append(v, Verdict{"servers as root", true, "not root: servers run as " + r.User})
	} else if r.ServerUserOK {
		v = append(v, Verdict{"servers as root", true, "PostgreSQL runs as the system user " + r.ServerUser})
	} else {
		v = append(v, Verdict{"servers as root", true, "the system user " + r.ServerUser + " is created at the first PostgreSQL start"})
	}
	if r.Fio == "" {
		v = append(v, Verdict{"probe storage", true, "built-in O_DIRECT engine (fio not installed)"})
	} else {
		v = append(v, Verdict{"probe storage", true, r.Fio})
	}
	return v
}

// walDirs is how each managed server keeps its transaction log on
// --wal-dir's path (the registry's ManagedServer.WALDir).
func walDirs() string {
	var how []string
	for _, e := range registry.Engines() {
		if e.Managed != nil && e.Managed.WALDir != "" {
			how = append(how, e.Managed.WALDir)
		}
	}
	return strings.Join(how, "; ")
}

// WriteText prints the report for a terminal.
func WriteText(w io.Writer, r Report) {
	fmt.Fprintf(w, "user: %s (root: %v); PostgreSQL's server user: %s (exists: %v); %d cores\n", r.User, r.Root, r.ServerUser, r.ServerUserOK, r.CPUs)
	if r.Cgroup.Version == 0 {
		fmt.Fprintf(w, "cgroup: none usable (%s)\n", r.Cgroup.Error)
	} else {
		fmt.Fprintf(w, "cgroup: v%d, controllers %s\n", r.Cgroup.Version, strings.Join(r.Cgroup.Controllers, ", "))
		for _, c := range r.Cgroup.Controllers {
			if r.Cgroup.Version == 2 {
				fmt.Fprintf(w, "  rightsize runs in %s; where its groups go is tried below\n", r.Cgroup.Parents[c])
				break
			}
			fmt.Fprintf(w, "  %-7s groups under %s\n", c, r.Cgroup.Parents[c])
		}
	}
	for _, e := range r.Engines {
		fmt.Fprintf(w, "%s: ", e.Name)
		if len(e.Binaries) > 0 {
			fmt.Fprint(w, strings.Join(e.Binaries, "; "))
		}
		if e.Note != "" {
			fmt.Fprint(w, e.Note)
		}
		fmt.Fprintln(w)
	}
	fio := r.Fio
	if fio == "" {
		fio = "not installed"
	}
	fmt.Fprintf(w, "fio: %s\n", fio)
	fmt.Fprintf(w, "data: %s, %s free, device %s%s%s\n", r.DataDir, diskspace.MiBs(int64(r.FreeBytes)), orNone(r.Device), r.DeviceError,
		spaceText(r.Space, r.FreeBytes))
	fmt.Fprintln(w, "capabilities:")
	for _, v := range r.Verdicts {
		mark := "yes"
		if !v.OK {
			mark = "NO "
		}
		fmt.Fprintf(w, "  %s  %-24s %s\n", mark, v.Capability, v.How)
	}
}

func orNone(s string) string {
	if s == "" {
		return "none "
	}
	return s
}
