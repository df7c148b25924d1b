package plan

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/rightsize/rightsize/caps"
	"github.com/rightsize/rightsize/cost"
	"github.com/rightsize/rightsize/driver"
	"github.com/rightsize/rightsize/engine"
	"github.com/rightsize/rightsize/fit"
	"github.com/rightsize/rightsize/internal/units"
	"github.com/rightsize/rightsize/internal/yamlfile"
	"github.com/rightsize/rightsize/probe/storage"
	"github.com/rightsize/rightsize/registry"
	"github.com/rightsize/rightsize/scenario"
	"github.com/rightsize/rightsize/steady"
	"github.com/rightsize/rightsize/waits"
)

// managedEngines are the engines a plan can manage, the first the
// default: the managed servers of the engine registry, by the name a plan
// gives them (TestManagedEnginesRegistered checks them against the
// --target forms marked Managed).
var managedEngines = registry.ManagedNames()

// sweepKinds are the kinds in scenario's registry.
func sweepKinds() []string {
	var out []string
	for _, k := range scenario.SweepKinds() {
		out = append(out, k.Name)
	}
	return out
}

// checker collects problems with their positions.
type checker struct {
	file string
	errs yamlfile.Errors
	// bad are the fields whose values did not decode: their checks are
	// skipped (they would judge the zero value).
	bad []string
}

func (c *checker) add(p yamlfile.Pos, field, format string, args ...any) {
	if c.isBad(field) {
		return
	}
	c.errs = append(c.errs, &yamlfile.Error{File: c.file, Line: p.Line, Column: p.Column, Field: field, Msg: fmt.Sprintf(format, args...)})
}

// decoded reports the problems found decoding a mapping (see
// yamlfile.Collect) under its path, and marks their fields bad.
func (c *checker) decoded(a yamlfile.At, path string) {
	for _, e := range a.Problems {
		field := join(path, e.Field)
		c.errs = append(c.errs, &yamlfile.Error{File: c.file, Line: e.Line, Column: e.Column, Field: field, Msg: e.Msg})
		c.bad = append(c.bad, field)
	}
}

// isBad tells whether the field, or a mapping or list holding it, did not
// decode.
func (c *checker) isBad(field string) bool {
	for _, b := range c.bad {
		if field == b || b == "" || strings.HasPrefix(field, b+".") || strings.HasPrefix(field, b+"[") {
			return true
		}
	}
	return false
}

// has tells whether a problem of field is listed already.
func (c *checker) has(field string) bool {
	for _, e := range c.errs {
		if e.Field == field {
			return true
		}
	}
	return false
}

// field checks one field: fn returns the problem ("" when none).
func (c *checker) field(a yamlfile.At, path, key string, msg string) {
	if msg != "" {
		c.add(a.Of(key), join(path, key), "%s", msg)
	}
}

func join(path, key string) string {
	switch {
	case path == "":
		return key
	case key == "":
		return path
	}
	return path + "." + key
}

