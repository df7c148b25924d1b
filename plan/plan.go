// Package plan reads a study plan: one YAML file describing a whole study
// (configurations on managed servers with their caps and versions, or
// external servers by DSN; the storage probe; the build; the autopilot;
// sweeps; the noisy-neighbour scenario; backups; the cost model; fit; the
// report). Load decodes it strictly and validates every field, naming the
// file, line, column and field of every problem (a value of the wrong type
// as much as a value out of range); Estimate adds up the plan's durations.
package plan

import (
	"os"
	"path/filepath"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/rightsize/rightsize/cost"
	"github.com/rightsize/rightsize/driver"
	"github.com/rightsize/rightsize/engine"
	"github.com/rightsize/rightsize/internal/yamlfile"
	"github.com/rightsize/rightsize/pgbench/workload"
	"github.com/rightsize/rightsize/scenario"
)

// Plan is a study plan.
type Plan struct {
	// Name names the study (runs are labelled NAME/CONFIGURATION).
	Name string `yaml:"name"`
	// Description is free text shown in the report.
	Description string `yaml:"description"`
	// Store is the results store (default: the command's --store).
	Store string `yaml:"store"`
	// Build is the database every configuration runs on.
	Build Build `yaml:"build"`
	// Autopilot is the users sequence and its timing, for every run.
	Autopilot Autopilot `yaml:"autopilot"`
	// Probe is what is probed per managed configuration (optional).
	Probe *Probe `yaml:"probe"`
	// Configurations are the servers compared.
	Configurations []Configuration `yaml:"configurations" want:"a list of configurations: one \"- name: ...\" item each"`
	// Sweeps change one thing of a configuration at a time (optional).
	Sweeps []Sweep `yaml:"sweeps" want:"a list of sweeps: one \"- kind: ...\" item each"`
	// Neighbour is the noisy-neighbour scenario (optional).
	Neighbour *Neighbour `yaml:"neighbour"`
	// Backups times backups per managed configuration (optional).
	Backups *Backups `yaml:"backups"`
	// Cost is a cost file, relative to the plan (optional).
	Cost string `yaml:"cost"`
	// Fit searches for the cheapest configuration meeting a target.
	Fit *Fit `yaml:"fit"`
	// Report is where the study's report goes.
	Report Report `yaml:"report"`

	// Path is the plan file; CostModel the cost file it names, loaded.
	Path      string     `yaml:"-"`
	CostModel *cost.File `yaml:"-"`
	at        yamlfile.At
}

// Build is the database built once and restored per configuration:
// TPC-C's warehouses (the default), pgbench's tables (workload: tpcb,
// scale), or a script workload's own tables (workload: FILE, init:
// SQL file), as build's flags say.
type Build struct {
	Warehouses int    `yaml:"warehouses" want:"a whole number of warehouses; write e.g. warehouses: 4"`
	Seed       uint64 `yaml:"seed" want:"a whole number, 0 or more; write e.g. seed: 42"`
	Loaders    int    `yaml:"loaders" want:"a whole number of loaders; write e.g. loaders: 2"`
	// Workload is tpcc (the default), tpcb (pgbench's tables, at Scale)
	// or a pgbench script file, relative to the plan (its tables made by
	// Init, or the database as it is), as build's --workload. Left out,
	// it follows the autopilot's workload (tpcb for pgbench's built-in
	// scripts).
	Workload string `yaml:"workload"`
	// Scale is pgbench's scale of a tpcb build (default 1), as build's
	// --scale.
	Scale int `yaml:"scale" want:"a whole number, 1 or more; write e.g. scale: 10"`
	// FillFactor, Partitions, PartitionMethod, UnloggedTables and
	// ForeignKeys lay out a tpcb build's tables, as build's --fillfactor,
	// --partitions, --partition-method, --unlogged-tables and
	// --foreign-keys (pgbench -i's options).
	FillFactor      int    `yaml:"fillfactor" want:"a whole number, 10 to 100; write e.g. fillfactor: 90"`
	Partitions      int    `yaml:"partitions" want:"a whole number, 0 or more; write e.g. partitions: 4"`
	PartitionMethod string `yaml:"partition_method"`
	UnloggedTables  bool   `yaml:"unlogged_tables" want:"true or false"`
	ForeignKeys     bool   `yaml:"foreign_keys" want:"true or false"`
	// Init is an SQL file, relative to the plan, that creates and fills a
	// script workload's tables, run as it is (build's --init).
	Init string `yaml:"init"`
	at   yamlfile.At

	kind string // BuildTPCC, BuildTPCB, BuildInit or BuildNone (Validate)
}

