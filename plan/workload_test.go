package plan

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rightsize/rightsize/internal/yamlfile"
	"github.com/rightsize/rightsize/pgbench/tpcb"
)

// TestWorkloadKeys: a plan's build and autopilot say a pgbench workload as
// build's and run's flags do; each left out follows the other, and the
// run options carry a fresh copy of the workload per run.
func TestWorkloadKeys(t *testing.T) {
	dir := t.TempDir()
	for name, text := range map[string]string{"a.sql": "\\set aid random(1, 100000 * :scale)\nSELECT abalance FROM pgbench_accounts WHERE aid = :aid;\n",
		"init.sql": "CREATE TABLE t (x int);\n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	const confs = "configurations:\n  - name: a\n"
	for _, c := range []struct {
		name, build, autopilot string
		kind, scripts, figure  string
	}{
		{"build tpcb, autopilot follows", "{workload: tpcb, scale: 2, fillfactor: 90, partitions: 4, partition_method: hash, unlogged_tables: true, foreign_keys: true}", `{users: "1", duration: 10s}`, BuildTPCB, "tpcb-like@1", "TPS"},
		{"autopilot tpcb, build follows", "{}", `{users: "1", duration: 10s, workload: tpcb}`, BuildTPCB, "tpcb-like@1", "TPS"},
		{"a paced workload", "{workload: tpcb}", `{users: "1", duration: 10s, workload: tpcb, rate: 50, latency_limit: 20ms, protocol: simple, max_tries: 1, connect: true}`, BuildTPCB, "tpcb-like@1", "TPS"},
		{"a script on pgbench's tables", "{workload: tpcb}", `{users: "1", duration: 10s, workload: [a.sql@9, select-only@1], figure: a}`, BuildTPCB, "a@9,select-only@1", "TPS of a"},
		{"a script with its init", "{init: init.sql}", `{users: "1", duration: 10s, workload: a.sql, define: {x: 1}, scale: 3, random_seed: 7}`, BuildInit, "a@1", "TPS"},
		{"a script on the database as it is", "{workload: a.sql}", `{users: "1", duration: 10s}`, BuildNone, "a@1", "TPS"},
		{"TPC-C", "{warehouses: 2}", `{users: "1", duration: 10s}`, BuildTPCC, "", "NOPM"},
	} {
		t.Run(c.name, func(t *testing.T) {
			text := "name: s\nbuild: " + c.build + "\nautopilot: " + c.autopilot + "\n" + confs
			p, err := Parse(filepath.Join(dir, "plan.yaml"), []byte(text))
			if err != nil {
				t.Fatalf("%v\n%s", err, text)
			}
			if p.Build.Kind() != c.kind || p.Autopilot.FigureName() != c.figure {
				t.Errorf("build %s, figure %s; want %s, %s", p.Build.Kind(), p.Autopilot.FigureName(), c.kind, c.figure)
			}
			if l := p.Build.Layout(); (l == tpcb.Layout{FillFactor: 90, Partitions: 4, PartitionMethod: "hash", Unlogged: true, ForeignKeys: true}) != strings.Contains(c.build, "partitions: 4") {
				t.Errorf("build layout %+v, want the build's", l)
			}
			o1, o2 := p.Autopilot.RunOptions(), p.Autopilot.RunOptions()
			if c.scripts == "" {
				if o1.Workload != nil {
					t.Errorf("TPC-C plan runs workload %v", o1.Workload)
				}
				return
			}
			w := p.Autopilot.WorkloadOf()
			if _, scripts := w.Describe(); scripts != c.scripts {
				t.Errorf("scripts %s, want %s", scripts, c.scripts)
			}
			if o1.Workload == nil || o1.Workload == o2.Workload || o1.Workload == w {
				t.Errorf("run options' workloads %p %p of %p: want a fresh copy each", o1.Workload, o2.Workload, w)
			}
			if want := p.Autopilot.Rate; o1.Rate != want || (strings.Contains(c.autopilot, "rate") && want != 50) {
				t.Errorf("run options' rate %g, want the autopilot's %g", o1.Rate, want)
			}
			if lim := o1.LatencyLimit; (lim == 20*time.Millisecond) != strings.Contains(c.autopilot, "latency_limit: 20ms") {
				t.Errorf("run options' latency limit %s, want the autopilot's", lim)
			}
			if m := o1.Workload.(interface{ Mode() string }).Mode(); (m == "simple") != strings.Contains(c.autopilot, "protocol: simple") {
				t.Errorf("run options' workload sends its statements %s, want the autopilot's protocol", m)
			}
			if cn := o1.Workload.(interface{ Connects() bool }).Connects(); cn != strings.Contains(c.autopilot, "connect: true") {
				t.Errorf("run options' workload connects per transaction %v, want the autopilot's connect", cn)
			}
			if n := o1.Workload.(interface{ MaxTries() int }).MaxTries(); (n == 1) != strings.Contains(c.autopilot, "max_tries: 1") {
				t.Errorf("run options' workload runs a transaction at most %d times, want the autopilot's max_tries", n)
			}
		})
	}
}

// TestWorkloadProblems: a plan's workload mistakes are each said at their
// key, a script's at its FILE:LINE:COLUMN.
func TestWorkloadProblems(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.sql")
	if err := os.WriteFile(bad, []byte("SELECT 1;\n\\set x 1 +\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	const confs = "configurations:\n  - name: a\n"
	for _, c := range []struct {
		name, text string
		want       []string
	}{
		{"a script that does not parse", "name: s\nbuild: {}\nautopilot: {users: \"1\", duration: 10s, workload: bad.sql}\n" + confs, []string{
			"plan.yaml:3:50: autopilot.workload: " + bad + ":2:11: syntax error",
		}},
		{"TPC-C's keys with tpcb", "name: s\nbuild: {workload: tpcb, warehouses: 2, init: x.sql}\nautopilot: {users: \"1\", duration: 10s, mode: procedures, keying_thinking: true}\n" + confs + "fit: {configuration: a, target_nopm: 5, cpus: [1], versions: [\"16\"]}\n", []string{
			"plan.yaml:2:37: build.warehouses: is TPC-C's",
			"plan.yaml:2:46: build.init: is a script workload's",
			"plan.yaml:3:46: autopilot.mode: mode is TPC-C's",
			"plan.yaml:3:75: autopilot.keying_thinking: keying and think times are TPC-C's",
			"fit.target_nopm: is TPC-C's: a pgbench workload's target is target_tps",
			"fit.versions: versions rebuild TPC-C's database",
		}},
		{"the workload's keys with TPC-C", "name: s\nbuild: {warehouses: 1, scale: 2}\nautopilot: {users: \"1\", duration: 10s, figure: a}\n" + confs + "fit: {configuration: a, target_tps: 5, cpus: [1]}\n", []string{
			"build.scale: is for a pgbench workload's build",
			"autopilot.workload: define, random_seed, scale, figure, protocol, max_tries and connect are for pgbench workloads",
			"fit.target_tps: is a pgbench workload's target",
		}},
		{"a TPC-C build for scripts", "name: s\nbuild: {workload: tpcc, warehouses: 1}\nautopilot: {users: \"1\", duration: 10s, workload: tpcb}\n" + confs, []string{
			"plan.yaml:2:19: build.workload: the build is TPC-C's",
		}},
		{"no build at all", "name: s\nautopilot: {users: \"1\", duration: 10s}\n" + confs, []string{
			"build.warehouses: missing: how many warehouses to build",
		}},
		{"a rate with TPC-C", "name: s\nbuild: {warehouses: 1}\nautopilot: {users: \"1\", duration: 10s, rate: 50}\n" + confs, []string{
			"autopilot.rate: paces a pgbench workload",
		}},
		{"a latency limit with TPC-C", "name: s\nbuild: {warehouses: 1}\nautopilot: {users: \"1\", duration: 10s, latency_limit: 50ms}\n" + confs, []string{
			"autopilot.latency_limit: counts a pgbench workload's late transactions",
		}},
		{"no such protocol", "name: s\nbuild: {workload: tpcb}\nautopilot: {users: \"1\", duration: 10s, workload: tpcb, protocol: binary}\n" + confs, []string{
			"autopilot.protocol: unknown protocol \"binary\": give prepared, extended, simple (as pgbench -M)",
		}},
		{"a layout with TPC-C", "name: s\nbuild: {warehouses: 1, fillfactor: 90}\nautopilot: {users: \"1\", duration: 10s}\n" + confs, []string{
			"build.fillfactor: is for a pgbench workload's build",
		}},
		{"a bad partition method", "name: s\nbuild: {workload: tpcb, partitions: 2, partition_method: list}\nautopilot: {users: \"1\", duration: 10s}\n" + confs, []string{
			"build.partition_method: list: give range or hash",
		}},
		{"a layout for a script's tables", "name: s\nbuild: {init: init.sql, partitions: 2}\nautopilot: {users: \"1\", duration: 10s, workload: bad.sql}\n" + confs, []string{
			"build.partitions: is tpcb's: it lays out pgbench's tables",
		}},
		{"no tries", "name: s\nbuild: {workload: tpcb}\nautopilot: {users: \"1\", duration: 10s, workload: tpcb, max_tries: 0}\n" + confs, []string{
			"autopilot.max_tries: must be at least 1 (got 0)",
		}},
		{"a latency limit not a duration", "name: s\nbuild: {workload: tpcb}\nautopilot: {users: \"1\", duration: 10s, workload: tpcb, latency_limit: fast}\n" + confs, []string{
			"autopilot.latency_limit: \"fast\" is not a duration",
		}},
		{"a rate with a fit", "name: s\nbuild: {workload: tpcb}\nautopilot: {users: \"1\", duration: 10s, workload: tpcb, rate: 50}\n" + confs + "fit: {configuration: a, target_tps: 5, cpus: [1]}\n", []string{
			"autopilot.rate: does not fit",
		}},
		{"no such figure, bad define", "name: s\nbuild: {workload: tpcb}\nautopilot: {users: \"1\", duration: 10s, figure: x, define: {1x: 2}}\n" + confs, []string{
			"autopilot.figure: x: no such script; the workload's are tpcb-like",
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse(filepath.Join(dir, "plan.yaml"), []byte(c.text))
			var es yamlfile.Errors
			if !errors.As(err, &es) {
				t.Fatalf("error %T %v, want yamlfile.Errors", err, err)
			}
			got := es.Error()
			var lines []string
			for _, e := range es {
				lines = append(lines, strings.TrimPrefix(e.Error(), dir+"/"))
			}
			got = strings.Join(lines, "\n")
			for _, w := range c.want {
				if !strings.Contains(got, w) {
					t.Errorf("problems lack %q:\n%s", w, got)
				}
			}
		})
	}
}
