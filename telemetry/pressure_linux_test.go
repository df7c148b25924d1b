package telemetry

import (
	"os"
	"path/filepath"
	"testing"
)

// The memory-pressure counters come from /proc/vmstat (pgsteal_anon and
// _file split the same pages again and are not added), and a disk's queue
// depth from the weighted I/O time.
func TestPressureFake(t *testing.T) {
	dir := t.TempDir()
	write := func(name, s string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("stat", "cpu  100 10 50 1000 20 1 4 3 7 0\n")
	write("meminfo", "MemTotal:       1000 kB\nMemAvailable:    600 kB\n")
	write("diskstats", "   8       0 sda 100 2 800 50 200 3 1600 70 3 90 1000\n")
	write("vmstat", "nr_free_pages 5\npgmajfault 40\npgsteal_kswapd 100\npgsteal_direct 20\npgsteal_khugepaged 1\npgsteal_anon 60\npgsteal_file 61\n")
	h := newProcHost(dir, filepath.Join(dir, "nosys"))
	var a, b hostCounters
	if err := h.read(&a); err != nil {
		t.Fatal(err)
	}
	if a.vm != (vmCounters{majorFaults: 40, reclaimed: 121}) {
		t.Errorf("vm = %+v", a.vm)
	}
	if d := a.disks[0]; d.inFlight != 3 || d.weightedMs != 1000 {
		t.Errorf("disk = %+v", d)
	}
	write("diskstats", "   8       0 sda 110 2 800 60 210 3 1600 80 5 1090 3000\n")
	if err := h.read(&b); err != nil {
		t.Fatal(err)
	}
	ds := diskSamples(a.disks, b.disks, 1)
	if len(ds) != 1 || ds[0].QueueDepth != 2 || ds[0].InFlight != 5 {
		t.Errorf("disk samples %+v", ds)
	}
}