// Autopilot is the users sequence, ramp-up, measured duration and repeats.
// Rampup, Duration and Repeats left out are decided by the time-to-answer
// rules (steady state, precision, agreement of the repeats) within
// RampupMax, DurationMax and RepeatsMax; given, they are fixed.
type Autopilot struct {
	Users          string      `yaml:"users"`
	Rampup         string      `yaml:"rampup"`
	Duration       string      `yaml:"duration"`
	Repeats        int         `yaml:"repeats" want:"a whole number of repeats; write e.g. repeats: 3"`
	Mode           engine.Mode `yaml:"mode"` // "": the engine's default
	KeyingThinking bool        `yaml:"keying_thinking" want:"true or false"`
	// Connections is how many connections a step's users share (0: one
	// per user), as run's --connections.
	Connections int `yaml:"connections" want:"a whole number of connections; write e.g. connections: 10, or 0 for one per user"`
	// Delivery is interactive (default) or deferred, as run's --delivery.
	Delivery driver.Delivery `yaml:"delivery"`
	// Isolation is spec (default) or read-committed, as run's --isolation.
	Isolation engine.Isolation `yaml:"isolation"`
	// Seed seeds the transaction inputs (0: random), as run's --seed;
	// build.seed is the data's.
	Seed uint64 `yaml:"seed" want:"a whole number, 0 or more; write e.g. seed: 42"`
	// ReconnectTimeout ends a step (partial) when users cannot reconnect
	// for this long (default 30s), as run's --reconnect-timeout.
	ReconnectTimeout string `yaml:"reconnect_timeout"`
	// RebuildBetweenRepeats restores the built database before each
	// repeat, as run's --rebuild-between-repeats.
	RebuildBetweenRepeats bool `yaml:"rebuild_between_repeats" want:"true or false"`
	// DriverProcs is the driver's GOMAXPROCS during steps (0: adaptive),
	// as run's --driver-procs.
	DriverProcs int `yaml:"driver_procs" want:"a whole number of Ps; write e.g. driver_procs: 2, or 0 for adaptive"`
	// Rate paces a pgbench workload's users to this many transactions per
	// second in all (0: back to back), as run's --rate.
	Rate float64 `yaml:"rate" want:"a number of transactions per second; write e.g. rate: 500, or 0 for none"`
	// LatencyLimit counts a pgbench workload's transactions over it (and,
	// paced, skips those already too late), as run's --latency-limit.
	LatencyLimit string `yaml:"latency_limit"`
	// DriverLoops is how many loops run a pgbench workload's users (0:
	// one per 16, -1: a goroutine per user), as run's --driver-loops.
	DriverLoops int `yaml:"driver_loops" want:"a whole number of loops; write e.g. driver_loops: 4, 0 for one per 16 users or -1 for none"`
	// NoWaits turns wait event sampling off and WaitInterval is its
	// interval (default 100ms), as run's --no-waits and --wait-interval.
	NoWaits      bool   `yaml:"no_waits" want:"true or false"`
	WaitInterval string `yaml:"wait_interval"`
	// Prewarm loads each run's database into the server's cache before
	// its ramp-up, as run's --prewarm.
	Prewarm bool `yaml:"prewarm" want:"true or false"`
	// Precision (default 2%) and the caps of the auto rules (defaults 2m,
	// 5m and 3, as run's --rampup-max, --duration-max, --repeat-max).
	Precision   string `yaml:"precision"`
	RampupMax   string `yaml:"rampup_max"`
	DurationMax string `yaml:"duration_max"`
	RepeatsMax  int    `yaml:"repeats_max" want:"a whole number of repeats; write e.g. repeats_max: 3"`
	// RampupMin and DurationMin are the floors of the auto rules (defaults
	// 10s and 30s, or the cap when shorter), as run's --rampup-min and
	// --duration-min; Confidence is the intervals' level (default 95%),
	// MaxCV the repeats' agreement (default 5%), as run's --confidence
	// and --max-cv.
	RampupMin   string `yaml:"rampup_min"`
	DurationMin string `yaml:"duration_min"`
	Confidence  string `yaml:"confidence"`
	MaxCV       string `yaml:"max_cv"`
	// Workload is what the users run: tpcc (the default), tpcb,
	// simple-update, select-only or pgbench script files (relative to
	// the plan), each with @WEIGHT, one or a list, as run's --workload;
	// left out, the build's workload. Define, Scale, RandomSeed, Figure,
	// Protocol, MaxTries and Connect are run's --define (a mapping),
	// --scale, --random-seed, --figure, --protocol, --max-tries and
	// --connect.
	Workload   Specs             `yaml:"workload"`
	Define     map[string]string `yaml:"define" want:"a mapping of variables; write e.g. define: {nbranches: 10}"`
	Scale      int               `yaml:"scale" want:"a whole number, 1 or more; write e.g. scale: 10"`
	RandomSeed uint64            `yaml:"random_seed" want:"a whole number, 0 or more; write e.g. random_seed: 42"`
	Figure     string            `yaml:"figure"`
	Protocol   string            `yaml:"protocol"`
	MaxTries   int               `yaml:"max_tries" want:"a whole number, 1 or more; write e.g. max_tries: 1"`
	Connect    bool              `yaml:"connect" want:"true or false"`
	at         yamlfile.At

	users                                  []int
	rampup, duration, reconnect, waitEvery time.Duration
	latencyLimit                           time.Duration
	answer                                 Answer
	workload                               *workload.Workload // nil: TPC-C
}

