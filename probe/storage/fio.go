package storage

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/shirou/gopsutil/v4/mem"
)

// fioPercentiles is the percentile list Run asks fio for.
const fioPercentiles = "25:50:75:90:95:99:99.9"

// fioSetup is what Run learned about the installed fio.
type fioSetup struct {
	version      string
	major, minor int
	ioengine     string // libaio, windowsaio, posixaio or psync
	huge         hugetlbPool
}

// hugetlbPool is the kernel's pool of reserved huge pages (vm.nr_hugepages),
// which fio's --iomem=mmaphuge takes its buffers from.
type hugetlbPool struct {
	free     int // pages free and not reserved by another mapping
	pageSize int // bytes
}

// readHugetlbPool reads the pool (gopsutil: /proc/meminfo); a zero pool
// where there is none (or no Linux).
func readHugetlbPool(ctx context.Context) hugetlbPool {
	vm, err := mem.VirtualMemoryWithContext(ctx)
	if err != nil {
		return hugetlbPool{}
	}
	return newHugetlbPool(vm.HugePagesFree, vm.HugePagesRsvd, vm.HugePageSize)
}

// newHugetlbPool is the pool of free huge pages not reserved by another
// mapping, of pageSize bytes each.
func newHugetlbPool(free, rsvd, pageSize uint64) hugetlbPool {
	if pageSize == 0 || free <= rsvd {
		return hugetlbPool{}
	}
	return hugetlbPool{free: int(free - rsvd), pageSize: int(pageSize)}
}

// pagesFor is how many huge pages fio takes for numjobs jobs of iodepth
// buffers of bs bytes (each job maps its buffers, plus a base page of
// alignment for O_DIRECT, rounded up to whole huge pages).
func (p hugetlbPool) pagesFor(numjobs, iodepth, bs int) int {
	if p.pageSize <= 0 {
		return math.MaxInt
	}
	per := (iodepth*bs + 4096 + p.pageSize - 1) / p.pageSize
	return numjobs * per
}

// asyncEngine reports whether the ioengine keeps QueueDepth I/Os in flight
// per job by itself.
func (s *fioSetup) asyncEngine() bool { return s.ioengine != "psync" }

// unifiedBoth reports whether fio accepts unified_rw_reporting=both (fio
// 3.26 and later), which adds the "mixed" (read+write) statistics.
func (s *fioSetup) unifiedBoth() bool { return s.major > 3 || (s.major == 3 && s.minor >= 26) }

var fioVersionRE = regexp.MustCompile(`fio-(\d+)\.(\d+)`)

// detectFio asks fio for its version and I/O engines.
func detectFio(ctx context.Context) (*fioSetup, error) {
	out, err := exec.CommandContext(ctx, "fio", "--version").Output()
	if err != nil {
		return nil, fmt.Errorf("storage probe: running fio --version: %w", err)
	}
	s := &fioSetup{version: strings.TrimSpace(string(out))}
	if m := fioVersionRE.FindStringSubmatch(s.version); m != nil {
		s.major, _ = strconv.Atoi(m[1])
		s.minor, _ = strconv.Atoi(m[2])
	}
	s.ioengine = "psync"
	// fio --enghelp exits 0 and lists one compiled-in engine per line.
	if out, err := exec.CommandContext(ctx, "fio", "--enghelp").Output(); err == nil {
		engines := map[string]bool{}
		for _, l := range strings.Split(string(out), "\n") {
			engines[strings.TrimSpace(l)] = true
		}
		for _, e := range []string{"libaio", "windowsaio", "posixaio"} {
			if engines[e] {
				s.ioengine = e
				break
			}
		}
	}
	return s, nil
}

