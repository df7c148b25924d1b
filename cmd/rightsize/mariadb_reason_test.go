package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/rightsize/rightsize/instance/mariadb"
	"github.com/rightsize/rightsize/internal/pgtest"
)

// mariaDBDir is a data directory (not made yet) for a managed MariaDB
// under a private directory; it skips the test when MariaDB is not to be
// started (-short, RIGHTSIZE_SKIP_MYSQL=1, no mariadbd).
func mariaDBDir(t *testing.T, prefix string) string {
	t.Helper()
	if testing.Short() || os.Getenv("RIGHTSIZE_SKIP_MYSQL") == "1" {
		t.Skip("starts MariaDB")
	}
	if !mariadb.Installed() {
		t.Skip("no mariadbd on this machine")
	}
	return filepath.Join(pgtest.ServerDir(t, prefix), "data")
}

// builtMariaDB is a 1-warehouse managed MariaDB build and the flags that
// name it and the store st.
func builtMariaDB(t *testing.T, prefix, st string) (dataDir string, target []string) {
	t.Helper()
	dataDir = mariaDBDir(t, prefix)
	target = []string{"--target", "mariadb", "--data-dir", dataDir, "--store", st}
	if out, errOut, code := cli(t, context.Background(), append([]string{"build", "--warehouses", "1"}, target...)...); code != 0 {
		t.Fatalf("build: exit %d\n%s%s", code, out, errOut)
	}
	return dataDir, target
}

// A managed MariaDB that does not start (an option it does not know, set
// with --set) makes check end its one line with mariadbd's own reason.
func TestMariaDBFailedStartSaysWhy(t *testing.T) {
	dataDir := mariaDBDir(t, "mariadb-reason-")
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
	st := tempStore(t)
	dataDir, target := builtMariaDB(t, "mariadb-dies-", st)
	killed := 0
	var once sync.Once
	onErr := func(s string) {
		if strings.Contains(s, "· measuring ") && strings.Contains(s, "TPM ") { // a progress line: the users work
			once.Do(func() {
				if pids := processesWith("\x00--datadir=" + dataDir + "\x00"); len(pids) == 1 && syscall.Kill(pids[0], syscall.SIGSEGV) == nil {
					killed = pids[0]
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
