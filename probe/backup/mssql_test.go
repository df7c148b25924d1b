package backup

import (
	"bytes"
	"context"
	"os"
	"testing"
)

// TestMSSQLLive backs up and restores the database of
// RIGHTSIZE_TEST_MSSQL_DSN (sqlserver://user:pass@host:1433?database=db; the
// login needs BACKUP DATABASE, CREATE DATABASE and sysadmin for
// xp_delete_file) into RIGHTSIZE_TEST_MSSQL_BACKUP_DIR, a directory on the
// server ("" for its default backup directory).
func TestMSSQLLive(t *testing.T) {
	dsn := os.Getenv("RIGHTSIZE_TEST_MSSQL_DSN")
	if dsn == "" {
		t.Skip("set RIGHTSIZE_TEST_MSSQL_DSN=sqlserver://user:pass@host:1433?database=db to test BACKUP/RESTORE DATABASE")
	}
	res, err := Run(context.Background(), Spec{EngineName: "mssql", Method: MSSQL, URL: dsn},
		Options{Dir: os.Getenv("RIGHTSIZE_TEST_MSSQL_BACKUP_DIR"), Cycles: 2}, func(s string) { t.Log(s) })
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	FormatText(&b, res)
	t.Logf("\n%s", b.String())
	if len(res.Cycles) != 2 {
		t.Fatalf("%d cycles", len(res.Cycles))
	}
	for _, c := range res.Cycles {
		if c.Bytes <= 0 || c.BackupMBps <= 0 || c.RestoreMBps <= 0 || !c.RestoreChecked {
			t.Errorf("cycle %+v", c)
		}
	}
}
