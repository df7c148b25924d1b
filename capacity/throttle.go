package capacity

import "math"

// cfsPeriod is the CFS period of rightsize's CPU quotas (cgroup.Period,
// 100 ms), seconds.
const cfsPeriod = 0.1

// minThrottleEfficiency bounds the quota term: a quota keeps at least this
// share of its CPU for work.
const minThrottleEfficiency = 0.25

// throttleEfficiency is the share of a CPU quota below one core that does
// the transactions' work. Below a core the group exhausts its quota every
// period (cfsPeriod) and every runnable process in it stops until the
// next: the transactions in flight on each core the group runs on are
// frozen mid-transaction, holding their locks, so the work that needs
// those locks stalls and the frozen ones resume on cold caches. The model
// charges each period one transaction's CPU time per such core: of the
// quota's q·P seconds of CPU a period, n·D do no work, n = the cores the
// group's transactions run on at once (the host's, at most the users), D
// the server's CPU seconds per transaction; 1 at a quota of a core or
// more, or with no quota. Against issue 48's statements-mode sweep from
// one core (D ≈ 2.3 ms, inferred from its NOPM at one core, n = 2): 0.5
// core −9 % (measured −10 %), 0.25 core −18 % (measured −14 %).
func throttleEfficiency(cfg Config, cpuSec float64, users int) float64 {
	if cfg.CPUs <= 0 || cfg.CPUs >= 1 || cpuSec <= 0 {
		return 1
	}
	n := math.Max(1, cfg.HostCPUs)
	n = math.Min(n, float64(max(1, users)))
	return math.Max(minThrottleEfficiency, 1-n*cpuSec/(cfg.CPUs*cfsPeriod))
}
