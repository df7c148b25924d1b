package funclen

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// runPath are the files a measured run goes through, from scenario.Run to
// the virtual users (issue 31: no function on the run path over 80 lines).
var runPath = []string{
	"../../driver/*.go",
	"../../scenario/run*.go",
	"../../scenario/autopilot.go",
	"../../scenario/record.go",
	"../../scenario/slots.go",
	"../../scenario/waits.go",
	"../../scenario/env.go",
	"../../scenario/caps.go",
}

func TestRunPathShort(t *testing.T) {
	long, err := Over(80, runPath...)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range long {
		t.Errorf("%s: over 80 lines on the run path; split it into named phases", f)
	}
}

func TestOver(t *testing.T) {
	dir := t.TempDir()
	src := "package p\n\nfunc short() {\n}\n\ntype T struct{}\n\nfunc (t *T) long() {\n\t_ = 1\n\t_ = 2\n}\n"
	if err := os.WriteFile(filepath.Join(dir, "p.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "p_test.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		limit int
		want  []string
	}{
		{limit: 1, want: []string{"short", "T.long"}},
		{limit: 2, want: []string{"T.long"}},
		{limit: 4, want: nil},
	}
	for _, tt := range tests {
		got, err := Over(tt.limit, filepath.Join(dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, f := range got {
			names = append(names, f.Name)
		}
		if !slices.Equal(names, tt.want) {
			t.Errorf("limit %d: got %v, want %v", tt.limit, names, tt.want)
		}
	}
}
