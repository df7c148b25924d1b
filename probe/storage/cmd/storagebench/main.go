// Command storagebench compares the storage probe's engines on the jobs of
// one or more presets, on one test file: for each round and job it runs
// every engine once, rotating their order from job to job and round to
// round so that drift in the device's speed or the machine's load favours
// none, then prints per job the median over rounds of IOPS, MB/s, average
// and 99th percentile latency and CPU per I/O, and each engine's ratios to
// the first (target: builtin IOPS and p99 within 5 % of fio's). Listing an
// engine twice (fio,fio,builtin) adds an A/A control: fio against itself. It is the development
// tool behind bench/storage.sh; the rightsize CLI wires the probe for users.
package main

import (
	"context"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/signal"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/rightsize/rightsize/probe/storage"
	"github.com/rightsize/rightsize/steady"
)

// engineSpec is one engine to compare: "fio", "builtin" or
// "builtin:INTERFACE" (io_uring, libaio, goroutines). An engine listed
// twice runs twice per round under two names (the second "fio#2"): an A/A
// control showing how far an engine's figures move against its own from
// one run to the next on this host.
type engineSpec struct {
	name string
	opt  storage.Options
}

func parseEngines(list string) ([]engineSpec, error) {
	var specs []engineSpec
	seen := map[string]int{}
	for _, e := range strings.Split(list, ",") {
		e = strings.TrimSpace(e)
		engine, io, _ := strings.Cut(e, ":")
		if _, err := storage.ResolveEngine(engine); err != nil {
			return nil, err
		}
		seen[e]++
		name := e
		if seen[e] > 1 {
			name = fmt.Sprintf("%s#%d", e, seen[e])
		}
		specs = append(specs, engineSpec{name: name, opt: storage.Options{Engine: engine, BuiltinIO: io}})
	}
	return specs, nil
}

// roundOrder is the order the engines run in on one job of one round:
// rotated by one from job to job and round to round, so that each engine
// runs first, second ... equally often (with two engines, alternately
// first and second). It returns indexes into the engines.
func roundOrder(n, round, job int) []int {
	order := make([]int, n)
	for i := range order {
		order[i] = (i + round + job) % n
	}
	return order
}

// figures are the compared figures of one run of one job, and its latency
// distribution.
type figures struct {
	iops, mbps, avgMs, p99Ms, cpuUs float64
	buckets                         storage.LatencyBuckets
}

func main() {
	dir := flag.String("dir", "/var/tmp/rightsize-storagebench", "directory to probe (created if missing)")
	size := flag.Int64("size", 1<<30, "test file size in bytes")
	dur := flag.Duration("duration", 10*time.Second, "duration of each job")
	presetList := flag.String("preset", "sqlserver", "comma-separated presets: "+strings.Join(storage.PresetNames(), ", "))
	engineList := flag.String("engines", "fio,builtin", "comma-separated engines to compare, each against the first: fio, builtin, builtin:io_uring, builtin:libaio, builtin:goroutines; one listed twice runs twice (an A/A control)")
	rounds := flag.Int("rounds", 3, "rounds; each runs every job with every engine once")
	keep := flag.Bool("keep", false, "leave the test file in place for the next run (which reuses it when it has the same size) instead of removing it")
	only := flag.String("jobs", "", "regular expression: run only the presets' jobs whose name matches")
	flag.Parse()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	engines, err := parseEngines(*engineList)
	if err != nil {
		fatal(err)
	}
	match, err := regexp.Compile(*only)
	if err != nil {
		fatal(fmt.Errorf("-jobs: %w", err))
	}
	var jobs []storage.Job
	for _, p := range strings.Split(*presetList, ",") {
		js, err := storage.Preset(p, *dur)
		if err != nil {
			fatal(err)
		}
		for _, j := range js {
			if match.MatchString(j.Name) {
				jobs = append(jobs, j)
			}
		}
	}
	if len(jobs) == 0 {
		fatal(fmt.Errorf("no job of presets %s matches -jobs %q", *presetList, *only))
	}
	if err := os.MkdirAll(*dir, 0o755); err != nil {
		fatal(err)
	}
	v, err := storage.Prepare(ctx, storage.Options{Path: *dir, Size: *size}, jobs, nil)
	if err != nil {
		fatal(err)
	}
	if !*keep {
		defer v.Close()
	}
	// runs[job][engine] holds one entry per round.
	runs := make([][][]figures, len(jobs))
	for i := range runs {
		runs[i] = make([][]figures, len(engines))
	}
	fmt.Printf("%-5s %-24s %-30s %9s %9s %9s %9s %9s\n", "round", "job", "engine", "IOPS", "MB/s", "avg ms", "p99 ms", "CPU µs/IO")
	for round := 0; round < *rounds; round++ {
		for ji, j := range jobs {
			for _, ei := range roundOrder(len(engines), round, ji) {
				e := engines[ei]
				r, err := v.RunJob(ctx, e.opt, j)
				if err != nil {
					v.Close()
					fatal(err)
				}
				f := figures{r.Total.IOPS, r.Total.MBps, r.Total.Latency.MeanMs, r.Total.Latency.P99Ms, r.CPUPerIOMicros, r.Buckets}
				runs[ji][ei] = append(runs[ji][ei], f)
				fmt.Printf("%-5d %-24s %-30s %9.0f %9.1f %9.3f %9.3f %9.2f\n", round+1, shortName(j.Name), e.name+" ("+r.IODetail()+")",
					f.iops, f.mbps, f.avgMs, f.p99Ms, f.cpuUs)
			}
		}
	}
	summary(jobs, engines, runs, *rounds)
}

