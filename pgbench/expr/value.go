// Package expr is pgbench's expression language (the right side of \set,
// \if and \elif): its scanner, parser and evaluator, with pgbench's types
// (NULL, boolean, bigint, double), its overflow and coercion errors and
// every built-in function, as PostgreSQL 17's pgbench has them.
package expr

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Kind is a value's type.
type Kind uint8

// The value types of pgbench expressions.
const (
	Null Kind = iota
	Bool
	Int
	Double
)

// String names the kind as pgbench's messages do.
func (k Kind) String() string {
	switch k {
	case Null:
		return "null"
	case Bool:
		return "boolean"
	case Int:
		return "int"
	default:
		return "double"
	}
}

// Value is one typed value.
type Value struct {
	Kind Kind
	B    bool
	I    int64
	F    float64
}

// IntValue, DoubleValue, BoolValue and NullValue make values.
func IntValue(i int64) Value      { return Value{Kind: Int, I: i} }
func DoubleValue(f float64) Value { return Value{Kind: Double, F: f} }
func BoolValue(b bool) Value      { return Value{Kind: Bool, B: b} }
func NullValue() Value            { return Value{} }

// String is the value as pgbench writes it into SQL parameters and
// variables: NULL, true/false, the integer, or the double with 15
// significant digits (%.15g).
func (v Value) String() string {
	switch v.Kind {
	case Null:
		return "NULL"
	case Bool:
		if v.B {
			return "true"
		}
		return "false"
	case Int:
		return strconv.FormatInt(v.I, 10)
	default:
		return FormatDouble(v.F)
	}
}

// FormatDouble formats f as PostgreSQL's snprintf("%.15g") does (NaN,
// Infinity and -Infinity spelled as PostgreSQL spells them).
func FormatDouble(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	}
	return fmt.Sprintf("%.15g", f)
}

// Debug is the line debug() prints for v, after pgbench's
// "debug(script=S,command=C): " prefix.
func (v Value) Debug() string {
	switch v.Kind {
	case Null:
		return "null"
	case Bool:
		return "boolean " + v.String()
	case Int:
		return "int " + v.String()
	default:
		return "double " + v.String()
	}
}

// Truth is a value's truth for \if, \elif and CASE: NULL and zero are
// false (valueTruth).
func (v Value) Truth() bool {
	switch v.Kind {
	case Bool:
		return v.B
	case Int:
		return v.I != 0
	case Double:
		return v.F != 0
	default:
		return false
	}
}

func (v Value) toBool() (bool, error) {
	if v.Kind == Bool {
		return v.B, nil
	}
	return false, fmt.Errorf("cannot coerce %s to boolean", v.Kind)
}

func (v Value) toInt() (int64, error) {
	switch v.Kind {
	case Int:
		return v.I, nil
	case Double:
		d := math.RoundToEven(v.F)
		if math.IsNaN(d) || d < -9223372036854775808.0 || d >= 9223372036854775808.0 {
			return 0, fmt.Errorf("double to int overflow for %f", d)
		}
		return int64(d), nil
	}
	return 0, fmt.Errorf("cannot coerce %s to int", v.Kind)
}

func (v Value) toDouble() (float64, error) {
	switch v.Kind {
	case Double:
		return v.F, nil
	case Int:
		return float64(v.I), nil
	}
	return 0, fmt.Errorf("cannot coerce %s to double", v.Kind)
}

// ParseValue is a variable's string (from --define or \gset) as a value,
// as pgbench's makeVariableValue reads it: null; a prefix of true/yes or
// on (and false/no, off, of); an integer; else a double.
func ParseValue(s string) (Value, error) {
	if s == "" {
		return Value{}, fmt.Errorf("empty value")
	}
	l := strings.ToLower(s)
	switch {
	case l == "null":
		return NullValue(), nil
	case strings.HasPrefix("true", l) || strings.HasPrefix("yes", l) || l == "on":
		return BoolValue(true), nil
	case strings.HasPrefix("false", l) || strings.HasPrefix("no", l) || l == "off" || l == "of":
		return BoolValue(false), nil
	case isInt(s):
		i, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
		if err != nil {
			return Value{}, fmt.Errorf("value %q is out of range for type bigint", s)
		}
		return IntValue(i), nil
	}
	f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil && !isRangeErr(err) {
		return Value{}, fmt.Errorf("malformed value %q", s)
	}
	return DoubleValue(f), nil
}

func isRangeErr(err error) bool {
	ne, ok := err.(*strconv.NumError)
	return ok && ne.Err == strconv.ErrRange
}

// isInt says whether s matches ^\s*[-+]?[0-9]+\s*$ as pgbench's is_an_int
// (leading blanks only; strtoint64 then allows trailing ones).
func isInt(s string) bool {
	s = strings.TrimLeft(s, " \t\n\r\f\v")
	if s != "" && (s[0] == '+' || s[0] == '-') {
		s = s[1:]
	}
	if s == "" || s[0] < '0' || s[0] > '9' {
		return false
	}
	for s != "" && s[0] >= '0' && s[0] <= '9' {
		s = s[1:]
	}
	return s == ""
}