// Validate checks every field, fills in defaults and loads the cost file;
// it returns every problem found (nil when none).
func (p *Plan) Validate() yamlfile.Errors {
	c := &checker{file: p.Path}
	p.decodedAll(c)
	if strings.TrimSpace(p.Name) == "" {
		c.add(p.at.Pos, "name", "missing: name the study (runs are labelled NAME/CONFIGURATION)")
	}
	p.Build.validate(c)
	p.Autopilot.validate(c, p.at.Has("autopilot"), p.at.Of("autopilot"))
	p.validateWorkload(c)
	if p.Probe != nil && p.Probe.Storage != nil {
		p.Probe.Storage.validate(c)
	}
	p.loadCost(c)
	names := map[string]*Configuration{}
	if len(p.Configurations) == 0 {
		c.add(p.at.Of("configurations"), "configurations", "no configuration: add at least one (name, and cpus/memory/io/version or target)")
	}
	for i := range p.Configurations {
		cf := &p.Configurations[i]
		path := fmt.Sprintf("configurations[%d]", i)
		if names[cf.Name] != nil {
			c.add(cf.at.Of("name"), path+".name", "%q is used twice: names must be unique", cf.Name)
		}
		names[cf.Name] = cf
		cf.validate(c, path, p.CostModel)
	}
	for i := range p.Sweeps {
		p.Sweeps[i].validate(c, fmt.Sprintf("sweeps[%d]", i), names)
		if p.Sweeps[i].Kind == "version" && p.Autopilot.workload != nil {
			c.field(p.Sweeps[i].at, fmt.Sprintf("sweeps[%d]", i), "kind", "a version sweep rebuilds TPC-C's database per value: sweep cpus, memory or io with a pgbench workload")
		}
	}
	if p.Autopilot.Prewarm {
		p.checkPrewarm(c)
	}
	if p.Neighbour != nil {
		p.Neighbour.validate(c, names)
	}
	if p.Backups != nil {
		p.Backups.validate(c)
	}
	if p.Fit != nil {
		p.Fit.validate(c, names, p.CostModel, p.Autopilot.users, p.Autopilot.workload != nil)
		if p.Autopilot.Rate > 0 {
			c.field(p.Autopilot.at, "autopilot", "rate", "does not fit: fit finds the configuration whose users, running back to back, reach the target; drop rate, or the fit section (sweeps show a paced workload's latency by configuration)")
		}
	}
	if p.Report.Output == "" && p.Name != "" {
		p.Report.Output = p.Name + ".html"
	}
	c.errs.Sort()
	if len(c.errs) == 0 {
		return nil
	}
	return c.errs
}

// decodedAll reports every mapping's decoding problems first, so that
// the checks of the fields concerned are skipped.
func (p *Plan) decodedAll(c *checker) {
	c.decoded(p.at, "")
	c.decoded(p.Build.at, "build")
	c.decoded(p.Autopilot.at, "autopilot")
	if p.Probe != nil {
		c.decoded(p.Probe.at, "probe")
		if p.Probe.Storage != nil {
			c.decoded(p.Probe.Storage.at, "probe.storage")
		}
	}
	for i := range p.Configurations {
		c.decoded(p.Configurations[i].at, fmt.Sprintf("configurations[%d]", i))
	}
	for i := range p.Sweeps {
		c.decoded(p.Sweeps[i].at, fmt.Sprintf("sweeps[%d]", i))
	}
	if p.Neighbour != nil {
		c.decoded(p.Neighbour.at, "neighbour")
	}
	if p.Backups != nil {
		c.decoded(p.Backups.at, "backups")
	}
	if p.Fit != nil {
		c.decoded(p.Fit.at, "fit")
	}
	c.decoded(p.Report.at, "report")
}

// checkPrewarm refuses prewarm before anything runs when a
// configuration's engine cannot load its cache (its registry entry says).
func (p *Plan) checkPrewarm(c *checker) {
	var cannot []string
	var why error
	for _, cf := range p.Configurations {
		e, ok := cf.registered()
		if !ok {
			continue // its own problem, said at its engine or target
		}
		if err := e.CheckPrewarm(); err != nil {
			cannot, why = append(cannot, cf.Name), err
		}
	}
	if len(cannot) > 0 {
		c.field(p.Autopilot.at, "autopilot", "prewarm", fmt.Sprintf("configuration %s: %s", strings.Join(cannot, ", "), problem(why)))
	}
}

// registered is the registry's engine of the configuration.
func (cf *Configuration) registered() (registry.Engine, bool) {
	if cf.Managed() {
		e, _, ok := registry.ManagedNamed(cf.Engine)
		return e, ok
	}
	e, _, err := registry.EngineOf(cf.Target)
	return e, err == nil
}

func (p *Plan) loadCost(c *checker) {
	if p.Cost == "" {
		return
	}
	f, err := cost.Load(p.CostPath())
	var ye *yamlfile.Error
	var yes yamlfile.Errors
	switch {
	case errors.As(err, &yes):
		c.errs = append(c.errs, yes...)
	case errors.As(err, &ye):
		c.errs = append(c.errs, ye)
	case err != nil:
		c.add(p.at.Of("cost"), "cost", "%v", err)
	default:
		p.CostModel = f
	}
}

