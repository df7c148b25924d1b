package main

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func TestStudyValidate(t *testing.T) {
	ctx := context.Background()
	out, errOut, code := cli(t, ctx, "study", "validate", "../../examples/fewer-cores-faster-storage.yaml", "--max-duration", "15m")
	if code != 0 || !strings.Contains(out, "estimated duration") || !strings.Contains(out, "8m0s") ||
		!strings.Contains(out, "new-1cpu → new-4vc-ssd") || !strings.Contains(out, "USD 34,075.30") {
		t.Errorf("validate study A: exit %d\n%s%s", code, out, errOut)
	}

	dir := t.TempDir()
	if out, errOut, code := cli(t, ctx, "study", "init", dir); code != 0 {
		t.Fatalf("init: exit %d\n%s%s", code, out, errOut)
	}
	if _, _, code := cli(t, ctx, "study", "init", dir); code != 2 {
		t.Errorf("init over an existing plan: exit %d, want 2", code)
	}
	planFile := filepath.Join(dir, "study.yaml")
	if out, errOut, code := cli(t, ctx, "study", "validate", planFile); code != 0 {
		t.Fatalf("validate the init plan: exit %d\n%s%s", code, out, errOut)
	}

	// A deliberate error: its line and column.
	b, err := os.ReadFile(planFile)
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Replace(string(b), "    version: 17\n", "    version: 11\n", 1)
	lines := strings.Split(text, "\n")
	line := 0
	for i, l := range lines {
		if l == "    version: 11" {
			line = i + 1
		}
	}
	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(bad, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	_, errOut, code = cli(t, ctx, "study", "validate", bad)
	want := bad + ":" + strconv.Itoa(line) + ":14: configurations[1].version: \"11\" is not a PostgreSQL version"
	if code != 2 || !strings.Contains(errOut, want) {
		t.Errorf("exit %d, stderr %q; want 2 and %q", code, errOut, want)
	}
	// Several problems: one line each.
	text = strings.Replace(text, "  warehouses: 1\n", "  warehouses: 0\n", 1)
	if err := os.WriteFile(bad, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	_, errOut, code = cli(t, ctx, "study", "validate", bad)
	if code != 2 || !strings.Contains(errOut, "build.warehouses: must be at least 1") || !strings.Contains(errOut, "2 problems") {
		t.Errorf("two problems: exit %d, stderr %q", code, errOut)
	}

	_, errOut, code = cli(t, ctx, "study", "validate", "../../examples/fewer-cores-faster-storage.yaml", "--max-duration", "5m")
	if code != 2 || !strings.Contains(errOut, "fewer-cores-faster-storage.yaml:16:13: autopilot.duration: the plan is estimated at 8m0s, more than --max-duration 5m0s") {
		t.Errorf("--max-duration: exit %d, stderr %q", code, errOut)
	}
	_, errOut, code = cli(t, ctx, "study", "run", planFile)
	if code != 2 || !strings.Contains(errOut, "not implemented") {
		t.Errorf("study run: exit %d, stderr %q; want 2, not implemented", code, errOut)
	}
}
