package workload

import (
	"errors"
	"fmt"
	"strings"

	"github.com/rightsize/rightsize/pgbench/client"
	"github.com/rightsize/rightsize/pgbench/script"
)

// builtins are the names --workload (and a plan's workload key) gives
// pgbench's built-in scripts.
var builtins = map[string]string{"tpcb": "tpcb-like", "tpcb-like": "tpcb-like", "simple-update": "simple-update", "select-only": "select-only"}

// IsBuiltin says whether spec (a --workload value, with or without
// @WEIGHT) names one of pgbench's built-in scripts, which run on
// pgbench's own tables.
func IsBuiltin(spec string) bool {
	base, _, err := script.SplitWeight(spec)
	_, ok := builtins[base]
	return err == nil && ok
}

// Options are what shapes a workload beside its scripts: --define's
// variables, --scale, --random-seed and --figure.
type Options struct {
	Defines    map[string]string
	Scale      int
	RandomSeed uint64
	Figure     string
	// Protocol is how the statements are sent, pgbench -M's name
	// (prepared, extended, simple; "": prepared).
	Protocol string
	// MaxTries, when above 0, is how many times a transaction may run
	// when it fails with a serialization failure or a deadlock (pgbench
	// --max-tries; 1: no retry); 0: the step's (11).
	MaxTries int
	// Connect gives each transaction a new connection (pgbench -C).
	Connect bool
}

// zero tells whether no option is given.
func (o Options) zero() bool {
	return len(o.Defines) == 0 && o.RandomSeed == 0 && o.Figure == "" && o.Scale == 0 && o.Protocol == "" && o.MaxTries == 0 && !o.Connect
}

// FromSpecs returns the workload that --workload's values specs name
// (nil: TPC-C, none given or "tpcc"), with options o. Each spec is a
// built-in's name (tpcb, simple-update, select-only) or a script file,
// each with @WEIGHT. A script that does not parse is a *script.Error
// naming FILE:LINE:COLUMN, as is a variable a meta-command reads that
// nothing sets (script.CheckUnset); the other errors name the flag to fix
// (--workload, --scale, --figure, --define).
func FromSpecs(specs []string, o Options) (*Workload, error) {
	if len(specs) == 0 || len(specs) == 1 && specs[0] == "tpcc" {
		if !o.zero() {
			return nil, errors.New("--define, --random-seed, --scale, --figure, --protocol, --max-tries and --connect are for pgbench workloads: add --workload tpcb or --workload FILE")
		}
		return nil, nil
	}
	var scripts []*script.Script
	name := "scripts"
	for _, spec := range specs {
		if spec == "tpcc" {
			return nil, errors.New("--workload tpcc runs alone: TPC-C's mix does not mix with pgbench scripts")
		}
		s, builtin, err := loadScript(spec)
		var serr *script.Error
		if errors.As(err, &serr) {
			return nil, err // FILE:LINE:COLUMN: what is wrong
		} else if err != nil {
			return nil, fmt.Errorf("--workload %s: %w", spec, err)
		}
		if builtin {
			name = "tpcb"
		}
		scripts = append(scripts, s)
	}
	w := New(name, scripts)
	if o.Scale < 0 {
		return nil, fmt.Errorf("--scale must be at least 1 (got %d)", o.Scale)
	}
	w.Scale, w.RandomSeed, w.FigureScript = o.Scale, o.RandomSeed, o.Figure
	p, err := client.ParseProtocol(o.Protocol)
	if err != nil {
		return nil, fmt.Errorf("--protocol: %w", err)
	}
	w.Protocol = p
	if err := pipelinedSimply(scripts, p); err != nil {
		return nil, err
	}
	if o.MaxTries < 0 {
		return nil, fmt.Errorf("--max-tries must be at least 1 (got %d): the most times a transaction runs, its first try included", o.MaxTries)
	}
	w.Tries, w.Connect = o.MaxTries, o.Connect
	if o.Figure != "" && w.Figure() < 0 {
		return nil, fmt.Errorf("--figure %s: no such script; the workload's are %s", o.Figure, strings.Join(w.Kinds(), ", "))
	}
	w.Defines = map[string]string{}
	for k, v := range o.Defines {
		if !script.ValidName(k) {
			return nil, fmt.Errorf("--define: invalid variable name %q: a letter or underscore, then letters, digits or underscores", k)
		}
		w.Defines[k] = v
	}
	if err := script.CheckUnset(scripts, func(name string) bool { _, ok := w.Defines[name]; return ok }); err != nil {
		return nil, err // FILE:LINE:COLUMN: the variable and why
	}
	return w, nil
}

// Fresh is a copy of w for another database: w itself keeps the :scale
// it read from the first database it ran on (when Scale was 0), so a
// caller that runs one workload on several databases keeps a w that
// never runs and gives each run a Fresh copy. The scripts are shared (a
// client never changes them).
func (w *Workload) Fresh() *Workload {
	c := New(w.Name, w.Scripts)
	c.Scale, c.Defines, c.RandomSeed, c.FigureScript, c.Protocol, c.Tries, c.Connect = w.Scale, w.Defines, w.RandomSeed, w.FigureScript, w.Protocol, w.Tries, w.Connect
	return c
}

// loadScript reads one --workload value: a built-in's name or a file,
// each with @WEIGHT.
func loadScript(spec string) (*script.Script, bool, error) {
	base, weight, err := script.SplitWeight(spec)
	if err != nil {
		return nil, false, err
	}
	if b, ok := builtins[base]; ok {
		found, err := script.FindBuiltin(b)
		if err != nil {
			return nil, false, err
		}
		s, err := script.ParseBuiltin(found, weight)
		if err != nil {
			return nil, false, err
		}
		s.Name = found.Name
		return s, true, nil
	}
	s, err := script.LoadFile(spec)
	return s, false, err
}

// pipelinedSimply refuses a pipeline with the simple protocol, at its
// \startpipeline, as pgbench does: a pipeline is the extended protocol's.
func pipelinedSimply(scripts []*script.Script, p client.Protocol) error {
	if p != client.Simple {
		return nil
	}
	for _, s := range scripts {
		for _, c := range s.Commands {
			if c.Kind == script.StartPipeline {
				return &script.Error{File: s.Name, Line: c.Line, Col: c.Col,
					Msg: "\\startpipeline cannot run with --protocol simple: a pipeline is the extended query protocol's; give --protocol prepared or extended"}
			}
		}
	}
	return nil
}
