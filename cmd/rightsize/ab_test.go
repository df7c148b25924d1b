package main

import (
	"context"
	"encoding/json"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rightsize/rightsize/cgroup"
	"github.com/rightsize/rightsize/instance"
	"github.com/rightsize/rightsize/interleave"
	"github.com/rightsize/rightsize/registry"
	"github.com/rightsize/rightsize/store"
)

// rightsize ab on the embedded server: identical A and B over 2 rounds
// pass (exit 0) and say what they could detect, each leg a stored run
// labelled with its side and round; B capped at a quarter of a core over 3 rounds
// fails (exit 1, JUnit failing). The A/A gate allows 25 %, so that it
// fails by chance far less often than its 5 % level (a significant and
// 25 % worse NOPM), and a gate that always failed would still fail it.
func TestABEmbedded(t *testing.T) {
	if testing.Short() {
		t.Skip("starts its own embedded server")
	}
	args, _ := builtEmbedded(t, "ab-")
	ctx := context.Background()
	st := tempStore(t)
	// 4 users without waiting for WAL flushes keep the server busy on the
	// CPU (see TestGateEmbedded)
	ab := append([]string{"ab", "--users", "4", "--rampup", "1s", "--duration", "4s", "--set", "synchronous_commit=off", "--store", st}, args...)
	out, errOut, code := cli(t, ctx, append(ab, "--rounds", "2", "--label", "aa", "--max-regression", "25%", "--json")...)
	if code != 0 {
		t.Fatalf("A/A: exit %d, want 0\n%s%s", code, out, errOut)
	}
	var v interleave.Verdict
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatalf("ab --json: %v\n%s", err, out)
	}
	if !v.Passed || v.Rounds != 2 || len(v.Legs) != 4 || len(v.Overall.Figures) < 2 || v.Overall.Figures[1].MaxRegressionPct == nil {
		t.Fatalf("A/A verdict %+v: want 2 rounds of 4 legs passed, NOPM gated", v)
	}
	for i, want := range []string{"aa A r1", "aa B r1", "aa B r2", "aa A r2"} {
		if l := v.Legs[i]; interleave.LegLabel("aa", l.Side, l.Round) != want || l.RunID == "" {
			t.Errorf("leg %d: %+v, want %s stored", i, l, want)
		}
	}
	out, _, code = cli(t, ctx, "results", "list", "--store", st)
	if code != 0 || !strings.Contains(out, "aa B r2") {
		t.Errorf("results list does not show the legs:\n%s", out)
	}
	if h := needCgroups(t); !h.Has(cgroup.CPU) {
		t.Skip("needs the cpu controller for --b-cpus 0.25")
	}
	// a quarter of a core: at half a core, with other test packages loading
	// the machine, A got less than its 2 cores and 3 rounds measured 0.632x
	// scattering by 35 % (t 2.3 against 2.92 needed): rightly not a
	// detected regression at that precision; a quarter is far beyond it
	junit := filepath.Join(t.TempDir(), "ab.xml")
	out, errOut, code = cli(t, ctx, append(ab, "--rounds", "3", "--label", "quarter", "--b-cpus", "0.25", "--max-regression", "20%", "--junit", junit)...)
	if code != 1 || !strings.Contains(errOut, "gate FAILED: B (quarter B) against A (quarter A) over 3 interleaved rounds") ||
		!strings.Contains(out, "FAIL all steps NOPM") || !strings.Contains(out, "this comparison could detect a change of") {
		t.Fatalf("B at a quarter of a core: exit %d, want 1 with the failing figure\n%s%s", code, out, errOut)
	}
	t.Logf("B at a quarter of a core:\n%s", out)
	if doc := readJUnit(t, junit); doc.Failures < 1 {
		t.Errorf("JUnit %+v: want a failure", doc)
	}
	checkRuns(t, st, 10)
}

