package main

import (
	"slices"
	"testing"

	"github.com/spf13/pflag"
)

// TestSetStored: a resumed command's flags take the values its first run
// stored, lists (as pflag prints them) item by item, and as if given.
func TestSetStored(t *testing.T) {
	for _, tc := range []struct {
		name, stored string
		want         []string // a list flag's items; nil: the scalar's value is stored
	}{
		{"duration", "3s", nil},
		{"workload", "[a.sql@9,b.sql@1]", []string{"a.sql@9", "b.sql@1"}},
		{"set", "[synchronous_commit=off]", []string{"synchronous_commit=off"}},
		{"set", "[]", []string{}},
		{"values", "[256M,128M]", []string{"256M", "128M"}},
	} {
		fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
		fs.String("duration", "1m0s", "")
		fs.StringArray("workload", []string{"tpcc"}, "")
		fs.StringArray("set", nil, "")
		fs.StringSlice("values", nil, "")
		f := fs.Lookup(tc.name)
		if err := setStored(fs, f, tc.stored); err != nil {
			t.Fatalf("%s %s: %v", tc.name, tc.stored, err)
		}
		if !f.Changed {
			t.Errorf("%s %s: not marked as given", tc.name, tc.stored)
		}
		if tc.want == nil {
			if got := f.Value.String(); got != tc.stored {
				t.Errorf("%s: %q, want %q", tc.name, got, tc.stored)
			}
			continue
		}
		if got := f.Value.(pflag.SliceValue).GetSlice(); !slices.Equal(got, tc.want) {
			t.Errorf("%s %s: items %q, want %q", tc.name, tc.stored, got, tc.want)
		}
		if got := f.Value.String(); got != tc.stored {
			t.Errorf("%s: prints %q again, want %q (what the next run stores)", tc.name, got, tc.stored)
		}
	}
}
