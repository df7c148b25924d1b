package plan

import (
	"errors"
	"strings"
	"testing"

	"github.com/rightsize/rightsize/internal/yamlfile"
)

// validPlan is a plan with no problem; the cases below change it.
const validPlan = `name: s
build: {warehouses: 1}
autopilot: {users: "1,2", duration: 10s}
configurations:
  - name: a
    cpus: 1
`

// TestEveryProblemListed checks that a plan's problems, of types as much as
// of values, are all reported, each once as FILE:LINE:COLUMN: FIELD:
// PROBLEM in our words with the fix, in file order.
func TestEveryProblemListed(t *testing.T) {
	for _, c := range []struct {
		name, text string
		want       []string
	}{
		{"cpus not a number", strings.Replace(validPlan, "cpus: 1", "cpus: two", 1), []string{
			`plan.yaml:6:11: configurations[0].cpus: "two" is not a number of cores; write e.g. cpus: 2 or cpus: 0.5`,
		}},
		{"types and values", `name: s
build: {warehouses: many, seed: -1}
autopilot: {users: "1,2", duration: 10s, repeats: [3], keying_thinking: maybe}
configurations:
  - name: a
    cpus: two
    memory: lots
    settings: {shared_buffers: [1]}
  - name: a
    cpu: 1
sweeps:
  - kind: memory
    configuration: a
    values: 1G
    knee_threshold: 150%
report: [x]
`, []string{
			`plan.yaml:2:21: build.warehouses: "many" is not a whole number of warehouses; write e.g. warehouses: 4`,
			`plan.yaml:2:33: build.seed: "-1" is not a whole number, 0 or more; write e.g. seed: 42`,
			`plan.yaml:3:51: autopilot.repeats: a list is not a whole number of repeats; write e.g. repeats: 3`,
			`plan.yaml:3:73: autopilot.keying_thinking: "maybe" is not true or false`,
			`plan.yaml:6:11: configurations[0].cpus: "two" is not a number of cores; write e.g. cpus: 2 or cpus: 0.5`,
			`plan.yaml:7:13: configurations[0].memory: "lots": want a positive size like 256M or 1G`,
			`plan.yaml:8:32: configurations[0].settings.shared_buffers: a list is not a single value`,
			`plan.yaml:9:11: configurations[1].name: "a" is used twice: names must be unique`,
			`plan.yaml:10:5: configurations[1].cpu: unknown field; did you mean cpus? (known fields: caps, cgroup_parent, cost, cpus, data_dir, driver_cpus, engine, io, memory, name, password_env, pg_bin, settings, target, version, wal_dir)`,
			`plan.yaml:14:13: sweeps[0].values: "1G" is not a list of values; write e.g. values: [1G, 512M]`,
			`plan.yaml:15:21: sweeps[0].knee_threshold: 150% is not above 0 and below 100 %, as a sweep needs (the NOPM drop or p90 rise against the best value that marks the knee); write e.g. knee_threshold: 10%`,
			`plan.yaml:16:9: report: a list is not a mapping: write key: value lines`,
		}},
		{"sections of the wrong shape", "name: [s]\nbuild: 4\nautopilot: {users: \"1\", duration: 10s}\nprobe: {storage: fast}\nconfigurations: {name: a}\n", []string{
			`plan.yaml:1:7: name: a list is not a single value`,
			`plan.yaml:2:8: build: "4" is not a mapping: write key: value lines`,
			`plan.yaml:4:18: probe.storage: "fast" is not a mapping: write key: value lines`,
			`plan.yaml:5:17: configurations: a mapping is not a list of configurations: one "- name: ..." item each`,
		}},
		{"knee threshold out of range", validPlan + "sweeps:\n  - {kind: cpus, configuration: a, values: [1], knee_threshold: 0}\n  - {kind: cpus, configuration: a, values: [1], knee_threshold: ten}\n", []string{
			`plan.yaml:8:65: sweeps[0].knee_threshold: 0 is not above 0 and below 100 %, as a sweep needs (the NOPM drop or p90 rise against the best value that marks the knee); write e.g. knee_threshold: 10%`,
			`plan.yaml:9:65: sweeps[1].knee_threshold: "ten" is not a percentage; write e.g. knee_threshold: 10%`,
		}},
		{"fit runs below 1", validPlan + "cost: c.yaml\nfit: {configuration: a, cost: vm, target_nopm: 5, cpus: [1], runs: -1}\n", []string{
			`plan.yaml:7:7: cost: read cost file: open c.yaml: no such file or directory`,
			`plan.yaml:8:6: fit.cost: fit prices candidates: the plan needs a cost file (cost: FILE at the top level)`,
			`plan.yaml:8:68: fit.runs: must be at least 1 (1 never measures a candidate again; 3, the default, re-measures one that holds the target)`,
		}},
		{"key twice, list item a mapping", validPlan + "    cpus: 1\nfit:\n  configuration: a\n  cpus: [1, {n: 2}]\n", []string{
			`plan.yaml:7:5: configurations[0].cpus: written twice (first at line 6): keep one`,
			`plan.yaml:9:3: fit.cost: fit prices candidates: the plan needs a cost file (cost: FILE at the top level)`,
			`plan.yaml:9:3: fit.target_nopm: missing: the NOPM to meet (a number, or from:RUN / from:CONFIGURATION)`,
			`plan.yaml:10:13: fit.cpus[1]: a mapping is not a single value`,
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse("plan.yaml", []byte(c.text))
			var es yamlfile.Errors
			if !errors.As(err, &es) {
				t.Fatalf("error %T %v, want yamlfile.Errors", err, err)
			}
			var got []string
			for _, e := range es {
				got = append(got, e.Error())
			}
			if g, w := strings.Join(got, "\n"), strings.Join(c.want, "\n"); g != w {
				t.Errorf("problems:\n%s\nwant:\n%s", g, w)
			}
		})
	}
}

// prewarm is accepted where every configuration's engine can load its
// cache (the embedded PostgreSQL; MariaDB is refused, see TestErrorsHaveLines).
func TestPrewarmPostgresAccepted(t *testing.T) {
	if _, err := Parse("plan.yaml", []byte(strings.Replace(validPlan, "duration: 10s}", "duration: 10s, prewarm: true}", 1))); err != nil {
		t.Errorf("prewarm on PostgreSQL: %v", err)
	}
}
