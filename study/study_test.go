package study

import (
	"fmt"
	"testing"

	"github.com/rightsize/rightsize/plan"
)

func TestExternalDSN(t *testing.T) {
	t.Setenv("RS_TEST_PW", "p@ss:w/rd")
	for _, c := range []struct {
		cfg  plan.Configuration
		want string
		bad  bool
	}{
		{plan.Configuration{Target: "postgres://bench@db:5432/tpcc", PasswordEnv: "RS_TEST_PW"}, "postgres://bench:p%40ss%3Aw%2Frd@db:5432/tpcc", false},
		{plan.Configuration{Target: "mysql://db/tpcc"}, "mysql://db/tpcc", false},
		{plan.Configuration{Target: "postgres://db/tpcc", PasswordEnv: "RS_TEST_PW"}, "", true},
		{plan.Configuration{Target: "postgres://u@db/tpcc", PasswordEnv: "RS_TEST_UNSET"}, "", true},
	} {
		got, err := externalDSN(&c.cfg)
		if (err != nil) != c.bad || got != c.want {
			t.Errorf("externalDSN(%q, %s) = %q, %v; want %q (error %v)", c.cfg.Target, c.cfg.PasswordEnv, got, err, c.want, c.bad)
		}
	}
}

// The plan's lengths left out are decided by the time-to-answer rules
// within the caps; given, they are fixed.
func TestRunOptionsAnswer(t *testing.T) {
	const head = "name: s\nbuild: {warehouses: 1}\nconfigurations: [{name: a, cpus: 1}]\nautopilot: {users: \"1,2\""
	for _, c := range []struct {
		name, autopilot string
		want            string // RampupAuto min max, DurationAuto min max, precision, RepeatAuto repeats
	}{
		{"all given: fixed", ", rampup: 5s, duration: 20s, repeats: 1}", "false 0s 0s rampup 5s; false 0s 0s duration 20s; 2 %; false 1"},
		{"all left out: auto with the default caps", "}", "true 10s 2m0s rampup 2m0s; true 30s 5m0s duration 5m0s; 2 %; true 3"},
		{"only the duration auto, short caps, own precision", ", rampup: 5s, repeats: 2, duration_max: 20s, precision: 1%}",
			"false 0s 0s rampup 5s; true 20s 20s duration 20s; 1 %; false 2"},
		{"caps given", ", rampup_max: 5s, duration_max: 1m, repeats_max: 4}", "true 5s 5s rampup 5s; true 30s 1m0s duration 1m0s; 2 %; true 4"},
	} {
		t.Run(c.name, func(t *testing.T) {
			p, err := plan.Parse("plan.yaml", []byte(head+c.autopilot+"\n"))
			if err != nil {
				t.Fatal(err)
			}
			r := &runner{p: p}
			ro, _ := r.runOptions("a")
			a := ro.Answer
			got := fmt.Sprintf("%v %s %s rampup %s; %v %s %s duration %s; %g %%; %v %d", a.RampupAuto, a.RampupMin, a.RampupMax, ro.Rampup,
				a.DurationAuto, a.DurationMin, a.DurationMax, ro.Duration, a.Precision*100, ro.RepeatAuto, ro.Repeats)
			if got != c.want {
				t.Errorf("got  %s\nwant %s", got, c.want)
			}
			if err := ro.Validate(); err != nil {
				t.Errorf("options do not validate: %v", err)
			}
			wasAuto, repeats := ro.RepeatAuto, ro.Repeats
			fixedLengths(&ro)
			if wasAuto {
				repeats = 1
			}
			if ro.Auto() || ro.Repeats != repeats {
				t.Errorf("fixedLengths: auto %v, %d repeats; want fixed, %d", ro.Auto(), ro.Repeats, repeats)
			}
		})
	}
}

// A plan's autopilot says what run's flags say, and the study runs with it.
func TestRunOptionsSayWhatRunSays(t *testing.T) {
	const text = "name: s\nbuild: {warehouses: 1}\nconfigurations: [{name: a, cpus: 1}]\n" +
		"autopilot: {users: \"1,2\", rampup: 5s, duration: 20s, repeats: 2, mode: statements, keying_thinking: true, connections: 4,\n" +
		"  delivery: deferred, isolation: read-committed, seed: 42, reconnect_timeout: 1m, rebuild_between_repeats: true,\n" +
		"  driver_procs: 2, no_waits: true, wait_interval: 50ms}\n"
	p, err := plan.Parse("plan.yaml", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	ro, _ := (&runner{p: p}).runOptions("a")
	got := fmt.Sprintf("%v %s %s %d %s %v %d %s %s %d %s %v %d %v %s %s %d", ro.Users, ro.Rampup, ro.Duration, ro.Repeats, ro.Mode, ro.KeyingThinking,
		ro.Connections, ro.Delivery, ro.Isolation, ro.Seed, ro.ReconnectTimeout, ro.RebuildBetweenRepeats, ro.DriverProcs, ro.NoWaits, ro.WaitInterval,
		ro.Label, ro.Warehouses)
	if want := "[1 2] 5s 20s 2 statements true 4 deferred read-committed 42 1m0s true 2 true 50ms s/a 1"; got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	if err := ro.Validate(); err != nil {
		t.Errorf("options do not validate: %v", err)
	}
}

// The time-to-answer floors, level and agreement a plan says reach the
// run, as run's --rampup-min, --duration-min, --confidence and --max-cv.
func TestRunOptionsAnswerKeys(t *testing.T) {
	const text = "name: s\nbuild: {warehouses: 1}\nconfigurations: [{name: a, cpus: 1}]\n" +
		"autopilot: {users: \"1\", rampup_min: 3s, duration_min: 15s, confidence: 90%, max_cv: 8%}\n"
	p, err := plan.Parse("plan.yaml", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	ro, _ := (&runner{p: p}).runOptions("a")
	a := ro.Answer
	got := fmt.Sprintf("%s %s %g %g", a.RampupMin, a.DurationMin, a.Confidence, ro.MaxCV)
	if want := "3s 15s 0.9 0.08"; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
	if err := ro.Validate(); err != nil {
		t.Errorf("options do not validate: %v", err)
	}
}

// A configuration's driver_cpus, caps, cgroup_parent and pg_bin reach
// the target's options as run's flags of the same names.
func TestTargetOptionsRunCaps(t *testing.T) {
	const text = "name: s\nbuild: {warehouses: 1}\nautopilot: {users: \"1\", duration: 10s}\n" +
		"configurations: [{name: a, driver_cpus: \"0\", caps: best-effort, cgroup_parent: /rs.slice, pg_bin: /opt/pg/bin}]\n"
	p, err := plan.Parse("plan.yaml", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	_, opt, err := TargetOptions(p, &p.Configurations[0])
	if err != nil {
		t.Fatal(err)
	}
	got := fmt.Sprintf("%s %v %s %s %q", opt.Caps.DriverCPUs, opt.Caps.BestEffort, opt.Caps.CgroupParent, opt.PGBin, opt.PGVersion)
	if want := `0 true /rs.slice /opt/pg/bin ""`; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}
