package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

func TestHasPassword(t *testing.T) {
	for spec, want := range map[string]bool{
		"postgres://postgres:secret@db1/tpcc":        true,
		"mysql://root:pw@127.0.0.1:3306/tpcc":        true,
		"sqlserver://sa:Pw1@host:1433?database=tpcc": true,
		"host=db1 user=postgres password=secret":     true,
		"postgres://postgres@db1/tpcc":               false,
		"host=db1 user=postgres":                     false,
		"embedded":                                   false,
		"sqlite:/tmp/tpcc.db":                        false,
		"/home/me/rightsize.db":                      false,
		"postgres://postgres:@db1/tpcc":              false,
	} {
		if got := hasPassword(spec); got != want {
			t.Errorf("hasPassword(%q) = %v, want %v", spec, got, want)
		}
	}
}

// A password on the command line is warned of, one line for the flag
// that has one, with the safe ways; none is said without one.
func TestWarnPassword(t *testing.T) {
	fs := pflag.NewFlagSet("x", pflag.ContinueOnError)
	fs.String("target", "embedded", "")
	fs.String("store", "", "")
	_ = fs.Parse([]string{"--target", "postgres://u:secret@db/x", "--store", "postgres://u@db/results"})
	var buf bytes.Buffer
	warnPassword(&buf, fs, "target")
	warnPassword(&buf, fs, "store")
	if out := buf.String(); strings.Count(out, "\n") != 1 || !strings.Contains(out, "--target is readable by every local user") || !strings.Contains(out, "PGPASSWORD") {
		t.Errorf("warning %q", out)
	}
}
