//go:build linux

package telemetry

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
	"unsafe"
)

// On Linux the counters come straight from /proc: three files per tick for
// the host and two per process of the watched tree, kept open and read again
// from offset 0 with raw system calls into reused buffers. Reading
// /proc/PID/stat dominates (~5 µs each in a VM: the kernel formats 52 fields).

func newHostReader() hostReader { return newProcHost("/proc", "/sys") }

func newTreeReader() treeReader { return newCachedProcTree("/proc") }

// ProcessTreeCPU returns the cumulative user+system CPU of pid and its
// descendants. On Linux it also includes the CPU of descendants that have
// exited and were reaped by a process of the tree (their parents' cutime and
// cstime), so the difference between two calls is the tree's CPU in between
// even when backends come and go; a child reaped by a process outside the
// tree (after its parent died) is lost. Resolution is one clock tick
// (normally 10 ms) per process.
func ProcessTreeCPU(pid int) (time.Duration, error) {
	d, _, err := newProcTree("/proc").treeCPU(pid)
	return d, err
}

// readFile reads the whole of path into *buf (grown as needed) and returns
// the bytes read. It avoids os.File so that nothing is allocated per call
// beyond the path conversion.
func readFile(path string, buf *[]byte) ([]byte, error) {
	fd, err := openRead(path)
	if err != nil {
		return nil, err
	}
	defer syscall.Close(fd)
	return preadAll(fd, buf, false)
}

// preadAll reads fd from offset 0 into *buf (grown as needed): to EOF, or
// with head only the first chunk (enough for the first line of /proc/stat
// without copying the long rest). Reading a /proc file from offset 0 makes
// the kernel generate it afresh, so a descriptor can be kept open and read
// again at every tick, which halves the system calls.
func preadAll(fd int, buf *[]byte, head bool) ([]byte, error) {
	if cap(*buf) < 4096 {
		*buf = make([]byte, 4096)
	}
	b := (*buf)[:cap(*buf)]
	n := 0
	for {
		if n == len(b) {
			if head {
				return b, nil
			}
			nb := make([]byte, 2*len(b))
			copy(nb, b)
			b = nb
			*buf = b
		}
		m, err := syscall.Pread(fd, b[n:], int64(n))
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, err
		}
		if m <= 0 {
			return b[:n], nil
		}
		n += m
		if head {
			return b[:n], nil
		}
	}
}

func openRead(path string) (int, error) {
	for {
		fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
		if err == syscall.EINTR {
			continue
		}
		return fd, err
	}
}

// procFile is a /proc file kept open between reads (see preadAll).
type procFile struct {
	path       string
	fd         int  // -1 when closed
	allowEmpty bool // empty content is valid (children files)
}

func newProcFile(path string) procFile { return procFile{path: path, fd: -1} }

// read returns the file's current content. A kept descriptor that fails
// (its process exited; the pid may have been reused since), or reads empty
// where that is not valid, is reopened once.
func (f *procFile) read(buf *[]byte, head bool) ([]byte, error) {
	for {
		fresh := false
		if f.fd < 0 {
			fd, err := openRead(f.path)
			if err != nil {
				return nil, err
			}
			f.fd, fresh = fd, true
		}
		b, err := preadAll(f.fd, buf, head)
		if err == nil && (len(b) > 0 || f.allowEmpty) {
			return b, nil
		}
		f.close()
		if fresh {
			if err == nil {
				err = io.ErrUnexpectedEOF
			}
			return nil, err
		}
	}
}

func (f *procFile) close() {
	if f.fd >= 0 {
		syscall.Close(f.fd)
		f.fd = -1
	}
}

// nextField returns the next space-separated token of b and the rest.
func nextField(b []byte) (tok, rest []byte) {
	i := 0
	for i < len(b) && (b[i] == ' ' || b[i] == '\t') {
		i++
	}
	j := i
	for j < len(b) && b[j] != ' ' && b[j] != '\t' && b[j] != '\n' {
		j++
	}
	return b[i:j], b[j:]
}