// RunOptions are the run options the autopilot says, as run's flags
// would: the users, the lengths (the caps when the time-to-answer rules
// decide them, see AnswerRules), the step's driver.Spec, the rules and
// the rest. The study adds what is the configuration's (label, flags,
// warehouses).
func (a Autopilot) RunOptions() scenario.RunOptions {
	spec := driver.Spec{Rampup: a.rampup, Duration: a.duration, Mode: a.Mode, KeyingThinking: a.KeyingThinking,
		Connections: a.Connections, Delivery: a.Delivery, ReconnectTimeout: a.reconnect, Rate: a.Rate,
		LatencyLimit: a.latencyLimit}
	o := scenario.RunOptions{
		RunSpec: scenario.RunSpec{Spec: spec, Users: a.users, Repeats: a.Repeats, RebuildBetweenRepeats: a.RebuildBetweenRepeats,
			Seed: a.Seed, NoWaits: a.NoWaits, WaitInterval: a.waitEvery},
		Isolation: a.Isolation, DriverProcs: a.DriverProcs, DriverLoops: a.DriverLoops, Prewarm: a.Prewarm,
	}
	if a.workload != nil {
		o.Workload = a.workload.Fresh() // each run its own :scale read
	}
	a.answer.Apply(&o)
	return o
}

// Answer is which of the autopilot's lengths the time-to-answer rules
// decide, their floors and caps, the precision and level asked and the
// repeats' agreement, as run's flags say them.
type Answer = scenario.AnswerRules

// Probe says what to probe per managed configuration.
type Probe struct {
	Storage *StorageProbe `yaml:"storage"`
	at      yamlfile.At
}

// StorageProbe is a storage probe of the configuration's data directory.
type StorageProbe struct {
	Preset   string `yaml:"preset"`
	Duration string `yaml:"duration"`
	Size     string `yaml:"size"`
	at       yamlfile.At

	duration, total time.Duration
}

// Configuration is one server configuration: managed (engine, version and
// caps) or external (target DSN, password from an environment variable).
type Configuration struct {
	Name string `yaml:"name"`
	// Engine is postgres or mariadb for a managed server (default postgres).
	Engine  string `yaml:"engine"`
	Version string `yaml:"version"`
	// Cpus, Memory and IO are the caps: cores (fractions are a CPU quota),
	// a size like 512M, and riops=N,wiops=N,rbps=SIZE,wbps=SIZE or none.
	Cpus     float64           `yaml:"cpus" want:"a number of cores; write e.g. cpus: 2 or cpus: 0.5"`
	Memory   string            `yaml:"memory"`
	IO       string            `yaml:"io"`
	DataDir  string            `yaml:"data_dir"`
	WALDir   string            `yaml:"wal_dir"`
	Settings map[string]string `yaml:"settings" want:"a mapping of server settings; write e.g. settings: {shared_buffers: 128MB}"`
	// DriverCPUs, Caps (strict or best-effort) and CgroupParent are run's
	// --driver-cpus, --caps and --cgroup-parent; PGBin is --pg-bin
	// (installed PostgreSQL binaries instead of a version).
	DriverCPUs   string `yaml:"driver_cpus"`
	Caps         string `yaml:"caps"`
	CgroupParent string `yaml:"cgroup_parent"`
	PGBin        string `yaml:"pg_bin"`
	// Target is an external server's DSN, without its password;
	// PasswordEnv names the environment variable holding the password.
	Target      string `yaml:"target"`
	PasswordEnv string `yaml:"password_env"`
	// Cost names the cost file's config that prices this configuration.
	Cost string `yaml:"cost"`
	at   yamlfile.At
}

