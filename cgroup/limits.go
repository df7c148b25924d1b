package cgroup

import (
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// Period is the CFS period used for CPU quotas (100 ms).
const Period = 100000

// Limits are what a group may use; zero values mean "no limit".
type Limits struct {
	// CPUs is a cpuset list such as "1" or "0-3,6".
	CPUs string `json:"cpus,omitempty"`
	// Quota is the CFS quota in cores (1.5: 150 ms per 100 ms period).
	Quota float64 `json:"cpu_quota,omitempty"`
	// Memory is the memory limit in bytes, page cache included.
	Memory int64 `json:"memory_bytes,omitempty"`
	// IO are the block I/O limits per device.
	IO []DeviceLimit `json:"io,omitempty"`
}

// DeviceLimit throttles one block device (0: no limit).
type DeviceLimit struct {
	Device    Device `json:"device"`
	ReadIOPS  uint64 `json:"riops,omitempty"`
	WriteIOPS uint64 `json:"wiops,omitempty"`
	ReadBPS   uint64 `json:"rbps,omitempty"`
	WriteBPS  uint64 `json:"wbps,omitempty"`
}

// Device is a block device number.
type Device struct{ Major, Minor uint32 }

func (d Device) String() string { return fmt.Sprintf("%d:%d", d.Major, d.Minor) }

// MarshalText writes MAJ:MIN.
func (d Device) MarshalText() ([]byte, error) { return []byte(d.String()), nil }

// UnmarshalText reads MAJ:MIN.
func (d *Device) UnmarshalText(b []byte) error {
	maj, min, ok := strings.Cut(string(b), ":")
	a, err1 := strconv.ParseUint(maj, 10, 32)
	c, err2 := strconv.ParseUint(min, 10, 32)
	if !ok || err1 != nil || err2 != nil {
		return fmt.Errorf("device %q: want MAJ:MIN", b)
	}
	d.Major, d.Minor = uint32(a), uint32(c)
	return nil
}

// Keys are the limits set, as io.max writes them: "riops=2000" ...
func (d DeviceLimit) Keys() []string {
	var kv []string
	for _, x := range []struct {
		k string
		v uint64
	}{{"riops", d.ReadIOPS}, {"wiops", d.WriteIOPS}, {"rbps", d.ReadBPS}, {"wbps", d.WriteBPS}} {
		if x.v > 0 {
			kv = append(kv, fmt.Sprintf("%s=%d", x.k, x.v))
		}
	}
	return kv
}

// Set writes l to the group. A limit whose controller the group lacks is
// an error naming the controller (check Has first to fall back).
func (g *Group) Set(l Limits) error {
	need := func(c, what string) (string, error) {
		d, ok := g.dirs[c]
		if !ok {
			return "", fmt.Errorf("cannot apply %s: the %s controller is not available", what, c)
		}
		return d, nil
	}
	if l.CPUs != "" {
		d, err := need(CPUSet, "a cpuset")
		if err != nil {
			return err
		}
		if err := writeFile(filepath.Join(d, "cpuset.cpus"), l.CPUs); err != nil {
			return fmt.Errorf("set cpuset.cpus %s: %w", l.CPUs, err)
		}
	}
	if l.Quota > 0 {
		d, err := need(CPU, "a CPU quota")
		if err != nil {
			return err
		}
		quota := int64(math.Round(l.Quota * Period))
		if g.version == 2 {
			err = writeFile(filepath.Join(d, "cpu.max"), fmt.Sprintf("%d %d", quota, Period))
		} else {
			err = writeFile(filepath.Join(d, "cpu.cfs_period_us"), strconv.Itoa(Period))
			if err == nil {
				err = writeFile(filepath.Join(d, "cpu.cfs_quota_us"), strconv.FormatInt(quota, 10))
			}
		}
		if err != nil {
			return fmt.Errorf("set a CPU quota of %.2f cores: %w", l.Quota, err)
		}
	}
	if l.Memory > 0 {
		d, err := need(Memory, "a memory limit")
		if err != nil {
			return err
		}
		file := "memory.limit_in_bytes"
		if g.version == 2 {
			file = "memory.max"
		}
		if err := writeFile(filepath.Join(d, file), strconv.FormatInt(l.Memory, 10)); err != nil {
			return fmt.Errorf("set %s to %d: %w", file, l.Memory, err)
		}
	}
	for _, dl := range l.IO {
		d, err := need(IO, "an I/O limit")
		if err != nil {
			return err
		}
		if err := g.setIO(d, dl); err != nil {
			return fmt.Errorf("set the I/O limit of device %s: %w", dl.Device, err)
		}
	}
	return nil
}

func (g *Group) setIO(dir string, dl DeviceLimit) error {
	if g.version == 2 {
		kv := dl.Keys()
		if len(kv) == 0 {
			return nil
		}
		return writeFile(filepath.Join(dir, "io.max"), dl.Device.String()+" "+strings.Join(kv, " "))
	}
	for file, v := range v1IOFiles(&dl) {
		if *v == 0 {
			continue
		}
		if err := writeFile(filepath.Join(dir, file), fmt.Sprintf("%s %d", dl.Device, *v)); err != nil {
			return err
		}
	}
	return nil
}

func v1IOFiles(dl *DeviceLimit) map[string]*uint64 {
	return map[string]*uint64{
		"blkio.throttle.read_iops_device":  &dl.ReadIOPS,
		"blkio.throttle.write_iops_device": &dl.WriteIOPS,
		"blkio.throttle.read_bps_device":   &dl.ReadBPS,
		"blkio.throttle.write_bps_device":  &dl.WriteBPS,
	}
}

// unlimitedV1 is what v1 reports for "no memory limit" (rounded to pages).
const unlimitedV1 = int64(math.MaxInt64) &^ 4095

// Read reads the limits back from the group's files (what the kernel
// applied, e.g. a memory limit rounded to pages).
func (g *Group) Read() (Limits, error) {
	var l Limits
	var errs []error
	read := func(c, file string) string {
		d, ok := g.dirs[c]
		if !ok {
			return ""
		}
		v, err := readFile(filepath.Join(d, file))
		if err != nil {
			errs = append(errs, err)
		}
		return v
	}
	l.CPUs = read(CPUSet, "cpuset.cpus")
	if g.version == 2 {
		if f := strings.Fields(read(CPU, "cpu.max")); len(f) == 2 && f[0] != "max" {
			q, _ := strconv.ParseFloat(f[0], 64)
			p, _ := strconv.ParseFloat(f[1], 64)
			if p > 0 {
				l.Quota = q / p
			}
		}
		if v := read(Memory, "memory.max"); v != "max" {
			l.Memory, _ = strconv.ParseInt(v, 10, 64)
		}
		l.IO = parseIOMax(read(IO, "io.max"))
	} else {
		q, _ := strconv.ParseFloat(read(CPU, "cpu.cfs_quota_us"), 64)
		p, _ := strconv.ParseFloat(read(CPU, "cpu.cfs_period_us"), 64)
		if q > 0 && p > 0 {
			l.Quota = q / p
		}
		if v, _ := strconv.ParseInt(read(Memory, "memory.limit_in_bytes"), 10, 64); v > 0 && v < unlimitedV1 {
			l.Memory = v
		}
		byDev := map[Device]*DeviceLimit{}
		var order []Device
		for _, file := range []string{"blkio.throttle.read_iops_device", "blkio.throttle.write_iops_device",
			"blkio.throttle.read_bps_device", "blkio.throttle.write_bps_device"} {
			for _, line := range strings.Split(read(IO, file), "\n") {
				f := strings.Fields(line)
				var dev Device
				if len(f) != 2 || dev.UnmarshalText([]byte(f[0])) != nil {
					continue
				}
				dl := byDev[dev]
				if dl == nil {
					dl = &DeviceLimit{Device: dev}
					byDev[dev] = dl
					order = append(order, dev)
				}
				*v1IOFiles(dl)[file], _ = strconv.ParseUint(f[1], 10, 64)
			}
		}
		sort.Slice(order, func(i, j int) bool { return order[i].String() < order[j].String() })
		for _, d := range order {
			l.IO = append(l.IO, *byDev[d])
		}
	}
	return l, errors.Join(errs...)
}

// parseIOMax reads io.max lines: "MAJ:MIN rbps=max wbps=max riops=2000 wiops=max".
func parseIOMax(s string) []DeviceLimit {
	var out []DeviceLimit
	for _, line := range strings.Split(s, "\n") {
		f := strings.Fields(line)
		var dl DeviceLimit
		if len(f) < 2 || dl.Device.UnmarshalText([]byte(f[0])) != nil {
			continue
		}
		for _, kv := range f[1:] {
			k, v, _ := strings.Cut(kv, "=")
			n, err := strconv.ParseUint(v, 10, 64)
			if err != nil {
				continue // "max"
			}
			switch k {
			case "rbps":
				dl.ReadBPS = n
			case "wbps":
				dl.WriteBPS = n
			case "riops":
				dl.ReadIOPS = n
			case "wiops":
				dl.WriteIOPS = n
			}
		}
		out = append(out, dl)
	}
	return out
}

// OOMKills is how many processes of the group the kernel's OOM killer has
// killed (v1 memory.oom_control, v2 memory.events: "oom_kill N").
func (g *Group) OOMKills() (int64, error) {
	d, ok := g.dirs[Memory]
	if !ok {
		return 0, errors.New("no memory controller")
	}
	file := "memory.oom_control"
	if g.version == 2 {
		file = "memory.events"
	}
	s, err := readFile(filepath.Join(d, file))
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(s, "\n") {
		if f := strings.Fields(line); len(f) == 2 && f[0] == "oom_kill" {
			return strconv.ParseInt(f[1], 10, 64)
		}
	}
	return 0, fmt.Errorf("%s has no oom_kill line", file)
}

// LiftIO removes the group's I/O limits and returns a function that puts
// the same limits back (a no-op when there were none). Work that is not
// measured, such as restoring the built database or the shutdown
// checkpoint, then runs at the device's speed: at a 1 MB/s write limit,
// copying a 200 MB database would take minutes.
func (g *Group) LiftIO() (restore func() error, err error) {
	noop := func() error { return nil }
	d, ok := g.dirs[IO]
	if !ok {
		return noop, nil
	}
	l, err := g.Read()
	if err != nil {
		return noop, fmt.Errorf("read the I/O limits to lift: %w", err)
	}
	if len(l.IO) == 0 {
		return noop, nil
	}
	for _, dl := range l.IO {
		if err := g.clearIO(d, dl); err != nil {
			return noop, fmt.Errorf("lift the I/O limit of device %s: %w", dl.Device, err)
		}
	}
	return func() error { return g.Set(Limits{IO: l.IO}) }, nil
}

// clearIO removes the limits of dl's device ("max" on v2; 0, which deletes
// the rule, on v1).
func (g *Group) clearIO(dir string, dl DeviceLimit) error {
	if g.version == 2 {
		return writeFile(filepath.Join(dir, "io.max"), dl.Device.String()+" rbps=max wbps=max riops=max wiops=max")
	}
	for file, v := range v1IOFiles(&dl) {
		if *v == 0 {
			continue
		}
		if err := writeFile(filepath.Join(dir, file), dl.Device.String()+" 0"); err != nil {
			return err
		}
	}
	return nil
}
