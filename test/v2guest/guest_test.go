// Package v2guest tests rightsize's caps on a pure cgroup v2 hierarchy: a
// guest (Debian's kernel under qemu, the host's binaries over 9p, see
// run.sh) where rightsize is started from the places users start it (the
// layouts of suite.sh), and judges what each left: doctor's answers, the
// kernel's view during the run, what was stored, exit 2 where a cap cannot
// be applied, and nothing left behind.
package v2guest

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/rightsize/rightsize/cgroup"
)

// layout is what a layout must show.
type layout struct {
	name string
	// placement is a part of the stored placement ("" when no run stores one)
	placement string
	// under is where the server's group must be (its path's start)
	under string
	// rc is the run's exit code; 2: a cap that cannot be applied
	rc int
	// doctorNo are the capabilities doctor must answer NO to (the others yes)
	doctorNo []string
	// said are parts of the run's standard error
	said []string
	// cpuset is false where whole cores are set by CPU affinity
	cpuset bool
}

var layouts = []layout{
	{name: "root", placement: "root cgroup /sys/fs/cgroup", under: "/sys/fs/cgroup/rightsize-", cpuset: true},
	{name: "session", placement: "nearest ancestor with no process /sys/fs/cgroup/user.slice", under: "/sys/fs/cgroup/user.slice/rightsize-", cpuset: true},
	{name: "service", placement: "own group, rightsize moved into rightsize-", under: "/sys/fs/cgroup/system.slice/rightsize.service/rightsize-", cpuset: true},
	{name: "sysdefault", placement: "nearest ancestor with no process /sys/fs/cgroup/user2.slice", under: "/sys/fs/cgroup/user2.slice/rightsize-", cpuset: true},
	{name: "parent", placement: "--cgroup-parent /sys/fs/cgroup/rightsize.slice", under: "/sys/fs/cgroup/rightsize.slice/rightsize-", cpuset: true},
	{name: "user", placement: "own group, rightsize moved into rightsize-", under: "/sys/fs/cgroup/user.slice/user-61000.slice/user@61000.service/app.slice/rightsize.scope/rightsize-", cpuset: true},
	{name: "container", placement: "own group, rightsize moved into rightsize-", under: "/sys/fs/cgroup/container.scope/rightsize-", cpuset: true},
	{name: "container-shared", rc: 2, doctorNo: []string{"--cpus 1.5 (fractions)", "--memory", "--io-limit"},
		said: []string{"cannot apply memory and I/O", "holds other processes", "--cgroup-parent PATH", "--caps best-effort"}},
	// a user's login session under systemd as PID 1: rightsize asks the
	// user manager for a delegated scope and places its groups in it
	{name: "systemd", placement: "systemd scope rightsize-", under: "/sys/fs/cgroup/user.slice/user-61000.slice/user@61000.service/app.slice/rightsize-", cpuset: true},
	{name: "user-noio", rc: 2, doctorNo: []string{"--io-limit"},
		said: []string{"cannot apply I/O", "the io controller is not available", "Delegate=cpu cpuset io memory pids", "--caps best-effort"}},
}

// TestGuest boots the guest once (several minutes under TCG) and judges
// every layout and the memory sweep. RIGHTSIZE_V2GUEST_OUT=DIR judges a
// guest's results already in DIR instead of booting one.
func TestGuest(t *testing.T) {
	out := os.Getenv("RIGHTSIZE_V2GUEST_OUT")
	if out == "" {
		if testing.Short() {
			t.Skip("-short: the cgroup v2 guest takes minutes")
		}
		out = t.TempDir()
		cmd := exec.Command("./run.sh", out)
		b, err := cmd.CombinedOutput()
		t.Logf("run.sh:\n%s", b)
		if err != nil {
			t.Fatalf("run.sh: %v (prerequisites: scripts/install-test-deps.sh)", err)
		}
	}
	log, _ := os.ReadFile(filepath.Join(out, "suite.log"))
	t.Logf("suite.log:\n%s", log)
	for _, l := range layouts {
		t.Run(l.name, func(t *testing.T) { checkLayout(t, filepath.Join(out, l.name), l) })
	}
	t.Run("sweep", func(t *testing.T) { checkSweep(t, filepath.Join(out, "sweep")) })
	t.Run("probe", func(t *testing.T) { checkProbe(t, filepath.Join(out, "probe")) })
}