// validate checks the build's loaders; what it builds is checked with
// the autopilot's workload (validateWorkload).
func (b *Build) validate(c *checker) {
	if b.Loaders < 0 {
		c.field(b.at, "build", "loaders", "must not be negative")
	}
}

func (a *Autopilot) validate(c *checker, given bool, at yamlfile.Pos) {
	if !given || !a.at.Has("users") {
		c.add(at, "autopilot.users", "missing: the users sequence (e.g. users: fib:13)")
	} else if u, err := driver.ParseUsers(a.Users); err != nil {
		c.field(a.at, "autopilot", "users", strings.TrimPrefix(err.Error(), fmt.Sprintf("--users %q: ", a.Users)))
	} else {
		a.users = u
	}
	a.rampup = c.duration(a.at, "autopilot", "rampup", a.Rampup, scenario.DefaultRampup, true)
	a.duration = c.duration(a.at, "autopilot", "duration", a.Duration, 0, false)
	// Repeats, delivery, isolation and mode are judged by run's rules
	// (checkSpec); valid, the defaults are written out.
	if d, err := driver.ParseDelivery(string(a.Delivery)); err == nil {
		a.Delivery = d
	}
	if iso, err := engine.ParseIsolation(string(a.Isolation)); err == nil {
		a.Isolation = iso
	}
	a.reconnect = c.duration(a.at, "autopilot", "reconnect_timeout", a.ReconnectTimeout, driver.DefaultReconnectTimeout, true)
	a.waitEvery = c.duration(a.at, "autopilot", "wait_interval", a.WaitInterval, waits.DefaultInterval, true)
	a.latencyLimit = c.duration(a.at, "autopilot", "latency_limit", a.LatencyLimit, 0, true)
	a.validateAnswer(c)
	if !a.at.Has("repeats") {
		a.Repeats = a.answer.RepeatsMax
	}
	a.checkSpec(c)
}

// checkSpec checks the run options with the rules run's flags are checked
// by (scenario.RunOptions.CheckSpec), each problem at its field: the
// option's key (keyOf). A floor left out whose cap has a problem already
// is not blamed for it.
func (a *Autopilot) checkSpec(c *checker) {
	o := a.RunOptions()
	for _, e := range o.CheckSpec() {
		key := keyOf(e.Option)
		if c.has("autopilot."+key) || !a.at.Has(key) && c.has("autopilot."+capOf[key]) {
			continue // not a duration, or negative: said once
		}
		c.field(a.at, "autopilot", key, asKeys(e.Problem))
	}
}

// capOf is the cap a floor left out is derived from.
var capOf = map[string]string{"rampup_min": "rampup_max", "duration_min": "duration_max", "repeats": "repeats_max"}

// flagKeys are the flags whose plan key is not the flag's name with
// underscores.
var flagKeys = map[string]string{"repeat": "repeats", "repeat-max": "repeats_max", "io-limit": "io", "pg-version": "version", "set": "settings"}

// keyOf is the plan key of a run flag's option: driver-procs is
// driver_procs, repeat-max repeats_max.
func keyOf(flag string) string {
	if k, ok := flagKeys[flag]; ok {
		return k
	}
	return strings.ReplaceAll(flag, "-", "_")
}

// asKeys writes the flags a problem names as the keys a plan says them by.
func asKeys(problem string) string {
	return flagsAsKeys.ReplaceAllStringFunc(problem, func(f string) string { return keyOf(strings.TrimPrefix(f, "--")) })
}

// flagsAsKeys finds the flags a problem names, which a plan writes as keys.
var flagsAsKeys = regexp.MustCompile(`--[a-z][a-z-]*`)

// leadingFlag is the flag a parser's error begins with ("--memory 1x: ...").
var leadingFlag = regexp.MustCompile(`^--([a-z][a-z-]*):? `)

