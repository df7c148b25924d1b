//go:build linux

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/rightsize/rightsize/caps"
	"github.com/rightsize/rightsize/cgroup"
	"github.com/rightsize/rightsize/engine/postgres"
	"github.com/rightsize/rightsize/instance"
	"github.com/rightsize/rightsize/instance/mariadb"
	"github.com/rightsize/rightsize/internal/pgtest"
	"github.com/rightsize/rightsize/internal/testuser"
)

// readableBinDir is a directory of PostgreSQL binaries every user may run:
// $RIGHTSIZE_PG_BIN, Debian's PostgreSQL 15, or root's extracted download.
func readableBinDir(t *testing.T) string {
	t.Helper()
	dirs := []string{os.Getenv("RIGHTSIZE_PG_BIN"), "/usr/lib/postgresql/15/bin"}
	cached, _ := filepath.Glob(filepath.Join(instance.DefaultBaseDir(), "pgbin", "postgres-15*", "bin"))
	for _, d := range append(dirs, cached...) {
		if st, err := os.Stat(filepath.Join(d, "postgres")); d != "" && err == nil && st.Mode()&0o001 != 0 {
			return d
		}
	}
	t.Skip("no PostgreSQL binaries other users may run (set RIGHTSIZE_PG_BIN)")
	return ""
}

// asUser runs rightsize (this test binary's TestHelperProcess) as cred
// with home as its HOME, cache and temporary directory; watch is called
// every 50 ms while it runs. It returns the output, exit code and pid.
func asUser(t *testing.T, exe, home string, cred *syscall.Credential, watch func(), args ...string) (string, string, int, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	c := exec.CommandContext(ctx, exe, "-test.run=^TestHelperProcess$")
	c.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	c.Dir = home
	c.Env = []string{"PATH=/usr/bin:/bin", "HOME=" + home, "XDG_CACHE_HOME=" + filepath.Join(home, ".cache"),
		"TMPDIR=" + home, "RIGHTSIZE_HELPER_ARGS=" + strings.Join(args, "\n")}
	var out, errOut bytes.Buffer
	c.Stdout, c.Stderr = &out, &errOut
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- c.Wait() }()
	for {
		select {
		case err := <-done:
			return out.String(), errOut.String(), exitOf(err), c.Process.Pid
		case <-time.After(50 * time.Millisecond):
			if watch != nil {
				watch()
			}
		}
	}
}

// serverSeen is what the test saw of a running server process.
type serverSeen struct {
	pid     int
	cpus    map[string]bool // Cpus_allowed_list of each of its threads
	uid     string          // real uid
	cgroups string          // /proc/PID/cgroup
}

// watchServer records the server process find returns, as last seen
// running (MariaDB is pinned just after it starts).
func watchServer(find func() int, seen *serverSeen, mu *sync.Mutex) func() {
	return func() {
		mu.Lock()
		defer mu.Unlock()
		pid := find()
		if pid == 0 || !instance.ProcessRunning(pid) {
			return
		}
		groups, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cgroup", pid))
		s := serverSeen{pid: pid, cgroups: string(groups), cpus: map[string]bool{}}
		tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/status", pid))
		for _, task := range tasks {
			status, _ := os.ReadFile(task)
			for _, l := range strings.Split(string(status), "\n") {
				if v, ok := strings.CutPrefix(l, "Cpus_allowed_list:"); ok {
					s.cpus[strings.TrimSpace(v)] = true
				}
				if v, ok := strings.CutPrefix(l, "Uid:"); ok && len(strings.Fields(v)) > 0 {
					s.uid = strings.Fields(v)[0]
				}
			}
		}
		if len(s.cpus) > 0 {
			*seen = s
		}
	}
}

// postmaster finds the postmaster of dataDir.
func postmaster(dataDir string) func() int {
	return func() int {
		b, _ := os.ReadFile(filepath.Join(dataDir, "postmaster.pid"))
		pid, _ := strconv.Atoi(strings.SplitN(string(b), "\n", 2)[0])
		return pid
	}
}

// mariadbd finds the MariaDB server whose command line names dataDir.
func mariadbd(dataDir string) func() int {
	return func() int {
		cmdlines, _ := filepath.Glob("/proc/[0-9]*/cmdline")
		for _, f := range cmdlines {
			b, _ := os.ReadFile(f)
			if args := strings.Split(string(b), "\x00"); strings.HasSuffix(args[0], "mariadbd") || strings.HasSuffix(args[0], "mysqld") {
				if strings.Contains(string(b), dataDir) {
					pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(f)))
					return pid
				}
			}
		}
		return 0
	}
}

