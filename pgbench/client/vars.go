package client

import (
	"fmt"
	"strconv"

	"github.com/rightsize/rightsize/pgbench/expr"
	"github.com/rightsize/rightsize/pgbench/prng"
)

// variable holds a value as a string (from --define or \gset), as a typed
// value (from \set), or both once one was converted to the other, as
// pgbench's Variable does.
type variable struct {
	str    string
	hasStr bool
	val    expr.Value
	hasVal bool
}

// vars is a client's variables.
type vars map[string]*variable

func (v vars) setString(name, s string) {
	v[name] = &variable{str: s, hasStr: true}
}

func (v vars) setValue(name string, val expr.Value) {
	if x, ok := v[name]; ok {
		*x = variable{val: val, hasVal: true}
		return
	}
	v[name] = &variable{val: val, hasVal: true}
}

// value is a variable's typed value (a string read as pgbench reads it).
func (v vars) value(name string) (expr.Value, error) {
	x, ok := v[name]
	if !ok {
		return expr.Value{}, fmt.Errorf("undefined variable \"%s\"", name)
	}
	if !x.hasVal {
		val, err := expr.ParseValue(x.str)
		if err != nil {
			return expr.Value{}, fmt.Errorf("malformed variable \"%s\" value: \"%s\"", name, x.str)
		}
		x.val, x.hasVal = val, true
	}
	return x.val, nil
}

// text is a variable's string as pgbench sends it as a parameter; ok is
// false when the variable is undefined (sent as NULL, as pgbench does).
func (v vars) text(name string) (string, bool) {
	x, ok := v[name]
	if !ok {
		return "", false
	}
	if !x.hasStr {
		x.str, x.hasStr = x.val.String(), true
	}
	return x.str, true
}

// appendText appends a variable's parameter text to buf without making a
// string of an integer; ok is false when the variable is undefined.
func (v vars) appendText(buf []byte, name string) ([]byte, bool) {
	x, ok := v[name]
	switch {
	case !ok:
		return buf, false
	case x.hasStr:
		return append(buf, x.str...), true
	case x.val.Kind == expr.Int:
		return strconv.AppendInt(buf, x.val.I, 10), true
	}
	s, _ := v.text(name)
	return append(buf, s...), true
}

// env is the expression environment of a client.
type env struct {
	vars  vars
	rand  *prng.State
	debug func(expr.Value)
}

func (e *env) Var(name string) (expr.Value, error) { return e.vars.value(name) }
func (e *env) Rand() *prng.State                   { return e.rand }
func (e *env) Debug(v expr.Value) {
	if e.debug != nil {
		e.debug(v)
	}
}

// Seed is one client's share of a run's random seed.
type Seed struct {
	Random  uint64 // --random-seed, the :random_seed variable
	Func    uint64 // seeds the random*() functions
	Choose  uint64 // seeds the weighted choice of scripts
	Default uint64 // :default_seed, hash() and permute()'s default seed
}

// Seeds derives the seeds of clients clients from a run's random seed the
// way pgbench -c N -j N does: a base pg_prng sequence seeded with seed
// gives each client's function seed in turn, then :default_seed, then
// each thread's (here each client's) script-choice seed, then two seeds
// pgbench uses for throttling and log sampling. Same seed, same values as
// pgbench.
func Seeds(seed uint64, clients int) []Seed {
	base := prng.New(seed)
	out := make([]Seed, clients)
	for i := range out {
		out[i].Random = seed
		out[i].Func = base.Uint64()
	}
	def := base.Uint64()
	for i := range out {
		out[i].Default = def
		out[i].Choose = base.Uint64()
		base.Uint64() // throttling
		base.Uint64() // log sampling
	}
	return out
}

// sleepMicros reads a \sleep variable as pgbench does: atoi of its string,
// an error when it does not start with a digit.
func sleepMicros(s string) (int64, error) {
	n := 0
	for n < len(s) && (s[n] >= '0' && s[n] <= '9' || n == 0 && (s[n] == '-' || s[n] == '+')) {
		n++
	}
	v, err := strconv.ParseInt(s[:n], 10, 64)
	if err != nil {
		return 0, fmt.Errorf("invalid sleep time \"%s\"", s)
	}
	return v, nil
}