// summary prints the medians per job and engine and, for every engine
// after the first, its ratios to the first (builtin/fio with the default
// engines) and whether they meet the target.
func summary(jobs []storage.Job, engines []engineSpec, runs [][][]figures, rounds int) {
	fmt.Printf("\nmedian over %d rounds (tail rounds: rounds whose p99 is over twice the engine's lowest on the job)\n%-24s %-30s %9s %9s %9s %9s %9s %11s\n",
		rounds, "job", "engine", "IOPS", "MB/s", "avg ms", "p99 ms", "CPU µs/IO", "tail rounds")
	worst := make([][len(readings)]gap, len(engines))
	for ji, j := range jobs {
		for ei, e := range engines {
			m := median(runs[ji][ei])
			fmt.Printf("%-24s %-30s %9.0f %9.1f %9.3f %9.3f %9.2f %8d/%-2d\n", shortName(j.Name), e.name, m.iops, m.mbps, m.avgMs, m.p99Ms, m.cpuUs,
				tailRounds(runs[ji][ei]), len(runs[ji][ei]))
		}
		for ei := 1; ei < len(engines); ei++ {
			gaps := compare(engines[0].name, engines[ei].name, runs[ji][0], runs[ji][ei])
			for ri, g := range gaps {
				worst[ei][ri] = worst[ei][ri].widen(g)
			}
		}
	}
	fmt.Println()
	for ei := 1; ei < len(engines); ei++ {
		for ri, r := range readings {
			fmt.Printf("target (%s): %s IOPS within 5 %% of %s's and p99 <= 1.05 x on every job; worst IOPS difference %.1f %%, worst p99 excess %.1f %%\n",
				r.name, engines[ei].name, engines[0].name, 100*worst[ei][ri].diffIOPS, 100*worst[ei][ri].excessP99)
		}
	}
	if c := aaControl(engines); c > 0 {
		aaSummary(jobs, engines[0].name, engines[c].name, runs, c)
	}
}

// aaSummary prints, for each reading of the target, how often two runs
// of one engine (engine 0 and its A/A control c) miss it against each
// other, per job and on at least one job, estimated by aaMisses from this
// run's rounds: the false-miss rate of the target itself on this host.
func aaSummary(jobs []storage.Job, nameA, nameB string, runs [][][]figures, c int) {
	a, b := make([][]figures, len(jobs)), make([][]figures, len(jobs))
	for ji := range jobs {
		a[ji], b[ji] = runs[ji][0], runs[ji][c]
	}
	for _, r := range readings {
		perJob, anyJob := aaMisses(a, b, r, aaResamples, 1)
		fmt.Printf("A/A control (%s): %s and %s are one engine; swapping their labels at random round by round (%d times), they miss the target on at least one job in %.0f %% of the swaps; per job:",
			r.name, nameA, nameB, aaResamples, 100*anyJob)
		for ji, j := range jobs {
			fmt.Printf(" %s %.0f %%", j.Name, 100*perJob[ji])
			if ji < len(jobs)-1 {
				fmt.Print(",")
			}
		}
		fmt.Println()
	}
}

