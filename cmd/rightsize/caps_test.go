package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/rightsize/rightsize/cgroup"
	"github.com/rightsize/rightsize/internal/pgtest"
	"github.com/rightsize/rightsize/store"
)

// ownGroups lists the cgroups this test process created and left behind.
func ownGroups(t *testing.T) []string {
	t.Helper()
	return groupsOf(os.Getpid())
}

// needCgroups skips a test without root and a cgroup hierarchy.
func needCgroups(t *testing.T) *cgroup.Hierarchy {
	t.Helper()
	h, err := cgroup.Detect()
	if err != nil || os.Geteuid() != 0 {
		t.Skipf("needs root and cgroups (%v)", err)
	}
	return h
}

func TestCapsBadInput(t *testing.T) {
	args, dataDir := embeddedArgs(t, "capsbad-")
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"more cpus than the machine", []string{"--cpus", "64"}, "--cpus 64: this machine has"},
		{"cpus not a number", []string{"--cpus", "two"}, "--cpus \"two\""},
		{"memory below the engine's start", []string{"--memory", "16M"}, "--memory 16M is below what postgres runs in"},
		{"memory in kilobytes", []string{"--memory", "1K"}, "--memory 1K is below what postgres runs in"},
		{"io-limit syntax", []string{"--io-limit", "iops=5"}, "unknown key \"iops\""},
		{"driver cores missing", []string{"--driver-cpus", "0-63"}, "--driver-cpus 0-63"},
		{"pg-version not here", []string{"--pg-version", "11"}, "--pg-version 11"},
		{"--pg-setting is --set", []string{"--pg-setting", "nokey"}, `--set "nokey": want name=value`},
	}
	if _, err := os.Stat("/dev/shm"); err == nil {
		shm := filepath.Join("/dev/shm", fmt.Sprintf("rightsize-capsbad-%d", os.Getpid()))
		t.Cleanup(func() { os.RemoveAll(shm) })
		cases = append(cases, struct {
			name string
			args []string
			want string
		}{"io-limit on a device that cannot be found", []string{"--io-limit", "riops=100", "--data-dir", shm}, "without a block device"})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			full := append(append([]string{"run", "--store", tempStore(t)}, args...), c.args...)
			_, errOut, code := cli(t, context.Background(), full...)
			lines := strings.Split(strings.TrimSpace(errOut), "\n")
			if code != 2 || !strings.Contains(errOut, c.want) || len(lines) > 2 {
				t.Fatalf("exit %d, want 2 and %q in one line:\n%s", code, c.want, errOut)
			}
			if _, err := os.Stat(filepath.Join(dataDir, "PG_VERSION")); err == nil {
				t.Errorf("a cluster was created")
			}
			if left := ownGroups(t); len(left) > 0 {
				t.Errorf("cgroups left: %v", left)
			}
		})
	}
}