// option places the error of a flag's own parser at the key that says the
// flag in the plan (the flag it begins with, key when it names none),
// said once, every flag it names written as its key.
func (c *checker) option(a yamlfile.At, path, key string, err error) {
	if err == nil {
		return
	}
	msg := err.Error()
	if m := leadingFlag.FindStringSubmatch(msg); m != nil {
		key = keyOf(m[1])
	}
	if !c.has(join(path, key)) {
		c.field(a, path, key, problem(err))
	}
}

// problem is a flag parser's error as a plan says it: without the flags it
// begins with ("--values --cpus "x": want ..." is ""x": want ..."), every
// other flag written as its key ("" for nil).
func problem(err error) string {
	if err == nil {
		return ""
	}
	msg := err.Error()
	for m := leadingFlag.FindString(msg); m != ""; m = leadingFlag.FindString(msg) {
		msg = strings.TrimPrefix(msg, m)
	}
	return asKeys(msg)
}

// validateAnswer reads the time-to-answer keys: a rampup, duration or
// repeats left out is decided by the auto rules, within the caps
// (rampup_max, duration_max, repeats_max) and above the floors
// (rampup_min, duration_min); Timing then returns the caps.
func (a *Autopilot) validateAnswer(c *checker) {
	w := &a.answer
	w.RampupAuto, w.DurationAuto, w.RepeatsAuto = !a.at.Has("rampup"), !a.at.Has("duration"), !a.at.Has("repeats")
	w.RampupMax = c.duration(a.at, "autopilot", "rampup_max", a.RampupMax, scenario.DefaultRampupMax, false)
	w.DurationMax = c.duration(a.at, "autopilot", "duration_max", a.DurationMax, scenario.DefaultDurationMax, false)
	if w.DurationMax > 0 && w.DurationMax < steady.MinBatches*time.Second {
		c.field(a.at, "autopilot", "duration_max", fmt.Sprintf("must be at least %ds (the precision needs %d batches of 1 s)", steady.MinBatches, steady.MinBatches))
	}
	w.RampupMin = c.duration(a.at, "autopilot", "rampup_min", a.RampupMin, min(scenario.DefaultRampupMin, w.RampupMax), true)
	w.DurationMin = c.duration(a.at, "autopilot", "duration_min", a.DurationMin, min(scenario.DefaultDurationMin, w.DurationMax), false)
	w.RepeatsMax = scenario.DefaultRepeatMax
	if a.at.Has("repeats_max") {
		if w.RepeatsMax = a.RepeatsMax; a.RepeatsMax < 1 {
			c.field(a.at, "autopilot", "repeats_max", "must be at least 1")
		}
	}
	w.Precision = scenario.DefaultPrecision
	if a.Precision != "" {
		v, err := units.ParseShare(a.Precision)
		if err != nil {
			c.field(a.at, "autopilot", "precision", fmt.Sprintf("%q: want a percentage above 0 and below 100, such as 2%%", a.Precision))
		}
		w.Precision = v / 100
	}
	w.Confidence = c.percent(a.at, "autopilot", "confidence", a.Confidence, scenario.DefaultConfidence*100) / 100
	w.MaxCV = c.percent(a.at, "autopilot", "max_cv", a.MaxCV, scenario.DefaultMaxCV*100) / 100
	if w.RampupAuto {
		a.rampup = w.RampupMax
	}
	if w.DurationAuto {
		a.duration = w.DurationMax
	}
}

// percent parses a percentage field as run's percentage flags do
// (units.ParsePercent; the range is checked with the option); empty
// gives def.
func (c *checker) percent(a yamlfile.At, path, key, s string, def float64) float64 {
	if s == "" {
		return def
	}
	v, err := units.ParsePercent(s)
	if err != nil {
		c.field(a, path, key, fmt.Sprintf("%q: want a percentage such as %g%%", s, def))
		return def
	}
	return v
}

