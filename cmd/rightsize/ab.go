package main

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/rightsize/rightsize/caps"
	"github.com/rightsize/rightsize/interleave"
	"github.com/rightsize/rightsize/internal/units"
	"github.com/rightsize/rightsize/registry"
	"github.com/rightsize/rightsize/report"
	"github.com/rightsize/rightsize/scenario"
)

// sideFlags are what one side of ab changes from the shared flags.
type sideFlags struct {
	name                                     string // "a" or "b"
	target, pgVersion, cpus, memory, setFile string
	settings                                 []string
}

func (f *sideFlags) register(cmd *cobra.Command) {
	fl, s := cmd.Flags(), map[string]string{"a": "the baseline A", "b": "the candidate B"}[f.name]
	fl.StringVar(&f.target, f.name+"-target", "", "target of "+s+" (default: --target)")
	fl.StringArrayVar(&f.settings, f.name+"-set", nil, "server setting of "+s+", name=value, over --set (repeatable)")
	fl.StringVar(&f.setFile, f.name+"-set-file", "", "server settings of "+s+" from a file of name = value lines as postgresql.conf writes them (# comments), under --"+f.name+"-set")
	fl.StringVar(&f.pgVersion, f.name+"-pg-version", "", "PostgreSQL major version of "+s+" (its own data directory, built like the first one's)")
	fl.StringVar(&f.cpus, f.name+"-cpus", "", "cores of "+s+"'s managed server, as --cpus")
	fl.StringVar(&f.memory, f.name+"-memory", "", "memory of "+s+"'s managed server, as --memory")
}

// side applies the side's flags over the shared target spec and options.
func (f *sideFlags) side(spec string, base registry.Options) (interleave.Side, error) {
	s := interleave.Side{Spec: spec, Target: base}
	if f.target != "" {
		s.Spec = f.target
	}
	s.Target.Settings = maps.Clone(base.Settings)
	if s.Target.Settings == nil {
		s.Target.Settings = map[string]string{}
	}
	if err := f.readSetFile(s.Target.Settings); err != nil {
		return s, err
	}
	for _, kv := range f.settings {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return s, badInput(fmt.Errorf("--%s-set %q: want name=value", f.name, kv))
		}
		s.Target.Settings[k] = v
	}
	e, _, err := registry.EngineOf(s.Spec)
	if err != nil {
		return s, badInput(fmt.Errorf("--%s-target: %w", f.name, err))
	}
	for _, c := range []struct {
		kind, flag, value string
		check             func(string) error
	}{
		{"cpus", "cpus", f.cpus, func(v string) error { _, err := caps.ParseCPUs(v, runtime.NumCPU()); return err }},
		{"memory", "memory", f.memory, func(v string) error { _, err := units.ParseSize(v); return err }},
		{"version", "pg-version", f.pgVersion, func(v string) error { return registry.CheckVersion("", v) }},
	} {
		if c.value == "" {
			continue
		}
		err := c.check(c.value)
		if err == nil {
			var kind scenario.SweepKind
			if kind, err = scenario.LookupSweepKind(c.kind); err == nil {
				s.Target, err = kind.Apply(e, c.value, s.Target)
			}
		}
		if err != nil {
			return s, badInput(fmt.Errorf("--%s-%s %s: %w", f.name, c.flag, c.value, err))
		}
	}
	if err := registry.CheckCaps(s.Spec, s.Target); err != nil {
		return s, badInput(fmt.Errorf("%s side: %w", strings.ToUpper(f.name), err))
	}
	return s, nil
}

