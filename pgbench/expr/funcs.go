package expr

import "fmt"

// fn is a built-in function or operator.
type fn uint8

const (
	fAdd fn = iota
	fSub
	fMul
	fDiv
	fMod
	fAbs
	fLeast
	fGreatest
	fDebug
	fPi
	fSqrt
	fLn
	fExp
	fInt
	fDouble
	fRandom
	fRandomGaussian
	fRandomExponential
	fRandomZipfian
	fPow
	fAnd
	fOr
	fNot
	fBitAnd
	fBitOr
	fBitXor
	fLShift
	fRShift
	fEq
	fNe
	fLe
	fLt
	fIs
	fCase
	fHashMurmur2
	fHashFNV1a
	fPermute
)

// Argument-count rules beyond a fixed count.
const (
	nargsVariable = -1 // least, greatest: at least one
	nargsHash     = -3 // value [, seed]
	nargsPermute  = -4 // value, size [, seed]
)

type funcInfo struct {
	name  string
	fn    fn
	nargs int
}

// functions are the names a script may call, as pgbench's PGBENCH_FUNCTIONS.
var functions = map[string]funcInfo{}

func init() {
	for _, f := range []funcInfo{
		{"abs", fAbs, 1}, {"least", fLeast, nargsVariable}, {"greatest", fGreatest, nargsVariable},
		{"debug", fDebug, 1}, {"pi", fPi, 0}, {"sqrt", fSqrt, 1}, {"ln", fLn, 1}, {"exp", fExp, 1},
		{"int", fInt, 1}, {"double", fDouble, 1}, {"random", fRandom, 2},
		{"random_gaussian", fRandomGaussian, 3}, {"random_exponential", fRandomExponential, 3},
		{"random_zipfian", fRandomZipfian, 3}, {"pow", fPow, 2}, {"power", fPow, 2},
		{"hash", fHashMurmur2, nargsHash}, {"hash_murmur2", fHashMurmur2, nargsHash},
		{"hash_fnv1a", fHashFNV1a, nargsHash}, {"permute", fPermute, nargsPermute},
		{"mod", fMod, 2},
	} {
		functions[f.name] = f
	}
}

// Functions lists the names of the built-in functions.
func Functions() []string {
	out := make([]string, 0, len(functions))
	for name := range functions {
		out = append(out, name)
	}
	return out
}

// checkArgs checks the argument count of a call and adds the default seed
// where a hash or permute call leaves it out.
func checkArgs(f funcInfo, args []*Expr) ([]*Expr, error) {
	n := len(args)
	bad := false
	switch f.nargs {
	case nargsVariable:
		if n == 0 {
			return nil, fmt.Errorf("at least one argument expected (%s)", f.name)
		}
	case nargsHash:
		bad = n < 1 || n > 2
		if n == 1 {
			args = append(args, &Expr{kind: varNode, name: "default_seed", pos: -1})
		}
	case nargsPermute:
		bad = n < 2 || n > 3
		if n == 2 {
			args = append(args, &Expr{kind: varNode, name: "default_seed", pos: -1})
		}
	default:
		bad = n != f.nargs
	}
	if bad {
		return nil, fmt.Errorf("unexpected number of arguments (%s)", f.name)
	}
	return args, nil
}