// duration parses a duration field; empty gives def. zeroOK allows 0.
func (c *checker) duration(a yamlfile.At, path, key, s string, def time.Duration, zeroOK bool) time.Duration {
	if s == "" {
		return def
	}
	d, err := time.ParseDuration(s)
	switch {
	case err != nil:
		c.field(a, path, key, fmt.Sprintf("%q is not a duration (write 30s, 2m or 1h30m)", s))
	case d < 0 || (d == 0 && !zeroOK):
		c.field(a, path, key, fmt.Sprintf("must be above 0 (%s)", s))
	}
	return d
}

func (s *StorageProbe) validate(c *checker) {
	const path = "probe.storage"
	if s.Preset == "" {
		s.Preset = "sqlserver"
	}
	s.duration = c.duration(s.at, path, "duration", s.Duration, storage.DefaultDuration, false)
	jobs, err := storage.Preset(s.Preset, s.duration)
	if err != nil {
		c.field(s.at, path, "preset", err.Error())
	}
	for _, j := range jobs {
		s.total += j.Duration
	}
	if s.Size != "" {
		if _, err := units.ParseSize(s.Size); err != nil {
			c.field(s.at, path, "size", err.Error())
		}
	}
}

func (cf *Configuration) validate(c *checker, path string, costs *cost.File) {
	if strings.TrimSpace(cf.Name) == "" {
		c.add(cf.at.Pos, path+".name", "missing: every configuration needs a name")
	}
	if cf.Managed() {
		cf.validateManaged(c, path)
	} else {
		cf.validateExternal(c, path)
	}
	if cf.Cost != "" {
		switch {
		case costs == nil:
			c.field(cf.at, path, "cost", "names a cost config, but the plan has no cost file (cost: FILE at the top level)")
		case !hasCostConfig(costs, cf.Cost):
			c.field(cf.at, path, "cost", fmt.Sprintf("%q is not a config of %s", cf.Cost, costs.Path))
		}
	}
}

func hasCostConfig(f *cost.File, name string) bool {
	for _, c := range f.Configs {
		if c.Name == name {
			return true
		}
	}
	return false
}

func (cf *Configuration) validateManaged(c *checker, path string) {
	if cf.Engine == "" {
		cf.Engine = managedEngines[0]
	}
	if !oneOf(cf.Engine, managedEngines) {
		c.field(cf.at, path, "engine", fmt.Sprintf("%q is not a managed engine (%s; or give target: a DSN)", cf.Engine, strings.Join(managedEngines, ", ")))
	}
	if cf.at.Has("version") {
		c.field(cf.at, path, "version", checkVersion(cf.Engine, cf.Version))
	}
	if cf.at.Has("cpus") {
		c.field(cf.at, path, "cpus", checkCpus(strconv.FormatFloat(cf.Cpus, 'g', -1, 64)))
	}
	if cf.at.Has("memory") {
		c.field(cf.at, path, "memory", checkMemory(cf.Memory))
	}
	if cf.at.Has("io") {
		c.field(cf.at, path, "io", checkIO(cf.IO))
	}
	if cf.at.Has("password_env") {
		c.field(cf.at, path, "password_env", "applies to an external target only")
	}
	cf.validateRunCaps(c, path)
}

// validateRunCaps checks the keys that say run's --driver-cpus, --caps and
// --pg-bin, with their flags' parsers.
func (cf *Configuration) validateRunCaps(c *checker, path string) {
	if cf.at.Has("driver_cpus") {
		_, err := caps.Caps{DriverCPUs: cf.DriverCPUs}.Plan(engine.Tuning{}, runtime.NumCPU())
		c.option(cf.at, path, "driver_cpus", err)
	}
	if cf.at.Has("caps") {
		_, err := caps.ParseMode(cf.Caps)
		c.option(cf.at, path, "caps", err)
	}
	if !cf.at.Has("pg_bin") {
		return
	}
	e, _, ok := registry.ManagedNamed(cf.Engine)
	switch {
	case ok && e.Managed.Versions == nil:
		c.field(cf.at, path, "pg_bin", fmt.Sprintf("applies to the %s only (installed binaries instead of a version rightsize downloads)",
			strings.Join(registry.Versioned(), " and ")))
	case cf.at.Has("version"):
		c.field(cf.at, path, "pg_bin", "version and pg_bin both choose the binaries; give one")
	case strings.TrimSpace(cf.PGBin) == "":
		c.field(cf.at, path, "pg_bin", "empty: the directory of the installed binaries, e.g. pg_bin: /usr/lib/postgresql/16/bin")
	}
}

