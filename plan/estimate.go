package plan

import (
	"fmt"
	"time"
)

// Part is one part of a plan's estimated duration.
type Part struct {
	What     string        `json:"what"`
	Duration time.Duration `json:"duration_ns"`
	// UpTo marks an upper bound (fit stops early when it can).
	UpTo bool `json:"up_to,omitempty"`
}

// Estimate is a validated plan's duration from its own durations: ramp-ups
// and measured steps × repeats per configuration and sweep value, probe
// jobs, backup intervals, the neighbour's two phases and, at most, every
// fit candidate. Building and restoring databases and starting servers are
// not counted (they depend on the machine).
type Estimate struct {
	Parts []Part        `json:"parts"`
	Total time.Duration `json:"total_ns"`
}

// Estimate adds up the plan's durations.
func (p *Plan) Estimate() Estimate {
	var e Estimate
	add := func(upTo bool, d time.Duration, format string, args ...any) {
		if d > 0 {
			e.Parts = append(e.Parts, Part{What: fmt.Sprintf(format, args...), Duration: d, UpTo: upTo})
			e.Total += d
		}
	}
	a := p.Autopilot
	run := a.run(len(a.users))
	for _, cf := range p.Configurations {
		add(a.Auto(), run, "%s: %s", cf.Name, a.describe(len(a.users)))
		if !cf.Managed() {
			continue
		}
		if p.Probe != nil && p.Probe.Storage != nil {
			add(false, p.Probe.Storage.total, "%s: storage probe (%s)", cf.Name, p.Probe.Storage.Preset)
		}
		if b := p.Backups; b != nil {
			add(false, time.Duration(b.Cycles)*b.every, "%s: %d backup cycles every %s", cf.Name, b.Cycles, b.every)
		}
	}
	for _, s := range p.Sweeps {
		add(a.Auto(), time.Duration(len(s.Values))*run, "sweep %s of %s: %d values × %s", s.Kind, s.Configuration, len(s.Values), a.describe(len(a.users)))
	}
	if n := p.Neighbour; n != nil {
		phase2 := max(n.duration, time.Duration(n.BackupCycles)*n.every)
		if n.BackupInstances == 0 {
			phase2 = n.duration
		}
		add(false, 2*n.rampup+n.duration+phase2, "neighbour: %d instances, baseline and backup phases", n.Instances)
	}
	if f := p.Fit; f != nil {
		n := max(len(f.Cpus), 1) * max(len(f.Memory), 1) * max(len(f.IO), 1) * max(len(f.Versions), 1)
		add(true, time.Duration(n)*a.run(len(f.users)), "fit: up to %d candidates × %s", n, a.describe(len(f.users)))
	}
	return e
}

// run is the duration of one autopilot run of steps steps.
func (a Autopilot) run(steps int) time.Duration {
	return time.Duration(steps*a.Repeats) * (a.rampup + a.duration)
}

func (a Autopilot) describe(steps int) string {
	upTo := func(auto bool) string {
		if auto {
			return "auto ≤ "
		}
		return ""
	}
	w := a.answer
	s := fmt.Sprintf("%d steps × (%s%s ramp-up + %s%s)", steps, upTo(w.RampupAuto), a.rampup, upTo(w.DurationAuto), a.duration)
	if a.Repeats > 1 || w.RepeatsAuto {
		s += fmt.Sprintf(" × %s%d repeats", upTo(w.RepeatsAuto), a.Repeats)
	}
	return s
}

// Auto reports whether the time-to-answer rules decide any length.
func (a Autopilot) Auto() bool {
	return a.answer.RampupAuto || a.answer.DurationAuto || a.answer.RepeatsAuto
}

// AnswerRules are the time-to-answer rules of the autopilot (validated):
// which lengths are auto, their caps, the precision.
func (a Autopilot) AnswerRules() Answer { return a.answer }

// DurationPos is where the autopilot's duration is written (for an error
// about the whole plan's duration).
func (p *Plan) DurationPos() (line, column int) {
	key := "duration"
	if !p.Autopilot.at.Has(key) { // left to the auto rules: its cap, or the users
		key = "duration_max"
		if !p.Autopilot.at.Has(key) {
			key = "users"
		}
	}
	pos := p.Autopilot.at.Of(key)
	return pos.Line, pos.Column
}

// UsersList is the autopilot's users sequence (validated).
func (a Autopilot) UsersList() []int { return a.users }

// Timing is the autopilot's ramp-up and measured duration (validated; the
// caps where the auto rules decide).
func (a Autopilot) Timing() (rampup, duration time.Duration) { return a.rampup, a.duration }

// RunDuration is one autopilot run of the plan's users sequence.
func (a Autopilot) RunDuration() time.Duration { return a.run(len(a.users)) }

// DurationValue is the probe's duration per job (validated).
func (s StorageProbe) DurationValue() time.Duration { return s.duration }

// UsersList is the fit's users sequence (the autopilot's when not given).
func (f Fit) UsersList() []int { return f.users }

// Timing is the neighbour's ramp-up and measured duration per phase.
func (n Neighbour) Timing() (rampup, duration time.Duration) { return n.rampup, n.duration }

// EveryValue is the interval between the neighbour's backup cycles.
func (n Neighbour) EveryValue() time.Duration { return n.every }

// EveryValue is the interval between backup cycles (0: back to back).
func (b Backups) EveryValue() time.Duration { return b.every }
