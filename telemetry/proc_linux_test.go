//go:build linux

package telemetry

import (
	"bytes"
	"crypto/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// startTree runs script with sh in a new process group, killed (the group,
// by its id) when the test ends.
func startTree(tb testing.TB, script string) *exec.Cmd {
	tb.Helper()
	cmd := exec.Command("sh", "-c", script)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		_ = cmd.Wait()
	})
	return cmd
}

// waitProcs polls until the tree rooted at pid has n processes.
func waitProcs(tb testing.TB, pid, n int) {
	tb.Helper()
	tr := newProcTree("/proc")
	deadline := time.Now().Add(10 * time.Second)
	for {
		_, got, err := tr.treeCPU(pid)
		if err == nil && got == n {
			return
		}
		if time.Now().After(deadline) {
			tb.Fatalf("tree of %d has %d processes (err %v), want %d", pid, got, err, n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestParseStat(t *testing.T) {
	line := []byte("4242 (we ird) (name)) S 17 4242 4242 0 -1 4194560 100 0 0 0 250 50 7 3 20 0 3 0 123 0 0\n")
	st, err := parseStat(line)
	if err != nil {
		t.Fatal(err)
	}
	if st.ppid != 17 || st.ticks != 250+50+7+3 || st.threads != 3 {
		t.Errorf("parseStat = %+v", st)
	}
	if _, err := parseStat([]byte("1 (x) S 0 1")); err == nil {
		t.Error("short stat parsed")
	}
}

func TestClockTicks(t *testing.T) {
	if hz := clockTicks(); hz < 10 || hz > 10000 {
		t.Errorf("USER_HZ = %v", hz)
	}
}

// TestProcHostFake parses hand-written /proc and /sys files.
func TestProcHostFake(t *testing.T) {
	dir := t.TempDir()
	proc, sys := filepath.Join(dir, "proc"), filepath.Join(dir, "sys")
	write := func(path, s string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(proc+"/stat", "cpu  100 10 50 1000 20 1 4 3 7 0\ncpu0 1 2 3 4 5 6 7 8 9 0\nintr 12345\n")
	write(proc+"/meminfo", "MemTotal:       1000 kB\nMemFree:         100 kB\nMemAvailable:    600 kB\nBuffers:          10 kB\n"+
		"Cached:          400 kB\nSwapCached:        0 kB\nShmem:           150 kB\nSReclaimable:     40 kB\n")
	write(proc+"/diskstats", ""+
		"   7       0 loop0 5 0 10 1 0 0 0 0 0 1 1 0 0 0 0\n"+
		"   8       0 sda 100 2 800 50 200 3 1600 70 0 90 120 0 0 0 0 4 5\n"+
		"   8       1 sda1 100 2 800 50 200 3 1600 70 0 90 120\n"+
		" 253       0 dm-0 10 0 80 5 20 0 160 7 0 9 12\n"+
		" 259       0 nvme0n1 1 0 8 1 2 0 16 2 0 3 3\n"+
		"   8      16 short 1 2 3\n")
	write(sys+"/block/sda/size", "1")
	write(sys+"/block/nvme0n1/size", "1")
	write(sys+"/block/dm-0/slaves/sda1", "")
	write(sys+"/block/loop0/size", "1")

	for _, useSys := range []bool{true, false} {
		h := newProcHost(proc, sys)
		if !h.useSys {
			t.Fatal("fake sysfs not detected")
		}
		h.useSys = useSys
		var c hostCounters
		if err := h.read(&c); err != nil {
			t.Fatal(err)
		}
		wantCPU := cpuTimes{user: 100, nice: 10, system: 50, idle: 1000, iowait: 20, irq: 1, softirq: 4, steal: 3}
		if c.cpu != wantCPU {
			t.Errorf("cpu = %+v, want %+v", c.cpu, wantCPU)
		}
		wantMem := memInfo{total: 1000 << 10, used: 400 << 10, cached: (10 + 400 + 40 - 150) << 10}
		if c.mem != wantMem {
			t.Errorf("mem = %+v, want %+v", c.mem, wantMem)
		}
		if len(c.disks) != 2 || c.disks[0].name != "sda" || c.disks[1].name != "nvme0n1" {
			t.Fatalf("useSys=%v: disks = %+v", useSys, c.disks)
		}
		want := diskCounter{name: "sda", reads: 100, writes: 200, readBytes: 800 * 512, writeBytes: 1600 * 512,
			readMs: 50, writeMs: 70, ioMs: 90, weightedMs: 120}
		if c.disks[0] != want {
			t.Errorf("sda = %+v, want %+v", c.disks[0], want)
		}
		// A second read reuses the slice and the names.
		p := &c.disks[0]
		if err := h.read(&c); err != nil || &c.disks[0] != p {
			t.Errorf("second read: err %v, slice reused %v", err, &c.disks[0] == p)
		}
	}
}

func TestProcessTreeCPUGrows(t *testing.T) {
	// A parent shell whose child spins: the tree's CPU must grow.
	cmd := startTree(t, `sh -c 'while :; do :; done' & wait`)
	pid := cmd.Process.Pid
	waitProcs(t, pid, 2)
	a, err := ProcessTreeCPU(pid)
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	var b time.Duration
	for {
		time.Sleep(300 * time.Millisecond)
		if b, err = ProcessTreeCPU(pid); err != nil {
			t.Fatal(err)
		}
		// One clock tick is 10 ms; on a loaded machine the child may get
		// little CPU, so just wait for clear growth.
		if b-a >= 30*time.Millisecond || time.Now().After(deadline) {
			break
		}
	}
	if b-a < 30*time.Millisecond {
		t.Errorf("tree CPU grew by %v in 10 s of a spinning child", b-a)
	}
	t.Logf("tree CPU %v -> %v", a, b)

	// The gopsutil reader sees the live child too.
	g1, n, err := psutilTree{}.treeCPU(pid)
	if err != nil || n != 2 {
		t.Fatalf("psutil tree: %v procs, err %v", n, err)
	}
	time.Sleep(300 * time.Millisecond)
	g2, _, _ := psutilTree{}.treeCPU(pid)
	t.Logf("gopsutil tree CPU %v -> %v", g1, g2)

	if _, err := ProcessTreeCPU(1 << 30); err == nil {
		t.Error("no error for a missing pid")
	}
}

// TestProcessTreeCPUKeepsReapedChildren checks that CPU of a child that has
// exited and been reaped stays in the tree's total (through cutime).
func TestProcessTreeCPUKeepsReapedChildren(t *testing.T) {
	// The child counts to 300,000 (~0.3 s of CPU for dash, more for bash),
	// then exits; the parent reaps it and execs sleep (exec keeps the
	// children's times).
	cmd := startTree(t, `sh -c 'i=0; while [ $i -lt 300000 ]; do i=$((i+1)); done'; exec sleep 60`)
	pid := cmd.Process.Pid
	deadline := time.Now().Add(15 * time.Second)
	tr := newProcTree("/proc")
	for {
		b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/comm")
		if err == nil && bytes.Equal(bytes.TrimSpace(b), []byte("sleep")) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("child did not finish")
		}
		time.Sleep(20 * time.Millisecond)
	}
	cpu, n, err := tr.treeCPU(pid)
	if err != nil {
		t.Fatal(err)
	}
	if n != 1 {
		t.Errorf("tree has %d processes, want 1", n)
	}
	if cpu < 20*time.Millisecond {
		t.Errorf("tree CPU %v after a child spun and exited, want its CPU kept", cpu)
	}
	g, _, _ := psutilTree{}.treeCPU(pid)
	t.Logf("tree CPU with reaped children %v (gopsutil, live processes only: %v)", cpu, g)
}

func TestTreeWalkMatchesScan(t *testing.T) {
	cmd := startTree(t, `for i in 1 2 3 4 5; do sleep 60 & done; sh -c 'sleep 60 & sleep 60 & wait' & wait`)
	pid := cmd.Process.Pid
	waitProcs(t, pid, 1+5+1+2)
	walk := newProcTree("/proc")
	if !walk.children {
		t.Skip("kernel without /proc/PID/task/TID/children")
	}
	scan := newProcTree("/proc")
	scan.children = false
	_, n1, err1 := walk.treeCPU(pid)
	_, n2, err2 := scan.treeCPU(pid)
	_, n3, err3 := psutilTree{}.treeCPU(pid)
	if err1 != nil || err2 != nil || err3 != nil || n1 != 9 || n2 != 9 || n3 != 9 {
		t.Errorf("children walk %d (%v), /proc scan %d (%v), gopsutil %d (%v); want 9", n1, err1, n2, err2, n3, err3)
	}
	// Watching the tree through a Sampler reports its processes.
	s := NewSampler(0, pid)
	smp := tickAfter(t, s, func() { time.Sleep(50 * time.Millisecond) })
	if smp.ServerProcs != 9 || smp.ServerCPUPct < 0 {
		t.Errorf("sampler: %d procs, %.1f%% CPU", smp.ServerProcs, smp.ServerCPUPct)
	}
}

func TestMultiThreadedTree(t *testing.T) {
	// This test process is multi-threaded: its children hang off whichever
	// thread forked them, so the walk must look at every thread.
	var cmds []*exec.Cmd
	for i := 0; i < 3; i++ {
		cmds = append(cmds, startTree(t, "exec sleep 60"))
	}
	_, n, err := newProcTree("/proc").treeCPU(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if n < 1+len(cmds) {
		t.Errorf("tree of the test process has %d processes, want >= %d", n, 1+len(cmds))
	}
}

func TestDiskCountersMove(t *testing.T) {
	dir := t.TempDir()
	var fs syscall.Statfs_t
	if err := syscall.Statfs(dir, &fs); err == nil && fs.Type == 0x01021994 { // tmpfs
		dir = "." // the package directory is on a real disk
	}
	h := newHostReader()
	var c hostCounters
	if err := h.read(&c); err != nil {
		t.Fatal(err)
	}
	if len(c.disks) == 0 {
		t.Skip("no disks visible in /proc/diskstats")
	}
	s := NewSampler(0, 0)
	var written int
	smp := tickAfter(t, s, func() {
		f, err := os.CreateTemp(dir, "telemetry-disk-test-*")
		if err != nil {
			t.Fatal(err)
		}
		defer os.Remove(f.Name())
		defer f.Close()
		buf := make([]byte, 1<<20)
		for i := 0; i < 8; i++ {
			rand.Read(buf) // incompressible
			n, err := f.Write(buf)
			if err != nil {
				t.Fatal(err)
			}
			written += n
			if err := f.Sync(); err != nil {
				t.Fatal(err)
			}
		}
	})
	checkRanges(t, smp)
	var iops, mbps, util float64
	for _, d := range smp.Disks {
		iops += d.WriteIOPS
		mbps += d.WriteMBps
		util += d.UtilPct
	}
	secs := smp.Interval.Seconds()
	t.Logf("wrote %d bytes in %.3fs: disks %+v", written, secs, smp.Disks)
	if iops <= 0 {
		t.Errorf("no write I/O counted on %d disks after writing and fsyncing 8 MiB", len(smp.Disks))
	}
	// Be tolerant: some other process may also write, and a virtual disk
	// may account oddly, but most of what was fsynced must show up.
	if mbps*secs*1e6 < 0.25*float64(written) {
		t.Errorf("disks wrote %.0f bytes, want at least a quarter of %d", mbps*secs*1e6, written)
	}
}

// TestKeptFileRegenerates checks that reading a kept /proc descriptor from
// offset 0 returns fresh content.
func TestKeptFileRegenerates(t *testing.T) {
	cmd := startTree(t, `while :; do :; done`)
	f := newProcFile("/proc/" + strconv.Itoa(cmd.Process.Pid) + "/stat")
	defer f.close()
	var buf []byte
	b, err := f.read(&buf, false)
	if err != nil {
		t.Fatal(err)
	}
	st1, err := parseStat(b)
	if err != nil {
		t.Fatal(err)
	}
	fd := f.fd
	deadline := time.Now().Add(10 * time.Second)
	for {
		time.Sleep(50 * time.Millisecond)
		b, err := f.read(&buf, false)
		if err != nil {
			t.Fatal(err)
		}
		if f.fd != fd {
			t.Fatal("descriptor was reopened")
		}
		st2, _ := parseStat(b)
		if st2.ticks > st1.ticks {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("CPU of a spinning process stuck at %d ticks through a kept descriptor", st1.ticks)
		}
	}
	// Once the process is gone the kept descriptor fails, and so does the
	// reopen.
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	_ = cmd.Wait()
	if _, err := f.read(&buf, false); err == nil {
		t.Error("read of an exited process's stat succeeded")
	}
}

// TestCachedTreeFollowsChurn checks that the cached walker drops exited
// processes and picks up new ones.
func TestCachedTreeFollowsChurn(t *testing.T) {
	cmd := startTree(t, `sleep 0.3 & sleep 60 & sleep 60 & wait`)
	pid := cmd.Process.Pid
	waitProcs(t, pid, 4)
	tr := newCachedProcTree("/proc")
	defer tr.close()
	if _, n, err := tr.treeCPU(pid); err != nil || n != 4 {
		t.Fatalf("first walk: %d procs, err %v", n, err)
	}
	if len(tr.procs) != 4 {
		t.Errorf("%d processes cached, want 4", len(tr.procs))
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		_, n, err := tr.treeCPU(pid)
		if err != nil {
			t.Fatal(err)
		}
		if n == 3 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("tree still has %d processes after a child exited", n)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if len(tr.procs) != 3 {
		t.Errorf("%d processes cached after one exited, want 3", len(tr.procs))
	}
	tr.close()
	if len(tr.procs) != 0 {
		t.Errorf("%d processes cached after close", len(tr.procs))
	}
}

// selfCgroupDirs lists cgroup directories holding this process: the v2
// unified one (pure or hybrid mount) and the v1 cpuacct one.
func selfCgroupDirs(t *testing.T) []string {
	b, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		t.Skip(err)
	}
	var dirs []string
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 {
			continue
		}
		switch {
		case parts[1] == "":
			dirs = append(dirs, "/sys/fs/cgroup"+parts[2], "/sys/fs/cgroup/unified"+parts[2])
		case strings.Contains(parts[1], "cpuacct"):
			dirs = append(dirs, "/sys/fs/cgroup/"+parts[1]+parts[2])
		}
	}
	var ok []string
	for _, d := range dirs {
		if _, err := CgroupCPU(d); err == nil {
			ok = append(ok, d)
		}
	}
	return ok
}

func TestCgroupCPU(t *testing.T) {
	dirs := selfCgroupDirs(t)
	if len(dirs) == 0 {
		t.Skip("no readable cgroup CPU counter")
	}
	for _, dir := range dirs {
		a, err := CgroupCPU(dir)
		if err != nil {
			t.Fatal(err)
		}
		c0 := SelfCPU()
		x := 0
		for SelfCPU()-c0 < 50*time.Millisecond {
			for i := 0; i < 100000; i++ {
				x += i ^ x
			}
		}
		_ = x
		b, _ := CgroupCPU(dir)
		if b-a < 40*time.Millisecond {
			t.Errorf("%s: cgroup CPU grew %v while this process burned 50 ms", dir, b-a)
		}
		s := &Sampler{ServerCgroup: dir}
		smp := tickAfter(t, s, func() { time.Sleep(50 * time.Millisecond) })
		if smp.ServerProcs < 1 {
			t.Errorf("%s: %d processes in the cgroup", dir, smp.ServerProcs)
		}
		t.Logf("%s: %v -> %v; sample %.1f%% of a core, %d procs", dir, a, b, smp.ServerCPUPct, smp.ServerProcs)
	}
	if _, err := CgroupCPU(t.TempDir()); err == nil {
		t.Error("no error for a directory that is no cgroup")
	}
}

func TestCgroupV2Parse(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(dir+"/cpu.stat", []byte("usage_usec 1500000\nuser_usec 1000000\nsystem_usec 500000\n"), 0o644)
	os.WriteFile(dir+"/cgroup.procs", []byte("10\n11\n12\n"), 0o644)
	cpu, n, err := newCgroupReader(dir).treeCPU(0)
	if err != nil || cpu != 1500*time.Millisecond || n != 3 {
		t.Errorf("v2: %v %d %v", cpu, n, err)
	}
	dir = t.TempDir()
	os.WriteFile(dir+"/cpu.stat", []byte("nr_periods 0\nnr_throttled 0\nthrottled_time 0\n"), 0o644)
	os.WriteFile(dir+"/cpuacct.usage", []byte("2500000000\n"), 0o644)
	cpu, _, err = newCgroupReader(dir).treeCPU(0)
	if err != nil || cpu != 2500*time.Millisecond {
		t.Errorf("v1: %v %v", cpu, err)
	}
}