// fioArgs builds fio's command line for one job on the test file.
func fioArgs(s *fioSetup, path string, size int64, j Job, direct bool) ([]string, []string) {
	var notes []string
	numjobs, iodepth := j.Threads, j.QueueDepth
	if !s.asyncEngine() && iodepth > 1 {
		// A synchronous engine has one I/O in flight per job: run one job per
		// outstanding I/O, like the builtin engine.
		numjobs, iodepth = j.Threads*j.QueueDepth, 1
		notes = append(notes, fmt.Sprintf("fio has no asynchronous ioengine here: ran %d psync jobs of queue depth 1", numjobs))
	}
	d := 0
	if direct {
		d = 1
	}
	bs := int64(j.BlockSize)
	args := []string{
		"--output-format=json",
		"--eta=never",
		"--name=" + j.Name,
		// fio splits filename on ':' (several files per job).
		"--filename=" + strings.ReplaceAll(path, ":", `\:`),
		"--ioengine=" + s.ioengine,
		"--direct=" + strconv.Itoa(d),
		"--rw=" + j.rw(),
		"--bs=" + strconv.Itoa(j.BlockSize),
		"--numjobs=" + strconv.Itoa(numjobs),
		"--iodepth=" + strconv.Itoa(iodepth),
		"--time_based",
		"--runtime=" + strconv.FormatInt(j.Duration.Milliseconds(), 10) + "ms",
		"--group_reporting",
		"--percentile_list=" + fioPercentiles,
		"--lat_percentiles=1",
		"--randrepeat=0",
		"--norandommap",
	}
	if j.ReadPct > 0 && j.ReadPct < 100 {
		args = append(args, "--rwmixread="+strconv.Itoa(j.ReadPct))
	}
	if j.FsyncEvery > 0 {
		args = append(args, "--fsync="+strconv.Itoa(j.FsyncEvery))
	}
	if j.Random || numjobs == 1 {
		args = append(args, "--size="+strconv.FormatInt(size/bs*bs, 10))
	} else {
		// Each job walks its own slice of the file, like the builtin threads.
		region := size / int64(numjobs) / bs * bs
		args = append(args, "--size="+strconv.FormatInt(region, 10), "--offset_increment="+strconv.FormatInt(region, 10))
	}
	if s.unifiedBoth() {
		args = append(args, "--unified_rw_reporting=both")
	}
	if s.huge.free > 0 && s.huge.pagesFor(numjobs, iodepth, j.BlockSize) <= s.huge.free {
		// Huge-page buffers, as the builtin engine's: each block one
		// physically contiguous segment rather than the page allocator's luck.
		args = append(args, "--iomem=mmaphuge", "--hugepage-size="+strconv.Itoa(s.huge.pageSize))
	} else {
		notes = append(notes, "fio's I/O buffers on base pages: reserve huge pages (vm.nr_hugepages) for it to use them as the builtin engine does")
	}
	return args, notes
}

// runFio runs one job with fio and parses its JSON output. fio's buffers
// are on huge pages when the kernel's pool has enough of them free.
func runFio(ctx context.Context, s *fioSetup, path string, size int64, j Job, direct bool) (JobResult, error) {
	sj := *s
	sj.huge = readHugetlbPool(ctx)
	r, err := runFioWith(ctx, &sj, path, size, j, direct)
	if err != nil && ctx.Err() == nil && r.HugePages {
		// The pool was taken between reading it and fio mapping its buffers.
		sj.huge = hugetlbPool{}
		r, err = runFioWith(ctx, &sj, path, size, j, direct)
		r.Notes = append(r.Notes, "fio could not map huge pages: ran again on base pages")
	}
	return r, err
}

// runFioWith runs one job with fio as set up by s.
func runFioWith(ctx context.Context, s *fioSetup, path string, size int64, j Job, direct bool) (JobResult, error) {
	args, notes := fioArgs(s, path, size, j, direct)
	cmd := exec.CommandContext(ctx, "fio", args...)
	// On cancellation let fio stop its jobs and print what it measured.
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	cmd.WaitDelay = 10 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	runErr := cmd.Run()
	r, perr := ParseFioJSON(stdout.Bytes())
	r.Notes = append(notes, r.Notes...)
	r.IOEngine = s.ioengine
	r.HugePages = slices.Contains(args, "--iomem=mmaphuge")
	if ps := cmd.ProcessState; ps != nil && r.IOsDone() > 0 {
		// fio's own CPU and that of the job processes it forked and waited for.
		r.CPUPerIOMicros = float64((ps.UserTime() + ps.SystemTime()).Nanoseconds()) / 1e3 / float64(r.IOsDone())
	}
	if ctx.Err() != nil {
		return r, ctx.Err()
	}
	if runErr != nil {
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = strings.TrimSpace(stdout.String())
		}
		return r, fmt.Errorf("fio failed: %w: %s", runErr, msg)
	}
	if perr != nil {
		return r, perr
	}
	return r, nil
}

// fioOutput is the part of fio's JSON output (--output-format=json) that the
// probe reads.
type fioOutput struct {
	Version string   `json:"fio version"`
	Jobs    []fioJob `json:"jobs"`
}

type fioJob struct {
	Name  string      `json:"jobname"`
	Error int         `json:"error"`
	Read  fioDir      `json:"read"`
	Write fioDir      `json:"write"`
	Mixed *fioDir     `json:"mixed"`
	Sync  fioSyncStat `json:"sync"`
	// The latency distribution, percent of I/Os per range, keyed by the
	// range's upper edge ("1000" µs: 750 up to 1000 µs; ">=2000" ms).
	LatNs map[string]float64 `json:"latency_ns"`
	LatUs map[string]float64 `json:"latency_us"`
	LatMs map[string]float64 `json:"latency_ms"`
}