// checkFallbackServer checks a server seen while an unprivileged
// rightsize ran it: on the one core, as that user, in no rightsize
// cgroup, and gone afterwards.
func checkFallbackServer(t *testing.T, what string, s serverSeen, cred *syscall.Credential, core string) {
	t.Helper()
	if s.pid == 0 {
		t.Fatalf("%s: the server was never seen running", what)
	}
	t.Logf("%s: server pid %d, uid %s, Cpus_allowed_list of its threads %v", what, s.pid, s.uid, s.cpus)
	if len(s.cpus) != 1 || !s.cpus[core] {
		t.Errorf("%s: server threads on cores %v, want all on %s", what, s.cpus, core)
	}
	if s.uid != strconv.Itoa(int(cred.Uid)) {
		t.Errorf("%s: server runs as uid %s, want %d", what, s.uid, cred.Uid)
	}
	if strings.Contains(s.cgroups, "rightsize-") {
		t.Errorf("%s: server in a rightsize cgroup:\n%s", what, s.cgroups)
	}
	if instance.ProcessRunning(s.pid) {
		t.Errorf("%s: server pid %d still runs after rightsize exited", what, s.pid)
	}
}

// noGroupsOf fails if a process of pids made a cgroup.
func noGroupsOf(t *testing.T, pids ...int) {
	t.Helper()
	h, err := cgroup.Detect()
	if err != nil {
		return
	}
	for _, c := range h.Available() {
		for _, pid := range pids {
			if left, _ := filepath.Glob(filepath.Join(h.Parent(c), fmt.Sprintf("rightsize-%d-*", pid))); len(left) > 0 {
				t.Errorf("cgroups made by the unprivileged rightsize (pid %d): %v", pid, left)
			}
		}
	}
}

// fallbackSaid are what rightsize prints of its caps without root.
func fallbackSaid(core string) []string {
	return []string{"caps: applied: cores " + core + " by CPU affinity",
		"NOT applied: memory limit 256 MiB (only the engine's cache setting applies",
		"no cgroup: not running as root"}
}

