package instance

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLogReason(t *testing.T) {
	old := "2026-11-28 17:50:00.000 UTC [1] PANIC:  an old crash, before this start\n"
	tests := []struct {
		name, log, want string
	}{
		{"none", "2026-11-28 17:53:33.258 UTC [13113] LOG:  database system is ready to accept connections\n", ""},
		{"panic over later fatal", "x [1] PANIC:  could not write to file \"pg_wal/xlogtemp.13113\": No space left on device\n" +
			"x [2] FATAL:  the database system is in recovery mode\nx [3] FATAL:  could not open file \"base/1\": gone\n",
			`PANIC: could not write to file "pg_wal/xlogtemp.13113": No space left on device (pg_wal on `},
		{"last fatal", "x [1] FATAL:  first\nx [2] FATAL:  lock file \"postmaster.pid\" already exists\n" +
			"x [3] FATAL:  password authentication failed for user \"x\"\n", `FATAL: lock file "postmaster.pid" already exists`},
		{"client fatal only", "x [3] FATAL:  password authentication failed for user \"x\"\n", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			log := filepath.Join(dir, "pg.log")
			if err := os.WriteFile(log, []byte(old+tt.log), 0o600); err != nil {
				t.Fatal(err)
			}
			got := logReason(log, int64(len(old)), dir)
			if tt.want == "" && got != "" || !strings.HasPrefix(got, tt.want) {
				t.Fatalf("logReason = %q, want it to begin with %q", got, tt.want)
			}
			if strings.Contains(got, "No space") && !strings.HasSuffix(got, "MiB free)") {
				t.Errorf("a full disk's reason does not say how full: %q", got)
			}
		})
	}
}