// atou parses a decimal unsigned integer, ignoring anything after the
// digits; a leading '-' yields 0.
func atou(b []byte) uint64 {
	var v uint64
	for _, c := range b {
		if c < '0' || c > '9' {
			break
		}
		v = v*10 + uint64(c-'0')
	}
	return v
}

// cutLine splits b after its first line (the newline dropped).
func cutLine(b []byte) (line, rest []byte) {
	if nl := bytes.IndexByte(b, '\n'); nl >= 0 {
		return b[:nl], b[nl+1:]
	}
	return b, nil
}

// procHost reads /proc/stat, /proc/meminfo and /proc/diskstats.
type procHost struct {
	stat, mem, disk, vm procFile
	sys                 string
	useSys              bool

	statBuf, memBuf, diskBuf, vmBuf []byte

	keep    map[string]bool // device name -> physical whole disk
	scratch []rawDisk
}

type rawDisk struct {
	name []byte
	f    [11]uint64
}

func newProcHost(proc, sys string) *procHost {
	h := &procHost{
		stat: newProcFile(proc + "/stat"),
		mem:  newProcFile(proc + "/meminfo"),
		disk: newProcFile(proc + "/diskstats"),
		vm:   newProcFile(proc + "/vmstat"),
		sys:  sys,
		keep: make(map[string]bool),
	}
	if fi, err := os.Stat(sys + "/block"); err == nil && fi.IsDir() {
		h.useSys = true
	}
	return h
}

func (h *procHost) close() {
	h.stat.close()
	h.mem.close()
	h.disk.close()
	h.vm.close()
}

func (h *procHost) read(c *hostCounters) error {
	if err := h.readCPU(&c.cpu); err != nil {
		return err
	}
	if err := h.readMem(&c.mem); err != nil {
		return err
	}
	// Disks are optional: some containers hide /proc/diskstats.
	if err := h.readDisks(c); err != nil {
		c.disks = c.disks[:0]
	}
	h.readVM(&c.vm) // optional too
	return nil
}

// readVM reads the memory-pressure counters of /proc/vmstat; they stay zero
// when it cannot be read.
func (h *procHost) readVM(v *vmCounters) {
	b, err := h.vm.read(&h.vmBuf, false)
	if err != nil {
		return
	}
	*v = vmCounters{}
	for len(b) > 0 {
		var line []byte
		line, b = cutLine(b)
		name, rest := nextField(line)
		switch {
		case string(name) == "pgmajfault":
			tok, _ := nextField(rest)
			v.majorFaults = atou(tok)
		case string(name) == "pgsteal_kswapd", string(name) == "pgsteal_direct", string(name) == "pgsteal_khugepaged":
			// (pgsteal_anon and pgsteal_file split the same pages again)
			tok, _ := nextField(rest)
			v.reclaimed += atou(tok)
		}
	}
}

func (h *procHost) readCPU(t *cpuTimes) error {
	b, err := h.stat.read(&h.statBuf, true)
	if err != nil {
		return err
	}
	if !bytes.HasPrefix(b, []byte("cpu ")) {
		return fmt.Errorf("telemetry: unexpected %s: %.20q", h.stat.path, b)
	}
	rest := b[4:]
	var v [8]float64 // user nice system idle iowait irq softirq steal
	for i := range v {
		var tok []byte
		tok, rest = nextField(rest)
		if len(tok) == 0 {
			break // old kernels have fewer columns
		}
		v[i] = float64(atou(tok))
	}
	*t = cpuTimes{user: v[0], nice: v[1], system: v[2], idle: v[3], iowait: v[4], irq: v[5], softirq: v[6], steal: v[7]}
	return nil
}

