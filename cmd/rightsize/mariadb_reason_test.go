package main

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/rightsize/rightsize/instance/mariadb"
	"github.com/rightsize/rightsize/internal/pgtest"
)

// A managed MariaDB that does not start (an option it does not know, set
// with --set) makes check end its one line with mariadbd's own reason.
func TestMariaDBFailedStartSaysWhy(t *testing.T) {
	if testing.Short() || os.Getenv("RIGHTSIZE_SKIP_MYSQL") == "1" {
		t.Skip("starts MariaDB")
	}
	if !mariadb.Installed() {
		t.Skip("no mariadbd on this machine")
	}
	dataDir := filepath.Join(pgtest.ServerDir(t, "mariadb-reason-"), "data")
	_, errOut, code := cli(t, context.Background(), "check", "--target", "mariadb", "--data-dir", dataDir,
		"--set", "rightsize_no_such_option=1", "--store", tempStore(t))
	const says, want = "the server's log says: [ERROR] ", ": unknown variable 'rightsize_no_such_option=1'"
	if msg := strings.TrimSpace(errOut); code == 0 || !strings.Contains(msg, says) || !strings.HasSuffix(msg, want) || strings.Contains(msg, "\n") {
		t.Fatalf("check with an unknown option: exit %d, want one line with %q ending with %q:\n%s", code, says, want, errOut)
	}
	t.Log(strings.TrimSpace(errOut))
}

// A managed MariaDB that dies during a run (SIGSEGV: mariadbd logs the
// signal) ends the step as a lost server, and the reason is its log's.
func TestMariaDBRunServerDiesSaysWhy(t *testing.T) {
	if testing.Short() || os.Getenv("RIGHTSIZE_SKIP_MYSQL") == "1" {
		t.Skip("starts MariaDB")
	}
	if !mariadb.Installed() {
		t.Skip("no mariadbd on this machine")
	}
	dataDir := filepath.Join(pgtest.ServerDir(t, "mariadb-dies-"), "data")
	st := tempStore(t)
	target := []string{"--target", "mariadb", "--data-dir", dataDir, "--store", st}
	if out, errOut, code := cli(t, context.Background(), append([]string{"build", "--warehouses", "1"}, target...)...); code != 0 {
		t.Fatalf("build: exit %d\n%s%s", code, out, errOut)
	}
	killed := 0
	var once sync.Once
	onErr := func(s string) {
		if strings.Contains(s, "· measuring ") && strings.Contains(s, "TPM ") { // a progress line: the users work
			once.Do(func() {
				if pid := mariadbdOf(dataDir); pid > 0 && syscall.Kill(pid, syscall.SIGSEGV) == nil {
					killed = pid
				}
			})
		}
	}
	out, errOut, code := cliWatch(t, context.Background(), onErr, append([]string{"run", "--users", "1", "--rampup", "1s", "--duration", "1m", "--progress-interval", "1s"}, target...)...)
	if killed == 0 {
		t.Fatalf("no mariadbd was seen to kill: exit %d\n%s%s", code, out, errOut)
	}
	if code != 1 || !strings.Contains(errOut, "lost the database server: [ERROR] ") || !strings.Contains(errOut, "got signal 11") {
		t.Fatalf("run whose server died: exit %d, want 1 and the server's [ERROR] line:\n%s%s", code, out, errOut)
	}
	t.Log(strings.TrimSpace(errOut[strings.LastIndex(errOut, "rightsize: "):]))
	onePartialRun(t, st)
}

// mariadbdOf is the mariadbd process serving dataDir (0: none).
func mariadbdOf(dataDir string) int {
	procs, _ := filepath.Glob("/proc/[0-9]*")
	for _, p := range procs {
		if cmd, err := os.ReadFile(p + "/cmdline"); err == nil && strings.Contains(string(cmd), "\x00--datadir="+dataDir+"\x00") {
			pid, _ := strconv.Atoi(filepath.Base(p))
			return pid
		}
	}
	return 0
}