// Caps on the embedded PostgreSQL: read back from the server (SHOW via the
// stored settings), its postmaster's Cpus_allowed_list and the cgroup's
// memory limit while it runs; the server's CPU at most one core under load
// with --cpus 1; no group left afterwards.
func TestCapsEmbedded(t *testing.T) {
	h := needCgroups(t)
	if !h.Has(cgroup.CPUSet) || !h.Has(cgroup.Memory) {
		t.Skip("needs the cpuset and memory controllers")
	}
	// built without caps: a build's parallel index builds need more memory than a run
	args, dataDir := builtEmbedded(t, "caps-")
	caps := []string{"--cpus", "1", "--memory", "128M", "--io-limit", "riops=20000,wiops=10000"}
	st := tempStore(t)
	last := strconv.Itoa(runtime.NumCPU() - 1)
	var seen struct{ cpus, memLimit, driver string }
	before, _ := cgroup.Affinity(os.Getpid())
	watch := func(s string) {
		if !strings.Contains(s, "step 1/1") || seen.cpus != "" {
			return
		}
		b, _ := os.ReadFile(filepath.Join(dataDir, "postmaster.pid"))
		pid := strings.SplitN(string(b), "\n", 2)[0]
		status, _ := os.ReadFile("/proc/" + pid + "/status")
		for _, l := range strings.Split(string(status), "\n") {
			if v, ok := strings.CutPrefix(l, "Cpus_allowed_list:"); ok {
				seen.cpus = strings.TrimSpace(v)
			}
		}
		files, _ := filepath.Glob(filepath.Join(h.Parent(cgroup.Memory), fmt.Sprintf("rightsize-%d-postgres-*", os.Getpid()), "memory.limit_in_bytes"))
		if len(files) == 1 {
			mem, _ := os.ReadFile(files[0])
			seen.memLimit = strings.TrimSpace(string(mem))
		}
		d, _ := cgroup.Affinity(os.Getpid())
		seen.driver = cgroup.FormatCPUList(d)
	}
	// without waiting for WAL flushes the server is busy on the CPU
	run := append(append([]string{"run", "--users", "4", "--rampup", "500ms", "--duration", "3s", "--store", st, "--set", "synchronous_commit=off"}, args...), caps...)
	out, errOut, code := cliWatch(t, context.Background(), watch, run...)
	if code != 0 {
		t.Fatalf("run: %d\n%s%s", code, out, errOut)
	}
	if seen.cpus != last {
		t.Errorf("postmaster Cpus_allowed_list %q, want %q", seen.cpus, last)
	}
	if runtime.NumCPU() > 1 && seen.driver != cgroup.FormatCPUList(before[:len(before)-1]) {
		t.Errorf("driver on cores %q during the run, want the ones the server does not get", seen.driver)
	}
	if after, _ := cgroup.Affinity(os.Getpid()); cgroup.FormatCPUList(after) != cgroup.FormatCPUList(before) {
		t.Errorf("driver affinity %v after the run, want it restored to %v", after, before)
	}
	if h.Version == 1 && seen.memLimit != strconv.Itoa(128<<20) {
		t.Errorf("memory.limit_in_bytes %q, want %d", seen.memLimit, 128<<20)
	}
	s, err := store.Open(context.Background(), st)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	runs, err := s.ListRuns(context.Background())
	if err != nil || len(runs) != 1 {
		t.Fatalf("runs %v, %v", runs, err)
	}
	r, steps, err := s.LoadRun(context.Background(), runs[0].ID)
	if err != nil || len(steps) != 1 {
		t.Fatalf("run %v, %v", steps, err)
	}
	t.Logf("server CPU %.1f %% of one core, postmaster on cores %s, memory limit %s", steps[0].ServerCPUPct, seen.cpus, seen.memLimit)
	if cpu := steps[0].ServerCPUPct; cpu <= 0 || cpu > 105 {
		t.Errorf("server CPU %.1f %% of one core with --cpus 1, want (0, 100]", cpu)
	}
	if got := r.Env["setting.shared_buffers"]; got != "64MB" {
		t.Errorf("SHOW shared_buffers = %q, want 64MB (--memory 128M less the 64M reserve)", got)
	}
	var applied cgroup.Report
	if err := json.Unmarshal([]byte(r.Env["caps.applied"]), &applied); err != nil {
		t.Fatalf("caps.applied %q: %v", r.Env["caps.applied"], err)
	}
	if applied.Applied.CPUs != last || applied.Applied.Memory != 128<<20 || len(applied.Applied.IO) != 1 || applied.Applied.IO[0].ReadIOPS != 20000 {
		t.Errorf("stored applied caps %+v", applied.Applied)
	}
	if !strings.Contains(r.Env["caps.asked"], `"cpus":1`) {
		t.Errorf("caps.asked %q", r.Env["caps.asked"])
	}
	if left := ownGroups(t); len(left) > 0 {
		t.Errorf("cgroups left: %v", left)
	}
}

// A storage probe inside an I/O limit measures IOPS at or about the limit
// (the kernel lets a first slice through, hence 10 %).
func TestProbeStorageIOLimit(t *testing.T) {
	h := needCgroups(t)
	if !h.Has(cgroup.IO) {
		t.Skip("needs the io (blkio) controller")
	}
	dir := pgtest.ServerDir(t, "iolimit-")
	if _, err := cgroup.DeviceOf("/sys", dir); err != nil {
		t.Skip(err)
	}
	out, errOut, code := cli(t, context.Background(), "probe", "storage", "--path", dir, "--preset", "custom", "--bs", "8k", "--read-pct", "100",
		"--threads", "2", "--depth", "4", "--duration", "2s", "--size", "32M", "--engine", "builtin", "--io-limit", "riops=200", "--store", tempStore(t), "--json")
	if code != 0 {
		t.Fatalf("probe: %d\n%s%s", code, out, errOut)
	}
	var res struct {
		Result struct {
			Jobs []struct {
				Read struct {
					IOPS float64 `json:"iops"`
				} `json:"read"`
			} `json:"jobs"`
			IOLimit *cgroup.Report `json:"io_limit"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil || len(res.Result.Jobs) != 1 || res.Result.IOLimit == nil {
		t.Fatalf("probe --json: %v\n%s", err, out)
	}
	if iops := res.Result.Jobs[0].Read.IOPS; iops <= 0 || iops > 220 {
		t.Errorf("read IOPS %.0f under riops=200", iops)
	}
	if left := ownGroups(t); len(left) > 0 {
		t.Errorf("cgroups left: %v", left)
	}
}
