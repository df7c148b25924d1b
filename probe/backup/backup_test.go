package backup

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"
)

func TestMSSQLText(t *testing.T) {
	if got, want := mssqlBackupSQL("tpcc", `D:\Backup\rightsize-tpcc-backup-1.bak`),
		`BACKUP DATABASE [tpcc] TO DISK = N'D:\Backup\rightsize-tpcc-backup-1.bak' WITH COPY_ONLY, INIT, STATS = 10`; got != want {
		t.Errorf("backup:\n got %s\nwant %s", got, want)
	}
	if got := mssqlBackupSQL("o]dd", "/b/o'dd.bak"); got != `BACKUP DATABASE [o]]dd] TO DISK = N'/b/o''dd.bak' WITH COPY_ONLY, INIT, STATS = 10` {
		t.Errorf("quoting: %s", got)
	}
	files := []mssqlFile{
		{logical: "tpcc", physical: `D:\Data\tpcc.mdf`},
		{logical: "tpcc_log", physical: `L:\Log\tpcc_log.ldf`},
	}
	got := mssqlRestoreSQL("tpcc_rightsize_restore", `D:\Backup\x.bak`, files)
	want := `RESTORE DATABASE [tpcc_rightsize_restore] FROM DISK = N'D:\Backup\x.bak' WITH REPLACE, STATS = 10,
    MOVE N'tpcc' TO N'D:\Data\tpcc_rightsize_restore_tpcc.mdf',
    MOVE N'tpcc_log' TO N'L:\Log\tpcc_rightsize_restore_tpcc_log.ldf'`
	if got != want {
		t.Errorf("restore:\n got %s\nwant %s", got, want)
	}
	if got := movedPath(mssqlFile{"data", "/var/opt/mssql/data/tpcc.mdf"}, "r"); got != "/var/opt/mssql/data/r_data.mdf" {
		t.Errorf("linux path: %s", got)
	}
	if got := mssqlFileListSQL("/b/x.bak"); got != "RESTORE FILELISTONLY FROM DISK = N'/b/x.bak'" {
		t.Errorf("filelist: %s", got)
	}
	if got := mssqlDropSQL("r"); !strings.Contains(got, "SET SINGLE_USER WITH ROLLBACK IMMEDIATE; DROP DATABASE [r];") || !strings.HasPrefix(got, "IF DB_ID(N'r') IS NOT NULL") {
		t.Errorf("drop: %s", got)
	}
	for dir, want := range map[string]string{
		`D:\Backup`:            `D:\Backup\f.bak`,
		`D:\Backup\`:           `D:\Backup\f.bak`,
		"/var/opt/mssql/data/": "/var/opt/mssql/data/f.bak",
		"C:":                   `C:\f.bak`,
	} {
		if got := joinServerPath(dir, "f.bak"); got != want {
			t.Errorf("join %q: %q, want %q", dir, got, want)
		}
	}
}

func TestLibpqConninfo(t *testing.T) {
	dsn := "postgres://u:s%40cret@db.example:5433/tpcc?sslmode=require&pool_max_conns=8&statement_cache_capacity=10"
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	ci, pw := libpqConninfo(dsn, cfg.ConnConfig)
	if pw != "s@cret" || ci != "postgres://u@db.example:5433/tpcc?sslmode=require" {
		t.Errorf("conninfo %q password %q", ci, pw)
	}
	kv := "host=h user=u dbname=d"
	cfg, err = pgxpool.ParseConfig(kv)
	if err != nil {
		t.Fatal(err)
	}
	if ci, _ := libpqConninfo(kv, cfg.ConnConfig); ci != kv {
		t.Errorf("keyword form: %q", ci)
	}
}

func TestParseMySQLURL(t *testing.T) {
	c, err := parseMySQLURL("mysql://root:p%40ss@db:3307/tpcc")
	if err != nil {
		t.Fatal(err)
	}
	if c.user != "root" || c.password != "p@ss" || c.host != "db" || c.port != "3307" || c.db != "tpcc" || c.local() {
		t.Errorf("%+v", c)
	}
	if a := strings.Join(c.args(), " "); a != "--user=root --protocol=TCP --host=db --port=3307" {
		t.Errorf("args %s", a)
	}
	c, err = parseMySQLURL("mariadb://u@localhost/x?socket=/run/mysqld/mysqld.sock")
	if err != nil {
		t.Fatal(err)
	}
	if !c.local() || c.port != "3306" || c.driverConfig("x").Net != "unix" {
		t.Errorf("%+v", c)
	}
	if _, err := parseMySQLURL("mysql://u@h/"); err == nil {
		t.Error("no database accepted")
	}
	if _, err := parseMySQLURL("postgres://u@h/db"); err == nil {
		t.Error("postgres URL accepted")
	}
}

func TestRestoreDBName(t *testing.T) {
	m := &mysqlMethod{conn: mysqlConn{db: strings.Repeat("x", 60)}}
	if n := m.restoreDB(); len(n) != 64 || !strings.HasSuffix(n, "_rightsize_restore") {
		t.Errorf("%q", n)
	}
}

func TestCopyTree(t *testing.T) {
	src := t.TempDir()
	if err := os.MkdirAll(filepath.Join(src, "base", "1"), 0o700); err != nil {
		t.Fatal(err)
	}
	big := bytes.Repeat([]byte("rightsize"), 300_000) // > the 1 MiB buffer
	if err := os.WriteFile(filepath.Join(src, "base", "1", "1259"), big, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(src, "PG_VERSION"), []byte("15\n"), 0o640); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/elsewhere", filepath.Join(src, "link")); err != nil {
		t.Fatal(err)
	}
	testNoSync = false
	defer func() { testNoSync = true }()
	dst := filepath.Join(t.TempDir(), "copy")
	if err := copyTree(context.Background(), src, dst, nil); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(dst, "base", "1", "1259"))
	if err != nil || !bytes.Equal(got, big) {
		t.Errorf("copied file differs (%v)", err)
	}
	if st, err := os.Stat(filepath.Join(dst, "PG_VERSION")); err != nil || st.Mode().Perm() != 0o640 {
		t.Errorf("mode: %v %v", st.Mode(), err)
	}
	if st, err := os.Stat(filepath.Join(dst, "base")); err != nil || st.Mode().Perm() != 0o700 {
		t.Errorf("dir mode: %v %v", st.Mode(), err)
	}
	if l, err := os.Readlink(filepath.Join(dst, "link")); err != nil || l != "/elsewhere" {
		t.Errorf("link %q %v", l, err)
	}
	n1, _ := dirSize(src)
	n2, _ := dirSize(dst)
	if n1 != n2 || n1 != int64(len(big))+3 {
		t.Errorf("sizes %d %d", n1, n2)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := copyTree(ctx, src, filepath.Join(t.TempDir(), "c2"), nil); err == nil {
		t.Error("cancelled copy succeeded")
	}
}

func TestUnsupportedEngine(t *testing.T) {
	_, err := Run(context.Background(), Spec{EngineName: "sqlite", URL: "x.db"}, Options{}, nil)
	if err == nil || !strings.Contains(err.Error(), `"sqlite" is not supported`) {
		t.Errorf("err = %v", err)
	}
}

func TestFormatText(t *testing.T) {
	r := Result{Engine: "mssql", Version: "Microsoft SQL Server 2017", Method: MethodMSSQL, Dir: `D:\Backup`, EverySeconds: 100, Host: "h",
		Cycles: []Cycle{
			{N: 1, Bytes: 100e9, BackupSeconds: 265, BackupMBps: 593, RestoreSeconds: 129, RestoreMBps: 1400, RestoreChecked: true, DiskLatencyMs: []float64{1, 3}, DiskAvgLatencyMs: 2},
			{N: 2, Bytes: 100e9, BackupSeconds: 270, BackupMBps: 580, RestoreSeconds: 131, RestoreMBps: 1380, Note: "restored tables without rows: x"},
		}, Partial: true}
	var b bytes.Buffer
	FormatText(&b, r)
	for _, want := range []string{"every 1m40s", "100.00 GB", "593.0", "1400.0", "  NO |", "cycle 2: restored tables without rows: x", "interrupted", "267.5"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("lacks %q:\n%s", want, b.String())
		}
	}
}
