package capacity

import (
	"math"
	"sort"
)

// CachePoint is the device reads per transaction measured with a cache
// of CacheBytes.
type CachePoint struct {
	CacheBytes int64   `json:"cache_bytes"`
	ReadIOs    float64 `json:"read_ios"`
}

// ReadCurve is reads per transaction as a function of the cache size,
// from measured points (see the package doc for how it interpolates).
type ReadCurve struct {
	points []CachePoint
}

// NewReadCurve makes the curve of the points with a known cache size
// (CacheBytes > 0), by ascending size; a size measured twice keeps the
// mean of its reads.
func NewReadCurve(points ...CachePoint) ReadCurve {
	by := map[int64][]float64{}
	for _, p := range points {
		if p.CacheBytes > 0 {
			by[p.CacheBytes] = append(by[p.CacheBytes], p.ReadIOs)
		}
	}
	var c ReadCurve
	for size, reads := range by {
		var sum float64
		for _, r := range reads {
			sum += r
		}
		c.points = append(c.points, CachePoint{CacheBytes: size, ReadIOs: sum / float64(len(reads))})
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
	if len(c.points) < 2 {
		return 1
	}
	b, x := c.at(base), c.at(cache)
	if b <= 0 {
		return 1
	}
	return x / b
}

// at interpolates the reads per transaction at size.
func (c ReadCurve) at(size int64) float64 {
	p := c.points
	last := p[len(p)-1]
	if size <= 0 || size >= last.CacheBytes {
		return last.ReadIOs
	}
	i := sort.Search(len(p), func(i int) bool { return p[i].CacheBytes >= size })
	if i == 0 {
		i = 1 // below the smallest: the slope of the two smallest
	}
	lo, hi := p[i-1], p[i]
	t := (math.Log2(float64(size)) - math.Log2(float64(lo.CacheBytes))) /
		(math.Log2(float64(hi.CacheBytes)) - math.Log2(float64(lo.CacheBytes)))
	r := lo.ReadIOs + t*(hi.ReadIOs-lo.ReadIOs)
	if size < p[0].CacheBytes {
		r = math.Max(r, p[0].ReadIOs)
	}
	return math.Max(r, 0)
}