// A side's settings: --set, then the side's file, then its --X-set; a
// line that is not name = value is bad input naming the line.
func TestABSides(t *testing.T) {
	file := filepath.Join(t.TempDir(), "settings.conf")
	if err := os.WriteFile(file, []byte("# the candidate\nwork_mem = '8MB'  # more\n\nsynchronous_commit=off\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	base := registry.Options{Settings: map[string]string{"work_mem": "4MB", "jit": "off"}}
	f := sideFlags{name: "b", setFile: file, settings: []string{"synchronous_commit=on"}}
	s, err := f.side("embedded", base)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"work_mem": "8MB", "jit": "off", "synchronous_commit": "on"}
	if !maps.Equal(s.Target.Settings, want) || base.Settings["work_mem"] != "4MB" {
		t.Errorf("side %+v, want settings %v, the base untouched (%v)", s.Target, want, base.Settings)
	}
	if err := os.WriteFile(file, []byte("work_mem 8MB\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var e *exitError
	if _, err := f.side("embedded", base); !errors.As(err, &e) || e.code != 2 || !strings.Contains(err.Error(), "line 1") {
		t.Errorf("bad line: %v, want exit 2 naming line 1", err)
	}
}

// abLegRuns runs ab with args (which must include --json and --store st),
// wants exit 0 and a verdict of rounds complete rounds, and returns the
// stored run of each leg by side.
func abLegRuns(t *testing.T, st string, rounds int, args ...string) (v interleave.Verdict, bySide map[string][]*store.Run) {
	t.Helper()
	out, errOut, code := cli(t, context.Background(), args...)
	if code != 0 {
		t.Fatalf("ab: exit %d, want 0\n%s%s", code, out, errOut)
	}
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatalf("ab --json: %v\n%s", err, out)
	}
	if v.Rounds != rounds || len(v.Legs) != 2*rounds || v.Line == "" || len(v.Overall.Figures) < 2 || v.Overall.Figures[1].MaxRegressionPct == nil {
		t.Fatalf("verdict %+v: want %d rounds of %d legs and a gated NOPM", v, rounds, 2*rounds)
	}
	s, err := store.Open(context.Background(), st)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	bySide = map[string][]*store.Run{}
	for _, l := range v.Legs {
		r, _, err := s.LoadRun(context.Background(), l.RunID)
		if err != nil {
			t.Fatalf("leg %+v: %v", l, err)
		}
		if r.Status != store.StatusComplete || r.Flags["ab.side"] != l.Side {
			t.Errorf("leg %+v: stored run %s %s, side %q", l, r.Label, r.Status, r.Flags["ab.side"])
		}
		bySide[l.Side] = append(bySide[l.Side], r)
	}
	t.Logf("%s", v.Line)
	return v, bySide
}

// ab between two PostgreSQL versions: A on the built data directory at
// the default version (15), B at 17 on a data directory of its own, built
// by its first leg; every leg ran on its side's server.
func TestABVersions(t *testing.T) {
	if testing.Short() || os.Getenv("RIGHTSIZE_PG_BIN") != "" {
		t.Skip("downloads PostgreSQL 15 and 17")
	}
	args, dataDir := builtEmbedded(t, "abver-")
	st := tempStore(t)
	_, legs := abLegRuns(t, st, 2, append([]string{"ab", "--users", "2", "--rampup", "500ms", "--duration", "2s", "--store", st,
		"--rounds", "2", "--label", "ver", "--b-pg-version", "17", "--max-regression", "50%", "--json"}, args...)...)
	for side, want := range map[string]string{"A": instance.DefaultVersion, "B": "17"} {
		if len(legs[side]) != 2 {
			t.Fatalf("side %s: %d legs, want 2", side, len(legs[side]))
		}
		for _, r := range legs[side] {
			if !strings.Contains(r.EngineVersion, " "+want+".") || r.Warehouses != 1 {
				t.Errorf("side %s (%s): server %q on %d warehouses, want PostgreSQL %s on 1", side, r.Label, r.EngineVersion, r.Warehouses, want)
			}
		}
	}
	if _, err := os.Stat(filepath.Join(dataDir+"-pg17", "PG_VERSION")); err != nil {
		t.Errorf("B: no data directory of its own: %v", err)
	}
}

// ab between two targets: A the managed embedded server, B a PostgreSQL
// rightsize does not manage (the tests' server, by URL), both 1 warehouse;
// every leg ran on its side's target.
func TestABTwoTargets(t *testing.T) {
	if testing.Short() {
		t.Skip("starts its own embedded server")
	}
	args, _ := builtEmbedded(t, "abtgt-")
	dsn := built(t)
	st := tempStore(t)
	_, legs := abLegRuns(t, st, 2, append([]string{"ab", "--users", "2", "--rampup", "500ms", "--duration", "2s", "--store", st,
		"--rounds", "2", "--label", "tgt", "--b-target", dsn, "--max-regression", "50%", "--json"}, args...)...)
	for _, r := range legs["A"] {
		if r.Target != "embedded" {
			t.Errorf("A (%s): target %q, want embedded", r.Label, r.Target)
		}
	}
	for _, r := range legs["B"] {
		if !strings.HasPrefix(r.Target, "postgres") || r.Target == "embedded" {
			t.Errorf("B (%s): target %q, want the URL", r.Label, r.Target)
		}
	}
	if len(legs["A"]) != 2 || len(legs["B"]) != 2 {
		t.Fatalf("legs %v: want 2 a side", legs)
	}
}
