package script

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Builtin is one of pgbench's built-in scripts.
type Builtin struct {
	Name string // as -b takes it
	Desc string // as pgbench names it in its reports
	Src  string
}

// The TPC-B-like transaction's cardinalities per unit of scale.
const (
	Branches = 1
	Tellers  = 10
	Accounts = 100000
)

const tpcbSets = `\set aid random(1, 100000 * :scale)
\set bid random(1, 1 * :scale)
\set tid random(1, 10 * :scale)
\set delta random(-5000, 5000)
`

// Builtins are pgbench's built-in scripts, word for word.
var Builtins = []Builtin{
	{"tpcb-like", "<builtin: TPC-B (sort of)>", tpcbSets + `BEGIN;
UPDATE pgbench_accounts SET abalance = abalance + :delta WHERE aid = :aid;
SELECT abalance FROM pgbench_accounts WHERE aid = :aid;
UPDATE pgbench_tellers SET tbalance = tbalance + :delta WHERE tid = :tid;
UPDATE pgbench_branches SET bbalance = bbalance + :delta WHERE bid = :bid;
INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES (:tid, :bid, :aid, :delta, CURRENT_TIMESTAMP);
END;
`},
	{"simple-update", "<builtin: simple update>", tpcbSets + `BEGIN;
UPDATE pgbench_accounts SET abalance = abalance + :delta WHERE aid = :aid;
SELECT abalance FROM pgbench_accounts WHERE aid = :aid;
INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES (:tid, :bid, :aid, :delta, CURRENT_TIMESTAMP);
END;
`},
	{"select-only", "<builtin: select only>", `\set aid random(1, 100000 * :scale)
SELECT abalance FROM pgbench_accounts WHERE aid = :aid;
`},
}

// FindBuiltin returns the built-in script name names or is the one
// unambiguous prefix of, as pgbench -b does.
func FindBuiltin(name string) (Builtin, error) {
	var found []Builtin
	for _, b := range Builtins {
		if strings.HasPrefix(b.Name, name) {
			found = append(found, b)
		}
	}
	if len(found) == 1 {
		return found[0], nil
	}
	names := make([]string, len(Builtins))
	for i, b := range Builtins {
		names[i] = b.Name
	}
	if len(found) == 0 {
		return Builtin{}, fmt.Errorf("no built-in script %q: the built-in scripts are %s", name, strings.Join(names, ", "))
	}
	return Builtin{}, fmt.Errorf("built-in script name %q is ambiguous: it begins %d of %s", name, len(found), strings.Join(names, ", "))
}

// ParseBuiltin parses a built-in script under its description's name.
func ParseBuiltin(b Builtin, weight int) (*Script, error) {
	s, err := Parse(b.Desc, b.Src)
	if err != nil {
		return nil, err
	}
	s.Weight = weight
	return s, nil
}

// SplitWeight splits a -f or -b option "NAME@WEIGHT" into its name and
// weight (1 without @), as pgbench's parseScriptWeight: the last @
// separates, the weight is an integer from 0 to 2147483647.
func SplitWeight(option string) (string, int, error) {
	i := strings.LastIndexByte(option, '@')
	if i < 0 {
		return option, 1, nil
	}
	w, err := strconv.ParseInt(option[i+1:], 10, 64)
	if err != nil {
		if ne, ok := err.(*strconv.NumError); !ok || ne.Err != strconv.ErrRange {
			return "", 0, fmt.Errorf("invalid weight specification %q in %q: write NAME@WEIGHT with an integer weight", option[i:], option)
		}
	}
	if err != nil || w < 0 || w > math.MaxInt32 {
		return "", 0, fmt.Errorf("weight %s of %q out of range: it must be from 0 to %d", option[i+1:], option, math.MaxInt32)
	}
	return option[:i], int(w), nil
}

// ParseDefine splits a --define option "NAME=VALUE".
func ParseDefine(option string) (string, string, error) {
	name, value, ok := strings.Cut(option, "=")
	if !ok {
		return "", "", fmt.Errorf("invalid variable definition %q: write NAME=VALUE", option)
	}
	if !ValidName(name) {
		return "", "", fmt.Errorf("invalid variable name %q in %q: a letter or underscore, then letters, digits or underscores", name, option)
	}
	return name, value, nil
}
