package plan

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/rightsize/rightsize/internal/yamlfile"
)

// TestExamples validates the shipped plans: each must be valid and
// estimated under 15 minutes (the bound for this machine), which
// leaves the database builds a margin.
func TestExamples(t *testing.T) {
	if runtime.NumCPU() < 2 {
		t.Skip("the examples ask for 2 cpus")
	}
	files, err := filepath.Glob("../examples/*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, f := range files {
		if strings.HasPrefix(filepath.Base(f), "costs-") {
			continue
		}
		n++
		t.Run(filepath.Base(f), func(t *testing.T) {
			p, err := Load(f)
			if err != nil {
				t.Fatal(err)
			}
			e := p.Estimate()
			if e.Total <= 0 || e.Total > 12*time.Minute {
				t.Errorf("estimated %s, want above 0 and at most 12m (15m with the builds)", e.Total)
			}
		})
	}
	if n != 3 {
		t.Errorf("%d example plans, want 3", n)
	}
}

func TestStudyAEstimate(t *testing.T) {
	p, err := Load("../examples/fewer-cores-faster-storage.yaml")
	if err != nil {
		t.Fatal(err)
	}
	// 3 configurations × 6 steps × (5 s + 20 s) + 3 storage probes × 10 s.
	if got, want := p.Estimate().Total, 3*6*25*time.Second+3*10*time.Second; got != want {
		t.Errorf("estimate %s, want %s", got, want)
	}
	if p.CostModel == nil || len(p.CostModel.Configs) != 3 {
		t.Errorf("cost model not loaded: %+v", p.CostModel)
	}
}

