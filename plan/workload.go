package plan

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/rightsize/rightsize/engine"
	"github.com/rightsize/rightsize/internal/yamlfile"
	"github.com/rightsize/rightsize/pgbench/script"
	"github.com/rightsize/rightsize/pgbench/tpcb"
	"github.com/rightsize/rightsize/pgbench/workload"
	"github.com/rightsize/rightsize/scenario"
)

// What a plan's build makes (Build.Kind).
const (
	// BuildTPCC is TPC-C's warehouses (the default).
	BuildTPCC = "tpcc"
	// BuildTPCB is pgbench's tables at build.scale.
	BuildTPCB = "tpcb"
	// BuildInit is a script workload's tables, made by build.init.
	BuildInit = "init"
	// BuildNone is the database as it is: a script workload without
	// build.init runs on tables the database already has.
	BuildNone = "none"
)

// Specs are the autopilot's workload: one --workload value, or a list of
// them.
type Specs []yamlfile.Str

// UnmarshalYAML reads one value or a list of values.
func (s *Specs) UnmarshalYAML(n *yaml.Node) error {
	items := []*yaml.Node{n}
	if n.Kind == yaml.SequenceNode {
		items = n.Content
	}
	*s = nil
	for _, it := range items {
		var v yamlfile.Str
		if err := v.UnmarshalYAML(it); err != nil {
			return &yamlfile.Error{Line: it.Line, Column: it.Column,
				Msg: fmt.Sprintf("want tpcc, tpcb or a pgbench script FILE[@WEIGHT], or a list of them; write e.g. workload: [select.sql@9, update.sql@1]")}
		}
		*s = append(*s, v)
	}
	return nil
}

// Kind is what the build makes: BuildTPCC, BuildTPCB, BuildInit or
// BuildNone (set by Validate).
func (b Build) Kind() string { return b.kind }

// layoutKeys are the build's keys of a tpcb layout (Layout).
var layoutKeys = []string{"fillfactor", "partitions", "partition_method", "unlogged_tables", "foreign_keys"}

// Layout is how a tpcb build stores pgbench's tables (layoutKeys).
func (b Build) Layout() tpcb.Layout {
	return tpcb.Layout{FillFactor: b.FillFactor, Partitions: b.Partitions, PartitionMethod: b.PartitionMethod,
		Unlogged: b.UnloggedTables, ForeignKeys: b.ForeignKeys}
}

// InitPath is build.init's file, relative to the plan's directory ("" without one).
func (p *Plan) InitPath() string { return p.relative(p.Build.Init) }

// relative is a path the plan names, relative to the plan's directory.
func (p *Plan) relative(path string) string {
	if path == "" || filepath.IsAbs(path) {
		return path
	}
	return filepath.Join(filepath.Dir(p.Path), path)
}

// WorkloadOf is the autopilot's pgbench workload, as validated (nil:
// TPC-C). It never runs: RunOptions gives each run a fresh copy.
func (a Autopilot) WorkloadOf() *workload.Workload { return a.workload }

// FigureName names the figure of merit the study judges its runs by:
// "NOPM" for TPC-C, "TPS" for every script of a pgbench workload, "TPS
// of SCRIPT" with figure.
func (a Autopilot) FigureName() string {
	switch {
	case a.workload == nil:
		return "NOPM"
	case a.Figure != "":
		return "TPS of " + a.Figure
	}
	return "TPS"
}

// scriptSpec is a --workload value with its file relative to the plan's
// directory (a built-in's name and tpcc as they are).
func (p *Plan) scriptSpec(spec string) string {
	if spec == "tpcc" || workload.IsBuiltin(spec) {
		return spec
	}
	base, weight, err := script.SplitWeight(spec)
	if err != nil {
		return spec // its own error, said by FromSpecs
	}
	if strings.LastIndexByte(spec, '@') < 0 {
		return p.relative(base)
	}
	return fmt.Sprintf("%s@%d", p.relative(base), weight)
}

// validateWorkload resolves the build's and the autopilot's workloads
// (each left out follows the other) and checks them together: the
// scripts parse (FILE:LINE:COLUMN), the build makes what they run on,
// and TPC-C's keys are not given with them.
func (p *Plan) validateWorkload(c *checker) {
	b, a := &p.Build, &p.Autopilot
	specs := make([]string, len(a.Workload))
	for i, s := range a.Workload {
		specs[i] = s.Value
	}
	if len(specs) == 0 && b.Workload != "" {
		specs = []string{b.Workload}
	}
	for i := range specs {
		specs[i] = p.scriptSpec(specs[i])
	}
	w, err := workload.FromSpecs(specs, workload.Options{Defines: a.Define, Scale: a.Scale, RandomSeed: a.RandomSeed, Figure: a.Figure, Protocol: a.Protocol, MaxTries: a.MaxTries, Connect: a.Connect})
	var serr *script.Error
	switch {
	case errors.As(err, &serr):
		c.field(a.at, "autopilot", "workload", err.Error())
	case err != nil && len(a.Workload) == 0 && b.Workload != "" && strings.HasPrefix(err.Error(), "--workload"):
		c.field(b.at, "build", "workload", problem(err))
	case err != nil:
		c.option(a.at, "autopilot", "workload", err)
	}
	a.workload = w
	if a.at.Has("max_tries") && a.MaxTries < 1 {
		c.field(a.at, "autopilot", "max_tries", fmt.Sprintf("must be at least 1 (got %d): the most times a transaction runs, its first try included", a.MaxTries))
	}
	if err == nil {
		c.option(a.at, "autopilot", "rate", scenario.RateOf(a.Rate, w != nil))
		c.option(a.at, "autopilot", "latency_limit", scenario.LatencyLimitOf(a.latencyLimit, w != nil))
	}
	b.kind = p.buildKind(c, specs)
	if w != nil {
		a.checkTPCCKeys(c)
	}
}

