// Package prng is PostgreSQL's pseudo-random number generator (pg_prng:
// xoroshiro128** seeded through splitmix64), which pgbench draws every
// random value from. The same seed gives the same stream as pgbench, so a
// script's random values can be compared with pgbench's draw for draw.
package prng

import (
	"math"
	"math/bits"
)

// State is one generator; its zero value is not usable: Seed it first.
type State struct{ s0, s1 uint64 }

// New returns a generator seeded with seed.
func New(seed uint64) *State {
	s := &State{}
	s.Seed(seed)
	return s
}

func splitmix64(state *uint64) uint64 {
	*state += 0x9E3779B97F4A7C15
	v := *state
	v = (v ^ (v >> 30)) * 0xBF58476D1CE4E5B9
	v = (v ^ (v >> 27)) * 0x94D049BB133111EB
	return v ^ (v >> 31)
}

// Seed sets the state from a 64-bit seed as pg_prng_seed does.
func (s *State) Seed(seed uint64) {
	s.s0 = splitmix64(&seed)
	s.s1 = splitmix64(&seed)
	if s.s0 == 0 && s.s1 == 0 {
		s.s0, s.s1 = 0x5851F42D4C957F2D, 0x14057B7EF767814F
	}
}

// Uint64 returns the next 64 uniformly distributed bits.
func (s *State) Uint64() uint64 {
	s0 := s.s0
	sx := s.s1 ^ s0
	val := bits.RotateLeft64(s0*5, 7) * 9
	s.s0 = bits.RotateLeft64(s0, 24) ^ sx ^ (sx << 16)
	s.s1 = bits.RotateLeft64(sx, 37)
	return val
}

// Range returns a uniform value in [lo, hi] (lo when the range is empty),
// by bitmask rejection as pg_prng_uint64_range.
func (s *State) Range(lo, hi uint64) uint64 {
	if hi <= lo {
		return lo
	}
	r := hi - lo
	shift := uint(bits.LeadingZeros64(r))
	for {
		v := s.Uint64() >> shift
		if v <= r {
			return lo + v
		}
	}
}

// Float64 returns a uniform double in [0, 1) from the top 52 bits.
func (s *State) Float64() float64 {
	return math.Ldexp(float64(s.Uint64()>>12), -52)
}

// Normal returns a standard normal value (Box-Muller, one output per two
// draws), as pg_prng_double_normal.
func (s *State) Normal() float64 {
	u1 := 1.0 - s.Float64()
	u2 := 1.0 - s.Float64()
	return math.Sqrt(-2.0*math.Log(u1)) * math.Sin(2.0*math.Pi*u2)
}