// compare prints engine b's ratios to engine a on one job: of the medians
// and the median of the per-round ratios, each with the verdict of its
// reading of the target, then the rounds that were a tail round for one
// engine only and the shares of stalled I/Os. It returns b's gaps to a in
// each reading (in the order of readings).
func compare(nameA, nameB string, runsA, runsB []figures) (gaps [len(readings)]gap) {
	for ri, r := range readings {
		q, ok := r.ratios(runsA, runsB)
		gaps[ri] = gapOf(q, ok)
		if !ok {
			continue
		}
		label := nameB + "/" + nameA
		if ri > 0 {
			label = "  " + r.name
		}
		fmt.Printf("%-24s %-30s %9.3f %9.3f %9.3f %9.3f %9.3f  %s\n", "", label, q.iops, q.mbps, q.avgMs, q.p99Ms, q.cpuUs, gaps[ri].verdict())
	}
	if t := pairTails(runsA, runsB); t.onlyA+t.onlyB > 0 {
		fmt.Printf("%-24s   tail in one engine's run only: %s %d, %s %d of %d rounds (sign test p = %.3f)\n", "",
			nameB, t.onlyB, nameA, t.onlyA, t.rounds, t.signP())
	}
	if c, ok := compareSlow(runsA, runsB); ok {
		fmt.Printf("%-24s   I/Os at or over %g ms: %s %.3f %%, %s %.3f %% (medians); %s/%s %.3f (95 %% CI %.3f-%.3f, %d rounds)\n", "",
			c.edgeMs, nameB, c.medB, nameA, c.medA, nameB, nameA, c.ratio, c.lo, c.hi, c.rounds)
	}
	return gaps
}

// A gap is engine b's distance from engine a on one job in one reading of
// the target: its IOPS difference, either way, and its p99 excess over a's
// (negative when lower), as fractions of a's; ok is false when a has no
// figures to compare against.
type gap struct {
	diffIOPS, excessP99 float64
	ok                  bool
}

// misses says whether the gap misses the target: IOPS more than 5 % off
// either way (figures interchangeable with fio's are neither lower nor
// higher) or p99 over 1.05 times a's (a lower p99 is not a miss).
func (g gap) misses() bool { return g.ok && (g.diffIOPS > 0.05 || g.excessP99 > 0.05) }

// verdict is "MISS" or "ok".
func (g gap) verdict() string {
	if g.misses() {
		return "MISS"
	}
	return "ok"
}

// widen is the larger of two gaps, figure by figure (a gap that is not ok
// is zero and widens nothing).
func (g gap) widen(h gap) gap {
	return gap{max(g.diffIOPS, h.diffIOPS), max(g.excessP99, h.excessP99), g.ok || h.ok}
}

// gapOf is the gap that ratios b/a of every figure (from a reading) make.
func gapOf(r figures, ok bool) gap {
	if !ok {
		return gap{}
	}
	return gap{math.Abs(1 - r.iops), r.p99Ms - 1, true}
}

// A reading is one way to read the target's "within 5 % of fio's, median
// over rounds" from two engines' rounds on one job: ratios gives engine
// b's figures over a's as the reading takes them (ok false when a has no
// IOPS or p99 to compare against).
type reading struct {
	name   string
	ratios func(a, b []figures) (figures, bool)
}

// gap is b's gap to a in reading r.
func (r reading) gap(a, b []figures) gap { return gapOf(r.ratios(a, b)) }

// readings are the target's two readings, both printed per job. The ratio
// of the medians compares each engine's typical round; the median of the
// per-round ratios compares the two runs of each round (back to back), so
// the device's drift from round to round cancels out of it.
var readings = [...]reading{
	{"ratio of medians", medianRatios},
	{"median of per-round ratios", pairedRatios},
}

// medianRatios is, per figure, b's median over rounds over a's.
func medianRatios(a, b []figures) (figures, bool) {
	ma, mb := median(a), median(b)
	return eachFigure(func(get func(figures) float64) float64 { return get(mb) / get(ma) }), ma.iops > 0 && ma.p99Ms > 0
}

// aaResamples is how many label swaps aaMisses draws.
const aaResamples = 4000