func checkLayout(t *testing.T, dir string, l layout) {
	checkDoctor(t, dir, l)
	errOut := read(t, dir, "run.err")
	if rc := strings.TrimSpace(read(t, dir, "run.rc")); rc != strconv.Itoa(l.rc) {
		t.Fatalf("run exit %s, want %d:\n%s", rc, l.rc, errOut)
	}
	for _, want := range l.said {
		if !strings.Contains(errOut, want) {
			t.Errorf("run's stderr does not say %q:\n%s", want, errOut)
		}
	}
	checkLeftovers(t, dir)
	if l.rc != 0 {
		if s := strings.TrimSpace(read(t, dir, "stored.json")); s != "" {
			t.Errorf("a refused run stored something: %.300s", s)
		}
		return
	}
	checkKernelView(t, dir, l)
	checkStored(t, dir, l)
	if strings.Contains(l.placement, "moved") {
		checkMovedBack(t, dir, strings.TrimSuffix(l.under, "/rightsize-"))
	}
}

// checkMovedBack: the group rightsize moved out of is as it was before
// (its controllers disabled again, rightsize's leaf gone).
func checkMovedBack(t *testing.T, dir, own string) {
	line := func(file string) string {
		for _, l := range strings.Split(read(t, dir, file), "\n") {
			if strings.HasPrefix(l, own+" ") {
				return strings.Split(l, " procs=")[0]
			}
		}
		return ""
	}
	if before, after := line("tree-before.txt"), line("tree-after.txt"); before == "" || before != after {
		t.Errorf("%s before the run: %q, after: %q", own, before, after)
	}
}

// checkDoctor: every cap tried says yes, except those the layout lacks.
func checkDoctor(t *testing.T, dir string, l layout) {
	var r struct {
		Verdicts []struct {
			Capability string `json:"capability"`
			OK         bool   `json:"ok"`
			How        string `json:"how"`
		} `json:"verdicts"`
		Trials []struct {
			Capability, Placement string
			OK                    bool
		} `json:"trials"`
	}
	if err := json.Unmarshal([]byte(read(t, dir, "doctor.json")), &r); err != nil || len(r.Trials) != 4 {
		t.Fatalf("doctor --json: %v, %d trials\n%s", err, len(r.Trials), read(t, dir, "doctor.err"))
	}
	for _, v := range r.Verdicts {
		if !strings.HasPrefix(v.Capability, "--cpus") && v.Capability != "--memory" && v.Capability != "--io-limit" {
			continue
		}
		no := slices.Contains(l.doctorNo, v.Capability)
		if v.OK == no {
			t.Errorf("doctor: %s ok=%v (%s), want ok=%v", v.Capability, v.OK, v.How, !no)
		}
		if v.OK && l.placement != "" && !strings.Contains(v.How, strings.Fields(l.placement)[0]) {
			t.Errorf("doctor: %s says %q, want the placement %q", v.Capability, v.How, l.placement)
		}
	}
}

// checkKernelView: during the run a rightsize group held the postmaster
// and every backend with the limits asked, as the kernel shows them.
func checkKernelView(t *testing.T, dir string, l layout) {
	files := map[string]map[string]string{} // group → file → last value seen
	inGroup, outside := 0, map[string]string{}
	grouped := false // the sample shows the server's group (rightsize's own
	// short-lived postgres commands before the start are not the server)
	sc := bufio.NewScanner(strings.NewReader(read(t, dir, "monitor.txt")))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		switch {
		case len(f) == 2 && f[0] == "T":
			grouped = false
		case len(f) >= 3 && f[0] == "G" && strings.Contains(f[1], "-postgres-"):
			grouped = true
			if files[f[1]] == nil {
				files[f[1]] = map[string]string{}
			}
			// a file read while the group was being removed reads empty
			if v := strings.Join(f[3:], " "); v != "" {
				files[f[1]][f[2]] = v
			}
		case len(f) == 3 && f[0] == "P" && grouped:
			if strings.Contains(f[2], "-postgres-") {
				inGroup++
			} else {
				outside[f[1]] = f[2]
			}
		}
	}
	if len(files) != 1 {
		t.Fatalf("saw %d postgres groups during the run, want 1: %v", len(files), files)
	}
	for g, v := range files {
		if !strings.HasPrefix(g, l.under) {
			t.Errorf("group %s, want it at %s*", g, l.under)
		}
		want := map[string]string{"memory.max": "536870912", "io.max": "riops=300 wiops=300"}
		if l.cpuset {
			want["cpuset.cpus.effective"] = "1"
		}
		for file, w := range want {
			if !strings.Contains(v[file], w) {
				t.Errorf("%s/%s = %q, want %q", g, file, v[file], w)
			}
		}
	}
	if inGroup < 3 || len(outside) > 0 {
		t.Errorf("postgres processes: %d samples in the group, outside it: %v", inGroup, outside)
	}
}

