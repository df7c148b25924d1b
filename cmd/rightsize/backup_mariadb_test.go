package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/rightsize/rightsize/instance/mariadb"
	"github.com/rightsize/rightsize/internal/pgtest"
)

// probe backup --target mariadb backs up the managed MariaDB's database:
// the backup probe gets the server's URL, not the --target value.
func TestProbeBackupManagedMariaDB(t *testing.T) {
	if testing.Short() || os.Getenv("RIGHTSIZE_SKIP_MYSQL") == "1" {
		t.Skip("starts MariaDB")
	}
	if !mariadb.Installed() {
		t.Skip("no mariadbd on this machine")
	}
	ctx := context.Background()
	dataDir := filepath.Join(pgtest.ServerDir(t, "backup-mariadb-"), "data")
	loc := tempStore(t)
	target := []string{"--target", "mariadb", "--data-dir", dataDir, "--store", loc}
	if out, errOut, code := cli(t, ctx, append([]string{"build", "--warehouses", "1"}, target...)...); code != 0 {
		t.Fatalf("build: exit %d\n%s%s", code, out, errOut)
	}
	out, errOut, code := cli(t, ctx, append([]string{"probe", "backup", "--json"}, target...)...)
	if code != 0 {
		t.Fatalf("probe backup --target mariadb: exit %d\n%s%s", code, out, errOut)
	}
	var doc struct {
		Result struct {
			Method string            `json:"method"`
			Cycles []json.RawMessage `json:"cycles"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if doc.Result.Method == "" || len(doc.Result.Cycles) != 1 {
		t.Errorf("method %q, %d cycles; want one cycle:\n%s", doc.Result.Method, len(doc.Result.Cycles), out)
	}
}