func (cf *Configuration) validateExternal(c *checker, path string) {
	for _, k := range []string{"engine", "version", "cpus", "memory", "io", "data_dir", "wal_dir", "settings", "driver_cpus", "caps", "cgroup_parent", "pg_bin"} {
		if cf.at.Has(k) {
			c.field(cf.at, path, k, "applies to a managed server only: rightsize cannot cap or configure an external target")
		}
	}
	u, err := url.Parse(cf.Target)
	if e, managed, eerr := registry.EngineOf(cf.Target); err != nil || eerr != nil || managed || !e.Caps.Server {
		c.field(cf.at, path, "target", "want a DSN such as postgres://user@host:5432/db, mysql://..., sqlserver://...")
		return
	}
	if _, ok := u.User.Password(); ok {
		c.field(cf.at, path, "target", "holds a password: remove it and name the environment variable that holds it with password_env")
	}
	switch {
	case cf.PasswordEnv == "":
	case os.Getenv(cf.PasswordEnv) == "":
		c.field(cf.at, path, "password_env", fmt.Sprintf("environment variable %s is not set (export it before running the study)", cf.PasswordEnv))
	}
}

// checkVersion checks a version of the managed server a plan calls
// engine against the versions the registry says it starts.
func checkVersion(engine, v string) string {
	var ve *registry.VersionError
	if !errors.As(registry.CheckVersion(engine, v), &ve) {
		return ""
	}
	if len(ve.Offered) == 0 {
		msg := "a version applies to the " + strings.Join(registry.Versioned(), " and ") + " only"
		if e, _, ok := registry.ManagedNamed(engine); ok && e.Managed.VersionNote != "" {
			msg += " (" + e.Managed.VersionNote + ")"
		}
		return msg
	}
	vs := ve.Offered[0]
	return fmt.Sprintf("%q is not a %s version rightsize can start (%s)", v, vs.Product, strings.Join(vs.List, ", "))
}

// checkCpus checks cores with run's --cpus parser, on this machine.
func checkCpus(s string) string {
	_, err := caps.ParseCPUs(s, runtime.NumCPU())
	return problem(err)
}

func checkMemory(s string) string {
	if _, err := units.ParseSize(s); err != nil {
		return err.Error()
	}
	return ""
}

// checkIO checks an I/O limit with run's --io-limit parser: none, or
// riops=N, wiops=N, rbps=SIZE, wbps=SIZE separated by commas (or colons,
// inside a sweep's values); a plan writes none rather than nothing.
func checkIO(s string) string {
	if strings.TrimSpace(s) == "" {
		return "empty: write none or riops=N,wiops=N,rbps=SIZE,wbps=SIZE"
	}
	_, err := caps.ParseIOLimit(s)
	return problem(err)
}

// managedConfig finds a managed configuration by name for a field naming it.
func managedConfig(c *checker, a yamlfile.At, path, key, name string, names map[string]*Configuration) *Configuration {
	cf := names[name]
	switch {
	case name == "":
		c.add(a.Pos, join(path, key), "missing: name the configuration")
	case cf == nil:
		c.field(a, path, key, fmt.Sprintf("%q is not a configuration of this plan", name))
	case !cf.Managed():
		c.field(a, path, key, fmt.Sprintf("%q is an external target: only managed servers can be changed", name))
	default:
		return cf
	}
	return nil
}