// readSetFile adds the settings of --X-set-file to m: name = value
// lines, blank lines and # comments skipped, a value's single quotes
// removed.
func (f *sideFlags) readSetFile(m map[string]string) error {
	if f.setFile == "" {
		return nil
	}
	b, err := os.ReadFile(f.setFile)
	if err != nil {
		return badInput(fmt.Errorf("--%s-set-file: %w", f.name, err))
	}
	for i, line := range strings.Split(string(b), "\n") {
		line, _, _ = strings.Cut(line, "#")
		if line = strings.TrimSpace(line); line == "" {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if k = strings.TrimSpace(k); !ok || k == "" {
			return badInput(fmt.Errorf("--%s-set-file %s line %d: %q is not name = value", f.name, f.setFile, i+1, line))
		}
		m[k] = strings.Trim(strings.TrimSpace(v), "'")
	}
	return nil
}

// abFlags are ab's own flags.
type abFlags struct {
	tf     targetFlags
	rf     runFlags
	gf     gateFlags
	a, b   sideFlags
	rounds int
}

func newABCmd() *cobra.Command {
	f := &abFlags{a: sideFlags{name: "a"}, b: sideFlags{name: "b"}}
	cmd := &cobra.Command{
		Use:   "ab",
		Short: "Measure a baseline A and a candidate B alternately on one server (ABBA rounds) and gate B on the paired differences",
		Long: `ab measures A's and B's configurations alternately on one machine, over
--rounds N rounds in ABBA order (round 1: A then B, round 2: B then A, ...).
Each leg is a normal stored run labelled "LABEL A r1", "LABEL B r1", ... on
a managed server restarted with its side's settings and its database
restored to the built state. A and B differ by --a-set/--b-set,
--a-cpus/--b-cpus, --a-memory/--b-memory, --a-pg-version/--b-pg-version or
--a-target/--b-target; everything else (--target, --set, --users, --rampup,
--duration ...) is shared.

What drifts between runs (the machine's speed, neighbours, checkpoints)
moves both sides of a round alike, so the verdict comes from the rounds'
paired ratios B/A: the paired t test of their logs, per step and over all
steps, with the ratio's 90 % interval (its upper end is the one-sided 95 %
bound the gate uses) and Wilcoxon's signed-rank exact p beside it. It
prints the smallest regression these rounds could have detected.

As a CI gate, --max-regression 5% exits 1 when B's NOPM over all steps (the
TPC-C figure of merit) is worse than A's by more than 5 % at one-sided 5 %
(the paired t test against the threshold: the ratio's 90 % interval lies
wholly below 0.95); --max-latency-regression does the same for the
New-Order p90 over all steps, Holm over the gated figures: identical A and
B fail at most 5 % of gates, fewer the less the rounds scatter. Steps and TPM are shown, not gated. Exit 0: passed; 1: a
regression; 2: bad input.`,
		Example: `  rightsize ab --rounds 3 --users 4 --rampup 10s --duration 30s --b-set synchronous_commit=off
  rightsize ab --rounds 6 --users 2,4 --b-cpus 1 --max-regression 5% --junit gate.xml
  rightsize ab --rounds 3 --users 4 --a-pg-version 15 --b-pg-version 17 --json`,
		Args: cobra.NoArgs,
		RunE: f.run,
	}
	f.tf.register(cmd)
	f.rf.register(cmd)
	f.gf.register(cmd)
	// ab gates its rounds' paired ratios over all steps, not two runs' intervals
	cmd.Flags().Lookup("max-regression").Usage = "fail (exit 1) when B's figure of merit (TPC-C's NOPM, a pgbench workload's TPM) over all steps is worse than A's by more than this, e.g. 2.5%, at one-sided 5 % (the rounds' paired t test against the threshold)"
	cmd.Flags().Lookup("max-latency-regression").Usage = "fail (exit 1) when B's p90 of the figure's transactions (New-Order's for TPC-C) over all steps is higher than A's by more than this, e.g. 10%, at one-sided 5 % (Holm with --max-regression)"
	f.a.register(cmd)
	f.b.register(cmd)
	cmd.Flags().IntVar(&f.rounds, "rounds", 4, "rounds of A and B (at least 2; an even number balances the order, and more detect smaller regressions: see the line it prints)")
	return cmd
}

// run measures the rounds and judges them.
func (f *abFlags) run(cmd *cobra.Command, _ []string) error {
	o, err := f.rf.options(cmd)
	if err != nil {
		return err
	}
	th, err := f.gf.thresholds(cmd)
	if err != nil {
		return err
	}
	if f.rounds < 2 {
		return badInput(fmt.Errorf("--rounds %d: give at least 2 (3 or more to detect much)", f.rounds))
	}
	f.tf.forUsers(o.Users, o.Connections)
	base, err := f.tf.options(false, 2)
	if err != nil {
		return err
	}
	io := interleave.Options{Rounds: f.rounds, Label: o.Label, Run: o}
	if io.Label == "" {
		io.Label = "ab-" + time.Now().UTC().Format("20060102-150405")
	}
	if io.A, err = f.a.side(f.tf.spec, base); err != nil {
		return err
	}
	if io.B, err = f.b.side(f.tf.spec, base); err != nil {
		return err
	}
	io.Run.Version, io.Run.Commit = version, commit
	return f.measure(cmd, io, th)
}

// measure runs the legs, then judges the complete rounds (also after
// Ctrl-C, when two or more are complete).
func (f *abFlags) measure(cmd *cobra.Command, io interleave.Options, th report.Thresholds) error {
	st, err := openStore(cmd)
	if err != nil {
		return err
	}
	defer st.Close()
	errw := cmd.ErrOrStderr()
	v := &runView{cmd: cmd, st: st, asJSON: f.rf.json, every: f.rf.interval}
	io.Hooks.Ready = v.ready
	io.Hooks.Measured = func(_ context.Context, _ *registry.Target, _ *scenario.Result, err error) error {
		if v.prog != nil {
			v.prog.finish() // the leg's last bar ends before the next leg's lines
			v.prog = nil
		}
		return err
	}
	io.OnLeg = func(l interleave.Leg) {
		fmt.Fprintf(errw, "round %d/%d, %s: %s\n", l.Round, io.Rounds, l.Side, interleave.LegLabel(io.Label, l.Side, l.Round))
	}
	legs, runErr := interleave.Run(cmd.Context(), st, io)
	if runErr != nil && (errors.Is(runErr, scenario.ErrBadOptions) || errors.Is(runErr, interleave.ErrBadOptions) ||
		errors.Is(runErr, registry.ErrBadTarget) || registry.IsBadCaps(runErr)) {
		return badInput(runErr)
	}
	if runErr != nil && len(legs) < 4 {
		return runErr
	}
	verdict, err := interleave.Judge(context.WithoutCancel(cmd.Context()), st, io.Label, legs, th)
	if err != nil {
		return errors.Join(runErr, err)
	}
	if err := f.write(cmd, verdict); err != nil {
		return err
	}
	if runErr != nil {
		return fmt.Errorf("%w: the verdict above is on the %d complete rounds measured", runErr, verdict.Rounds)
	}
	if !verdict.Passed {
		return &exitError{code: 1, err: errors.New(verdict.Line)}
	}
	return nil
}

// write prints the verdict (text or JSON) and the JUnit file.
func (f *abFlags) write(cmd *cobra.Command, v *interleave.Verdict) error {
	out := cmd.OutOrStdout()
	if f.rf.json {
		if err := writeJSON(out, v); err != nil {
			return fmt.Errorf("write the verdict as JSON: %w", err)
		}
	} else {
		v.Write(out)
	}
	if f.gf.junit == "" {
		return nil
	}
	return writeJUnit(f.gf.junit, v.Report())
}
