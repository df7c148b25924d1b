package driver

import (
	"runtime"
	"time"

	"github.com/rightsize/rightsize/telemetry"
)

// procsInterval is how often the procs governor looks at the driver's CPU.
const procsInterval = 250 * time.Millisecond

// procsGovernor keeps GOMAXPROCS as low as the driver's own CPU use allows
// during a step. Virtual users mostly wait on the network; with more than
// one P, every wake-up from the network poller also wakes a second
// scheduler thread to look for work and put it back to sleep, which on a
// 2-core VM cost 15 % of the driver's CPU per transaction (ARCHITECTURE.md,
// "Driver CPU"). It starts at one P and doubles, up to the value it found,
// whenever the process used more than half of its Ps over the last
// interval, so users never queue for a busy driver; it never lowers within
// a step, and restore puts the original value back.
type procsGovernor struct {
	orig, max, cur int
	lastCPU        time.Duration
	lastAt         time.Time
	cpu            func() time.Duration
	set            func(int) int
}

func newProcsGovernor(cpu func() time.Duration, set func(int) int) *procsGovernor {
	orig := set(0)
	g := &procsGovernor{orig: orig, max: orig, cur: 1, cpu: cpu, set: set, lastCPU: cpu(), lastAt: time.Now()}
	set(1)
	return g
}

// startProcsGovernor starts governing the process's GOMAXPROCS.
func startProcsGovernor() *procsGovernor {
	return newProcsGovernor(telemetry.SelfCPU, runtime.GOMAXPROCS)
}

// tick looks at the CPU used since the last tick and raises the Ps when
// more than half of them were busy.
func (g *procsGovernor) tick(now time.Time) {
	cpu := g.cpu()
	wall := now.Sub(g.lastAt)
	used := cpu - g.lastCPU
	g.lastCPU, g.lastAt = cpu, now
	if wall <= 0 || g.cur >= g.max {
		return
	}
	if float64(used) > 0.5*float64(g.cur)*float64(wall) {
		g.cur = min(2*g.cur, g.max)
		g.set(g.cur)
	}
}

// raiseFloor keeps at least n Ps from now on (the step's loops each hold
// one), above the value found if need be.
func (g *procsGovernor) raiseFloor(n int) {
	g.max = max(g.max, n)
	if g.cur < n {
		g.cur = n
		g.set(n)
	}
}

// restore puts back the GOMAXPROCS found at the start.
func (g *procsGovernor) restore() { g.set(g.orig) }