// nonRootHome is a copy of this test binary and a home directory of
// cred's user, both reachable by it.
func nonRootHome(t *testing.T, cred *syscall.Credential) (exe, home string) {
	t.Helper()
	dir := pgtest.ServerDir(t, "nonroot-")
	exe = filepath.Join(dir, "rightsize.test")
	copyFile(t, os.Args[0], exe)
	home = filepath.Join(dir, "home")
	if err := os.Mkdir(home, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(home, int(cred.Uid), int(cred.Gid)); err != nil {
		t.Fatal(err)
	}
	return exe, home
}

// rightsize run by an unprivileged user on cgroup v1: no cgroup can be
// made, so a run asking --memory is refused before it measures (exit 2,
// the cap, why and the fix, nothing stored); with --caps best-effort
// --cpus 1 pins the server to one core by CPU affinity and --memory sets
// only the engine's cache; the printed and stored caps say exactly that
// and why ("caps not applied: memory" in the summary and results show),
// and no cgroup is created.
func TestNonRootFallback(t *testing.T) {
	cred := testuser.Neighbour(t)
	binDir := readableBinDir(t)
	exe, home := nonRootHome(t, cred)
	dataDir := filepath.Join(home, "pg")
	st := filepath.Join(home, "results.db")
	t.Cleanup(func() { _ = instance.StopDataDir(dataDir, 10*time.Second) })
	capArgs := []string{"--cpus", "1", "--memory", "256M", "--caps", "best-effort", "--pg-bin", binDir, "--data-dir", dataDir, "--store", st}

	var mu sync.Mutex
	var built, ran serverSeen
	out, errOut, code, buildPID := asUser(t, exe, home, cred, watchServer(postmaster(dataDir), &built, &mu), append([]string{"build", "--warehouses", "1"}, capArgs...)...)
	if code != 0 {
		t.Fatalf("build as uid %d: exit %d\n%s%s", cred.Uid, code, out, errOut)
	}
	strict := []string{"run", "--users", "2", "--rampup", "500ms", "--duration", "3s", "--cpus", "1", "--memory", "256M", "--pg-bin", binDir, "--data-dir", dataDir, "--store", st}
	out, errOut, code, _ = asUser(t, exe, home, cred, nil, strict...)
	for _, want := range []string{"cannot apply memory", "not running as root", "fix: run rightsize as root", "--caps best-effort"} {
		if code != 2 || !strings.Contains(errOut, want) {
			t.Errorf("a strict run as uid %d: exit %d, want 2 and %q said:\n%s%s", cred.Uid, code, want, out, errOut)
		}
	}
	out, errOut, code, runPID := asUser(t, exe, home, cred, watchServer(postmaster(dataDir), &ran, &mu),
		append([]string{"run", "--users", "2", "--rampup", "500ms", "--duration", "3s"}, capArgs...)...)
	if code != 0 {
		t.Fatalf("run as uid %d: exit %d\n%s%s", cred.Uid, code, out, errOut)
	}
	mu.Lock()
	defer mu.Unlock()
	core := strconv.Itoa(runtime.NumCPU() - 1) // the server gets the last core
	checkFallbackServer(t, "build", built, cred, core)
	checkFallbackServer(t, "run", ran, cred, core)
	noGroupsOf(t, buildPID, runPID)

	// printed: what applies, what does not, why
	for _, want := range fallbackSaid(core) {
		if !strings.Contains(errOut, want) {
			t.Errorf("run's output does not say %q:\n%s", want, errOut)
		}
	}
	// stored: the same, and the cache read back from the server
	run, _ := onlyRun(t, st)
	t.Logf("shared_buffers %s; caps.summary: %s", run.Env["setting.shared_buffers"], run.Env["caps.summary"])
	cache, _ := caps.Split(postgres.Tuning, 256<<20)
	if got, want := run.Env["setting.shared_buffers"], fmt.Sprintf("%dMB", cache>>20); got != want {
		t.Errorf("SHOW shared_buffers = %q, want %q (the cache share of --memory 256M)", got, want)
	}
	var r cgroup.Report
	if err := json.Unmarshal([]byte(run.Env["caps.applied"]), &r); err != nil {
		t.Fatalf("caps.applied %q: %v", run.Env["caps.applied"], err)
	}
	if r.Group != "" || r.PinnedCPUs != core || r.Applied.CPUs != "" || r.Applied.Memory != 0 ||
		!strings.Contains(r.NoGroup, "not running as root") || len(r.NotApplied) != 1 || !strings.HasPrefix(r.NotApplied[0], "memory limit 256 MiB") {
		t.Errorf("stored caps %+v: want cores %s by affinity, no group, the memory limit not applied, not running as root", r, core)
	}
	if !strings.Contains(run.Env["caps.summary"], "no cgroup: not running as root") {
		t.Errorf("caps.summary %q", run.Env["caps.summary"])
	}
	if shown, _, code := cli(t, context.Background(), "results", "show", run.ID, "--store", st); code != 0 || !strings.Contains(shown, "by CPU affinity") ||
		!strings.Contains(shown, "caps not applied: memory") {
		t.Errorf("results show (exit %d) does not say the cores were set by CPU affinity and the memory cap not applied:\n%s", code, shown)
	}
	if !strings.Contains(out, "caps not applied: memory (--caps best-effort") {
		t.Errorf("the run's summary does not say the memory cap was not applied:\n%s", out)
	}
}

// A user without a writable home (a system account) is told how to give
// rightsize a directory, in two lines, exit code 2.
func TestNonRootNoHome(t *testing.T) {
	cred := testuser.Neighbour(t)
	binDir := readableBinDir(t)
	exe, home := nonRootHome(t, cred)
	c := exec.Command(exe, "-test.run=^TestHelperProcess$")
	c.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	c.Dir = home
	c.Env = []string{"PATH=/usr/bin:/bin", "HOME=/nonexistent", "RIGHTSIZE_HELPER_ARGS=" + strings.Join([]string{"build", "--warehouses", "1",
		"--pg-bin", binDir, "--data-dir", filepath.Join(home, "pg"), "--store", filepath.Join(home, "results.db")}, "\n")}
	out, err := c.CombinedOutput()
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if exitOf(err) != 2 || len(lines) != 2 || !strings.Contains(lines[0], "/nonexistent") || !strings.Contains(lines[1], "fix: set XDG_CACHE_HOME") {
		t.Errorf("exit %d, want 2 and the problem and its fix in two lines:\n%s", exitOf(err), out)
	}
}

// The managed MariaDB of an unprivileged rightsize: every thread of
// mariadbd pinned to the server's core, no cgroup, the same report
// (--caps best-effort: strict would refuse the memory cap).
func TestNonRootFallbackMariaDB(t *testing.T) {
	cred := testuser.Neighbour(t)
	if !mariadb.Installed() {
		t.Skip("MariaDB is not installed")
	}
	exe, home := nonRootHome(t, cred)
	dataDir := filepath.Join(home, "mariadb")
	var mu sync.Mutex
	var built serverSeen
	out, errOut, code, pid := asUser(t, exe, home, cred, watchServer(mariadbd(dataDir), &built, &mu),
		"build", "--target", "mariadb", "--warehouses", "1", "--cpus", "1", "--memory", "256M", "--caps", "best-effort", "--data-dir", dataDir, "--store", filepath.Join(home, "results.db"))
	if code != 0 {
		t.Fatalf("build as uid %d: exit %d\n%s%s", cred.Uid, code, out, errOut)
	}
	mu.Lock()
	defer mu.Unlock()
	core := strconv.Itoa(runtime.NumCPU() - 1)
	checkFallbackServer(t, "build", built, cred, core)
	noGroupsOf(t, pid)
	for _, want := range fallbackSaid(core) {
		if !strings.Contains(errOut, want) {
			t.Errorf("build's output does not say %q:\n%s", want, errOut)
		}
	}
}

// copyFile copies src to dst with mode 0755.
func copyFile(t *testing.T, src, dst string) {
	t.Helper()
	in, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}
