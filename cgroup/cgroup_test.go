package cgroup

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// fakeV2 makes a v2 parent directory with the given controllers.
func fakeV2(t *testing.T, controllers string) string {
	t.Helper()
	root := t.TempDir()
	for f, v := range map[string]string{"cgroup.controllers": controllers, "cgroup.subtree_control": "",
		"cpuset.cpus.effective": "0-3", "cpuset.mems.effective": "0", "cgroup.procs": ""} {
		if err := os.WriteFile(filepath.Join(root, f), []byte(v+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func TestV2FakeTree(t *testing.T) {
	root := fakeV2(t, "cpuset cpu io memory pids")
	h, err := NewV2(root)
	if err != nil {
		t.Fatal(err)
	}
	if got := h.Available(); !reflect.DeepEqual(got, Controllers) {
		t.Fatalf("controllers %v", got)
	}
	g, err := h.Create("pg")
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(root, "rightsize-"+strconv.Itoa(os.Getpid())+"-pg")
	if g.Dir(Memory) != dir {
		t.Fatalf("dir %s", g.Dir(Memory))
	}
	if b, _ := os.ReadFile(filepath.Join(root, "cgroup.subtree_control")); string(b) != "+cpuset +cpu +memory +io" {
		t.Errorf("subtree_control %q", b)
	}
	want := Limits{CPUs: "1", Quota: 0.5, Memory: 256 << 20,
		IO: []DeviceLimit{{Device: Device{254, 0}, ReadIOPS: 2000, WriteIOPS: 500, WriteBPS: 10 << 20}}}
	if err := g.Set(want); err != nil {
		t.Fatal(err)
	}
	for file, content := range map[string]string{"cpuset.cpus": "1", "cpuset.mems": "0", "cpu.max": "50000 100000",
		"memory.max": "268435456", "io.max": "254:0 riops=2000 wiops=500 wbps=10485760"} {
		if b, _ := os.ReadFile(filepath.Join(dir, file)); string(b) != content {
			t.Errorf("%s = %q, want %q", file, b, content)
		}
	}
	// what the kernel shows in io.max lists every key
	_ = os.WriteFile(filepath.Join(dir, "io.max"), []byte("254:0 rbps=max wbps=10485760 riops=2000 wiops=500\n"), 0o644)
	got, err := g.Read()
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("Read = %+v, %v; want %+v", got, err, want)
	}
	_ = os.WriteFile(filepath.Join(dir, "memory.events"), []byte("low 0\nhigh 0\nmax 12\noom 2\noom_kill 1\n"), 0o644)
	if n, err := g.OOMKills(); n != 1 || err != nil {
		t.Fatalf("OOMKills = %d, %v", n, err)
	}
	if err := g.Add(4242); err != nil {
		t.Fatal(err)
	}
	if got := g.PIDs(); !reflect.DeepEqual(got, []int{4242}) {
		t.Fatalf("PIDs %v", got)
	}
	if err := g.Remove(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Fatalf("group left: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "cgroup.procs")); strings.TrimSpace(string(b)) != "4242" {
		t.Errorf("pid not moved to the parent: %q", b)
	}
}

// A second group of the same name is refused, not shared: removing one
// server's group must not take another's processes out of theirs.
func TestCreateRefusesAnExistingGroup(t *testing.T) {
	h, err := NewV2(fakeV2(t, "cpuset cpu io memory"))
	if err != nil {
		t.Fatal(err)
	}
	g, err := h.Create("pg-1")
	if err != nil {
		t.Fatal(err)
	}
	defer g.Remove()
	if _, err := h.Create("pg-1"); err == nil {
		t.Fatal("a second group rightsize-PID-pg-1 was created over the first")
	}
	if _, err := os.Stat(g.Dir(Memory)); err != nil {
		t.Fatalf("the failed second create removed the first group: %v", err)
	}
}

func TestV2MissingController(t *testing.T) {
	h, err := NewV2(fakeV2(t, "memory pids"))
	if err != nil {
		t.Fatal(err)
	}
	g, err := h.Create("x")
	if err != nil {
		t.Fatal(err)
	}
	defer g.Remove()
	if err := g.Set(Limits{CPUs: "0"}); err == nil || !strings.Contains(err.Error(), "cpuset controller is not available") {
		t.Fatalf("Set cpus without cpuset: %v", err)
	}
	if err := g.Set(Limits{Memory: 1 << 30}); err != nil {
		t.Fatal(err)
	}
}

func TestCleanStale(t *testing.T) {
	root := fakeV2(t, "memory")
	h, _ := NewV2(root)
	// a dead pid: a process that has exited
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	dead := filepath.Join(root, "rightsize-"+strconv.Itoa(cmd.Process.Pid)+"-pg")
	alive := filepath.Join(root, "rightsize-1-pg")
	other := filepath.Join(root, "someone-else")
	for _, d := range []string{dead, alive, other} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	removed, err := h.CleanStale()
	if err != nil || !reflect.DeepEqual(removed, []string{dead}) {
		t.Fatalf("CleanStale = %v, %v", removed, err)
	}
	for _, d := range []string{alive, other} {
		if _, err := os.Stat(d); err != nil {
			t.Errorf("%s removed: %v", d, err)
		}
	}
}

func TestCPUList(t *testing.T) {
	for _, c := range []struct {
		in   string
		cpus []int
		out  string
	}{{"0", []int{0}, "0"}, {"0-3,6", []int{0, 1, 2, 3, 6}, "0-3,6"}, {"1,2,4-5", []int{1, 2, 4, 5}, "1-2,4-5"}} {
		got, err := ParseCPUList(c.in)
		if err != nil || !reflect.DeepEqual(got, c.cpus) || FormatCPUList(got) != c.out {
			t.Errorf("%q: %v %v %q", c.in, got, err, FormatCPUList(got))
		}
	}
	for _, bad := range []string{"a", "3-1", "-1"} {
		if _, err := ParseCPUList(bad); err == nil {
			t.Errorf("ParseCPUList(%q) accepted", bad)
		}
	}
}

func TestDeviceOfFakeSys(t *testing.T) {
	sys := t.TempDir()
	// /sys/dev/block/8:1 -> ../../block/sda/sda1 (a partition); /sys/block/sda/dev = 8:0
	disk := filepath.Join(sys, "block", "sda")
	part := filepath.Join(disk, "sda1")
	if err := os.MkdirAll(part, 0o755); err != nil {
		t.Fatal(err)
	}
	_ = os.WriteFile(filepath.Join(disk, "dev"), []byte("8:0\n"), 0o644)
	_ = os.WriteFile(filepath.Join(part, "partition"), []byte("1\n"), 0o644)
	_ = os.MkdirAll(filepath.Join(sys, "dev", "block"), 0o755)
	if err := os.Symlink(part, filepath.Join(sys, "dev", "block", "8:1")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(disk, filepath.Join(sys, "dev", "block", "8:0")); err != nil {
		t.Fatal(err)
	}
	for in, want := range map[Device]Device{{8, 1}: {8, 0}, {8, 0}: {8, 0}} {
		got, err := diskOf(sys, in, "/data")
		if err != nil || got != want {
			t.Errorf("diskOf(%s) = %s, %v; want %s", in, got, err, want)
		}
	}
	if _, err := diskOf(sys, Device{9, 9}, "/data"); err == nil {
		t.Error("unknown device resolved")
	}
}

func TestDeviceOfTmpfs(t *testing.T) {
	if _, err := os.Stat("/dev/shm"); err != nil {
		t.Skip("no /dev/shm")
	}
	if _, err := DeviceOf("/sys", "/dev/shm"); err == nil || !strings.Contains(err.Error(), "without a block device") {
		t.Fatalf("DeviceOf(/dev/shm) = %v", err)
	}
}

// TestV1Real applies every limit to a real v1 group on this machine, runs
// a process in it, reads the limits back and removes the group.
func TestV1Real(t *testing.T) {
	h, err := Detect()
	if err != nil || h.Version != 1 || os.Geteuid() != 0 {
		t.Skipf("needs root and cgroup v1 (%v)", err)
	}
	g, err := h.Create("test")
	if err != nil {
		t.Fatal(err)
	}
	defer g.Remove()
	dev, err := DeviceOf("/sys", t.TempDir())
	if err != nil {
		t.Skip(err)
	}
	want := Limits{CPUs: "0", Quota: 0.5, Memory: 64 << 20, IO: []DeviceLimit{{Device: dev, ReadIOPS: 100, WriteIOPS: 50}}}
	if err := g.Set(want); err != nil {
		t.Fatal(err)
	}
	got, err := g.Read()
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("Read = %+v, %v; want %+v", got, err, want)
	}
	restore, err := g.LiftIO()
	if err != nil {
		t.Fatal(err)
	}
	if got, err := g.Read(); err != nil || len(got.IO) != 0 || got.Quota != want.Quota || got.Memory != want.Memory {
		t.Errorf("after LiftIO: Read = %+v, %v; want the I/O limits gone, the others kept", got, err)
	}
	if err := restore(); err != nil {
		t.Fatal(err)
	}
	if got, err := g.Read(); err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("after LiftIO's restore: Read = %+v, %v; want %+v", got, err, want)
	}
	cmd := exec.Command("sleep", "30")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	if err := g.Add(cmd.Process.Pid); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile("/proc/" + strconv.Itoa(cmd.Process.Pid) + "/status")
	if !strings.Contains(string(b), "Cpus_allowed_list:\t0\n") {
		t.Errorf("sleep not confined to cpu 0:\n%s", b)
	}
	if n, err := g.OOMKills(); n != 0 || err != nil {
		t.Errorf("OOMKills = %d, %v", n, err)
	}
	// remove the group with its process still in it: moved out first
	start := time.Now()
	if err := g.Remove(); err != nil {
		t.Fatal(err)
	}
	if time.Since(start) > 2*time.Second {
		t.Errorf("remove took %s", time.Since(start))
	}
	for _, c := range Controllers {
		if _, err := os.Stat(filepath.Join(h.Parent(c), g.Name)); !os.IsNotExist(err) {
			t.Errorf("%s group left: %v", c, err)
		}
	}
}

// A group whose recorded maker is gone is removed by CleanStale although
// its name carries a live pid (this test's): a rightsize killed under
// another parent group leaves groups no name scan of this one finds.
func TestCleanStaleRecorded(t *testing.T) {
	h, err := Detect()
	if err != nil || h.Version != 1 || os.Geteuid() != 0 {
		t.Skipf("needs root and cgroup v1 (%v)", err)
	}
	g, err := h.Create("recorded")
	if err != nil {
		t.Fatal(err)
	}
	defer g.Remove()
	rec := filepath.Join(recordsDir(), g.Name+".json")
	b, err := os.ReadFile(rec)
	if err != nil {
		t.Fatalf("no record of the group: %v", err)
	}
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	fake := strings.Replace(string(b), fmt.Sprintf(`"pid":%d`, os.Getpid()), fmt.Sprintf(`"pid":%d`, dead.Process.Pid), 1)
	if err := os.WriteFile(rec, []byte(fake), 0o600); err != nil {
		t.Fatal(err)
	}
	removed, err := h.CleanStale()
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range g.dirs {
		if !slices.Contains(removed, d) || exists(d) {
			t.Errorf("%s: removed %v, still there %v", d, removed, exists(d))
		}
	}
	if _, err := os.Stat(rec); !os.IsNotExist(err) {
		t.Errorf("record left: %v", err)
	}
}
