package instance

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
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
		{"killed backend", "x [1] LOG:  server process (PID 4242) was terminated by signal 9: Killed\n" +
			"x [1] DETAIL:  Failed process was running: COPY stock FROM STDIN\n" +
			"x [9] FATAL:  terminating connection because of crash of another server process\n" +
			"x [1] LOG:  all server processes terminated; reinitializing\n", "server process (PID 4242) was terminated by signal 9: Killed"},
		{"killed backend before a consequence's fatal", "x [1] LOG:  server process (PID 4243) was terminated by signal 9: Killed\n" +
			"x [1] DETAIL:  Failed process was running: COPY order_line FROM STDIN\n" +
			"x [9] FATAL:  terminating connection because protocol synchronization was lost\n",
			"server process (PID 4243) was terminated by signal 9: Killed"},
		{"a consequence's fatal logged before the crash line", "x [9] FATAL:  terminating connection because protocol synchronization was lost\n" +
			"x [1] LOG:  server process (PID 4244) was terminated by signal 9: Killed\n" +
			"x [1] DETAIL:  Failed process was running: COPY order_line FROM STDIN\n",
			"server process (PID 4244) was terminated by signal 9: Killed"},
		{"a consequence's fatal alone", "x [9] FATAL:  terminating connection because protocol synchronization was lost\n",
			"FATAL: terminating connection because protocol synchronization was lost"},
		{"fatal before a crash is its cause", "x [5] FATAL:  could not open file \"global/pg_control\": gone\n" +
			"x [1] LOG:  checkpointer process (PID 5) exited with exit code 1\n" +
			"x [9] FATAL:  terminating connection because protocol synchronization was lost\n",
			`FATAL: could not open file "global/pg_control": gone`},
		{"clean exit is no crash", "x [1] LOG:  background worker \"logical replication launcher\" (PID 7) exited with exit code 1\n" +
			"x [1] LOG:  database system is shut down\n", ""},
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

// A start that fails says why from the server's log, not with pg_ctl's
// command line; on a data directory whose build did not complete it says
// that; Replace then starts a new cluster there.
func TestStartFailureSaysWhy(t *testing.T) {
	if testing.Short() {
		t.Skip("starts PostgreSQL")
	}
	cfg := testConfig(t)
	p := start(t, cfg)
	connect(t, p).Close(context.Background()) // makes database bench
	if err := p.Stop(); err != nil {
		t.Fatal(err)
	}
	bad := cfg
	bad.Settings = map[string]string{"shared_buffers": "nonsense"}
	_, err := StartPostgres(context.Background(), bad)
	if err == nil || !strings.Contains(err.Error(), `the server's log says: FATAL: invalid value for parameter "shared_buffers"`) ||
		strings.Contains(err.Error(), "pg_ctl") || StartReason(err) == "" {
		t.Fatalf("start with a bad setting: %v", err)
	}
	if _, err := MarkBuild(cfg.DataDir); err != nil {
		t.Fatal(err)
	}
	_, err = StartPostgres(context.Background(), bad)
	if !errors.Is(err, ErrIncompleteBuild) || !strings.Contains(err.Error(), "build --replace") || !strings.Contains(err.Error(), "shared_buffers") {
		t.Fatalf("start of a half-built data directory: %v", err)
	}
	replace := cfg
	replace.Replace = true
	p = start(t, replace)
	if BuildIncomplete(cfg.DataDir) {
		t.Error("the replaced cluster kept the mark of the build that did not complete")
	}
	conn, err := pgx.Connect(context.Background(), p.DSN("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	var old bool
	if err := conn.QueryRow(context.Background(), "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = 'bench')").Scan(&old); err != nil || old {
		t.Errorf("the replaced cluster still has the old one's database (%v)", err)
	}
}
