// Package diagnosis turns a step's wait profile and resource saturation
// into a one-line verdict, and a run's steps into the verdict where its
// throughput stops rising.
//
// # Rules
//
// A step's verdict is the first rule that holds, in this order:
//
//  1. driver-bound: the driver (rightsize itself) used more than a quarter
//     of the host's CPUs (the level at which the summary already warns).
//  2. lock-bound, log-bound, I/O-bound on reads (or writes), latch-bound,
//     other waits: the largest wait class other than CPU and Client holds
//     at least WaitShare (30 %) of the sessions' active time.
//  3. CPU-bound: the server used at least 90 % of the cores it may use, or,
//     when its CPU is unknown, the host's CPUs were at least 90 % busy.
//  4. memory-bound: at least 100 major page faults per second.
//  5. disk-bound: the database's disk had a p99 of its per-second latency of
//     at least 20 ms, or on average 4 or more I/Os in flight.
//  6. client-bound: the sessions spent at least half of their time waiting
//     for the client (the driver and the network, not the server).
//  7. not saturated: none of the above.
//
// The run's verdict is the verdict of the step where throughput stops
// rising: the first step after which TPM rises by less than Rise (5 %), or
// the last step when it rises all the way.
//
// This package is the judging layer of "why it stops" (see package waits'
// doc: waits measures, scenario's autopilot_waits.go fills a step's Profile
// and Saturation, analysis/why.go decodes stored ones and calls Diagnose on
// the mean of repeats); it reads only waits' types and imports no store.
package diagnosis

import (
	"fmt"
	"strings"

	"github.com/rightsize/rightsize/waits"
)

// Thresholds of the rules (see the package doc).
const (
	WaitShare     = 0.30
	CPUShare      = 0.90
	MajorFaults   = 100.0
	DiskP99Ms     = 20.0
	QueueDepth    = 4.0
	ClientShare   = 0.5
	DriverOfHost  = 0.25
	Rise          = 0.05
	hostBusyLimit = 90.0
)

// Verdict is a step's or a run's diagnosis.
type Verdict struct {
	// Kind is the short name: "CPU-bound", "log-bound", "lock-bound" ...
	Kind string `json:"kind"`
	// Text is the one-line verdict with its figures.
	Text string `json:"text"`
}

// Step is what a step's verdict is derived from.
type Step struct {
	Users int
	TPM   float64
	// Waits and Saturation may be nil (not measured).
	Waits      *waits.Profile
	Saturation *waits.Saturation
}

// Diagnose returns the step's verdict by the package's rules.
func Diagnose(s Step) Verdict {
	p, sat := s.Waits, s.Saturation
	if sat == nil {
		sat = &waits.Saturation{}
	}
	if sat.Cores > 0 && sat.DriverCores > DriverOfHost*sat.Cores {
		return Verdict{"driver-bound", fmt.Sprintf("driver-bound: the driver used %.0f %% of a core, more than a quarter of the host's %s CPUs",
			sat.DriverCores*100, num(sat.Cores))}
	}
	if v, ok := waitVerdict(p, sat); ok {
		return v
	}
	switch {
	case sat.Cores > 0 && sat.ServerCores >= CPUShare*sat.Cores:
		return Verdict{"CPU-bound", fmt.Sprintf("CPU-bound: the server used %.2f of %s cores%s", sat.ServerCores, num(sat.Cores), cpuShare(p))}
	case sat.ServerCores == 0 && sat.HostBusyPct >= hostBusyLimit:
		return Verdict{"CPU-bound", fmt.Sprintf("CPU-bound: the host's CPUs were %.0f %% busy%s", sat.HostBusyPct, cpuShare(p))}
	case sat.MajorFaultsPerSec >= MajorFaults:
		return Verdict{"memory-bound", fmt.Sprintf("memory-bound: %.0f major page faults/s, %.0f pages reclaimed/s", sat.MajorFaultsPerSec, sat.ReclaimPagesPerSec)}
	case sat.DiskP99Ms >= DiskP99Ms || sat.QueueDepth >= QueueDepth:
		return Verdict{"disk-bound", fmt.Sprintf("disk-bound: %s p99 %.1f ms, %.1f I/Os in flight", orDisk(sat.Disk), sat.DiskP99Ms, sat.QueueDepth)}
	}
	if p != nil {
		all := p.Active() + p.ByClass()[waits.Client]
		if all > 0 && p.ByClass()[waits.Client]/all >= ClientShare {
			return Verdict{"client-bound", fmt.Sprintf("client-bound: sessions spent %.0f %% of their time waiting for the client", p.ByClass()[waits.Client]/all*100)}
		}
	}
	text := "not saturated"
	var parts []string
	if sat.Cores > 0 && sat.ServerCores > 0 {
		parts = append(parts, fmt.Sprintf("the server used %.2f of %s cores", sat.ServerCores, num(sat.Cores)))
	}
	if p != nil && p.Seconds > 0 {
		parts = append(parts, fmt.Sprintf("%.1f sessions active on average for %d users", p.AverageActive(), s.Users))
	}
	if len(parts) > 0 {
		text += ": " + strings.Join(parts, ", ")
	}
	return Verdict{"not saturated", text}
}

