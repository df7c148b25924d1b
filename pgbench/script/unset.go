package script

import (
	"fmt"
	"strings"
)

// Own are the variables pgbench sets in every client before its first
// command: :scale, :client_id, :random_seed and :default_seed.
var Own = []string{"scale", "client_id", "random_seed", "default_seed"}

// CheckUnset finds a variable that a \set, \if, \elif or \sleep of the
// scripts reads but that nothing can ever set: no \set of any script (a
// client's variables outlive the script that set them), no \gset or \aset
// (one without a prefix may set any name, so then nothing is reported),
// not one of pgbench's Own and not defined (--define). pgbench aborts
// every client that reaches such a command, so it is an *Error naming
// FILE:LINE:COLUMN before anything runs. SQL's :variables are not
// checked: pgbench -M prepared binds one never set as NULL.
func CheckUnset(scripts []*Script, defined func(name string) bool) error {
	set := map[string]bool{}
	for _, name := range Own {
		set[name] = true
	}
	var prefixes []string
	for _, s := range scripts {
		for _, c := range s.Commands {
			switch {
			case c.Kind == Set:
				set[c.Var] = true
			case c.Kind == SQL && c.Store != NoStore:
				if c.Prefix == "" {
					return nil
				}
				prefixes = append(prefixes, c.Prefix)
			}
		}
	}
	settable := func(name string) bool {
		if set[name] || defined(name) {
			return true
		}
		for _, p := range prefixes {
			if strings.HasPrefix(name, p) {
				return true
			}
		}
		return false
	}
	for _, s := range scripts {
		for _, c := range s.Commands {
			for _, r := range c.Reads {
				if !settable(r.Name) {
					return &Error{File: s.Name, Line: r.Line, Col: r.Col, Msg: fmt.Sprintf(
						"undefined variable \"%s\": nothing sets it (no \\set, \\gset or \\aset in the workload's scripts, no --define %s=VALUE) and pgbench would abort every client here: set it, or correct the name", r.Name, r.Name)}
				}
			}
		}
	}
	return nil
}
