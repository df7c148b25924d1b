package workload

import (
	"cmp"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFromSpecs: --workload's values become a workload (nil for TPC-C),
// and each mistake names the flag to fix.
func TestFromSpecs(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a.sql")
	if err := os.WriteFile(a, []byte("SELECT 1;\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	u := filepath.Join(dir, "u.sql") // reads :d, which only --define sets
	if err := os.WriteFile(u, []byte("\\set x :d + 1\nSELECT :x;\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name    string
		specs   []string
		o       Options
		want    string // Describe's "name: scripts"; "" for TPC-C
		wantErr string
	}{
		{"none is TPC-C", nil, Options{}, "", ""},
		{"tpcc is TPC-C", []string{"tpcc"}, Options{}, "", ""},
		{"tpcb", []string{"tpcb"}, Options{}, "tpcb: tpcb-like@1", ""},
		{"a file and a built-in, weighted", []string{a + "@9", "select-only@1"}, Options{Figure: "a"}, "tpcb: a@9,select-only@1", ""},
		{"a file", []string{a}, Options{Defines: map[string]string{"x": "1"}, Scale: 2, RandomSeed: 3, Protocol: "simple", MaxTries: 1, Connect: true}, "scripts: a@1", ""},
		{"options with TPC-C", nil, Options{Scale: 2}, "", "--define, --random-seed, --scale, --figure, --protocol, --max-tries and --connect are for pgbench workloads"},
		{"negative tries", []string{"tpcb"}, Options{MaxTries: -1}, "", "--max-tries must be at least 1 (got -1)"},
		{"a protocol with TPC-C", nil, Options{Protocol: "simple"}, "", "--protocol, --max-tries and --connect are for pgbench workloads"},
		{"no such protocol", []string{"tpcb"}, Options{Protocol: "binary"}, "", `--protocol: unknown protocol "binary"`},
		{"tpcc in a mix", []string{"tpcb", "tpcc"}, Options{}, "", "--workload tpcc runs alone"},
		{"no such figure", []string{"tpcb"}, Options{Figure: "x"}, "", "--figure x: no such script; the workload's are tpcb-like"},
		{"a bad define", []string{"tpcb"}, Options{Defines: map[string]string{"1x": "2"}}, "", `--define: invalid variable name "1x"`},
		{"a missing file", []string{filepath.Join(dir, "none.sql")}, Options{}, "", "--workload " + filepath.Join(dir, "none.sql") + ": read script"},
		{"a bad weight", []string{"tpcb@x"}, Options{}, "", "invalid weight specification"},
		{"a variable defined", []string{u}, Options{Defines: map[string]string{"d": "2"}}, "scripts: u@1", ""},
		{"a variable nothing sets", []string{u}, Options{Defines: map[string]string{"e": "2"}}, "", u + `:1:8: undefined variable "d"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			w, err := FromSpecs(c.specs, c.o)
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("error %v, want %q", err, c.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := ""
			if w != nil {
				name, scripts := w.Describe()
				got = name + ": " + scripts
			}
			if got != c.want {
				t.Fatalf("workload %q, want %q", got, c.want)
			}
			if w == nil {
				return
			}
			f := w.Fresh()
			if f == w || f.Scale != c.o.Scale || f.RandomSeed != c.o.RandomSeed || f.FigureScript != c.o.Figure || len(f.Defines) != len(c.o.Defines) ||
				f.Mode() != cmp.Or(c.o.Protocol, "prepared") || f.MaxTries() != c.o.MaxTries || f.Connects() != c.o.Connect ||
				strings.Join(f.Kinds(), ",") != strings.Join(w.Kinds(), ",") {
				t.Errorf("Fresh %+v of %+v", f, w)
			}
		})
	}
	if !IsBuiltin("tpcb@3") || !IsBuiltin("select-only") || IsBuiltin(a) || IsBuiltin("tpcc") {
		t.Error("IsBuiltin")
	}
}
