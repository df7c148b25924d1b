package driver

import (
	"fmt"
	"strconv"
	"strings"
)

// MaxUsers bounds one step's virtual users.
const MaxUsers = 100_000

// ParseUsers expands an autopilot users sequence:
//
//	"4"                  one step
//	"1,2,3,5,8,13,21"    a list
//	"fib:89"             the Fibonacci sequence 1, 2, 3, 5, ... up to 89
//	"1..128x2"           1, 2, 4, ... 128 (each step times the factor)
//	"10..50+10"          10, 20, ... 50 (each step plus the increment)
//
// Parts may be combined with commas ("1,fib:21,32").
func ParseUsers(s string) ([]int, error) {
	var out []int
	for _, part := range strings.Split(strings.TrimSpace(s), ",") {
		part = strings.TrimSpace(part)
		seq, err := parseUsersPart(part)
		if err != nil {
			return nil, fmt.Errorf("--users %q: %w", s, err)
		}
		out = append(out, seq...)
	}
	for _, u := range out {
		if u < 1 || u > MaxUsers {
			return nil, fmt.Errorf("--users %q: every step needs 1..%d users (got %d)", s, MaxUsers, u)
		}
	}
	return out, nil
}

func parseUsersPart(p string) ([]int, error) {
	if p == "" {
		return nil, fmt.Errorf("empty step")
	}
	if rest, ok := strings.CutPrefix(p, "fib:"); ok {
		limit, err := strconv.Atoi(rest)
		if err != nil || limit < 1 {
			return nil, fmt.Errorf("fib:N needs a positive N")
		}
		var seq []int
		for a, b := 1, 2; a <= limit; a, b = b, a+b {
			seq = append(seq, a)
		}
		return seq, nil
	}
	if from, rest, ok := strings.Cut(p, ".."); ok {
		lo, err := strconv.Atoi(from)
		if err != nil || lo < 1 {
			return nil, fmt.Errorf("range %q: bad start", p)
		}
		sep := strings.IndexAny(rest, "x+")
		if sep < 0 {
			return nil, fmt.Errorf("range %q: want A..BxF or A..B+S", p)
		}
		hi, err1 := strconv.Atoi(rest[:sep])
		f, err2 := strconv.Atoi(rest[sep+1:])
		if err1 != nil || err2 != nil || hi < lo {
			return nil, fmt.Errorf("range %q: bad bounds or step", p)
		}
		var seq []int
		switch rest[sep] {
		case 'x':
			if f < 2 {
				return nil, fmt.Errorf("range %q: factor must be at least 2", p)
			}
			for u := lo; u <= hi; u *= f {
				seq = append(seq, u)
			}
		case '+':
			if f < 1 {
				return nil, fmt.Errorf("range %q: increment must be at least 1", p)
			}
			for u := lo; u <= hi; u += f {
				seq = append(seq, u)
			}
		}
		return seq, nil
	}
	u, err := strconv.Atoi(p)
	if err != nil {
		return nil, fmt.Errorf("%q is not a number of users", p)
	}
	return []int{u}, nil
}
