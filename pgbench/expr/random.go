package expr

import (
	"errors"
	"fmt"
	"math"
	"math/bits"

	"github.com/rightsize/rightsize/pgbench/prng"
)

// The parameter limits of pgbench's distributions.
const (
	minGaussianParam = 2.0
	minZipfianParam  = 1.001
	maxZipfianParam  = 1000.0
)

// random is random(), random_gaussian(), random_exponential() and
// random_zipfian() over [min, max], with pgbench's checks.
func random(f fn, args []Value, r *prng.State) (Value, error) {
	lo, err := args[0].toInt()
	if err != nil {
		return Value{}, err
	}
	hi, err := args[1].toInt()
	if err != nil {
		return Value{}, err
	}
	if lo > hi {
		return Value{}, errors.New("empty range given to random")
	}
	if d := hi - lo; d < 0 || d == math.MaxInt64 { // hi-lo+1 overflows
		return Value{}, errors.New("random range is too large")
	}
	if f == fRandom {
		return IntValue(Uniform(r, lo, hi)), nil
	}
	p, err := args[2].toDouble()
	if err != nil {
		return Value{}, err
	}
	switch f {
	case fRandomGaussian:
		if p < minGaussianParam {
			return Value{}, fmt.Errorf("gaussian parameter must be at least %f (not %f)", minGaussianParam, p)
		}
		return IntValue(Gaussian(r, lo, hi, p)), nil
	case fRandomZipfian:
		if p < minZipfianParam || p > maxZipfianParam {
			return Value{}, fmt.Errorf("zipfian parameter must be in range [%.3f, %.0f] (not %f)", minZipfianParam, maxZipfianParam, p)
		}
		return IntValue(Zipfian(r, lo, hi, p)), nil
	}
	if p <= 0 {
		return Value{}, fmt.Errorf("exponential parameter must be greater than zero (not %f)", p)
	}
	return IntValue(Exponential(r, lo, hi, p)), nil
}

// Uniform is pgbench's getrand: uniform in [lo, hi].
func Uniform(r *prng.State, lo, hi int64) int64 {
	return lo + int64(r.Range(0, uint64(hi-lo)))
}

// Exponential is pgbench's getExponentialRand: the density at hi is
// exp(-p) of the density at lo.
func Exponential(r *prng.State, lo, hi int64, p float64) int64 {
	cut := math.Exp(-p)
	u := 1.0 - r.Float64()
	x := -math.Log(cut+(1.0-cut)*u) / p
	return lo + int64(float64(hi-lo+1)*x)
}

// Gaussian is pgbench's getGaussianRand: a normal draw within p standard
// deviations, mapped onto [lo, hi].
func Gaussian(r *prng.State, lo, hi int64, p float64) int64 {
	var s float64
	for {
		s = r.Normal()
		if s >= -p && s < p {
			break
		}
	}
	x := (s + p) / (p * 2.0)
	return lo + int64(float64(hi-lo+1)*x)
}

// Zipfian is pgbench's getZipfianRand (Devroye's rejection method).
func Zipfian(r *prng.State, lo, hi int64, s float64) int64 {
	n := hi - lo + 1
	return lo - 1 + zipf(r, n, s)
}

func zipf(r *prng.State, n int64, s float64) int64 {
	if n <= 1 {
		return 1
	}
	b := math.Pow(2.0, s-1.0)
	for {
		u := r.Float64()
		v := r.Float64()
		x := math.Floor(math.Pow(u, -1.0/(s-1.0)))
		t := math.Pow(1.0+1.0/x, s-1.0)
		if v*x*(t-1.0)/(b-1.0) <= t/b && x <= float64(n) {
			return int64(x)
		}
	}
}

// The hash constants of pgbench.
const (
	fnvPrime       = 0x100000001b3
	fnvOffsetBasis = 0xcbf29ce484222325
	mm2Mul         = 0xc6a4a7935bd1e995
	mm2MulTimes8   = 0x35253c9ade8f4ca8
	mm2Rot         = 47
)

// HashFNV1a is pgbench's hash_fnv1a(val, seed).
func HashFNV1a(val int64, seed uint64) int64 {
	result := uint64(fnvOffsetBasis) ^ seed
	for range 8 {
		octet := uint64(val & 0xff)
		val >>= 8
		result ^= octet
		result *= fnvPrime
	}
	return int64(result)
}

// HashMurmur2 is pgbench's hash_murmur2(val, seed), also hash().
func HashMurmur2(val int64, seed uint64) int64 {
	result := seed ^ mm2MulTimes8
	k := uint64(val)
	k *= mm2Mul
	k ^= k >> mm2Rot
	k *= mm2Mul
	result ^= k
	result *= mm2Mul
	result ^= result >> mm2Rot
	result *= mm2Mul
	result ^= result >> mm2Rot
	return int64(result)
}

// Permute is pgbench's permute(val, size, seed): a pseudorandom
// permutation of [0, size), six rounds of multiply-xor-rotate on the
// overlapping halves plus a random offset.
func Permute(val, isize, seed int64) int64 {
	if isize < 2 {
		return 0
	}
	st := prng.New(uint64(seed))
	size := uint64(isize)
	v := uint64(val) % size
	masklen := 63 - bits.LeadingZeros64(size)
	mask := uint64(1)<<masklen - 1
	for range 6 {
		m := st.Uint64()&mask | 1
		r := st.Uint64() & mask
		if v <= mask {
			v = ((v * m) ^ r) & mask
			v = ((v << 1) & mask) | (v >> (masklen - 1))
		}
		m = st.Uint64()&mask | 1
		r = st.Uint64() & mask
		t := size - 1 - v
		if t <= mask {
			t = ((t * m) ^ r) & mask
			t = ((t << 1) & mask) | (t >> (masklen - 1))
			v = size - 1 - t
		}
		r = st.Range(0, size-1)
		v = (v + r) % size
	}
	return int64(v)
}

// hashFunc is hash*() and permute() with their seed argument.
func hashFunc(f fn, args []Value) (Value, error) {
	ints := make([]int64, len(args))
	for i, a := range args {
		v, err := a.toInt()
		if err != nil {
			return Value{}, err
		}
		ints[i] = v
	}
	switch f {
	case fHashMurmur2:
		return IntValue(HashMurmur2(ints[0], uint64(ints[1]))), nil
	case fHashFNV1a:
		return IntValue(HashFNV1a(ints[0], uint64(ints[1]))), nil
	}
	if ints[1] <= 0 {
		return Value{}, errors.New("permute size parameter must be greater than zero")
	}
	return IntValue(Permute(ints[0], ints[1], ints[2])), nil
}