// Managed tells whether rightsize starts the server itself.
func (c *Configuration) Managed() bool { return c.Target == "" }

// Sweep runs one configuration once per value of one setting.
type Sweep struct {
	// Kind is memory, cpus, io or version.
	Kind string `yaml:"kind"`
	// Configuration is the configuration swept (its other settings stay).
	Configuration string         `yaml:"configuration"`
	Values        []yamlfile.Str `yaml:"values" want:"a list of values; write e.g. values: [1G, 512M]"`
	// KneeThreshold is the drop (NOPM) or rise (p90) marking the knee, "10%".
	KneeThreshold string `yaml:"knee_threshold"`
	at            yamlfile.At
}

// Neighbour is N instances of one configuration on the same storage, a
// baseline phase, then a phase with backups on some of them.
type Neighbour struct {
	Configuration   string `yaml:"configuration"`
	Instances       int    `yaml:"instances" want:"a whole number of instances; write e.g. instances: 3"`
	Users           int    `yaml:"users" want:"a whole number of users per instance; write e.g. users: 4"`
	Rampup          string `yaml:"rampup"`
	Duration        string `yaml:"duration"`
	BackupInstances int    `yaml:"backup_instances" want:"a whole number of instances; write e.g. backup_instances: 1"`
	BackupEvery     string `yaml:"backup_every"`
	BackupCycles    int    `yaml:"backup_cycles" want:"a whole number of backups; write e.g. backup_cycles: 2"`
	at              yamlfile.At

	rampup, duration, every time.Duration
}

// Backups times full backups and restores per managed configuration.
type Backups struct {
	Cycles int    `yaml:"cycles" want:"a whole number of backups; write e.g. cycles: 2"`
	Every  string `yaml:"every"`
	at     yamlfile.At

	every time.Duration
}

// Fit searches the cheapest configuration that meets a target (see the
// fit package); candidates vary the named configuration.
type Fit struct {
	// Configuration is the plan configuration the candidates vary; Cost
	// the cost file's config that prices them.
	Configuration string `yaml:"configuration"`
	Cost          string `yaml:"cost"`
	// TargetNOPM is a number or from:RUN (a stored run, or from:CONFIG,
	// a configuration of this plan); Headroom adds a percentage.
	TargetNOPM string `yaml:"target_nopm"`
	// TargetTPS is a pgbench workload's target: its figure of merit's
	// transactions per second, as fit's --target-tps.
	TargetTPS  float64        `yaml:"target_tps" want:"a number of transactions per second; write e.g. target_tps: 500"`
	Headroom   string         `yaml:"headroom"`
	MaxP90Ms   float64        `yaml:"max_p90_ms" want:"a number of milliseconds; write e.g. max_p90_ms: 50"`
	Users      string         `yaml:"users"`
	At         string         `yaml:"at"`
	Confidence string         `yaml:"confidence"`
	Cpus       []yamlfile.Str `yaml:"cpus" want:"a list of cores; write e.g. cpus: [0.5, 1, 2]"`
	Memory     []yamlfile.Str `yaml:"memory" want:"a list of sizes; write e.g. memory: [256M, 1G]"`
	IO         []yamlfile.Str `yaml:"io" want:"a list of I/O limits; write e.g. io: [none, riops=2000]"`
	Versions   []yamlfile.Str `yaml:"versions" want:"a list of versions; write e.g. versions: [16, 17]"`
	// Runs is the most runs measured of a candidate whose interval holds
	// the target (fit --runs); 0 is fit's default.
	Runs int `yaml:"runs" want:"a whole number of runs; write e.g. runs: 3"`
	// MeasureAll keeps fit's proof by measurement (fit --measure-all):
	// predictions rule nothing out.
	MeasureAll bool `yaml:"measure_all" want:"true or false; write e.g. measure_all: true"`
	// From is a stored run (id or label, or a configuration of this plan)
	// the model learns the demands from first, as fit's --from.
	From string `yaml:"from"`
	at   yamlfile.At

	users []int
}