// buckets turns fio's latency distribution into LatencyEdgesMs ranges, or
// returns nil when fio printed none. fio keys each range by its upper edge;
// its nanosecond ranges all fall in the first range.
func (j fioJob) buckets() LatencyBuckets {
	if len(j.LatUs) == 0 || len(j.LatMs) == 0 {
		return nil
	}
	b := newLatencyBuckets()
	for _, v := range j.LatNs {
		b[0].Pct += v
	}
	add := func(m map[string]float64, perMs float64) {
		for k, v := range m {
			if k == ">=2000" {
				b[len(b)-1].Pct += v
				continue
			}
			upper, err := strconv.ParseFloat(k, 64)
			if err != nil {
				continue
			}
			// the range whose next edge is upper
			if i := slices.Index(LatencyEdgesMs, upper/perMs); i > 0 {
				b[i-1].Pct += v
			}
		}
	}
	add(j.LatUs, 1000)
	add(j.LatMs, 1)
	return b
}

type fioDir struct {
	IOBytes  int64   `json:"io_bytes"`
	BwBytes  float64 `json:"bw_bytes"`
	IOPS     float64 `json:"iops"`
	Runtime  int64   `json:"runtime"` // ms
	TotalIOs int64   `json:"total_ios"`
	Clat     fioLat  `json:"clat_ns"`
	Lat      fioLat  `json:"lat_ns"`
}

type fioSyncStat struct {
	TotalIOs int64  `json:"total_ios"`
	Lat      fioLat `json:"lat_ns"`
}

type fioLat struct {
	Min        float64            `json:"min"`
	Max        float64            `json:"max"`
	Mean       float64            `json:"mean"`
	StdDev     float64            `json:"stddev"`
	N          int64              `json:"N"`
	Percentile map[string]float64 `json:"percentile"`
}

// pct returns the percentile p (in ns) from fio's map, keyed "99.900000".
func (l fioLat) pct(p float64) (float64, bool) {
	if v, ok := l.Percentile[strconv.FormatFloat(p, 'f', 6, 64)]; ok {
		return v, true
	}
	for k, v := range l.Percentile {
		if f, err := strconv.ParseFloat(k, 64); err == nil && math.Abs(f-p) < 1e-9 {
			return v, true
		}
	}
	return 0, false
}

// latency converts fio's nanosecond statistics into a Latency in ms.
func (l fioLat) latency() Latency {
	ms := func(ns float64) float64 { return ns / 1e6 }
	p := func(q float64) float64 { v, _ := l.pct(q); return ms(v) }
	out := Latency{
		MinMs: ms(l.Min), MaxMs: ms(l.Max), MeanMs: ms(l.Mean), StdDevMs: ms(l.StdDev),
		P25Ms: p(25), P50Ms: p(50), P75Ms: p(75), P90Ms: p(90), P95Ms: p(95), P99Ms: p(99), P999Ms: p(99.9),
	}
	if l.N > 0 {
		out.clamp()
	}
	return out
}

// latStat picks the latency fio reports with percentiles: total latency
// (lat_ns, with lat_percentiles=1) when present, else completion latency.
func (d fioDir) latStat() (fioLat, bool) {
	if len(d.Lat.Percentile) > 0 || len(d.Clat.Percentile) == 0 {
		return d.Lat, true
	}
	return d.Clat, false
}

func (d fioDir) side() Side {
	l, _ := d.latStat()
	return Side{Bytes: d.IOBytes, IOs: d.TotalIOs, MBps: d.BwBytes / (1 << 20), IOPS: d.IOPS, Latency: l.latency()}
}

