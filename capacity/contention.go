package capacity

import "math"

// procContentionExponent is α of the procedures mode's CPU per
// transaction below one core: D(c) = D(1)·(1/c)^α. Fitted on one shape
// alone, issue 48's w8 (8 warehouses, 8 users, procedures, no row-lock
// waits sampled; medians of 3 rounds in /work/meas/shapes): from 2 cores
// ×1.098 at 1 (α 0.13) and ×1.174 at 0.5 (α 0.12). The shapes held out of
// the fit grow more where users contend for the same rows (2 warehouses:
// α 0.18-0.20; 16 users on 4: 0.15-0.23), so this α is the floor of the
// mode, not its contended case (bench/PREDICT.md). Whole cores do not take
// it: see contentionGrowth.
const procContentionExponent = 0.125

// contentionGrowth is how many times the base's CPU per transaction one
// transaction of cfg takes for the cores it has: in procedures mode a
// transaction is one call that runs to its end on a core, and on a quota
// below one core the call is throttled mid-transaction, holding its locks
// and buffer pins while the others wait and retry, and resumes on cold
// caches: the power law (1/c)^α for the part below one core. Statements
// mode (a transaction is ten or more round trips, each already a switch)
// measured ×1.06 from one core to 0.5 and 0.25, and pgbench workloads
// ×1.03 from two cores to one: 1 for them, and 1 where either side's
// cores are unknown.
//
// How much a whole core more or less changes it depends on the host and
// the day: two cores to one measured ×1.10-1.13 on the machine α was
// fitted on, and ×0.82-1.08 on later machines of the same kind
// (bench/PREDICT.md: the medians of sweeps' ratios were ×0.91-0.98 in one
// store and ×1.02-1.08 in the next). Where the base's host has measured
// that change of whole cores itself (Demands.CoreGrowth, at least
// MinCoreRatios times, in the base's mode and workload), their median
// stands for the whole-core part; where it has not, the whole-core part
// is 1, the middle of what hosts measured, and the prediction says so
// (growthNote).
func contentionGrowth(base Demands, cfg Config) float64 {
	c0, c := base.Config.Cores(), cfg.Cores()
	if c0 <= 0 || c <= 0 {
		return 1
	}
	procedures := base.Config.Mode == "procedures" && cfg.Mode == "procedures"
	if _, c1, r, _, ok := growthLearned(base, cfg); ok {
		if procedures {
			r *= math.Pow(c1/c, procContentionExponent)
		}
		return r
	}
	if !procedures {
		return 1
	}
	return math.Pow(math.Min(c0, 1)/math.Min(c, 1), procContentionExponent)
}

// Cores are the cores the server's processes may use: its quota, else
// the host's (0: not known).
func (c Config) Cores() float64 {
	if c.CPUs > 0 {
		return c.CPUs
	}
	return c.HostCPUs
}