func (h *procHost) readMem(m *memInfo) error {
	b, err := h.mem.read(&h.memBuf, false)
	if err != nil {
		return err
	}
	var total, free, avail, buffers, cached, srecl, shmem uint64
	haveAvail := false
	for len(b) > 0 {
		var line []byte
		line, b = cutLine(b)
		colon := bytes.IndexByte(line, ':')
		if colon < 0 {
			continue
		}
		tok, _ := nextField(line[colon+1:])
		v := atou(tok) * 1024
		switch string(line[:colon]) {
		case "MemTotal":
			total = v
		case "MemFree":
			free = v
		case "MemAvailable":
			avail, haveAvail = v, true
		case "Buffers":
			buffers = v
		case "Cached":
			cached = v
		case "SReclaimable":
			srecl = v
		case "Shmem":
			shmem = v
		}
	}
	if total == 0 {
		return fmt.Errorf("telemetry: no MemTotal in %s", h.mem.path)
	}
	cache := buffers + cached + srecl
	if !haveAvail {
		avail = min(total, free+cache)
	}
	if shmem < cache {
		cache -= shmem
	} else {
		cache = 0
	}
	*m = memInfo{total: total, used: total - min(avail, total), cached: cache}
	return nil
}

func (h *procHost) readDisks(c *hostCounters) error {
	b, err := h.disk.read(&h.diskBuf, false)
	if err != nil {
		return err
	}
	raw := h.scratch[:0]
	unknown := false
	for len(b) > 0 {
		var line []byte
		line, b = cutLine(b)
		_, line = nextField(line) // major
		_, line = nextField(line) // minor
		name, line := nextField(line)
		if len(name) == 0 {
			continue
		}
		var r rawDisk
		r.name = name
		n := 0
		for n < len(r.f) {
			var tok []byte
			tok, line = nextField(line)
			if len(tok) == 0 {
				break
			}
			r.f[n] = atou(tok)
			n++
		}
		if n < len(r.f) {
			continue // malformed
		}
		if _, ok := h.keep[string(name)]; !ok {
			unknown = true
		}
		raw = append(raw, r)
	}
	h.scratch = raw
	if unknown {
		h.classify(raw)
	}

	old := c.disks[:cap(c.disks)]
	c.disks = c.disks[:0]
	for i := range raw {
		r := &raw[i]
		if !h.keep[string(r.name)] {
			continue
		}
		k := len(c.disks)
		var name string
		if k < len(old) && old[k].name == string(r.name) {
			name = old[k].name
		} else {
			name = string(r.name)
		}
		const sector = 512 // /proc/diskstats always counts 512-byte sectors
		c.disks = append(c.disks, diskCounter{
			name:       name,
			reads:      r.f[0],
			readBytes:  r.f[2] * sector,
			readMs:     r.f[3],
			writes:     r.f[4],
			writeBytes: r.f[6] * sector,
			writeMs:    r.f[7],
			ioMs:       r.f[9],
			inFlight:   r.f[8],
			weightedMs: r.f[10],
		})
	}
	return nil
}

// classify decides, for every device not seen before, whether it is a
// physical whole disk. With sysfs: a whole device (it has /sys/block/NAME)
// that is not virtual and not stacked on other devices (empty slaves/).
// Without: by name (see physicalDisksByName).
func (h *procHost) classify(raw []rawDisk) {
	if !h.useSys {
		names := make([]string, len(raw))
		for i := range raw {
			names[i] = string(raw[i].name)
		}
		h.keep = physicalDisksByName(names)
		return
	}
	for i := range raw {
		name := string(raw[i].name)
		if _, ok := h.keep[name]; ok {
			continue
		}
		h.keep[name] = h.physicalSys(name)
	}
}

func (h *procHost) physicalSys(name string) bool {
	if isVirtualDiskName(name) {
		return false
	}
	dir := h.sys + "/block/" + strings.ReplaceAll(name, "/", "!")
	if _, err := os.Stat(dir); err != nil {
		return false // a partition (or gone)
	}
	if slaves, err := os.ReadDir(dir + "/slaves"); err == nil && len(slaves) > 0 {
		return false // device-mapper, md, bcache ...: counted on its disks
	}
	return true
}

// procTree sums the CPU of a process tree from /proc/PID/stat, finding
// children through /proc/PID/task/TID/children (or a full /proc scan on
// kernels built without CONFIG_PROC_CHILDREN). With cache set it keeps the
// stat and children files of up to maxCachedProcs processes open between
// calls.
type procTree struct {
	proc     string
	hz       float64
	children bool
	cache    bool
	buf      []byte
	stack    []int
	names    []string

	procs map[int]*treeProc
	gen   uint32
}

