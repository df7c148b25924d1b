package telemetry

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/shirou/gopsutil/v4/cpu"
	"github.com/shirou/gopsutil/v4/disk"
	"github.com/shirou/gopsutil/v4/mem"
	"github.com/shirou/gopsutil/v4/process"
)

// The gopsutil readers serve every OS but Linux, where the /proc readers are
// several times cheaper. They are compiled everywhere so that Linux tests and
// benchmarks exercise them too.

func secs(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

// psutilHost reads host counters through gopsutil.
type psutilHost struct {
	names []string        // device names of the last read, sorted
	keep  map[string]bool // physical whole disks among names
}

func newPsutilHost() *psutilHost { return &psutilHost{} }

func (h *psutilHost) read(c *hostCounters) error {
	ctx := context.Background()
	ts, err := cpu.TimesWithContext(ctx, false)
	if err != nil {
		return err
	}
	if len(ts) == 0 {
		return errors.New("telemetry: no CPU times")
	}
	t := ts[0]
	c.cpu = cpuTimes{user: t.User, nice: t.Nice, system: t.System, idle: t.Idle, iowait: t.Iowait,
		irq: t.Irq, softirq: t.Softirq, steal: t.Steal}

	v, err := mem.VirtualMemoryWithContext(ctx)
	if err != nil {
		return err
	}
	cache := v.Buffers + v.Cached
	if v.Shared < cache {
		cache -= v.Shared
	}
	c.mem = memInfo{total: v.Total, used: v.Used, cached: cache}

	c.disks = c.disks[:0]
	io, err := disk.IOCountersWithContext(ctx)
	if err != nil {
		return nil // disks are optional
	}
	names := make([]string, 0, len(io))
	for name := range io {
		names = append(names, name)
	}
	slices.Sort(names)
	if !slices.Equal(names, h.names) {
		h.names = names
		h.keep = physicalDisksByName(names)
	}
	for _, name := range names {
		if !h.keep[name] {
			continue
		}
		d := io[name]
		c.disks = append(c.disks, diskCounter{
			name:       name,
			reads:      d.ReadCount,
			writes:     d.WriteCount,
			readBytes:  d.ReadBytes,
			writeBytes: d.WriteBytes,
			readMs:     d.ReadTime,
			writeMs:    d.WriteTime,
			ioMs:       d.IoTime,
		})
	}
	return nil
}

// psutilTree sums the CPU of a process tree through gopsutil. Only live
// processes are counted (no cutime/cstime).
type psutilTree struct{}

func (psutilTree) treeCPU(root int) (time.Duration, int, error) {
	if root <= 0 {
		return 0, 0, fmt.Errorf("telemetry: invalid pid %d", root)
	}
	ctx := context.Background()
	rp, err := process.NewProcessWithContext(ctx, int32(root))
	if err != nil {
		return 0, 0, err
	}
	rt, err := rp.TimesWithContext(ctx)
	if err != nil {
		return 0, 0, err
	}
	procs, err := process.ProcessesWithContext(ctx)
	if err != nil {
		return 0, 0, err
	}
	kids := make(map[int32][]*process.Process)
	for _, p := range procs {
		if pp, err := p.PpidWithContext(ctx); err == nil && p.Pid != pp {
			kids[pp] = append(kids[pp], p)
		}
	}
	total, n := rt.User+rt.System, 1
	seen := map[int32]bool{rp.Pid: true}
	stack := append([]*process.Process(nil), kids[rp.Pid]...)
	for len(stack) > 0 {
		p := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[p.Pid] {
			continue
		}
		seen[p.Pid] = true
		t, err := p.TimesWithContext(ctx)
		if err != nil {
			continue // exited meanwhile
		}
		total += t.User + t.System
		n++
		stack = append(stack, kids[p.Pid]...)
	}
	return secs(total), n, nil
}
