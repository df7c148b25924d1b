package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
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