// treeProc holds the open files of one process of the tree.
type treeProc struct {
	stat, children procFile
	gen            uint32 // last walk that saw the process
}

// maxCachedProcs bounds the descriptors a sampler keeps open (two per
// process); processes beyond it are read with open/read/close.
const maxCachedProcs = 1024

func newProcTree(proc string) *procTree {
	return &procTree{proc: proc, hz: clockTicks(), children: hasChildrenFiles()}
}

func newCachedProcTree(proc string) *procTree {
	t := newProcTree(proc)
	t.cache = true
	t.procs = make(map[int]*treeProc)
	return t
}

// close closes every kept file.
func (t *procTree) close() {
	for pid, p := range t.procs {
		p.stat.close()
		p.children.close()
		delete(t.procs, pid)
	}
}

var (
	hzOnce sync.Once
	hz     float64
)

// clockTicks returns USER_HZ, the unit of /proc/PID/stat times, from the
// AT_CLKTCK auxiliary vector entry (100 if it cannot be read).
func clockTicks() float64 {
	hzOnce.Do(func() {
		hz = 100
		b, err := os.ReadFile("/proc/self/auxv")
		if err != nil {
			return
		}
		const atClkTck = 17
		w := int(unsafe.Sizeof(uintptr(0)))
		for i := 0; i+2*w <= len(b); i += 2 * w {
			var k, v uint64
			if w == 8 {
				k, v = binary.NativeEndian.Uint64(b[i:]), binary.NativeEndian.Uint64(b[i+w:])
			} else {
				k, v = uint64(binary.NativeEndian.Uint32(b[i:])), uint64(binary.NativeEndian.Uint32(b[i+w:]))
			}
			if k == atClkTck && v > 0 {
				hz = float64(v)
				return
			}
		}
	})
	return hz
}

var (
	childrenOnce sync.Once
	childrenOK   bool
)

// hasChildrenFiles reports whether the kernel has CONFIG_PROC_CHILDREN.
func hasChildrenFiles() bool {
	childrenOnce.Do(func() {
		p := strconv.Itoa(os.Getpid())
		_, err := os.Stat("/proc/" + p + "/task/" + p + "/children")
		childrenOK = err == nil
	})
	return childrenOK
}

// procStat holds the fields of /proc/PID/stat that matter here.
type procStat struct {
	ppid    int
	ticks   uint64 // utime + stime + cutime + cstime
	threads int
}

// cached returns the kept files of pid, or nil when not caching.
func (t *procTree) cached(pid int) *treeProc {
	if !t.cache {
		return nil
	}
	p := t.procs[pid]
	if p == nil {
		if len(t.procs) >= maxCachedProcs {
			return nil
		}
		dir := t.proc + "/" + strconv.Itoa(pid)
		p = &treeProc{
			stat:     newProcFile(dir + "/stat"),
			children: newProcFile(dir + "/task/" + strconv.Itoa(pid) + "/children"),
		}
		p.children.allowEmpty = true
		t.procs[pid] = p
	}
	p.gen = t.gen
	return p
}

func (t *procTree) readStat(pid int, p *treeProc) (procStat, error) {
	var b []byte
	var err error
	if p != nil {
		fd := p.stat.fd
		b, err = p.stat.read(&t.buf, false)
		if p.stat.fd != fd {
			// New process (or pid reused): its children file is stale.
			p.children.close()
		}
	} else {
		b, err = readFile(t.proc+"/"+strconv.Itoa(pid)+"/stat", &t.buf)
	}
	if err != nil {
		return procStat{}, err
	}
	return parseStat(b)
}

// parseStat parses /proc/PID/stat; comm may hold spaces and parentheses,
// so fields are counted from the last ')'.
func parseStat(b []byte) (procStat, error) {
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return procStat{}, errors.New("telemetry: malformed stat")
	}
	rest := b[i+1:]
	var st procStat
	// Fields after comm: 0 state, 1 ppid, ..., 11 utime, 12 stime,
	// 13 cutime, 14 cstime, 15 priority, 16 nice, 17 num_threads.
	for k := 0; k <= 17; k++ {
		var tok []byte
		tok, rest = nextField(rest)
		if len(tok) == 0 {
			return procStat{}, errors.New("telemetry: short stat")
		}
		switch k {
		case 1:
			st.ppid = int(atou(tok))
		case 11, 12, 13, 14:
			st.ticks += atou(tok)
		case 17:
			st.threads = int(atou(tok))
		}
	}
	return st, nil
}

