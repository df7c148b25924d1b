package pgtest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/rightsize/rightsize/instance"
)

func TestMain(m *testing.M) { Main(m) }

func connect(t *testing.T, dsn string) *pgx.Conn {
	t.Helper()
	conn, err := pgx.Connect(context.Background(), dsn)
	if err != nil {
		t.Fatalf("connect %s: %v", dsn, err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

func TestNewDatabaseIsFreshAndPrivate(t *testing.T) {
	a, b := NewDatabase(t), NewDatabase(t)
	if a == b {
		t.Fatalf("two databases with one DSN %s", a)
	}
	ca, cb := connect(t, a), connect(t, b)
	if _, err := ca.Exec(context.Background(), "CREATE TABLE only_in_a (id int)"); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := cb.QueryRow(context.Background(), "SELECT count(*) FROM pg_tables WHERE tablename = 'only_in_a'").Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Error("a table created in one database is visible in another")
	}
	if Server(t) != Server(t) {
		t.Error("Server returned two different servers")
	}
}

func TestDatabaseDroppedAtCleanup(t *testing.T) {
	var name string
	t.Run("sub", func(t *testing.T) {
		dsn := NewDatabase(t)
		name = dsn[strings.LastIndex(dsn, "/")+1 : strings.Index(dsn, "?")]
		connect(t, dsn) // still open at cleanup: DROP ... WITH (FORCE) copes
	})
	var exists bool
	err := connect(t, Server(t).DSN("postgres")).QueryRow(context.Background(),
		"SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)", name).Scan(&exists)
	if err != nil {
		t.Fatal(err)
	}
	if exists {
		t.Errorf("database %s still exists after its test finished", name)
	}
}

func TestDatabaseName(t *testing.T) {
	long := strings.Repeat("Sub/Test With Spaces-", 10)
	for _, tc := range []struct{ in, want string }{
		{"TestX", "t_testx_7"},
		{"TestX/case_1", "t_testx_case_1_7"},
	} {
		if got := databaseName(tc.in, 7); got != tc.want {
			t.Errorf("databaseName(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	if got := databaseName(long, 12345); len(got) > 63 || !strings.HasSuffix(got, "_12345") {
		t.Errorf("databaseName(long) = %q (%d bytes)", got, len(got))
	}
}

// A server left behind by a test binary that died is stopped, and its data
// removed, by the next test binary that starts a server.
func TestReapStale(t *testing.T) {
	dir := ServerDir(t, "pgtest-")
	tmpRoot := filepath.Dir(dir)
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "owner"), []byte(strconv.Itoa(dead.Process.Pid)), 0o644); err != nil {
		t.Fatal(err)
	}
	orphan, err := instance.StartPostgres(context.Background(), instance.PostgresConfig{
		BinDir:   os.Getenv("RIGHTSIZE_PG_BIN"),
		DataDir:  filepath.Join(dir, "data"),
		LogFile:  filepath.Join(dir, "postgres.log"),
		Settings: map[string]string{"fsync": "off"},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { orphan.Stop() })
	pid, err := orphan.PID()
	if err != nil {
		t.Fatal(err)
	}

	reapStale(tmpRoot)

	if _, err := os.Stat(filepath.Join(dir, "data")); !os.IsNotExist(err) {
		t.Errorf("stale data dir not removed: %v", err)
	}
	if processAlive(pid) && !isZombie(pid) {
		t.Errorf("stale server pid %d still running", pid)
	}
	if _, err := os.Stat(filepath.Join(dir, "postgres.log")); err != nil {
		t.Errorf("stale server log removed too early: %v", err)
	}
}

// isZombie reports whether pid is an exited but unreaped process (Linux).
func isZombie(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i > 0 && i+2 < len(s) && s[i+2] == 'Z'
}

// NewDatabaseFrom fills its template once; each copy holds what fill made
// and is a database of its own. A fill that fails leaves no template.
func TestNewDatabaseFrom(t *testing.T) {
	fills := 0
	fill := func(dsn string) error {
		fills++
		conn, err := pgx.Connect(context.Background(), dsn)
		if err != nil {
			return err
		}
		defer conn.Close(context.Background())
		_, err = conn.Exec(context.Background(), "CREATE TABLE filled (id int); INSERT INTO filled VALUES (1)")
		return err
	}
	a, b := NewDatabaseFrom(t, "one", fill), NewDatabaseFrom(t, "one", fill)
	if fills != 1 || a == b {
		t.Fatalf("%d fills, DSNs %s and %s: want 1 fill and two databases", fills, a, b)
	}
	if _, err := connect(t, a).Exec(context.Background(), "INSERT INTO filled VALUES (2)"); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := connect(t, b).QueryRow(context.Background(), "SELECT count(*) FROM filled").Scan(&n); err != nil || n != 1 {
		t.Errorf("the second copy holds %d rows (%v), want fill's 1", n, err)
	}
	// a fill that fails: the test fails, no template is left, the next
	// caller fills it again
	f := &fatalRecorder{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		NewDatabaseFrom(f, "two", func(string) error { return errors.New("no") })
	}()
	<-done
	var exists bool
	if err := connect(t, Server(t).DSN("postgres")).QueryRow(context.Background(),
		"SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = 'tpl_two')").Scan(&exists); err != nil || exists || !strings.Contains(f.msg, "no") {
		t.Errorf("after a failing fill: failure %q, template left %v (%v)", f.msg, exists, err)
	}
	NewDatabaseFrom(t, "two", fill)
	if fills != 2 {
		t.Errorf("%d fills, want the failed template filled again", fills)
	}
}

// fatalRecorder is a testing.TB whose Fatalf records the failure and ends
// its goroutine, as testing's does, without failing the test.
type fatalRecorder struct {
	testing.TB
	msg string
}

func (f *fatalRecorder) Fatalf(format string, args ...any) {
	f.msg = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

// SharedDir fills its directory once and hands the same path to every caller.
func TestSharedDir(t *testing.T) {
	fills := 0
	fill := func(dir string) error {
		fills++
		return os.WriteFile(filepath.Join(dir, "made"), []byte("x"), 0o644)
	}
	a, b := SharedDir(t, "one", fill), SharedDir(t, "one", fill)
	if fills != 1 || a != b {
		t.Fatalf("%d fills, %s and %s: want 1 fill and one directory", fills, a, b)
	}
	if st, err := os.Stat(a); err != nil || st.Mode().Perm() != 0o755 {
		t.Errorf("shared directory %s: %v, %v; want mode 0755", a, st, err)
	}
	if _, err := os.Stat(filepath.Join(a, "made")); err != nil {
		t.Errorf("fill's file: %v", err)
	}
}
