package backup

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rightsize/rightsize/internal/pgtest"
)

// mysqlTarget returns the MySQL/MariaDB database of RIGHTSIZE_TEST_MYSQL_URL
// (mysql://user:pass@host:port/db; the user needs CREATE and DROP of
// databases) after putting a table with rows in it, or skips.
func mysqlTarget(t *testing.T) Spec {
	t.Helper()
	u := os.Getenv("RIGHTSIZE_TEST_MYSQL_URL")
	if u == "" {
		t.Skip("set RIGHTSIZE_TEST_MYSQL_URL=mysql://user:pass@host:port/db to test the MySQL/MariaDB backup")
	}
	c, err := parseMySQLURL(u)
	if err != nil {
		t.Fatal(err)
	}
	db, err := openMySQL(c.driverConfig(c.db))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, q := range []string{
		"CREATE TABLE IF NOT EXISTS rightsize_backup_probe (id int PRIMARY KEY, payload varchar(64))",
		"REPLACE INTO rightsize_backup_probe VALUES (1, 'one'), (2, 'two'), (3, 'three')",
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	return Spec{EngineName: "mysql", Method: MySQL, URL: u}
}

func testMySQL(t *testing.T, method string) {
	target := mysqlTarget(t)
	dir := pgtest.ServerDir(t, "mysqlbackup-")
	var lines []string
	res, err := Run(context.Background(), target, Options{Dir: dir, Cycles: 2, Method: method}, func(s string) { lines = append(lines, s) })
	if errors.Is(err, errUnavailable) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	FormatText(&b, res)
	t.Logf("%s\n\n%s", strings.Join(lines, "\n"), b.String())
	if method != "" && res.Method != method {
		t.Errorf("method %s, want %s", res.Method, method)
	}
	if len(res.Cycles) != 2 {
		t.Fatalf("%d cycles", len(res.Cycles))
	}
	for _, c := range res.Cycles {
		if c.Bytes <= 0 || c.BackupMBps <= 0 || c.RestoreMBps <= 0 || !c.RestoreChecked {
			t.Errorf("cycle %+v", c)
		}
	}
	checkNothingLeft(t, dir)
	m, err := newMySQL(context.Background(), target, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer m.close()
	var n int
	if err := m.db.QueryRow("SELECT COUNT(*) FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = ?", m.restoreDB()).Scan(&n); err != nil || n != 0 {
		t.Errorf("restore database left: %d %v", n, err)
	}
}

func TestMySQLDump(t *testing.T) { testMySQL(t, MethodMySQLDump) }

func TestMySQLAuto(t *testing.T) { testMySQL(t, "") }

func TestMySQLCancelMidBackup(t *testing.T) {
	target := mysqlTarget(t)
	dir := pgtest.ServerDir(t, "mysqlbackup-")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	testHook = func(event, info string) {
		if event == "backup-started" {
			cancel()
		}
	}
	defer func() { testHook = nil }()
	res, err := Run(ctx, target, Options{Dir: dir, Cycles: 2}, nil)
	if !errors.Is(err, context.Canceled) || !res.Partial {
		t.Fatalf("err = %v, partial %v", err, res.Partial)
	}
	checkNothingLeft(t, dir)
}

func TestMySQLPhysicalKeepInPlace(t *testing.T) {
	target := mysqlTarget(t)
	dir := pgtest.ServerDir(t, "mysqlbackup-")
	res, err := Run(context.Background(), target, Options{Dir: dir, Method: MethodMariaDBBackup, Keep: true, RestoreInPlace: true}, nil)
	if errors.Is(err, errUnavailable) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Cycles) != 1 || !res.Cycles[0].RestoreChecked || res.Cycles[0].RestoreStartSeconds <= 0 {
		t.Fatalf("%+v", res)
	}
	if _, err := os.Stat(filepath.Join(res.Kept, "xtrabackup_checkpoints")); err != nil {
		t.Errorf("kept backup %q: %v", res.Kept, err)
	}
	if p := processesUnder(dir); len(p) != 0 {
		t.Errorf("processes left: %v", p)
	}
}
