package expr

import (
	"errors"
	"fmt"
	"math"
	"math/bits"

	"github.com/rightsize/rightsize/pgbench/prng"
)

// Env is what an evaluation reads: the client's variables, its random
// state, and where debug() writes.
type Env interface {
	// Var is a variable's value; an error when it is undefined or its
	// string does not read as a value.
	Var(name string) (Value, error)
	// Rand is the client's random state for random*() functions.
	Rand() *prng.State
	// Debug receives the value of each debug() call.
	Debug(v Value)
}

// maxArgs is pgbench's limit on a function's arguments (MAX_FARGS).
const maxArgs = 16

// Eval evaluates e in env. Its errors are pgbench's messages.
func (e *Expr) Eval(env Env) (Value, error) {
	switch e.kind {
	case constNode:
		return e.val, nil
	case varNode:
		return env.Var(e.name)
	}
	switch e.fn {
	case fAnd, fOr:
		return e.evalAndOr(env)
	case fCase:
		return e.evalCase(env)
	}
	if len(e.args) > maxArgs {
		return Value{}, fmt.Errorf("too many function arguments, maximum is %d", maxArgs)
	}
	var buf [maxArgs]Value
	args := buf[:len(e.args)]
	hasNull := false
	for i, a := range e.args {
		v, err := a.Eval(env)
		if err != nil {
			return Value{}, err
		}
		args[i] = v
		hasNull = hasNull || v.Kind == Null
	}
	if hasNull && e.fn != fIs && e.fn != fDebug {
		return NullValue(), nil
	}
	return apply(e.fn, args, env)
}

// evalAndOr is the lazy AND / OR: NULL on a NULL operand, the second
// operand evaluated only when the first does not decide.
func (e *Expr) evalAndOr(env Env) (Value, error) {
	a, err := e.args[0].Eval(env)
	if err != nil || a.Kind == Null {
		return a, err
	}
	b1, err := a.toBool()
	if err != nil {
		return Value{}, err
	}
	if b1 == (e.fn == fOr) {
		return BoolValue(b1), nil
	}
	b, err := e.args[1].Eval(env)
	if err != nil || b.Kind == Null {
		return b, err
	}
	b2, err := b.toBool()
	if err != nil {
		return Value{}, err
	}
	return BoolValue(b2), nil
}

// evalCase returns the value of the first true WHEN, else the ELSE.
func (e *Expr) evalCase(env Env) (Value, error) {
	n := len(e.args)
	for i := 0; i+1 < n; i += 2 {
		c, err := e.args[i].Eval(env)
		if err != nil {
			return Value{}, err
		}
		if c.Truth() {
			return e.args[i+1].Eval(env)
		}
	}
	return e.args[n-1].Eval(env)
}

// apply runs a non-lazy function on evaluated arguments.
func apply(f fn, args []Value, env Env) (Value, error) {
	switch f {
	case fAdd, fSub, fMul, fDiv, fMod, fEq, fNe, fLe, fLt:
		return arith(f, args[0], args[1])
	case fBitAnd, fBitOr, fBitXor, fLShift, fRShift:
		return bitwise(f, args[0], args[1])
	case fNot:
		b, err := args[0].toBool()
		return BoolValue(!b), err
	case fPi:
		return DoubleValue(math.Pi), nil
	case fAbs:
		if args[0].Kind == Int {
			return IntValue(absInt(args[0].I)), nil
		}
		d, err := args[0].toDouble() // pgbench reads a boolean as a double here
		return DoubleValue(math.Abs(d)), err
	case fDebug:
		env.Debug(args[0])
		return args[0], nil
	case fDouble, fSqrt, fLn, fExp, fPow:
		return mathFunc(f, args)
	case fInt:
		i, err := args[0].toInt()
		return IntValue(i), err
	case fLeast, fGreatest:
		return extremum(f == fLeast, args)
	case fRandom, fRandomGaussian, fRandomExponential, fRandomZipfian:
		return random(f, args, env.Rand())
	case fIs:
		a, b := args[0], args[1]
		return BoolValue(a.Kind == b.Kind && (a.Kind == Null || a.B == b.B)), nil
	case fHashMurmur2, fHashFNV1a, fPermute:
		return hashFunc(f, args)
	}
	return Value{}, fmt.Errorf("unknown function %d", f)
}

func absInt(i int64) int64 {
	if i < 0 {
		return -i // -INT64_MIN stays INT64_MIN, as in C
	}
	return i
}

// arith is the overloaded arithmetic and comparison: double when either
// operand is (except %), else bigint with pgbench's overflow errors.
func arith(f fn, l, r Value) (Value, error) {
	if (l.Kind == Double || r.Kind == Double) && f != fMod {
		ld, err := l.toDouble()
		if err != nil {
			return Value{}, err
		}
		rd, err := r.toDouble()
		if err != nil {
			return Value{}, err
		}
		return arithDouble(f, ld, rd), nil
	}
	li, err := l.toInt()
	if err != nil {
		return Value{}, err
	}
	ri, err := r.toInt()
	if err != nil {
		return Value{}, err
	}
	return arithInt(f, li, ri)
}

