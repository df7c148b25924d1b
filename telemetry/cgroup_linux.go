//go:build linux

package telemetry

import (
	"bytes"
	"fmt"
	"os"
	"time"
)

// cgroupReader reads a cgroup's cumulative CPU: cpu.stat usage_usec on
// cgroup v2, cpuacct.usage (ns) on v1. The kernel counts every task that
// ever ran in the cgroup or below it, exited ones included, in one file.
type cgroupReader struct {
	dir   string
	cpu   procFile
	v1    bool
	procs procFile
	buf   []byte
}

func newCgroupReader(dir string) treeReader {
	r := &cgroupReader{dir: dir, procs: newProcFile(dir + "/cgroup.procs")}
	// A v1 directory of the co-mounted cpu,cpuacct controllers has a
	// cpu.stat too, without usage_usec: look for cpuacct.usage first.
	if _, err := os.Stat(dir + "/cpuacct.usage"); err == nil {
		r.cpu = newProcFile(dir + "/cpuacct.usage")
		r.v1 = true
	} else {
		r.cpu = newProcFile(dir + "/cpu.stat")
	}
	return r
}

func (r *cgroupReader) close() {
	r.cpu.close()
	r.procs.close()
}

// treeCPU returns the cgroup's CPU and the number of processes directly in
// it; the pid is ignored.
func (r *cgroupReader) treeCPU(int) (time.Duration, int, error) {
	b, err := r.cpu.read(&r.buf, false)
	if err != nil {
		return 0, 0, err
	}
	var cpu time.Duration
	if r.v1 {
		tok, _ := nextField(b)
		cpu = time.Duration(atou(tok))
	} else {
		i := bytes.Index(b, []byte("usage_usec "))
		if i < 0 || (i > 0 && b[i-1] != '\n') {
			return 0, 0, fmt.Errorf("telemetry: no usage_usec in %s", r.cpu.path)
		}
		tok, _ := nextField(b[i+len("usage_usec "):])
		cpu = time.Duration(atou(tok)) * time.Microsecond
	}
	n := 0
	if b, err := r.procs.read(&r.buf, false); err == nil {
		n = bytes.Count(b, []byte("\n"))
	}
	return cpu, n, nil
}

// CgroupCPU returns the cumulative CPU of every process that ran in the
// cgroup directory dir (cgroup v2: cpu.stat usage_usec; v1: the cpuacct
// controller's directory, cpuacct.usage), exited processes included, at
// microsecond resolution or better. For a server started in its own cgroup
// it is exact and cheaper than ProcessTreeCPU.
func CgroupCPU(dir string) (time.Duration, error) {
	r := newCgroupReader(dir).(*cgroupReader)
	defer r.close()
	d, _, err := r.treeCPU(0)
	return d, err
}