// aaMisses estimates from an A/A control, one engine run twice in every
// round (a[job] and b[job], one entry per round), how often two runs of
// the same engine miss the target against each other in reading r: the
// two runs of a round ran back to back on the same host, so for one engine
// their labels are exchangeable; each resample swaps them at random round
// by round and compares them as r reads the target. It returns per job the
// share of resamples that miss the target and the share that miss it on
// at least one job, the chance that a full run of identical engines fails.
func aaMisses(a, b [][]figures, r reading, resamples int, seed uint64) (perJob []float64, anyJob float64) {
	rng := rand.New(rand.NewPCG(seed, 1))
	perJob = make([]float64, len(a))
	misses := 0
	var x, y []figures
	for range resamples {
		missed := false
		for ji := range a {
			x, y = x[:0], y[:0]
			for i := range min(len(a[ji]), len(b[ji])) {
				if rng.IntN(2) == 1 {
					x, y = append(x, b[ji][i]), append(y, a[ji][i])
				} else {
					x, y = append(x, a[ji][i]), append(y, b[ji][i])
				}
			}
			if r.gap(x, y).misses() {
				perJob[ji]++
				missed = true
			}
		}
		if missed {
			misses++
		}
	}
	for ji := range perJob {
		perJob[ji] /= float64(resamples)
	}
	return perJob, float64(misses) / float64(resamples)
}

// aaControl is the index of the first engine after the first that runs
// the same engine with the same options (an A/A control), or -1.
func aaControl(engines []engineSpec) int {
	for ei := 1; ei < len(engines); ei++ {
		if engines[ei].opt == engines[0].opt {
			return ei
		}
	}
	return -1
}

// tailRounds counts the rounds whose p99 is over twice the lowest p99 of
// the engine's rounds. On a virtual disk whose host now and then stalls
// every I/O in flight for a few milliseconds (this project's development
// VM: about 1.5 % of the I/Os for seconds at a time), the 99th
// percentile of a short window is either the device's usual tail or the
// stall, depending on whether a stall episode fell into the window; the
// count shows how often that happened to each engine, so that a median
// decided by such rounds is read as the host's, not the engine's.
func tailRounds(fs []figures) int {
	n := 0
	for _, tail := range isTail(fs) {
		if tail {
			n++
		}
	}
	return n
}

// isTail says for each round whether it is a tail round: p99 over twice
// the lowest p99 of the rounds.
func isTail(fs []figures) []bool {
	if len(fs) == 0 {
		return nil
	}
	low := lowestP99(fs)
	tails := make([]bool, len(fs))
	for i, f := range fs {
		tails[i] = f.p99Ms > 2*low
	}
	return tails
}

// lowestP99 is the lowest p99 of the rounds (+Inf when there are none).
func lowestP99(fs []figures) float64 {
	low := math.Inf(1)
	for _, f := range fs {
		low = min(low, f.p99Ms)
	}
	return low
}

// tailPairs counts, over the rounds two engines both ran, the rounds in
// which exactly one of them had a tail round (as tailRounds): the two ran
// back to back, so a host episode lasting both runs counts for neither,
// and an engine that draws the host's stalls more often shows up as a
// lopsided count.
type tailPairs struct{ onlyA, onlyB, rounds int }

// pairTails counts the rounds of a and b in which only one had a tail.
func pairTails(a, b []figures) tailPairs {
	n := min(len(a), len(b))
	ta, tb := isTail(a[:n]), isTail(b[:n])
	t := tailPairs{rounds: n}
	for i := range n {
		switch {
		case ta[i] && !tb[i]:
			t.onlyA++
		case tb[i] && !ta[i]:
			t.onlyB++
		}
	}
	return t
}

// signP is the two-sided sign test's p-value for the split of the
// rounds with a tail in one engine only: how likely a split at least this
// lopsided is when neither engine draws the stalls more often.
func (t tailPairs) signP() float64 {
	n, k := t.onlyA+t.onlyB, max(t.onlyA, t.onlyB)
	// P(X >= k) for X ~ Binomial(n, 1/2), doubled: from P(X = n) = 2^-n
	// down, P(X = i-1) = P(X = i) * i / (n-i+1).
	tail, pi := 0.0, math.Ldexp(1, -n)
	for i := n; i >= k; i-- {
		tail += pi
		pi *= float64(i) / float64(n-i+1)
	}
	return min(1, 2*tail)
}