// ParseFioJSON parses the output of one fio run made with
// --output-format=json and --group_reporting (a single job entry) into a
// JobResult (Job and Engine left for the caller). Latencies are fio's total
// latency (lat_ns) when it reports percentiles for it (lat_percentiles=1),
// otherwise completion latency (clat_ns), noted in the result. The total
// side comes from fio's "mixed" statistics (unified_rw_reporting=both);
// without them it is combined from reads and writes, with percentiles
// approximated, and noted. Text fio prints before the JSON document is
// skipped.
func ParseFioJSON(data []byte) (JobResult, error) {
	var r JobResult
	i := bytes.IndexByte(data, '{')
	if i < 0 {
		return r, errors.New("fio printed no JSON output")
	}
	var out fioOutput
	if err := json.NewDecoder(bytes.NewReader(data[i:])).Decode(&out); err != nil {
		return r, fmt.Errorf("parsing fio JSON output: %w", err)
	}
	if len(out.Jobs) == 0 {
		return r, errors.New("fio JSON output has no jobs")
	}
	if len(out.Jobs) > 1 {
		r.Notes = append(r.Notes, fmt.Sprintf("fio reported %d jobs (no group_reporting?): the first is used", len(out.Jobs)))
	}
	fj := out.Jobs[0]
	r.Read, r.Write = fj.Read.side(), fj.Write.side()
	r.Buckets = fj.buckets()
	main := fj.Read
	if main.TotalIOs == 0 {
		main = fj.Write
	}
	if _, isLat := main.latStat(); !isLat && main.TotalIOs > 0 {
		r.Notes = append(r.Notes, "latencies are fio completion latencies (clat): fio reported no total-latency percentiles")
	}
	r.Elapsed = time.Duration(max(fj.Read.Runtime, fj.Write.Runtime)) * time.Millisecond
	if fj.Mixed != nil && fj.Mixed.TotalIOs == fj.Read.TotalIOs+fj.Write.TotalIOs {
		r.Total = fj.Mixed.side()
	} else {
		r.Total = combineSides(r.Read, r.Write)
		if r.Read.IOs > 0 && r.Write.IOs > 0 {
			r.Notes = append(r.Notes, "total latency percentiles approximated from fio's read and write percentiles")
		}
	}
	if fj.Sync.TotalIOs > 0 {
		r.Sync = Side{IOs: fj.Sync.TotalIOs, Latency: fj.Sync.Lat.latency()}
		if r.Elapsed > 0 {
			r.Sync.IOPS = float64(fj.Sync.TotalIOs) / r.Elapsed.Seconds()
		}
	}
	if fj.Error != 0 {
		return r, fmt.Errorf("fio job %s reported error %d (%s)", fj.Name, fj.Error, errnoText(fj.Error))
	}
	return r, nil
}

// errnoText names an errno value fio reports.
func errnoText(e int) string { return syscall.Errno(e).Error() }

// combineSides adds two sides: counts, rates, and exact min, max, mean and
// standard deviation; the percentiles are those of the mixture of the two
// distributions, each interpolated linearly between its known percentiles.
func combineSides(a, b Side) Side {
	if a.IOs == 0 {
		return b
	}
	if b.IOs == 0 {
		return a
	}
	s := Side{Bytes: a.Bytes + b.Bytes, IOs: a.IOs + b.IOs, MBps: a.MBps + b.MBps, IOPS: a.IOPS + b.IOPS}
	na, nb := float64(a.IOs), float64(b.IOs)
	n := na + nb
	la, lb := a.Latency, b.Latency
	mean := (na*la.MeanMs + nb*lb.MeanMs) / n
	sq := na*(la.StdDevMs*la.StdDevMs+la.MeanMs*la.MeanMs) + nb*(lb.StdDevMs*lb.StdDevMs+lb.MeanMs*lb.MeanMs)
	s.Latency = Latency{
		MinMs: math.Min(la.MinMs, lb.MinMs), MaxMs: math.Max(la.MaxMs, lb.MaxMs),
		MeanMs: mean, StdDevMs: math.Sqrt(math.Max(0, sq/n-mean*mean)),
	}
	wa, wb := na/n, nb/n
	cdf := func(x float64) float64 { return wa*cdfOf(la, x) + wb*cdfOf(lb, x) }
	// Candidate values: every known point of either distribution.
	var xs []float64
	for _, l := range []Latency{la, lb} {
		xs = append(xs, l.points()...)
	}
	sort.Float64s(xs)
	quant := func(p float64) float64 {
		target := p / 100
		prevX, prevC := xs[0], 0.0
		for _, x := range xs {
			c := cdf(x)
			if c >= target {
				if c == prevC {
					return x
				}
				return prevX + (x-prevX)*(target-prevC)/(c-prevC)
			}
			prevX, prevC = x, c
		}
		return xs[len(xs)-1]
	}
	s.Latency.P25Ms, s.Latency.P50Ms, s.Latency.P75Ms = quant(25), quant(50), quant(75)
	s.Latency.P90Ms, s.Latency.P95Ms, s.Latency.P99Ms, s.Latency.P999Ms = quant(90), quant(95), quant(99), quant(99.9)
	s.Latency.clamp()
	return s
}

// points returns the latency's known (value) points in percentile order.
func (l Latency) points() []float64 {
	return []float64{l.MinMs, l.P25Ms, l.P50Ms, l.P75Ms, l.P90Ms, l.P95Ms, l.P99Ms, l.P999Ms, l.MaxMs}
}

// cdfOf estimates the share of I/Os at or below x from the percentile
// points, interpolating linearly between them.
func cdfOf(l Latency, x float64) float64 {
	qs := []float64{0, .25, .50, .75, .90, .95, .99, .999, 1}
	vs := l.points()
	if x < vs[0] {
		return 0
	}
	for i := 1; i < len(vs); i++ {
		if x < vs[i] {
			return qs[i-1] + (qs[i]-qs[i-1])*(x-vs[i-1])/(vs[i]-vs[i-1])
		}
	}
	return 1
}
