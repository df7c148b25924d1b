package store

import (
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

var updatePins = flag.Bool("update-pins", false, "rewrite store/testdata/pin/* from the current code")

// TestStoredShapesPinned pins what a step's figures look like outside the
// program: the stored column names of steps and host_samples in their
// order, the JSON keys of a step and of a host sample, and the bytes of
// every exported CSV file (the run's ID replaced by RUN). A refactor of the
// figures' Go types must leave all of them as they are; rewrite the pins
// (go test ./store -run TestStoredShapesPinned -update-pins) only for a
// change meant to be seen, with a migration where a stored shape changes.
func TestStoredShapesPinned(t *testing.T) {
	s := openAt(t, sqliteLocation(t))
	r, steps := storeTestRun(t, s, "pin", t0)
	dir := filepath.Join(t.TempDir(), "out")
	files, err := ExportCSV(context.Background(), s, r.ID, dir)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{
		"steps.columns":        strings.Join(names(stepFields(&Step{})), "\n") + "\n",
		"host_samples.columns": strings.Join(names(sampleFields(&HostSample{})), "\n") + "\n",
		"step.keys":            jsonKeys(t, steps[0]),
		"host_sample.keys":     jsonKeys(t, steps[0].Samples[0]),
	}
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		got[filepath.Base(p)] = strings.ReplaceAll(string(b), r.ID, "RUN")
	}
	pins := filepath.Join("testdata", "pin")
	for name, text := range got {
		path := filepath.Join(pins, name)
		if *updatePins {
			if err := os.MkdirAll(pins, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if string(want) != text {
			t.Errorf("%s differs from its pin %s:\n%s", name, path, text)
		}
	}
}

// jsonKeys lists v's JSON object keys, nested objects' as parent.key,
// sorted, one a line.
func jsonKeys(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	var keys []string
	var walk func(prefix string, m map[string]any)
	walk = func(prefix string, m map[string]any) {
		for k, v := range m {
			keys = append(keys, prefix+k)
			if sub, ok := v.(map[string]any); ok {
				walk(prefix+k+".", sub)
			}
		}
	}
	walk("", m)
	slices.Sort(keys)
	return strings.Join(keys, "\n") + "\n"
}