// checkStored: the run is stored complete with every cap applied and the
// placement named.
func checkStored(t *testing.T, dir string, l layout) {
	var doc struct {
		Run struct {
			Status string            `json:"status"`
			Env    map[string]string `json:"env"`
		} `json:"run"`
	}
	if err := json.Unmarshal([]byte(read(t, dir, "stored.json")), &doc); err != nil {
		t.Fatalf("stored run: %v", err)
	}
	var r struct {
		Placement  string   `json:"placement"`
		NotApplied []string `json:"not_applied"`
		Applied    struct {
			Memory int64 `json:"memory_bytes"`
		} `json:"applied"`
	}
	if err := json.Unmarshal([]byte(doc.Run.Env["caps.applied"]), &r); err != nil {
		t.Fatalf("caps.applied %q: %v", doc.Run.Env["caps.applied"], err)
	}
	if doc.Run.Status != "complete" || len(r.NotApplied) > 0 || r.Applied.Memory != 512<<20 || doc.Run.Env["caps.not_applied"] != "" ||
		!strings.Contains(r.Placement, l.placement) {
		t.Errorf("stored: status %s, caps %+v, caps.not_applied %q; want complete, all applied, placement %q", doc.Run.Status, r,
			doc.Run.Env["caps.not_applied"], l.placement)
	}
	// wiops=300 is a write limit: the run keeps why, on v2, it may hold
	// back more or less than asked
	if s := doc.Run.Env["caps.summary"]; !strings.Contains(s, "note: "+cgroup.WriteLimitNoteV2) || strings.Contains(s, cgroup.WriteLimitNote) {
		t.Errorf("caps.summary %q: want v2's write-limit note, not v1's", s)
	}
	// and creates its WAL segments anew, each its own group's from its
	// first page (a recycled one escaped a write limit)
	if r, z := doc.Run.Env["setting.wal_recycle"], doc.Run.Env["setting.wal_init_zero"]; r != "off" || z != "off" {
		t.Errorf("stored wal_recycle %q, wal_init_zero %q; want off and off on cgroup v2", r, z)
	}
}

// checkLeftovers: no rightsize group and no server after the command.
func checkLeftovers(t *testing.T, dir string) {
	if g := strings.TrimSpace(read(t, dir, "left-groups.txt")); g != "" {
		t.Errorf("groups left behind:\n%s", g)
	}
	if p := strings.TrimSpace(read(t, dir, "left-procs.txt")); p != "" {
		t.Errorf("servers left behind:\n%s", p)
	}
}

