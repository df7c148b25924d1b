package capacity

import (
	"math"
	"sort"
)

// CachePoint is what a transaction cost with a cache of CacheBytes: its
// device reads and its server CPU seconds (reading pages from outside the
// engine's cache costs CPU as well as I/O).
type CachePoint struct {
	CacheBytes int64   `json:"cache_bytes"`
	ReadIOs    float64 `json:"read_ios"`
	CPUSec     float64 `json:"cpu_s"`
}

// PointOf is the cache point of a step's demands.
func PointOf(d Demands) CachePoint {
	return CachePoint{CacheBytes: d.Config.CacheBytes, ReadIOs: d.ReadIOs.Mean, CPUSec: d.CPUSec.Mean}
}

// ReadCurve is reads and CPU per transaction as functions of the cache
// size, from measured points (see the package doc for how it
// interpolates).
type ReadCurve struct {
	points []CachePoint
}

// NewReadCurve makes the curve of the points with a known cache size
// (CacheBytes > 0), by ascending size; a size measured twice keeps the
// means.
func NewReadCurve(points ...CachePoint) ReadCurve {
	by := map[int64][]CachePoint{}
	for _, p := range points {
		if p.CacheBytes > 0 {
			by[p.CacheBytes] = append(by[p.CacheBytes], p)
		}
	}
	var c ReadCurve
	for size, ps := range by {
		m := CachePoint{CacheBytes: size}
		for _, p := range ps {
			m.ReadIOs += p.ReadIOs / float64(len(ps))
			m.CPUSec += p.CPUSec / float64(len(ps))
		}
		c.points = append(c.points, m)
	}
	sort.Slice(c.points, func(i, j int) bool { return c.points[i].CacheBytes < c.points[j].CacheBytes })
	return c
}

// Points is the number of cache sizes measured.
func (c ReadCurve) Points() int { return len(c.points) }

// Scale is the reads per transaction at cache over those at base (1 when
// either is unknown, or fewer than two sizes were measured); a size of 0
// is the largest measured.
func (c ReadCurve) Scale(base, cache int64) float64 {
	return c.scale(base, cache, func(p CachePoint) float64 { return p.ReadIOs })
}

// CPUScale is the server CPU per transaction at cache over that at base,
// as Scale.
func (c ReadCurve) CPUScale(base, cache int64) float64 {
	return c.scale(base, cache, func(p CachePoint) float64 { return p.CPUSec })
}

func (c ReadCurve) scale(base, cache int64, f func(CachePoint) float64) float64 {
	if len(c.points) < 2 {
		return 1
	}
	b, x := c.at(base, f), c.at(cache, f)
	if b <= 0 {
		return 1
	}
	return x / b
}

// at interpolates f at size.
func (c ReadCurve) at(size int64, f func(CachePoint) float64) float64 {
	p := c.points
	last := p[len(p)-1]
	if size <= 0 || size >= last.CacheBytes {
		return f(last)
	}
	i := sort.Search(len(p), func(i int) bool { return p[i].CacheBytes >= size })
	if i == 0 {
		i = 1 // below the smallest: the slope of the two smallest
	}
	lo, hi := p[i-1], p[i]
	t := (math.Log2(float64(size)) - math.Log2(float64(lo.CacheBytes))) /
		(math.Log2(float64(hi.CacheBytes)) - math.Log2(float64(lo.CacheBytes)))
	r := f(lo) + t*(f(hi)-f(lo))
	if size < p[0].CacheBytes {
		r = math.Max(r, f(p[0]))
	}
	return math.Max(r, 0)
}