func TestInitValidates(t *testing.T) {
	dir := t.TempDir()
	plan, costs := InitFiles()
	for name, b := range map[string][]byte{"study.yaml": plan, "costs.yaml": costs} {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	p, err := Load(filepath.Join(dir, "study.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if p.Fit == nil || p.Fit.Cost != "one-core" || len(p.Configurations) != 2 {
		t.Errorf("init plan decoded wrong: %+v", p)
	}
}

func TestErrorsHaveLines(t *testing.T) {
	const good = `name: s
build: {warehouses: 1}
autopilot: {users: "1,2", duration: 10s}
configurations:
  - name: a
    cpus: 1
`
	for _, c := range []struct {
		name, text string
		want       []string
	}{
		{"unknown field", strings.Replace(good, "cpus: 1", "cpu: 1", 1), []string{"plan.yaml:6:5: configurations[0].cpu: unknown field; did you mean cpus?"}},
		{"every problem", `name: s
build: {warehouses: 0}
autopilot: {users: "0", duration: 10x, repeats: 0}
configurations:
  - name: a
    version: 12
    cpus: -1
    memory: lots
    io: riops=fast
  - name: b
    target: postgres://u:secret@db/tpcc
    cpus: 2
sweeps:
  - kind: disk
    configuration: b
    values: [1G]
  - kind: memory
    configuration: a
    values: [1G, tiny]
`, []string{
			"plan.yaml:2:21: build.warehouses: must be at least 1",
			"plan.yaml:3:20: autopilot.users:",
			"plan.yaml:3:35: autopilot.duration: \"10x\" is not a duration",
			"plan.yaml:3:49: autopilot.repeats: must be at least 1",
			"plan.yaml:6:14: configurations[0].version: \"12\" is not a PostgreSQL version",
			"plan.yaml:7:11: configurations[0].cpus: \"-1\": want a positive number of cores",
			"plan.yaml:8:13: configurations[0].memory:",
			"plan.yaml:9:9: configurations[0].io: \"riops=fast\": riops needs a positive value",
			"plan.yaml:11:13: configurations[1].target: holds a password",
			"plan.yaml:12:11: configurations[1].cpus: applies to a managed server only",
			"plan.yaml:14:11: sweeps[0].kind: \"disk\" is not a sweep kind",
			"plan.yaml:15:20: sweeps[0].configuration: \"b\" is an external target",
			"plan.yaml:19:18: sweeps[1].values[1]: \"tiny\"",
		}},
		{"cost config unknown", good + "    cost: nope\ncost: missing.yaml\n", []string{"missing.yaml"}},
		{"bad delivery", strings.Replace(good, "duration: 10s}", "duration: 10s, delivery: later}", 1),
			[]string{"autopilot.delivery: \"later\" is not interactive or deferred"}},
		{"negative connections", strings.Replace(good, "duration: 10s}", "duration: 10s, connections: -4}", 1),
			[]string{"plan.yaml:3:55: autopilot.connections: must be 0 (one per user) or more"}},
		{"run options as run's flags check them", strings.Replace(good, "duration: 10s}",
			"duration: 10s, isolation: serializable, driver_procs: -1, wait_interval: 10us, reconnect_timeout: soon}", 1), []string{
			`plan.yaml:3:53: autopilot.isolation: "serializable" is not spec or read-committed`,
			`plan.yaml:3:81: autopilot.driver_procs: must be 0 (adaptive) or a number of Ps (got -1)`,
			`plan.yaml:3:100: autopilot.wait_interval: must be at least 1ms (got 10µs); turn sampling off with no_waits`,
			`plan.yaml:3:125: autopilot.reconnect_timeout: "soon" is not a duration`,
		}},
		{"negative reconnect timeout said once", strings.Replace(good, "duration: 10s}", "duration: 10s, reconnect_timeout: -1s}", 1),
			[]string{"autopilot.reconnect_timeout: must be above 0 (-1s)"}},
		{"time-to-answer keys as run's flags check them", strings.Replace(good, "duration: 10s}",
			"rampup_max: 20s, rampup_min: 30s, duration_min: 5s, confidence: high, max_cv: 0, repeats_max: 1}", 1), []string{
			`autopilot.rampup_min: (30s) must be between 0 and rampup_max (20s), and rampup_max positive`,
			`autopilot.confidence: "high": want a percentage such as 95%`,
			`autopilot.max_cv: must be above 0 % and below 100 % (got 0 %)`,
			`autopilot.repeats_max: must be at least 2 with repeats auto (got 1)`,
		}},
		{"a floor", strings.Replace(good, "duration: 10s}", "duration_min: 5s}", 1), []string{
			`autopilot.duration_min: (5s) must be at least 10s and at most duration_max (5m0s)`,
		}},
		{"the level", strings.Replace(good, "duration: 10s}", "duration: 10s, confidence: 100%}", 1), []string{
			`autopilot.confidence: must be above 0 % and below 100 % (got 100 %)`,
		}},
		{"run's caps flags as configuration keys", good + "    driver_cpus: x\n    caps: lenient\n    version: 16\n    pg_bin: /usr/lib/postgresql/16/bin\n" +
			"  - {name: m, engine: mariadb, pg_bin: /opt/pg}\n  - {name: e, target: postgres://u@db/tpcc, driver_cpus: 0, caps: strict}\n", []string{
			`configurations[0].driver_cpus: `,
			`configurations[0].caps: "lenient": use strict (the default: a cap that cannot be applied stops the run) or best-effort`,
			`configurations[0].pg_bin: version and pg_bin both choose the binaries; give one`,
			`configurations[1].pg_bin: applies to the embedded PostgreSQL only`,
			`configurations[2].caps: applies to a managed server only`,
			`configurations[2].driver_cpus: applies to a managed server only`,
		}},
		{"prewarm where the engine has none", strings.Replace(good, "duration: 10s}", "duration: 10s, prewarm: true}", 1) + "  - {name: m, engine: mariadb}\n", []string{
			`autopilot.prewarm: configuration m: cannot load the cache ahead of the run: rightsize prewarms PostgreSQL only (with pg_prewarm), not mysql; drop prewarm, or warm the cache with a longer rampup`,
		}},
		{"password env unset", strings.Replace(good, "    cpus: 1\n", "    target: postgres://u@db/tpcc\n    password_env: RIGHTSIZE_TEST_UNSET_PW\n", 1),
			[]string{"plan.yaml:7:19: configurations[0].password_env: environment variable RIGHTSIZE_TEST_UNSET_PW is not set"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse("plan.yaml", []byte(c.text))
			if err == nil {
				t.Fatal("no error")
			}
			var all []string
			var es yamlfile.Errors
			var e *yamlfile.Error
			switch {
			case errors.As(err, &es):
				for _, x := range es {
					all = append(all, x.Error())
				}
			case errors.As(err, &e):
				all = []string{e.Error()}
			default:
				t.Fatalf("error %T %v", err, err)
			}
			text := strings.Join(all, "\n")
			for _, w := range c.want {
				if !strings.Contains(text, w) {
					t.Errorf("errors lack %q:\n%s", w, text)
				}
			}
			if len(all) < len(c.want) {
				t.Errorf("%d errors, want at least %d", len(all), len(c.want))
			}
		})
	}
}

// An autopilot that leaves its lengths out is estimated at its caps, as an
// upper bound.
func TestEstimateAuto(t *testing.T) {
	p, err := Parse("plan.yaml", []byte("name: s\nbuild: {warehouses: 1}\nautopilot: {users: \"1,2\", duration_max: 1m, rampup: 5s}\nconfigurations: [{name: a, cpus: 1}]\n"))
	if err != nil {
		t.Fatal(err)
	}
	e := p.Estimate()
	want := "a: 2 steps × (5s ramp-up + auto ≤ 1m0s) × auto ≤ 3 repeats"
	if len(e.Parts) != 1 || e.Parts[0].What != want || !e.Parts[0].UpTo || e.Total != 6*65*time.Second {
		t.Errorf("estimate %+v, want one part %q, up to %s", e, want, 6*65*time.Second)
	}
	if w := p.Autopilot.AnswerRules(); w.RampupAuto || !w.DurationAuto || !w.RepeatsAuto || w.Precision != 0.02 {
		t.Errorf("answer rules %+v, want duration and repeats auto at 2 %%", w)
	}
}

// A cap too short is said at the cap, not again at the floor the plan
// left out (derived from it).
func TestShortCapBlamedOnce(t *testing.T) {
	_, err := Parse("plan.yaml", []byte("name: s\nbuild: {warehouses: 1}\nautopilot: {users: \"1\", duration_max: 5s}\nconfigurations: [{name: a}]\n"))
	var es yamlfile.Errors
	if !errors.As(err, &es) || len(es) != 1 || !strings.Contains(es[0].Error(), "autopilot.duration_max: must be at least 10s") {
		t.Errorf("errors %v, want one: autopilot.duration_max: must be at least 10s", err)
	}
}
