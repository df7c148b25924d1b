//go:build linux

package telemetry

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
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

// cgroupIO reads a cgroup's cumulative block I/O: on cgroup v2 io.stat
// (rios, wios, rbytes, wbytes), on v1 the blkio controller's
// blkio.throttle.io_serviced and blkio.throttle.io_service_bytes (their
// Read and Write lines), summed over the devices listed. The kernel keeps
// the counts of processes that exited. Devices that pass their I/O on to
// others are left out, as the host's disk figures leave them out: a
// stacked device (device-mapper, md: its slaves/ is not empty) and the
// virtual ones (loop, ram, zram), whose I/O would otherwise count twice
// or never reach a disk.
//
// cgroup v1 charges buffered writeback to the root group, not to the
// writer: its write counts cover the group's direct (O_DIRECT) and
// fsync-driven writes only, which are exactly the writes a v1 write limit
// throttles. v2 charges writeback to the group that dirtied the pages.
type cgroupIO struct {
	v1          bool
	stat, bytes procFile // v2: io.stat; v1: io_serviced, io_service_bytes
	sys         string   // sysfs root, for classifying devices
	keep        map[uint64]bool
	buf         []byte
}

func newCgroupIO(dir, sys string) ioReader {
	r := &cgroupIO{sys: sys, keep: map[uint64]bool{}}
	if _, err := os.Stat(dir + "/blkio.throttle.io_serviced"); err == nil {
		r.v1 = true
		r.stat = newProcFile(dir + "/blkio.throttle.io_serviced")
		r.bytes = newProcFile(dir + "/blkio.throttle.io_service_bytes")
	} else {
		r.stat = newProcFile(dir + "/io.stat")
		r.stat.allowEmpty = true // no line until the group does I/O
	}
	return r
}

func (r *cgroupIO) close() {
	r.stat.close()
	r.bytes.close()
}

// readIO sets c to the group's cumulative I/O.
func (r *cgroupIO) readIO(c *ioCounters) error {
	*c = ioCounters{}
	b, err := r.stat.read(&r.buf, false)
	if err != nil {
		return err
	}
	if !r.v1 {
		r.parseIOStat(b, c)
		return nil
	}
	c.reads, c.writes = r.parseBlkio(b)
	if b, err = r.bytes.read(&r.buf, false); err != nil {
		return err
	}
	c.readBytes, c.writeBytes = r.parseBlkio(b)
	return nil
}

// parseIOStat adds up v2 io.stat lines, "MAJ:MIN rbytes=N wbytes=N
// rios=N wios=N dbytes=N dios=N" (keys in any order, unknown ones skipped).
func (r *cgroupIO) parseIOStat(b []byte, c *ioCounters) {
	for len(b) > 0 {
		var line []byte
		line, b = cutLine(b)
		dev, rest := nextField(line)
		if len(dev) == 0 || !r.kept(dev) {
			continue
		}
		for {
			var kv []byte
			kv, rest = nextField(rest)
			if len(kv) == 0 {
				break
			}
			eq := bytes.IndexByte(kv, '=')
			if eq < 0 {
				continue
			}
			v := atou(kv[eq+1:])
			switch string(kv[:eq]) { // no allocation: the compiler compares in place
			case "rios":
				c.reads += v
			case "wios":
				c.writes += v
			case "rbytes":
				c.readBytes += v
			case "wbytes":
				c.writeBytes += v
			}
		}
	}
}

// parseBlkio adds up the Read and Write lines of a v1 blkio.throttle file,
// "MAJ:MIN Read N" ... (the Sync, Async, Discard and Total lines, and the
// last "Total N", skipped).
func (r *cgroupIO) parseBlkio(b []byte) (read, write uint64) {
	for len(b) > 0 {
		var line []byte
		line, b = cutLine(b)
		dev, rest := nextField(line)
		op, rest := nextField(rest)
		val, _ := nextField(rest)
		if len(val) == 0 || !r.kept(dev) {
			continue
		}
		switch string(op) {
		case "Read":
			read += atou(val)
		case "Write":
			write += atou(val)
		}
	}
	return read, write
}

// kept reports whether the device "MAJ:MIN" is counted: looked up in
// sysfs once per device (see cgroupIO). A device sysfs does not know is
// counted.
func (r *cgroupIO) kept(dev []byte) bool {
	colon := bytes.IndexByte(dev, ':')
	if colon <= 0 {
		return false
	}
	maj, min := atou(dev[:colon]), atou(dev[colon+1:])
	key := maj<<32 | min
	if k, ok := r.keep[key]; ok {
		return k
	}
	k := physicalDev(r.sys, maj, min)
	r.keep[key] = k
	return k
}

// physicalDev reports whether device maj:min is a disk that is neither
// virtual nor stacked on others, from sysfs's /dev/block/MAJ:MIN link.
func physicalDev(sys string, maj, min uint64) bool {
	link := fmt.Sprintf("%s/dev/block/%d:%d", sys, maj, min)
	target, err := os.Readlink(link)
	if err != nil {
		return true
	}
	if isVirtualDiskName(filepath.Base(target)) {
		return false
	}
	slaves, err := os.ReadDir(link + "/slaves")
	return err != nil || len(slaves) == 0
}

// CgroupIO returns the cumulative block I/O of every process that ran in
// the cgroup directory dir (v2: the group's directory; v1: the blkio
// controller's), summed over its devices (see Sampler.ServerIO for what
// v1 counts of writes).
func CgroupIO(dir string) (reads, writes, readBytes, writeBytes uint64, err error) {
	r := newCgroupIO(dir, "/sys").(*cgroupIO)
	defer r.close()
	var c ioCounters
	err = r.readIO(&c)
	return c.reads, c.writes, c.readBytes, c.writeBytes, err
}
