package steady

import (
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// PairedPower is the power of the paired t test at level alpha over n
// pairs whose differences scatter with standard deviation sd, against a
// true mean difference of effect (in the differences' unit, its sign
// ignored): the chance that the test rejects "no difference". sides is 1
// for the one-sided test in the effect's direction (a regression gate),
// 2 for the two-sided one. It is the noncentral t distribution's tail
// with df n − 1 and noncentrality effect·√n/sd.
func PairedPower(effect, sd float64, n int, alpha float64, sides int) float64 {
	if sides != 2 {
		return PairedPowerBeyond(math.Abs(effect), 0, sd, n, alpha)
	}
	// each tail at alpha/2; the other one, T' < −c, is the test of −effect
	p := PairedPowerBeyond(math.Abs(effect), 0, sd, n, alpha/2) + PairedPowerBeyond(-math.Abs(effect), 0, sd, n, alpha/2)
	return math.Min(p, 1)
}

// PairedPowerBeyond is the power of the one-sided paired t test at level
// alpha of "the true mean difference is not above margin" over n pairs
// scattering with sd, when the true mean difference is effect: the chance
// that a gate which must show a regression beyond its threshold (margin)
// fails for a true regression of effect. It is at most alpha when effect
// is not above margin, and PairedPower's one-sided power when margin is 0
// and effect above it.
func PairedPowerBeyond(effect, margin, sd float64, n int, alpha float64) float64 {
	if n < 2 || sd <= 0 || alpha <= 0 || alpha >= 1 {
		return math.NaN()
	}
	df := float64(n - 1)
	c := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}.Quantile(1 - alpha)
	return math.Min(nctAbove(c, df, (effect-margin)*math.Sqrt(float64(n))/sd), 1)
}

// nctAbove is P(T' > c) for the noncentral t T' = (Z + ncp)/√(V/df),
// V ~ χ²(df): the mean over U = √V (the χ distribution) of
// P(Z > c·U/√df − ncp), by Simpson's rule.
func nctAbove(c, df, ncp float64) float64 {
	const steps = 1000
	top := math.Sqrt(df) + 12
	h := top / steps
	lg, _ := math.Lgamma(df / 2)
	norm := (df/2-1)*math.Ln2 + lg
	f := func(u float64) float64 {
		var dens float64
		switch {
		case u > 0:
			dens = math.Exp((df-1)*math.Log(u) - u*u/2 - norm)
		case df == 1:
			dens = math.Exp(-norm)
		}
		return dens * 0.5 * math.Erfc((c*u/math.Sqrt(df)-ncp)/math.Sqrt2)
	}
	sum := f(0) + f(top)
	for i := 1; i < steps; i++ {
		w := 2.0
		if i%2 == 1 {
			w = 4
		}
		sum += w * f(float64(i)*h)
	}
	return sum * h / 3
}

// MinDetectable is the smallest true mean difference (in the
// differences' unit) that the paired t test over n pairs scattering with
// sd detects with probability power at level alpha (sides as PairedPower):
// "this comparison could detect a change of this much or more". NaN when
// n < 2 or sd is not above 0.
func MinDetectable(sd float64, n int, alpha, power float64, sides int) float64 {
	if n < 2 || sd <= 0 || power <= alpha || power >= 1 {
		return math.NaN()
	}
	lo, hi := 0.0, sd
	for PairedPower(hi, sd, n, alpha, sides) < power {
		hi *= 2
	}
	for hi-lo > 1e-7*hi {
		mid := (lo + hi) / 2
		if PairedPower(mid, sd, n, alpha, sides) < power {
			lo = mid
		} else {
			hi = mid
		}
	}
	return hi
}