// checkSweep: a memory sweep from a session scope measured both points,
// each under its own memory limit (read back) and cache, prewarmed before
// its ramp-up (--prewarm), and the cap took effect: the 2-warehouse
// database (~215 MiB) fits in 1G's cache (512MB) and reads almost no block
// per transaction, 256M's (128MB) cannot hold it and reads many times more.
// Without the prewarm both points start cold and so short a run measures
// the cold start (2.96 and 2.99 blocks per transaction in one guest run,
// 20.9 and 4.4 in another).
func checkSweep(t *testing.T, dir string) {
	if rc := strings.TrimSpace(read(t, dir, "sweep.rc")); rc != "0" {
		t.Fatalf("sweep exit %s:\n%s", rc, read(t, dir, "sweep.err"))
	}
	var res struct {
		Status string `json:"status"`
		Points []struct {
			Value      string  `json:"value"`
			Status     string  `json:"status"`
			BlocksRead float64 `json:"blocks_read_per_txn"`
			NOPM       float64 `json:"nopm"`
			RunID      string  `json:"run_id"`
		} `json:"points"`
	}
	if err := json.Unmarshal([]byte(read(t, dir, "sweep.json")), &res); err != nil || len(res.Points) != 2 {
		t.Fatalf("sweep --json: %v\n%s", err, read(t, dir, "sweep.json"))
	}
	t.Logf("points: %+v", res.Points)
	big, small := res.Points[0], res.Points[1]
	if big.Value != "1G" || small.Value != "256M" || big.NOPM <= 0 || small.NOPM <= 0 {
		t.Fatalf("points %+v", res.Points)
	}
	t.Logf("blocks read per transaction: %.2f at 1G, %.2f at 256M", big.BlocksRead, small.BlocksRead)
	// relative: on a loaded host a point completes few transactions, and the
	// blocks that inserts add count as reads (measured: 0.29 and 5.59 at
	// 876 and 684 NOPM; 0.56 and 19.7 at 78 and 48 NOPM)
	if small.BlocksRead < 1 || small.BlocksRead < 4*big.BlocksRead {
		t.Errorf("blocks read per transaction: %.2f at 1G, %.2f at 256M; want almost none at 1G (the prewarmed database fits in its cache) and at least 4 times as many at 256M",
			big.BlocksRead, small.BlocksRead)
	}
	// each point's server ran under its own memory limit, read back from
	// memory.max, with the cache that --memory gives it
	for _, p := range []struct {
		id     string
		memory int64
		cache  string
	}{{big.RunID, 1 << 30, "512MB"}, {small.RunID, 256 << 20, "128MB"}} {
		var doc struct {
			Run struct {
				Env map[string]string `json:"env"`
			} `json:"run"`
		}
		if err := json.Unmarshal([]byte(read(t, dir, "run-"+p.id+".json")), &doc); err != nil {
			t.Fatalf("stored run %s: %v", p.id, err)
		}
		var r struct {
			Applied struct {
				Memory int64 `json:"memory_bytes"`
			} `json:"applied"`
		}
		_ = json.Unmarshal([]byte(doc.Run.Env["caps.applied"]), &r)
		if b, _ := strconv.ParseInt(doc.Run.Env["prewarm.bytes"], 10, 64); b < 100<<20 {
			t.Errorf("run %s: prewarmed %q bytes; want the database's (~215 MiB)", p.id, doc.Run.Env["prewarm.bytes"])
		}
		if r.Applied.Memory != p.memory || doc.Run.Env["setting.shared_buffers"] != p.cache || doc.Run.Env["caps.not_applied"] != "" {
			t.Errorf("run %s: memory limit %d read back, shared_buffers %q; want %d and %s", p.id, r.Applied.Memory, doc.Run.Env["setting.shared_buffers"], p.memory, p.cache)
		}
	}
	errOut := read(t, dir, "sweep.err")
	for _, want := range []string{"applied: memory limit 1024 MiB (cgroup v2", "applied: memory limit 256 MiB (cgroup v2", "placement: nearest ancestor with no process /sys/fs/cgroup/user.slice"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("the sweep does not say %q:\n%s", want, errOut)
		}
	}
	if strings.Contains(errOut, "NOT applied") {
		t.Errorf("a point's cap was not applied:\n%s", errOut)
	}
	checkLeftovers(t, dir)
}

func read(t *testing.T, dir, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return string(b)
}

// checkProbe: the storage probe ran inside a group with its I/O limit
// (read back), placed where a session allows, and left nothing behind.
func checkProbe(t *testing.T, dir string) {
	errOut := read(t, dir, "probe.err")
	if rc := strings.TrimSpace(read(t, dir, "probe.rc")); rc != "0" {
		t.Fatalf("probe exit %s:\n%s", rc, errOut)
	}
	var res struct {
		Result struct {
			IOLimit struct {
				Placement string `json:"placement"`
				Applied   struct {
					IO []struct {
						ReadIOPS int `json:"riops"`
					} `json:"io"`
				} `json:"applied"`
			} `json:"io_limit"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(read(t, dir, "probe.json")), &res); err != nil {
		t.Fatalf("probe --json: %v\n%s", err, read(t, dir, "probe.json"))
	}
	l := res.Result.IOLimit
	if io := l.Applied.IO; len(io) != 1 || io[0].ReadIOPS != 200 || !strings.Contains(l.Placement, "/sys/fs/cgroup/user.slice") {
		t.Errorf("probe's I/O limit: %+v", l)
	}
	checkLeftovers(t, dir)
}
