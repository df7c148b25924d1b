package main

import (
	"context"
	"encoding/json"
	"testing"
)

// probe backup --target mariadb backs up the managed MariaDB's database:
// the backup probe gets the server's URL, not the --target value.
func TestProbeBackupManagedMariaDB(t *testing.T) {
	ctx := context.Background()
	_, target := builtMariaDB(t, "backup-mariadb-", tempStore(t))
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