func (s *Sweep) validate(c *checker, path string, names map[string]*Configuration) {
	if !oneOf(s.Kind, sweepKinds()) {
		c.add(s.at.Of("kind"), path+".kind", "%q is not a sweep kind (%s)", s.Kind, strings.Join(sweepKinds(), ", "))
	}
	cf := managedConfig(c, s.at, path, "configuration", s.Configuration, names)
	if len(s.Values) == 0 {
		c.add(s.at.Of("values"), path+".values", "no value: list the values to sweep")
	}
	for i, v := range s.Values {
		var msg string
		switch s.Kind {
		case "memory":
			msg = checkMemory(v.Value)
		case "cpus":
			msg = checkCpus(v.Value)
		case "io":
			msg = checkIO(v.Value)
		case "version":
			engine := managedEngines[0]
			if cf != nil {
				engine = cf.Engine
			}
			msg = checkVersion(engine, v.Value)
		}
		if msg != "" {
			c.add(v.Pos, fmt.Sprintf("%s.values[%d]", path, i), "%s", msg)
		}
	}
	if s.KneeThreshold != "" {
		c.field(s.at, path, "knee_threshold", checkKnee(s.KneeThreshold))
	}
}

func (n *Neighbour) validate(c *checker, names map[string]*Configuration) {
	const path = "neighbour"
	managedConfig(c, n.at, path, "configuration", n.Configuration, names)
	if n.Instances < 2 {
		c.field(n.at, path, "instances", "must be at least 2 (neighbours share the storage)")
	}
	if n.Users < 1 {
		c.field(n.at, path, "users", "must be at least 1 (virtual users per instance)")
	}
	n.rampup = c.duration(n.at, path, "rampup", n.Rampup, scenario.DefaultRampup, true)
	if n.Duration == "" {
		c.add(n.at.Pos, path+".duration", "missing: the measured duration of each phase")
	}
	n.duration = c.duration(n.at, path, "duration", n.Duration, 0, false)
	if n.BackupInstances < 0 || n.BackupInstances > n.Instances {
		c.field(n.at, path, "backup_instances", fmt.Sprintf("must be between 0 and instances (%d)", n.Instances))
	}
	n.every = c.duration(n.at, path, "backup_every", n.BackupEvery, 100*time.Second, false)
	if n.BackupInstances > 0 && n.at.Has("backup_cycles") && n.BackupCycles < 1 {
		c.field(n.at, path, "backup_cycles", "must be at least 1")
	}
	if !n.at.Has("backup_cycles") {
		n.BackupCycles = 1
	}
}

func (b *Backups) validate(c *checker) {
	if !b.at.Has("cycles") {
		b.Cycles = 1
	} else if b.Cycles < 1 {
		c.field(b.at, "backups", "cycles", "must be at least 1")
	}
	b.every = c.duration(b.at, "backups", "every", b.Every, 0, true)
}

