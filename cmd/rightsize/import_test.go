package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// TestImportHammerDBTwice: labelled with the log's base name; the same
// log again is refused with exit 2 unless --replace; a time profile alone
// is attached to the run of its virtual users.
func TestImportHammerDBTwice(t *testing.T) {
	ctx := context.Background()
	st := tempStore(t)
	log := filepath.Join("..", "..", "importer", "testdata", "timed.log")
	prof := filepath.Join("..", "..", "importer", "testdata", "hdbxtprofile.log")
	for _, c := range []struct {
		args       []string
		code       int
		out, three string
	}{
		{[]string{log}, 0, `label "hammerdb:timed.log"`, ""},
		{[]string{log}, 2, "", "already imported as run"},
		{[]string{log, "--replace"}, 0, `label "hammerdb:timed.log"`, ""},
		{[]string{prof}, 0, `attached ` + prof + ` to run`, ""},
		{[]string{prof}, 2, "", "already has their latencies"},
	} {
		out, errOut, code := cli(t, ctx, append(append([]string{"import", "hammerdb"}, c.args...), "--store", st)...)
		if code != c.code || !strings.Contains(out, c.out) || !strings.Contains(errOut, c.three) {
			t.Fatalf("import %v: exit %d (want %d)\n%s%s", c.args, code, c.code, out, errOut)
		}
	}
	out, _, _ := cli(t, ctx, "results", "list", "--store", st)
	if n := strings.Count(out, "hammerdb:timed.log"); n != 1 {
		t.Errorf("%d runs labelled hammerdb:timed.log, want 1:\n%s", n, out)
	}
}