// buildKind is what the build makes, checked against the autopilot's
// workload (specs, resolved).
func (p *Plan) buildKind(c *checker, specs []string) string {
	b := &p.Build
	builtin, scripts := false, false
	for _, s := range specs {
		if s != "tpcc" {
			builtin, scripts = builtin || workload.IsBuiltin(s), scripts || !workload.IsBuiltin(s)
		}
	}
	kind := BuildTPCC
	switch {
	case b.Workload == "tpcb" || b.Workload == "" && builtin:
		kind = BuildTPCB
	case b.Workload != "" && b.Workload != "tpcc" || b.Workload == "" && scripts:
		kind = BuildNone
		if b.Init != "" {
			kind = BuildInit
		}
	}
	mismatch := func(msg string) {
		if b.at.Has("workload") {
			c.field(b.at, "build", "workload", msg)
		} else {
			c.field(p.Autopilot.at, "autopilot", "workload", msg)
		}
	}
	switch {
	case kind == BuildTPCC && (builtin || scripts):
		mismatch("the build is TPC-C's (build.workload: tpcc) and the autopilot runs pgbench scripts: build pgbench's tables with build.workload: tpcb, or a script's with build.init")
	case kind != BuildTPCC && !builtin && !scripts:
		mismatch("the build is " + b.Workload + "'s and the autopilot runs TPC-C: give the autopilot's workload (autopilot.workload)")
	}
	if kind == BuildTPCC {
		if !b.at.Has("warehouses") {
			c.add(p.at.Of("build"), "build.warehouses", "missing: how many warehouses to build (build: {warehouses: N}), or a pgbench workload (build: {workload: tpcb, scale: N})")
		} else if b.Warehouses < 1 {
			c.field(b.at, "build", "warehouses", "must be at least 1")
		}
		for _, k := range append([]string{"scale", "init"}, layoutKeys...) {
			if b.at.Has(k) {
				c.field(b.at, "build", k, "is for a pgbench workload's build (build.workload: tpcb or a script file); TPC-C's build has warehouses")
			}
		}
		return kind
	}
	for _, k := range []string{"warehouses", "seed"} {
		if b.at.Has(k) {
			c.field(b.at, "build", k, "is TPC-C's: a pgbench workload's build has scale (tpcb) or init (a script's tables)")
		}
	}
	if kind == BuildTPCB {
		if !b.at.Has("scale") {
			b.Scale = 1
		} else if b.Scale < 1 {
			c.field(b.at, "build", "scale", fmt.Sprintf("must be at least 1 (got %d)", b.Scale))
		}
		if b.at.Has("init") {
			c.field(b.at, "build", "init", "is a script workload's: tpcb builds pgbench's own tables")
		}
		c.option(b.at, "build", "fillfactor", b.Layout().Check())
		p.checkTPCBEngines(c)
		return kind
	}
	if b.at.Has("scale") {
		c.field(b.at, "build", "scale", "is tpcb's: a script workload's tables come from build.init (give the scripts' :scale as autopilot.scale)")
	}
	for _, k := range layoutKeys {
		if b.at.Has(k) {
			c.field(b.at, "build", k, "is tpcb's: it lays out pgbench's tables (build.workload: tpcb)")
		}
	}
	if b.Init != "" {
		if _, err := os.Stat(p.InitPath()); err != nil {
			c.field(b.at, "build", "init", fmt.Sprintf("%v: name the SQL file that creates and fills the scripts' tables, relative to the plan", err))
		}
	}
	return kind
}

// checkTPCBEngines refuses a tpcb build on a configuration that is not
// PostgreSQL (pgbench's tables are built on PostgreSQL only).
func (p *Plan) checkTPCBEngines(c *checker) {
	for _, cf := range p.Configurations {
		if e, ok := cf.registered(); ok && e.Name != "postgres" {
			c.field(p.Build.at, "build", "workload", fmt.Sprintf("configuration %s is %s: pgbench's tables are built on PostgreSQL only; create them in a build.init file and run a script workload", cf.Name, e.Name))
			return
		}
	}
}

// checkTPCCKeys refuses the autopilot keys that are TPC-C's with a
// pgbench workload, as run refuses their flags.
func (a *Autopilot) checkTPCCKeys(c *checker) {
	msg := func(key, what string) {
		if a.at.Has(key) {
			c.field(a.at, "autopilot", key, what+"; leave it out with a pgbench workload")
		}
	}
	if a.Mode != "" {
		msg("mode", "mode is TPC-C's: say how the scripts' statements are sent with protocol (prepared, extended, simple), as pgbench -M")
	}
	if a.Isolation != "" && a.Isolation != engine.IsolationSpec {
		msg("isolation", "isolation is TPC-C's: the scripts set their own")
	}
	if a.KeyingThinking {
		msg("keying_thinking", "keying and think times are TPC-C's")
	}
	if a.Connections > 0 {
		msg("connections", "shared connections are TPC-C's")
	}
	if a.Delivery.Deferred() {
		msg("delivery", "deferred Delivery is TPC-C's")
	}
}