// classKinds names the verdict of a dominant wait class.
var classKinds = map[waits.Class]string{
	waits.Lock: "lock-bound", waits.Log: "log-bound", waits.IO: "I/O-bound", waits.Latch: "latch-bound", waits.Other: "other waits",
}

// waitVerdict applies rule 2.
func waitVerdict(p *waits.Profile, sat *waits.Saturation) (Verdict, bool) {
	if p == nil || p.Active() <= 0 {
		return Verdict{}, false
	}
	var best waits.Class
	bestShare := 0.0
	for _, c := range waits.Classes {
		if c == waits.CPU || c == waits.Client {
			continue
		}
		if sh := p.Share(c); sh > bestShare {
			best, bestShare = c, sh
		}
	}
	if bestShare < WaitShare {
		return Verdict{}, false
	}
	kind := classKinds[best]
	top, _ := p.Top(best)
	if best == waits.IO {
		kind = "I/O-bound on writes"
		if strings.Contains(strings.ToLower(top.Name), "read") {
			kind = "I/O-bound on reads"
		}
	}
	text := fmt.Sprintf("%s: %.0f %% of active time in %s (%s %.0f %%)", kind, bestShare*100, best, top.Name, top.Seconds/p.Active()*100)
	switch best {
	case waits.Lock:
		text += lockText(p.Locks)
	case waits.Log, waits.IO:
		if sat.DiskP99Ms > 0 {
			text += fmt.Sprintf(", %s p99 %.1f ms", orDisk(sat.Disk), sat.DiskP99Ms)
		}
	}
	return Verdict{kind, text}, true
}

// lockText names the most waited lock and, when it has no table (a
// transaction-id wait whose session held no tuple lock when sampled), the
// most waited table.
func lockText(locks []waits.LockWait) string {
	if len(locks) == 0 {
		return ""
	}
	l := locks[0]
	if l.Relation != "" {
		return ", most waited lock: " + l.Type + " on " + l.Relation
	}
	byRel := map[string]float64{}
	best := ""
	for _, x := range locks {
		if x.Relation == "" {
			continue
		}
		byRel[x.Relation] += x.Samples
		if best == "" || byRel[x.Relation] > byRel[best] || (byRel[x.Relation] == byRel[best] && x.Relation < best) {
			best = x.Relation
		}
	}
	if best == "" {
		return ", most waited lock: " + l.Type
	}
	return ", most waited lock: " + l.Type + ", most waited table: " + best
}

func cpuShare(p *waits.Profile) string {
	if p == nil || p.Active() <= 0 {
		return ""
	}
	return fmt.Sprintf(" (%.0f %% of active time on CPU)", p.Share(waits.CPU)*100)
}

func orDisk(d string) string {
	if d == "" {
		return "disk"
	}
	return "disk " + d
}

func num(x float64) string {
	return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.2f", x), "0"), ".")
}

// Knee returns the index of the step where throughput stops rising: the
// first step after which TPM rises by less than Rise; the last step when
// it rises all the way (rising false then). -1 for no steps.
func Knee(steps []Step) (idx int, rising bool) {
	if len(steps) == 0 {
		return -1, false
	}
	for i := 0; i+1 < len(steps); i++ {
		if n := steps[i+1].TPM; n < steps[i].TPM*(1+Rise) || n <= steps[i].TPM {
			return i, false
		}
	}
	return len(steps) - 1, true
}

// Run returns the run's verdict: where throughput stops rising and the
// verdict of that step.
func Run(steps []Step) Verdict {
	i, rising := Knee(steps)
	if i < 0 {
		return Verdict{}
	}
	v := Diagnose(steps[i])
	s := steps[i]
	var where string
	switch {
	case len(steps) == 1:
		where = fmt.Sprintf("at %d users (one step)", s.Users)
	case rising:
		where = fmt.Sprintf("throughput still rising at the last step, %d users (TPM %.0f)", s.Users, s.TPM)
	case s.TPM <= 0:
		where = fmt.Sprintf("throughput stops rising at %d users (TPM 0)", s.Users)
	default:
		n := steps[i+1]
		where = fmt.Sprintf("throughput stops rising at %d users (TPM %.0f; %+.0f %% at %d users)", s.Users, s.TPM, (n.TPM/s.TPM-1)*100, n.Users)
	}
	return Verdict{Kind: v.Kind, Text: where + ": " + v.Text}
}
