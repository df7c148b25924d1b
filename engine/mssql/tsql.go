package mssql

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
)

// tsql translates the small portable SQL subset that engine-neutral code
// (the consistency checks, the conformance suite) sends to QueryInt into
// T-SQL:
//
//   - length(x) becomes LEN(x);
//   - round(x) with one argument becomes round(x, 0) (T-SQL's ROUND needs
//     the length);
//   - sum(x) becomes sum(CAST(x AS decimal(38, 4))): T-SQL sums an int
//     column into an int, which overflows on order_line (sum(ol_i_id) of one
//     warehouse is about 1.5e10), where other engines widen to bigint or
//     numeric. decimal(38, 4) holds every int and every money column of the
//     schema exactly.
//
// Text in single quotes is left alone. Other SQL passes through unchanged,
// and translating twice is harmless.
func tsql(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 32)
	i := 0
	for i < len(s) {
		c := s[i]
		if c == '\'' {
			j := skipQuoted(s, i)
			b.WriteString(s[i:j])
			i = j
			continue
		}
		if isIdentStart(c) && (i == 0 || !isIdentChar(s[i-1]) && s[i-1] != '.' && s[i-1] != '@') {
			j := i
			for j < len(s) && isIdentChar(s[j]) {
				j++
			}
			word := s[i:j]
			k := j
			for k < len(s) && (s[k] == ' ' || s[k] == '\t') {
				k++
			}
			if k < len(s) && s[k] == '(' {
				if end, ok := matchParen(s, k); ok {
					if call, ok := rewriteCall(strings.ToLower(word), tsql(s[k+1:end])); ok {
						b.WriteString(call)
						i = end + 1
						continue
					}
				}
			}
			b.WriteString(word)
			i = j
			continue
		}
		b.WriteByte(c)
		i++
	}
	return b.String()
}

// rewriteCall returns the T-SQL for a call of fn with (translated)
// arguments args, or false to keep the call as written.
func rewriteCall(fn, args string) (string, bool) {
	switch fn {
	case "length":
		return "LEN(" + args + ")", true
	case "round":
		if len(splitTopLevel(args)) == 1 {
			return "round(" + args + ", 0)", true
		}
	case "sum":
		a := strings.TrimSpace(args)
		prefix := ""
		for _, q := range []string{"DISTINCT ", "ALL "} {
			if len(a) > len(q) && strings.EqualFold(a[:len(q)], q) {
				prefix, a = a[:len(q)], strings.TrimSpace(a[len(q):])
			}
		}
		if strings.HasPrefix(strings.ToUpper(a), "CAST(") && strings.HasSuffix(strings.ToUpper(a), "AS DECIMAL(38, 4))") {
			return "sum(" + prefix + a + ")", true // already widened
		}
		return "sum(" + prefix + "CAST(" + a + " AS decimal(38, 4)))", true
	}
	return "", false
}

func isIdentStart(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func isIdentChar(c byte) bool { return isIdentStart(c) || c >= '0' && c <= '9' || c == '$' || c == '#' }

// skipQuoted returns the index just past the quoted string starting at i
// (a doubled single quote is an escaped quote).
func skipQuoted(s string, i int) int {
	j := i + 1
	for j < len(s) {
		if s[j] == '\'' {
			if j+1 < len(s) && s[j+1] == '\'' {
				j += 2
				continue
			}
			return j + 1
		}
		j++
	}
	return len(s)
}

// matchParen returns the index of the parenthesis closing the one at open.
func matchParen(s string, open int) (int, bool) {
	depth := 0
	for i := open; i < len(s); i++ {
		switch s[i] {
		case '\'':
			i = skipQuoted(s, i) - 1
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 {
				return i, true
			}
		}
	}
	return 0, false
}

// splitTopLevel splits a call's arguments at commas outside parentheses
// and quotes.
func splitTopLevel(args string) []string {
	var out []string
	depth, start := 0, 0
	for i := 0; i < len(args); i++ {
		switch args[i] {
		case '\'':
			i = skipQuoted(args, i) - 1
		case '(':
			depth++
		case ')':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, args[start:i])
				start = i + 1
			}
		}
	}
	return append(out, args[start:])
}

// toInt64 converts what go-mssqldb returns for a one-value query into an
// integer: int64 for the integer types, float64 for float, and the decimal
// text ("123.0000") for decimal/numeric. A value with a fractional part is
// an error, and so is NULL.
func toInt64(v any) (int64, error) {
	switch x := v.(type) {
	case nil:
		return 0, fmt.Errorf("query returned NULL, want an integer")
	case int64:
		return x, nil
	case int32:
		return int64(x), nil
	case int:
		return int64(x), nil
	case bool:
		if x {
			return 1, nil
		}
		return 0, nil
	case float64:
		if x != math.Trunc(x) || math.IsInf(x, 0) || math.IsNaN(x) || math.Abs(x) > 1<<62 {
			return 0, fmt.Errorf("query returned %v, want an integer", x)
		}
		return int64(x), nil
	case []byte:
		return decimalToInt64(string(x))
	case string:
		return decimalToInt64(x)
	}
	return 0, fmt.Errorf("query returned %T, want an integer", v)
}

func decimalToInt64(s string) (int64, error) {
	s = strings.TrimSpace(s)
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return n, nil
	}
	r, ok := new(big.Rat).SetString(s)
	if !ok || !r.IsInt() || !r.Num().IsInt64() {
		return 0, fmt.Errorf("query returned %q, want an integer", s)
	}
	return r.Num().Int64(), nil
}
