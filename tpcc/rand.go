package tpcc

import (
	"math/rand/v2"
	"slices"
)

// Rand is the workload's deterministic random source (PCG), with the TPC-C
// primitives of clause 2.1 and 4.3.2 on top. It is not safe for concurrent use:
// give every loader and virtual user its own.
type Rand struct {
	pcg *rand.PCG // the source, called directly on the hot string path
	r   *rand.Rand
}

// NewRand returns a Rand seeded from seed and a stream number, so independent
// parts of the workload (a table of one warehouse, one virtual user) draw
// independent, reproducible sequences.
func NewRand(seed, stream uint64) *Rand {
	pcg := rand.NewPCG(seed, stream^0x9e3779b97f4a7c15)
	return &Rand{pcg: pcg, r: rand.New(pcg)}
}

// Uint64 returns a uniformly distributed 64-bit value.
func (r *Rand) Uint64() uint64 { return r.r.Uint64() }

// Float64 returns a uniform value in [0, 1).
func (r *Rand) Float64() float64 { return r.r.Float64() }

// Int returns random(lo, hi): a uniform integer in [lo, hi] inclusive.
func (r *Rand) Int(lo, hi int) int { return lo + r.r.IntN(hi-lo+1) }

// Shuffle permutes n elements with swap.
func (r *Rand) Shuffle(n int, swap func(i, j int)) { r.r.Shuffle(n, swap) }

// NURand is the non-uniform random function of clause 2.1.6:
// (((random(0, A) | random(x, y)) + C) % (y - x + 1)) + x.
func (r *Rand) NURand(a, c, x, y int) int {
	return (((r.Int(0, a) | r.Int(x, y)) + c) % (y - x + 1)) + x
}

const (
	alnum  = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	digits = "0123456789"
	upper  = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
)

// appendChars appends n characters drawn uniformly from alphabet (at most
// 64 symbols): each 64-bit draw is cut into fields of just enough bits, and
// fields beyond the alphabet are skipped (rejection keeps it uniform).
func (r *Rand) appendChars(buf []byte, n int, alphabet string) []byte {
	k := uint64(len(alphabet))
	bits := uint(6)
	switch {
	case k <= 16:
		bits = 4
	case k <= 32:
		bits = 5
	}
	mask := uint64(1)<<bits - 1
	per := 64 / int(bits)
	start := len(buf)
	buf = slices.Grow(buf, n)[:start+n]
	out := buf[start:]
	for i := 0; i < n; {
		x := r.pcg.Uint64()
		for j := 0; j < per && i < n; j++ {
			if c := x & mask; c < k {
				out[i] = alphabet[c]
				i++
			}
			x >>= bits
		}
	}
	return buf
}

// AString appends an a-string of random length in [lo, hi] (clause 4.3.2.2).
func (r *Rand) AString(buf []byte, lo, hi int) []byte {
	return r.appendChars(buf, r.Int(lo, hi), alnum)
}

// NString appends an n-string (digits) of random length in [lo, hi].
func (r *Rand) NString(buf []byte, lo, hi int) []byte {
	return r.appendChars(buf, r.Int(lo, hi), digits)
}

// State appends two random upper-case letters.
func (r *Rand) State(buf []byte) []byte { return r.appendChars(buf, 2, upper) }

// Zip appends a zip code: 4 random digits followed by "11111" (clause 4.3.2.7).
func (r *Rand) Zip(buf []byte) []byte {
	return append(r.appendChars(buf, 4, digits), "11111"...)
}

// Original appends an a-string of length [26, 50] that, in 10 % of calls,
// holds "ORIGINAL" at a random position (clause 4.3.3.1, I_DATA and S_DATA).
func (r *Rand) Original(buf []byte) []byte {
	start := len(buf)
	buf = r.AString(buf, 26, 50)
	if r.r.IntN(10) == 0 {
		n := len(buf) - start
		pos := r.r.IntN(n - 8 + 1)
		copy(buf[start+pos:], "ORIGINAL")
	}
	return buf
}

// Fixed-point helpers: amounts are integers of cents, rates integers of 1/10000.

// Cents returns a random amount in [lo, hi] cents.
func (r *Rand) Cents(lo, hi int) int64 { return int64(r.Int(lo, hi)) }

var syllables = [10]string{"BAR", "OUGHT", "ABLE", "PRI", "PRES", "ESE", "ANTI", "CALLY", "ATION", "EING"}

// lastNames holds the 1000 C_LAST values, built once, so that drawing one
// for a transaction's input allocates nothing.
var lastNames = func() (names [1000]string) {
	for n := range names {
		names[n] = string(AppendLastName(nil, n))
	}
	return names
}()

// LastName returns the C_LAST for a number in [0, 999] (clause 4.3.2.3).
func LastName(n int) string { return lastNames[n] }

// AppendLastName appends LastName(n) to buf.
func AppendLastName(buf []byte, n int) []byte {
	return append(append(append(buf, syllables[n/100]...), syllables[(n/10)%10]...), syllables[n%10]...)
}