// slowShare compares two engines' shares of slow I/Os on one job: those
// at or over edgeMs, the largest edge of storage.LatencyEdgesMs not above
// twice the lowest p99 of either engine's rounds. A round with more than
// 1 % of its I/Os there has a p99 at or near a tail round's (see
// tailRounds). On a host whose stalls hold back about 1 % of the I/Os,
// p99 jumps between the device's usual tail and the stall as that share
// crosses 1 %, so a small difference in the share can decide the median
// p99; the share itself moves smoothly with the stalls, and its paired
// ratio, with a confidence interval, says whether one engine's I/Os are
// held back more often.
type slowShare struct {
	edgeMs     float64
	medA, medB float64 // median share over rounds, in percent
	// ratio is the geometric mean over rounds of b's share over a's (each
	// plus slowFloorPct), lo and hi its 95 % confidence interval.
	ratio, lo, hi float64
	rounds        int
}

// slowFloorPct is added to both shares of a round before the ratio, so
// that rounds with no slow I/O in either engine compare as equal.
const slowFloorPct = 0.01

// compareSlow computes slowShare over the rounds both engines reported a
// latency distribution for; ok is false with fewer than two such rounds.
func compareSlow(a, b []figures) (slowShare, bool) {
	n := min(len(a), len(b))
	low := min(lowestP99(a[:n]), lowestP99(b[:n]))
	c := slowShare{}
	for _, e := range storage.LatencyEdgesMs {
		if e <= 2*low {
			c.edgeMs = e
		}
	}
	var sa, sb, logs []float64
	for i := range n {
		x, okA := a[i].buckets.PctAtLeast(c.edgeMs)
		y, okB := b[i].buckets.PctAtLeast(c.edgeMs)
		if !okA || !okB {
			continue
		}
		sa, sb = append(sa, x), append(sb, y)
		logs = append(logs, math.Log((y+slowFloorPct)/(x+slowFloorPct)))
	}
	c.rounds = len(logs)
	iv, err := steady.MeanInterval(logs, 0.95)
	if err != nil {
		return c, false // fewer than two rounds
	}
	c.medA, c.medB = medianOf(sa), medianOf(sb)
	c.ratio, c.lo, c.hi = math.Exp(iv.Mean), math.Exp(iv.Low()), math.Exp(iv.High())
	return c, true
}

// pairedRatios is the per-figure median over rounds of b's figure over
// a's in the same round (rounds where a's figure is 0 are left out of that
// figure): the two engines ran back to back, so a drift of the device's
// speed from round to round cancels out of each ratio. ok is false when a
// has no round with both IOPS and p99.
func pairedRatios(a, b []figures) (r figures, ok bool) {
	ratio := func(get func(figures) float64) float64 {
		var v []float64
		for i := range min(len(a), len(b)) {
			if x := get(a[i]); x > 0 {
				v = append(v, get(b[i])/x)
			}
		}
		return medianOf(v)
	}
	for i := range min(len(a), len(b)) {
		ok = ok || (a[i].iops > 0 && a[i].p99Ms > 0)
	}
	return eachFigure(ratio), ok
}

// eachFigure is the figures whose every figure is of(the getter of that
// figure).
func eachFigure(of func(get func(figures) float64) float64) figures {
	return figures{
		iops:  of(func(f figures) float64 { return f.iops }),
		mbps:  of(func(f figures) float64 { return f.mbps }),
		avgMs: of(func(f figures) float64 { return f.avgMs }),
		p99Ms: of(func(f figures) float64 { return f.p99Ms }),
		cpuUs: of(func(f figures) float64 { return f.cpuUs }),
	}
}

// median is the per-figure median of the rounds.
func median(fs []figures) figures {
	return eachFigure(func(get func(figures) float64) float64 {
		v := make([]float64, len(fs))
		for i, f := range fs {
			v[i] = get(f)
		}
		return medianOf(v)
	})
}

// medianOf returns the median of v (0 when empty); it sorts v.
func medianOf(v []float64) float64 {
	slices.Sort(v)
	if len(v) == 0 {
		return 0
	}
	if len(v)%2 == 1 {
		return v[len(v)/2]
	}
	return (v[len(v)/2-1] + v[len(v)/2]) / 2
}

// shortName trims a job name to the table's column.
func shortName(n string) string {
	if len(n) > 24 {
		return n[:24]
	}
	return n
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "storagebench:", err)
	os.Exit(1)
}
