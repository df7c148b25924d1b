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
	pageBytes        = 8192
	stockRowsPerPage = 22  // 100,000 rows, ~36 MB a warehouse
	custRowsPerPage  = 12  // 30,000 rows, ~20 MB a warehouse
	itemRowsPerPage  = 81  // 100,000 rows, ~10 MB in all
	stockKeysPerLeaf = 367 // stock's and item's primary keys: 20 bytes an entry, leaves built 90 % full
	custKeysPerLeaf  = 262 // customer's primary key (c_w_id, c_d_id, c_id): 28 bytes an entry
	// namesPerLeaf: customer_last (c_w_id, c_d_id, c_last, c_first) holds
	// ~140 entries a leaf, a district's 3,000 customers sharing 1,000 last
	// names (clause 4.3.2.3): ~47 names a leaf.
	namesPerLeaf = 47
	// stockPerTxn: New-Order's 10 lines (Stock-Level's re-read the last
	// orders' items, just touched: hits); customersByID and ByName:
	// New-Order's and Delivery's customers by id, Payment's and
	// Order-Status's 40 % by id and 60 % by last name (a name's ~3 rows).
	stockPerTxn     = 0.45 * 10
	itemsPerTxn     = 0.45 * 10
	customersByID   = 0.45 + (0.43+0.04)*0.4 + 0.04*10
	customersByName = (0.43 + 0.04) * 0.6
	customersPerTxn = customersByID + customersByName*3
	// historyBytesPerWH is what Order-Status reads at random: a customer's
	// last order (orders_customer's and order_line's index leaves, the
	// orders and order_line heap pages), ~36 MB a warehouse as built;
	// historyPerTxn its 4 % of transactions × about 5 pages.
	historyBytesPerWH = 36 << 20
	historyPerTxn     = 0.04 * 5
	// hotBytesPerWH is what every warehouse keeps hot besides the groups
	// (the indexes' inner pages, district, warehouse and new_order, the
	// tails the inserts write and the pages their rows' new versions move
	// to, the free space and visibility maps): chosen on a quiet
	// 4-warehouse memory sweep (bench/misscurve.sh, 2026-11-29: device
	// reads per transaction at 512M, 384M and 256M within −10 % to +4 %),
	// held out on 8 warehouses (−1 % to +15 %).
	hotBytesPerWH     = 10 << 20
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

// tpccPages are the pages of w warehouses that TPC-C reads at rates of
// their own (stock and customer per warehouse and district, item shared;
// their primary keys' leaves and customer_last's by the same skew; the
// order history Order-Status reads at random) with their access rates per
// transaction, the accesses per transaction in all, and the bytes every
// warehouse keeps hot besides.
func tpccPages(w int) (groups []pageGroup, accesses, hot float64) {
	fw := float64(w)
	items := nurand(tpcc.AItem, 1, tpcc.NumItems)
	cust := nurand(tpcc.ACID, 1, tpcc.CustomersPerDistrict)
	names := nurand(tpcc.ALast, 0, 999) // c_last from NURand(255, 0, 999), clause 2.1.6
	districts := fw * tpcc.DistrictsPerWarehouse
	for _, g := range []struct {
		p           []float64
		perPage     int
		perTxn, cps float64
	}{
		{items, stockRowsPerPage, stockPerTxn, fw}, {items, itemRowsPerPage, itemsPerTxn, 1},
		{cust, custRowsPerPage, customersPerTxn, districts},
		{items, stockKeysPerLeaf, stockPerTxn, fw}, {items, stockKeysPerLeaf, itemsPerTxn, 1},
		{cust, custKeysPerLeaf, customersByID, districts}, {names, namesPerLeaf, customersByName, districts},
	} {
		groups = append(groups, pagesOf(g.p, g.perPage, g.perTxn, g.cps)...)
		accesses += g.perTxn
	}
	history := fw * historyBytesPerWH / pageBytes
	groups = append(groups, pageGroup{rate: historyPerTxn / history, count: history})
	return groups, accesses + historyPerTxn, fw * hotBytesPerWH
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
	groups   []pageGroup
	accesses float64 // per transaction, over the groups
	hot      float64
}

// NewMissCurve is the curve of w warehouses (nil for w < 1).
func NewMissCurve(w int) *MissCurve {
	if w < 1 {
		return nil
	}
	g, acc, hot := tpccPages(w)
	return &MissCurve{groups: g, accesses: acc, hot: hot}
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
		sc.readsAdd = c.accesses * (mc - mb)
	}
	if cpu := d.CPUSec.Mean; cpu > 0 {
		extra := c.accesses * (c.Miss(cache) - c.Miss(base)) * cpuPerBufferMiss
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
