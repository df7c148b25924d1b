package capacity

import (
	"math"
	"math/bits"

	"github.com/rightsize/rightsize/steady"
	"github.com/rightsize/rightsize/tpcc"
)

// The TPC-C miss-ratio curve (see the package doc, "Reads and the
// cache"): what fraction of the accesses to the skewed tables miss a
// cache of a given size, from the workload's own access skew. The row
// sizes are PostgreSQL's (heap pages of 8 KiB, about 36 MB of stock,
// 20 MB of customer per warehouse and 10 MB of item as built); the access
// counts are the mix's (clause 5.2.3: 45 % New-Order, 43 % Payment, 4 %
// each of the others).
const (
	pageBytes         = 8192
	stockRowsPerPage  = 22        // 100,000 rows, ~36 MB a warehouse
	custRowsPerPage   = 12        // 30,000 rows, ~20 MB a warehouse
	itemRowsPerPage   = 81        // 100,000 rows, ~10 MB in all
	hotBytesPerWH     = 12 << 20  // indexes (stock, customer, order_line, orders), the tails inserts write
	stockPerTxn       = 0.45 * 10 // New-Order's 10 lines (Stock-Level's re-read the last orders' items: hits)
	customersPerTxn   = 0.45 + 0.43*2.2 + 0.04*2.2 + 0.04*10
	itemsPerTxn       = 0.45 * 10
	accessesPerTxn    = stockPerTxn + customersPerTxn + itemsPerTxn
	missRatioFloor    = 0.01
	missCurveMinCache = 1 << 20
	// cpuPerBufferMiss is the server CPU a read from outside the buffer
	// pool costs (the system call, the copy, evicting a buffer): fitted to
	// bench/PREDICT.md's 10-warehouse memory sweep (52-70 µs per extra
	// miss), on this project's 2-core VM.
	cpuPerBufferMiss = 60e-6
	// bufferReserve is what PostgreSQL's tuning leaves besides
	// shared_buffers at least (engine/postgres.Tuning: half the cap, at
	// least 64 MiB).
	bufferReserve = 64 << 20
)

// pageGroup is count pages, each accessed rate times per transaction.
type pageGroup struct{ rate, count float64 }

// nurand is the distribution of TPC-C's NURand(a, x, y) with C = 0
// (clause 2.1.6, a = 2^k − 1): p[i] is the probability of x+i. For each
// b of random(x, y), a|b takes the values whose low k bits contain b's,
// each from 2^popcount(b's low bits) of the a+1 values of random(0, a); a
// value whose block of 2^k lies wholly in [x, y] therefore has weight
// 3^popcount(its low bits), the others are counted subset by subset.
func nurand(a, x, y int) []float64 {
	n := y - x + 1
	p := make([]float64, n)
	for high := x &^ a; high <= y; high += a + 1 {
		full := high >= x && high+a <= y
		for low := 0; low <= a; low++ {
			var w float64
			if full {
				w = math.Pow(3, float64(bits.OnesCount(uint(low))))
			} else {
				for s := low; ; s = (s - 1) & low {
					if b := high | s; b >= x && b <= y {
						w += float64(uint(1) << bits.OnesCount(uint(s)))
					}
					if s == 0 {
						break
					}
				}
			}
			p[(high|low)%n] += w
		}
	}
	total := float64(a+1) * float64(n)
	for i := range p {
		p[i] /= total
	}
	return p
}

// pagesOf groups the row probabilities p by rows per page, each page
// accessed perTxn times its rows' probability per transaction, times
// copies (warehouses, districts).
func pagesOf(p []float64, rowsPerPage int, perTxn, copies float64) []pageGroup {
	var out []pageGroup
	for i := 0; i < len(p); i += rowsPerPage {
		var s float64
		for _, q := range p[i:min(i+rowsPerPage, len(p))] {
			s += q
		}
		out = append(out, pageGroup{rate: perTxn * s / copies, count: copies})
	}
	return out
}

