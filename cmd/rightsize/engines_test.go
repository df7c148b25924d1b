package main

import (
	"context"
	"strings"
	"testing"

	"github.com/rightsize/rightsize/registry"
)

// engines prints every registered engine with its --target forms, from the
// one registry, and the --target help lists the same forms.
func TestEnginesFromRegistry(t *testing.T) {
	out, errOut, code := cli(t, context.Background(), "engines")
	if code != 0 {
		t.Fatalf("engines: %d\n%s", code, errOut)
	}
	help, _, _ := cli(t, context.Background(), "run", "--help")
	for _, e := range registry.Engines() {
		line := ""
		for _, l := range strings.Split(out, "\n") {
			if strings.HasPrefix(l, e.Name+" ") {
				line = l
			}
		}
		for _, f := range e.Forms {
			if !strings.Contains(line, f.Long) {
				t.Errorf("engines line of %s lacks %q: %q", e.Name, f.Long, line)
			}
			if !strings.Contains(help, f.Short) {
				t.Errorf("run --help lacks the --target form %q", f.Short)
			}
		}
	}
}