func arithDouble(f fn, l, r float64) Value {
	switch f {
	case fAdd:
		return DoubleValue(l + r)
	case fSub:
		return DoubleValue(l - r)
	case fMul:
		return DoubleValue(l * r)
	case fDiv:
		return DoubleValue(l / r)
	case fEq:
		return BoolValue(l == r)
	case fNe:
		return BoolValue(l != r)
	case fLe:
		return BoolValue(l <= r)
	default:
		return BoolValue(l < r)
	}
}

var (
	errAdd  = errors.New("bigint add out of range")
	errSub  = errors.New("bigint sub out of range")
	errMul  = errors.New("bigint mul out of range")
	errDiv  = errors.New("bigint div out of range")
	errZero = errors.New("division by zero")
)

func arithInt(f fn, l, r int64) (Value, error) {
	switch f {
	case fAdd:
		s := l + r
		if (l >= 0) == (r >= 0) && (s >= 0) != (l >= 0) {
			return Value{}, errAdd
		}
		return IntValue(s), nil
	case fSub:
		s := l - r
		if (l >= 0) != (r >= 0) && (s >= 0) != (l >= 0) {
			return Value{}, errSub
		}
		return IntValue(s), nil
	case fMul:
		return mulInt(l, r)
	case fEq:
		return BoolValue(l == r), nil
	case fNe:
		return BoolValue(l != r), nil
	case fLe:
		return BoolValue(l <= r), nil
	case fLt:
		return BoolValue(l < r), nil
	}
	return divInt(f, l, r)
}

func mulInt(l, r int64) (Value, error) {
	hi, lo := bits.Mul64(uint64(absInt(l)), uint64(absInt(r)))
	neg := (l < 0) != (r < 0)
	limit := uint64(math.MaxInt64)
	if neg {
		limit++
	}
	if l == math.MinInt64 || r == math.MinInt64 {
		if l == 0 || r == 0 || l == 1 || r == 1 {
			return IntValue(l * r), nil
		}
		return Value{}, errMul
	}
	if hi != 0 || lo > limit {
		return Value{}, errMul
	}
	return IntValue(l * r), nil
}

func divInt(f fn, l, r int64) (Value, error) {
	if r == 0 {
		return Value{}, errZero
	}
	if r == -1 {
		if f == fMod {
			return IntValue(0), nil
		}
		if l == math.MinInt64 {
			return Value{}, errDiv
		}
		return IntValue(-l), nil
	}
	if f == fDiv {
		return IntValue(l / r), nil
	}
	return IntValue(l % r), nil
}

// bitwise is & | # << >> on integers; shift counts are taken modulo 64 as
// x86 does with pgbench's C shifts.
func bitwise(f fn, a, b Value) (Value, error) {
	l, err := a.toInt()
	if err != nil {
		return Value{}, err
	}
	r, err := b.toInt()
	if err != nil {
		return Value{}, err
	}
	switch f {
	case fBitAnd:
		return IntValue(l & r), nil
	case fBitOr:
		return IntValue(l | r), nil
	case fBitXor:
		return IntValue(l ^ r), nil
	case fLShift:
		return IntValue(l << (uint64(r) & 63)), nil
	}
	return IntValue(l >> (uint64(r) & 63)), nil
}

func mathFunc(f fn, args []Value) (Value, error) {
	d, err := args[0].toDouble()
	if err != nil {
		return Value{}, err
	}
	switch f {
	case fSqrt:
		d = math.Sqrt(d)
	case fLn:
		d = math.Log(d)
	case fExp:
		d = math.Exp(d)
	case fPow:
		e, err := args[1].toDouble()
		if err != nil {
			return Value{}, err
		}
		d = math.Pow(d, e)
	}
	return DoubleValue(d), nil
}

// extremum is least / greatest: double if any argument is, else bigint.
func extremum(least bool, args []Value) (Value, error) {
	double := false
	for _, a := range args {
		double = double || a.Kind == Double
	}
	if double {
		best, err := args[0].toDouble()
		for _, a := range args[1:] {
			if err != nil {
				break
			}
			var d float64
			if d, err = a.toDouble(); err == nil {
				best = pick(least, best, d)
			}
		}
		return DoubleValue(best), err
	}
	best, err := args[0].toInt()
	for _, a := range args[1:] {
		if err != nil {
			break
		}
		var i int64
		if i, err = a.toInt(); err == nil && (least && i < best || !least && best < i) {
			best = i
		}
	}
	return IntValue(best), err
}

// pick is C's Min(best, d) or Max(best, d) macro, NaN handling included.
func pick(least bool, best, d float64) float64 {
	if least {
		if best < d {
			return best
		}
		return d
	}
	if best > d {
		return best
	}
	return d
}