// tpccPages are the pages of the skewed tables of w warehouses (stock and
// customer per warehouse and district, item shared) with their access
// rates per transaction, and the bytes every warehouse keeps hot besides
// (indexes, the tails the inserts write, district and warehouse rows).
func tpccPages(w int) (groups []pageGroup, hot float64) {
	fw := float64(w)
	items := nurand(tpcc.AItem, 1, tpcc.NumItems)
	groups = append(groups, pagesOf(items, stockRowsPerPage, stockPerTxn, fw)...)
	groups = append(groups, pagesOf(items, itemRowsPerPage, itemsPerTxn, 1)...)
	cust := nurand(tpcc.ACID, 1, tpcc.CustomersPerDistrict)
	groups = append(groups, pagesOf(cust, custRowsPerPage, customersPerTxn, fw*tpcc.DistrictsPerWarehouse)...)
	return groups, fw * hotBytesPerWH
}

// cheMiss is the share of accesses that miss an LRU cache of size pages
// (independent reference model), by Che's approximation: the
// characteristic time T solves Σ count·(1 − e^(−rate·T)) = size, and a
// page of rate λ is in the cache with probability 1 − e^(−λ·T).
func cheMiss(groups []pageGroup, size float64) float64 {
	var pages, rate float64
	for _, g := range groups {
		pages += g.count
		rate += g.rate * g.count
	}
	if size >= pages {
		return 0
	}
	if size <= 0 || rate <= 0 {
		return 1
	}
	held := func(t float64) float64 {
		var s float64
		for _, g := range groups {
			s += g.count * -math.Expm1(-g.rate*t)
		}
		return s
	}
	lo, hi := 0.0, 1.0
	for held(hi) < size {
		hi *= 2
	}
	for range 60 {
		mid := (lo + hi) / 2
		if held(mid) < size {
			lo = mid
		} else {
			hi = mid
		}
	}
	t := (lo + hi) / 2
	var miss float64
	for _, g := range groups {
		miss += g.count * g.rate * math.Exp(-g.rate*t)
	}
	return miss / rate
}

// MissCurve is the TPC-C miss ratio of the skewed tables against the
// memory cap, for a number of warehouses.
type MissCurve struct {
	groups []pageGroup
	hot    float64
}

// NewMissCurve is the curve of w warehouses (nil for w < 1).
func NewMissCurve(w int) *MissCurve {
	if w < 1 {
		return nil
	}
	g, hot := tpccPages(w)
	return &MissCurve{groups: g, hot: hot}
}

// Miss is the share of accesses to the skewed tables that miss the
// engine's own buffer pool at a memory cap of capBytes (shared_buffers:
// the cap less half of it, at least bufferReserve, less the hot bytes).
// Measured on 4 warehouses (TestMissCurveReads), nearly every such miss
// was a device read too: within the same cap the OS keeps few pages
// besides shared_buffers and the backends' memory, so the model takes
// the buffer pool's misses for both.
func (c *MissCurve) Miss(capBytes int64) float64 {
	b := float64(capBytes)
	return c.missAt(b - max(bufferReserve, b/2) - c.hot)
}

func (c *MissCurve) missAt(cacheBytes float64) float64 {
	return cheMiss(c.groups, max(missCurveMinCache, cacheBytes)/pageBytes)
}

// scales are the device reads and the server CPU per transaction at a cap
// of cache over those of d, measured at base: the reads by the ratio of
// the miss ratios where the curve accounts for a measurable share of the
// base's misses, else the measured reads plus the change in modelled
// misses per transaction; the CPU plus cpuPerBufferMiss for each buffer
// miss more (or less) per transaction.
func (c *MissCurve) scales(base, cache int64, d Demands) scales {
	sc := unscaled
	if base <= 0 || cache <= 0 {
		return sc
	}
	mb, mc := c.Miss(base), c.Miss(cache)
	if mb >= missRatioFloor && d.ReadIOs.Mean > 0 {
		sc.reads = mc / mb
	} else {
		sc.readsAdd = accessesPerTxn * (mc - mb)
	}
	if cpu := d.CPUSec.Mean; cpu > 0 {
		extra := accessesPerTxn * (c.Miss(cache) - c.Miss(base)) * cpuPerBufferMiss
		sc.cpu = max(0.5*cpu, cpu+extra) / cpu
	}
	return sc
}

// ReadsAt are the device reads per transaction the curve predicts at a
// cap of cache from reads per transaction measured at a cap of base (the
// rule the model scales a prediction's reads by).
func (c *MissCurve) ReadsAt(base, cache int64, reads float64) float64 {
	sc := c.scales(base, cache, Demands{ReadIOs: steady.Interval{Mean: reads}})
	return sc.reads*reads + sc.readsAdd
}