// Report is the study's report file.
type Report struct {
	Output string `yaml:"output"`
	Title  string `yaml:"title"`
	at     yamlfile.At
}

// Load reads, decodes and validates a plan file, and loads the cost file
// it names. Problems are a yamlfile.Errors (every one) or a
// *yamlfile.Error.
func Load(path string) (*Plan, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(path, b)
}

// Parse decodes and validates a plan's text; path names it in errors and
// anchors the cost file's relative path.
func Parse(path string, b []byte) (*Plan, error) {
	p := &Plan{}
	if err := yamlfile.Decode(path, b, p); err != nil {
		return nil, err
	}
	p.Path = path
	if errs := p.Validate(); len(errs) > 0 {
		return nil, errs
	}
	return p, nil
}

// CostPath is the cost file's path, relative to the plan's directory.
func (p *Plan) CostPath() string {
	if p.Cost == "" || filepath.IsAbs(p.Cost) {
		return p.Cost
	}
	return filepath.Join(filepath.Dir(p.Path), p.Cost)
}

// UnmarshalYAML decodes strictly, recording every problem (see Validate).
func (p *Plan) UnmarshalYAML(n *yaml.Node) error {
	type plain Plan
	return yamlfile.Collect(n, (*plain)(p), &p.at)
}

// UnmarshalYAML decodes strictly, recording every problem (see Validate).
func (b *Build) UnmarshalYAML(n *yaml.Node) error {
	type plain Build
	return yamlfile.Collect(n, (*plain)(b), &b.at)
}

// UnmarshalYAML decodes strictly, recording every problem (see Validate).
func (a *Autopilot) UnmarshalYAML(n *yaml.Node) error {
	type plain Autopilot
	return yamlfile.Collect(n, (*plain)(a), &a.at)
}

// UnmarshalYAML decodes strictly, recording every problem (see Validate).
func (p *Probe) UnmarshalYAML(n *yaml.Node) error {
	type plain Probe
	return yamlfile.Collect(n, (*plain)(p), &p.at)
}

// UnmarshalYAML decodes strictly, recording every problem (see Validate).
func (s *StorageProbe) UnmarshalYAML(n *yaml.Node) error {
	type plain StorageProbe
	return yamlfile.Collect(n, (*plain)(s), &s.at)
}

// UnmarshalYAML decodes strictly, recording every problem (see Validate).
func (c *Configuration) UnmarshalYAML(n *yaml.Node) error {
	type plain Configuration
	return yamlfile.Collect(n, (*plain)(c), &c.at)
}

// UnmarshalYAML decodes strictly, recording every problem (see Validate).
func (s *Sweep) UnmarshalYAML(n *yaml.Node) error {
	type plain Sweep
	return yamlfile.Collect(n, (*plain)(s), &s.at)
}

// UnmarshalYAML decodes strictly, recording every problem (see Validate).
func (nb *Neighbour) UnmarshalYAML(n *yaml.Node) error {
	type plain Neighbour
	return yamlfile.Collect(n, (*plain)(nb), &nb.at)
}

// UnmarshalYAML decodes strictly, recording every problem (see Validate).
func (b *Backups) UnmarshalYAML(n *yaml.Node) error {
	type plain Backups
	return yamlfile.Collect(n, (*plain)(b), &b.at)
}

// UnmarshalYAML decodes strictly, recording every problem (see Validate).
func (f *Fit) UnmarshalYAML(n *yaml.Node) error {
	type plain Fit
	return yamlfile.Collect(n, (*plain)(f), &f.at)
}

// UnmarshalYAML decodes strictly, recording every problem (see Validate).
func (r *Report) UnmarshalYAML(n *yaml.Node) error {
	type plain Report
	return yamlfile.Collect(n, (*plain)(r), &r.at)
}
