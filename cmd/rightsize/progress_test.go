package main

import (
	"context"
	"os"
	"regexp"
	"strings"
	"testing"
)

// Without a terminal, a run prints a progress line every
// --progress-interval with the phase, the time left and the live figures.
func TestRunProgressLines(t *testing.T) {
	dsn := built(t)
	out, errOut, code := cli(t, context.Background(), "run", "--target", dsn, "--users", "2", "--rampup", "1500ms", "--duration", "3s",
		"--progress-interval", "1s", "--store", tempStore(t))
	if code != 0 {
		t.Fatalf("run: %d\n%s%s", code, out, errOut)
	}
	// Any error count: two users on one warehouse at snapshot isolation
	// can exhaust a transaction's retries on a loaded machine (CI: "errors 2").
	ramp := regexp.MustCompile(`step 1/1 · 2 users · ramp-up \d+s/2s \(\d+s left\)  TPM \d+ · NOPM \d+ \(last 10 s\) · errors \d+ · p95 -`)
	meas := regexp.MustCompile(`step 1/1 · 2 users · measuring \d+s/3s \(\d+s left\)  TPM [1-9]\d* · NOPM [1-9]\d* \(last 10 s\) · errors \d+`)
	if !ramp.MatchString(errOut) || !meas.MatchString(errOut) {
		t.Fatalf("no ramp-up and measuring progress lines in:\n%s", errOut)
	}
	if n := strings.Count(errOut, "measuring "); n < 2 || n > 5 {
		t.Errorf("%d measuring lines for 3 s at 1 s intervals:\n%s", n, errOut)
	}
}

// A pipe is no terminal: progress goes to lines.
func TestTerminalColumnsOfPipe(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	if c := terminalColumns(w); c != 0 {
		t.Fatalf("terminalColumns(pipe) = %d, want 0", c)
	}
}
