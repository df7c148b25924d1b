// Package browsertest opens generated HTML reports in headless Chromium
// for tests: the browser to use, a run that returns what it printed, and
// the patterns of console messages and initialised charts.
package browsertest

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"
)

// Chromium returns the headless browser to open reports with. Without one
// the test is skipped on a developer's machine and fails in CI (CI set),
// where the project's test script installs Debian's chromium.
func Chromium(t testing.TB) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "/usr/bin/chromium"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") != "" {
		t.Fatal("chromium is not installed, and CI is set: the HTML report must be checked in a browser in CI (scripts/install-test-deps.sh installs it)")
	}
	t.Skip("chromium is not installed: skipping the browser check of the HTML report (apt-get install chromium to run it)")
	return ""
}

// Run runs headless chromium on a file with extra flags and returns its
// standard output and error.
func Run(t testing.TB, bin, file string, extra ...string) (stdout, stderr []byte) {
	t.Helper()
	profile, err := os.MkdirTemp("", "rightsize-chromium-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(profile) // best effort: chromium's helpers may still hold it
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	args := append([]string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
		"--disable-component-update", "--disable-sync", "--no-first-run", "--disable-extensions", "--user-data-dir=" + profile,
		"--enable-logging=stderr", "--v=0"}, extra...)
	args = append(args, "file://"+file)
	cmd := exec.CommandContext(ctx, bin, args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium %s: %v\n%s", strings.Join(extra, " "), err, errb.String())
	}
	return out.Bytes(), errb.Bytes()
}

var (
	// ConsoleRE matches a console message in Chromium's log.
	ConsoleRE = regexp.MustCompile(`(?m)^.*:CONSOLE[:(].*$`)
	// InstanceRE matches an initialised echarts chart in a dumped DOM.
	InstanceRE = regexp.MustCompile(`_echarts_instance_="`)
)