func (f *Fit) validate(c *checker, names map[string]*Configuration, costs *cost.File, users []int, scripts bool) {
	const path = "fit"
	cf := managedConfig(c, f.at, path, "configuration", f.Configuration, names)
	switch {
	case costs == nil:
		c.add(f.at.Pos, path+".cost", "fit prices candidates: the plan needs a cost file (cost: FILE at the top level)")
	case f.Cost == "" && cf != nil && cf.Cost != "":
		f.Cost = cf.Cost
	case f.Cost == "":
		c.add(f.at.Pos, path+".cost", "missing: the cost file's config that prices the candidates")
	case !hasCostConfig(costs, f.Cost):
		c.field(f.at, path, "cost", fmt.Sprintf("%q is not a config of %s", f.Cost, costs.Path))
	}
	if scripts {
		f.validateScripts(c)
	} else if f.at.Has("target_tps") {
		c.field(f.at, path, "target_tps", "is a pgbench workload's target (autopilot.workload); TPC-C's is target_nopm")
	} else if f.TargetNOPM == "" {
		c.add(f.at.Pos, path+".target_nopm", "missing: the NOPM to meet (a number, or from:RUN / from:CONFIGURATION)")
	} else {
		_, _, err := scenario.ParseTargetNOPM(f.TargetNOPM)
		c.option(f.at, path, "target_nopm", err)
	}
	if f.Headroom != "" {
		_, err := scenario.ParseHeadroom(f.Headroom)
		c.option(f.at, path, "headroom", err)
	}
	if f.MaxP90Ms < 0 {
		c.field(f.at, path, "max_p90_ms", "must not be negative")
	}
	if f.Runs != 0 {
		if err := fit.CheckRuns(f.Runs); err != nil {
			c.field(f.at, path, "runs", err.Error())
		}
	}
	f.users = users
	if f.Users != "" {
		u, err := driver.ParseUsers(f.Users)
		if err != nil {
			c.field(f.at, path, "users", strings.TrimPrefix(err.Error(), fmt.Sprintf("--users %q: ", f.Users)))
		}
		f.users = u
	}
	if f.At != "" {
		n, err := scenario.ParseAt(f.At)
		if err == nil {
			err = scenario.CheckAt(n, f.users)
		}
		c.option(f.at, path, "at", err)
	}
	if f.Confidence != "" {
		_, err := scenario.ParseConfidence(f.Confidence)
		c.option(f.at, path, "confidence", err)
	}
	if f.at.Has("from") && strings.TrimSpace(f.From) == "" {
		c.field(f.at, path, "from", "empty: a stored run (id or label) or a configuration of this plan for the model to learn from first")
	}
	f.validateLists(c, cf)
}

// validateScripts checks a fit of a pgbench workload: target_tps, and
// none of TPC-C's target_nopm or versions, as fit refuses their flags.
func (f *Fit) validateScripts(c *checker) {
	const path = "fit"
	switch {
	case f.at.Has("target_nopm"):
		c.field(f.at, path, "target_nopm", "is TPC-C's: a pgbench workload's target is target_tps")
	case !f.at.Has("target_tps"):
		c.add(f.at.Pos, path+".target_tps", "missing: the transactions per second to meet (the workload's figure of merit)")
	case f.TargetTPS <= 0:
		c.field(f.at, path, "target_tps", fmt.Sprintf("must be a positive number of transactions per second (got %g)", f.TargetTPS))
	}
	if len(f.Versions) > 0 {
		c.field(f.at, path, "versions", "versions rebuild TPC-C's database per version; leave them out with a pgbench workload")
	}
}

func (f *Fit) validateLists(c *checker, cf *Configuration) {
	check := func(key string, vals []yamlfile.Str, fn func(string) string) {
		for i, v := range vals {
			if msg := fn(v.Value); msg != "" {
				c.add(v.Pos, fmt.Sprintf("fit.%s[%d]", key, i), "%s", msg)
			}
		}
	}
	if len(f.Cpus) == 0 && len(f.Memory) == 0 && len(f.IO) == 0 && len(f.Versions) == 0 {
		c.add(f.at.Pos, "fit", "no candidate: list cpus, memory, io or versions to try")
	}
	check("cpus", f.Cpus, checkCpus)
	check("memory", f.Memory, checkMemory)
	check("io", f.IO, checkIO)
	engine := managedEngines[0]
	if cf != nil {
		engine = cf.Engine
	}
	check("versions", f.Versions, func(s string) string { return checkVersion(engine, s) })
}

func oneOf(v string, list []string) bool {
	for _, x := range list {
		if v == x {
			return true
		}
	}
	return false
}

// checkKnee checks a sweep's knee threshold: a drop in NOPM (or rise in
// New-Order p90) against the best value, above 0 and below 100 %, as the
// sweep itself requires.
func checkKnee(s string) string {
	_, err := units.ParseShare(s)
	switch {
	case errors.Is(err, units.ErrOutOfRange):
		return fmt.Sprintf("%s is not above 0 and below 100 %%, as a sweep needs (the NOPM drop or p90 rise against the best value that marks the knee); write e.g. knee_threshold: 10%%", strings.TrimSpace(s))
	case err != nil:
		return fmt.Sprintf("%q is not a percentage; write e.g. knee_threshold: 10%%", s)
	}
	return ""
}
