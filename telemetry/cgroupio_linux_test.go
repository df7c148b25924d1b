package telemetry

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/rightsize/rightsize/cgroup"
)

// fakeSys is a sysfs tree with a disk (8:0), a device-mapper device
// stacked on it (253:0) and a loop device (7:0).
func fakeSys(t *testing.T) string {
	sys := t.TempDir()
	for _, d := range []struct{ dev, target, slave string }{
		{"8:0", "devices/pci0000:00/block/sda", ""},
		{"253:0", "devices/virtual/block/dm-0", "sda"},
		{"7:0", "devices/virtual/block/loop0", ""},
	} {
		dir := filepath.Join(sys, d.target)
		if err := os.MkdirAll(filepath.Join(dir, "slaves"), 0o755); err != nil {
			t.Fatal(err)
		}
		if d.slave != "" {
			if err := os.WriteFile(filepath.Join(dir, "slaves", d.slave), nil, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.MkdirAll(filepath.Join(sys, "dev/block"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink("../../"+d.target, filepath.Join(sys, "dev/block", d.dev)); err != nil {
			t.Fatal(err)
		}
	}
	return sys
}

// TestCgroupIOParse reads v2 io.stat and v1 blkio.throttle files of
// several devices: the disks are summed, the device-mapper device stacked
// on one and the loop device left out, a device sysfs does not know kept;
// a read allocates nothing once the devices are known.
func TestCgroupIOParse(t *testing.T) {
	sys := fakeSys(t)
	v2 := t.TempDir()
	write(t, v2, "io.stat", "8:0 rbytes=4096000 wbytes=8192000 rios=1000 wios=2000 dbytes=0 dios=0\n"+
		"253:0 rbytes=4096000 wbytes=8192000 rios=1000 wios=2000 dbytes=0 dios=0\n"+
		"7:0 rbytes=1 wbytes=1 rios=1 wios=1 dbytes=0 dios=0\n"+
		"259:0 wios=5 rios=3 wbytes=20480 rbytes=12288\n") // another disk, keys in another order
	v1 := t.TempDir()
	write(t, v1, "blkio.throttle.io_serviced", "8:0 Read 1000\n8:0 Write 2000\n8:0 Sync 2500\n8:0 Async 500\n8:0 Discard 7\n8:0 Total 3000\n"+
		"253:0 Read 1000\n253:0 Write 2000\n253:0 Total 3000\n"+
		"259:0 Read 3\n259:0 Write 5\n259:0 Total 8\nTotal 6008\n")
	write(t, v1, "blkio.throttle.io_service_bytes", "8:0 Read 4096000\n8:0 Write 8192000\n8:0 Discard 4096\n8:0 Total 12288000\n"+
		"259:0 Read 12288\n259:0 Write 20480\n259:0 Total 32768\nTotal 12320768\n")
	empty := t.TempDir()
	write(t, empty, "io.stat", "")
	want := ioCounters{reads: 1003, writes: 2005, readBytes: 4108288, writeBytes: 8212480}
	for _, tc := range []struct {
		name, dir string
		want      ioCounters
	}{{"v2", v2, want}, {"v1", v1, want}, {"v2 before any I/O", empty, ioCounters{}}} {
		r := newCgroupIO(tc.dir, sys)
		var got ioCounters
		if err := r.readIO(&got); err != nil || got != tc.want {
			t.Errorf("%s: %+v, %v; want %+v", tc.name, got, err, tc.want)
		}
		if n := testing.AllocsPerRun(20, func() { _ = r.readIO(&got) }); n != 0 {
			t.Errorf("%s: %v allocations per read", tc.name, n)
		}
		r.(closer).close()
	}
	if _, _, _, _, err := CgroupIO(t.TempDir()); err == nil {
		t.Error("no error for a directory that is no cgroup")
	}
}

func write(t *testing.T, dir, name, content string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestCgroupIOReal makes a real group (root, with the I/O controller),
// runs a process in it that writes 64 blocks each synced (dd
// oflag=dsync: the writes cgroup v1 counts too), and checks that the
// group's counters and a sample's server write IOPS and MB/s show them.
func TestCgroupIOReal(t *testing.T) {
	h, err := cgroup.Detect()
	if err != nil || os.Geteuid() != 0 || !h.Has(cgroup.IO) {
		t.Skipf("needs root and the cgroup I/O controller (%v)", err)
	}
	g, err := h.Create("telemetry-io")
	if err != nil {
		t.Skip(err) // v2 under a group that holds processes: no children
	}
	defer g.Remove()
	dir := g.Dir(cgroup.IO)
	file := filepath.Join(t.TempDir(), "synced")
	s := &Sampler{ServerIO: dir}
	smp := tickAfter(t, s, func() {
		// join the group, then write
		cmd := exec.Command("sh", "-c", `echo $$ > "$1" && exec dd if=/dev/zero of="$2" bs=4096 count=64 oflag=dsync status=none`,
			"sh", filepath.Join(dir, "cgroup.procs"), file)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("dd in the group: %v: %s", err, out)
		}
		time.Sleep(10 * time.Millisecond)
	})
	reads, writes, readBytes, writeBytes, err := CgroupIO(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s: %d reads, %d writes, %d B read, %d B written; sample %.0f write IOPS, %.3f MB/s written",
		dir, reads, writes, readBytes, writeBytes, smp.ServerWriteIOPS, smp.ServerWriteMBps)
	if writes < 32 || writeBytes < 64*4096 {
		t.Errorf("the group counted %d writes, %d bytes; want the 64 synced 4 KiB writes", writes, writeBytes)
	}
	if smp.ServerWriteIOPS <= 0 || smp.ServerWriteMBps <= 0 {
		t.Errorf("sample: %v write IOPS, %v MB/s written; want > 0", smp.ServerWriteIOPS, smp.ServerWriteMBps)
	}
}