func (t *procTree) dur(ticks uint64) time.Duration {
	return time.Duration(float64(ticks) / t.hz * float64(time.Second))
}

func (t *procTree) treeCPU(root int) (time.Duration, int, error) {
	if root <= 0 {
		return 0, 0, fmt.Errorf("telemetry: invalid pid %d", root)
	}
	if !t.children {
		return t.scanAll(root)
	}
	t.gen++
	defer t.sweep()
	var ticks uint64
	n := 0
	t.stack = append(t.stack[:0], root)
	for len(t.stack) > 0 && n < 1<<20 {
		pid := t.stack[len(t.stack)-1]
		t.stack = t.stack[:len(t.stack)-1]
		// The parent is read before its children: a child that exits in
		// between is missed once (it shows up in the parent's cutime on
		// the next read) rather than counted twice.
		p := t.cached(pid)
		st, err := t.readStat(pid, p)
		if err != nil {
			if pid == root {
				return 0, 0, err
			}
			continue // exited meanwhile
		}
		ticks += st.ticks
		n++
		if st.threads <= 1 {
			var b []byte
			if p != nil {
				b, err = p.children.read(&t.buf, false)
			} else {
				b, err = readFile(t.proc+"/"+strconv.Itoa(pid)+"/task/"+strconv.Itoa(pid)+"/children", &t.buf)
			}
			if err == nil {
				t.pushPids(b)
			}
			continue
		}
		// Children hang off the thread that forked them.
		f, err := os.Open(t.proc + "/" + strconv.Itoa(pid) + "/task")
		if err != nil {
			continue
		}
		t.names, _ = f.Readdirnames(-1)
		f.Close()
		for _, name := range t.names {
			b, err := readFile(t.proc+"/"+strconv.Itoa(pid)+"/task/"+name+"/children", &t.buf)
			if err == nil {
				t.pushPids(b)
			}
		}
	}
	return t.dur(ticks), n, nil
}

// sweep closes the files of processes the last walk did not see.
func (t *procTree) sweep() {
	for pid, p := range t.procs {
		if p.gen != t.gen {
			p.stat.close()
			p.children.close()
			delete(t.procs, pid)
		}
	}
}

// pushPids pushes the pids listed in a children file.
func (t *procTree) pushPids(b []byte) {
	for len(b) > 0 {
		var tok []byte
		tok, b = nextField(b)
		if len(tok) == 0 {
			break
		}
		if c := int(atou(tok)); c > 0 {
			t.stack = append(t.stack, c)
		}
	}
}

// scanAll reads the stat of every process to find root's descendants.
func (t *procTree) scanAll(root int) (time.Duration, int, error) {
	rootStat, err := t.readStat(root, nil)
	if err != nil {
		return 0, 0, err
	}
	f, err := os.Open(t.proc)
	if err != nil {
		return 0, 0, err
	}
	names, err := f.Readdirnames(-1)
	f.Close()
	if err != nil {
		return 0, 0, err
	}
	type node struct {
		ppid  int
		ticks uint64
	}
	all := make(map[int]node, len(names))
	for _, name := range names {
		pid, err := strconv.Atoi(name)
		if err != nil || pid == root {
			continue
		}
		st, err := t.readStat(pid, nil)
		if err != nil {
			continue
		}
		all[pid] = node{st.ppid, st.ticks}
	}
	kids := make(map[int][]int, len(all))
	for pid, nd := range all {
		kids[nd.ppid] = append(kids[nd.ppid], pid)
	}
	ticks, n := rootStat.ticks, 1
	stack := append([]int(nil), kids[root]...)
	for len(stack) > 0 {
		pid := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		ticks += all[pid].ticks
		n++
		stack = append(stack, kids[pid]...)
	}
	return t.dur(ticks), n, nil
}
