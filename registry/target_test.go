package registry

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rightsize/rightsize/engine/postgres"
	"github.com/rightsize/rightsize/internal/pgtest"
)

// Every --target form of the registry, as the help texts spell it (Long)
// and as a user fills it in (the examples, where there is one), is matched
// by its own engine and by no other, and the help and error texts list it.
func TestRegistryFormsMatchTheirEngineOnly(t *testing.T) {
	examples := map[string]string{
		"embedded": "embedded", "postgres://...": "postgres://u:p@h:5432/db", "mariadb": "mariadb",
		"mysql://...": "mysql://u:p@h:3306/db", "sqlite:PATH": "sqlite:/tmp/x.db", "sqlserver://...": "sqlserver://u:p@h:1433?database=db",
	}
	for _, e := range Engines() {
		if e.Open == nil || e.Match == nil || e.Name == "" || len(e.Forms) == 0 {
			t.Fatalf("engine %q is incomplete", e.Name)
		}
		for _, f := range e.Forms {
			specs := []string{f.Long}
			if spec, ok := examples[f.Short]; ok {
				specs = append(specs, spec)
			}
			for _, spec := range specs {
				for _, other := range Engines() {
					if got := other.Match(spec); got != (other.Name == e.Name) {
						t.Errorf("%s.Match(%q) = %v", other.Name, spec, got)
					}
				}
			}
			if !strings.Contains(Help(), f.Short) {
				t.Errorf("Help() %q lacks %q", Help(), f.Short)
			}
		}
	}
}

func TestOpenUnknownTargetListsEveryForm(t *testing.T) {
	_, err := Open(context.Background(), "oracle://x", Options{})
	if !errors.Is(err, ErrBadTarget) {
		t.Fatalf("Open(oracle://x) = %v, want ErrBadTarget", err)
	}
	for _, e := range Engines() {
		for _, f := range e.Forms {
			if !strings.Contains(err.Error(), f.Long) {
				t.Errorf("error %q lacks %q", err, f.Long)
			}
		}
	}
}

// Restart closes a target and opens it again in place with new options;
// a target without a managed server has no server PID.
func TestRestartSQLite(t *testing.T) {
	ctx := context.Background()
	spec := "sqlite:" + filepath.Join(t.TempDir(), "tpcc.db")
	tg, err := Open(ctx, spec, Options{PoolSize: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	if tg.Server != nil || tg.ServerPID() != 0 {
		t.Fatalf("sqlite target has a server: %v", tg.Server)
	}
	if err := tg.Restart(ctx, Options{PoolSize: 3, Database: "tpcc"}); err != nil {
		t.Fatal(err)
	}
	if tg.Spec != spec || tg.Options.PoolSize != 3 {
		t.Fatalf("reopened %q with %+v", tg.Spec, tg.Options)
	}
	if _, err := tg.Version(ctx); err != nil {
		t.Fatalf("reopened target does not answer: %v", err)
	}
}

// Restart restarts a managed PostgreSQL in place: whoever holds the
// *Target gets the new server, with the new settings, over the same data.
// A restart whose server cannot start leaves the target closed: Close is
// safe (twice too), and a later Restart starts it again.
func TestRestartManagedPostgres(t *testing.T) {
	if testing.Short() {
		t.Skip("starts PostgreSQL")
	}
	ctx := context.Background()
	dir := testDir(t, "pg-restart-")
	opt := Options{DataDir: filepath.Join(dir, "pg"), PGBin: pgtest.Bin(), CreateDB: true, PoolSize: 2,
		Settings: map[string]string{"shared_buffers": "128MB", "work_mem": "4MB"}}
	tg, err := Open(ctx, "embedded", opt)
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	held, pid := tg, tg.ServerPID()
	for _, q := range []string{"CREATE TABLE kept (n int)", "INSERT INTO kept VALUES (42)"} {
		if _, err := tg.DB.(*postgres.DB).Pool().Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}

	opt.Settings = map[string]string{"shared_buffers": "128MB", "work_mem": "8MB"}
	if err := tg.Restart(ctx, opt); err != nil {
		t.Fatal(err)
	}
	if held != tg || held.ServerPID() == 0 || held.ServerPID() == pid {
		t.Fatalf("server pid %d after the restart, %d before: want a new server behind the same target", held.ServerPID(), pid)
	}
	if n, err := held.QueryInt(ctx, "SELECT setting::int FROM pg_settings WHERE name = 'work_mem'"); err != nil || n != 8<<10 {
		t.Errorf("work_mem after the restart: %d kB, %v; want 8192", n, err)
	}
	if n, err := held.QueryInt(ctx, "SELECT n FROM kept"); err != nil || n != 42 {
		t.Errorf("the data after the restart: %d, %v; want 42 (same data directory)", n, err)
	}
	if held.Options.Settings["work_mem"] != "8MB" {
		t.Errorf("options after the restart: %+v", held.Options)
	}

	bad := opt
	bad.Settings = map[string]string{"shared_buffers": "lots"}
	if err := held.Restart(ctx, bad); err == nil {
		t.Fatal("restart with shared_buffers=lots started")
	}
	if held.ServerPID() != 0 {
		t.Errorf("server pid %d after a failed restart, want none", held.ServerPID())
	}
	if err := held.Close(); err != nil {
		t.Errorf("Close after a failed restart: %v", err)
	}
	if err := held.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if err := held.Restart(ctx, opt); err != nil {
		t.Fatalf("restart after a failed one: %v", err)
	}
	if n, err := held.QueryInt(ctx, "SELECT n FROM kept"); err != nil || n != 42 {
		t.Errorf("the data after restarting a closed target: %d, %v; want 42", n, err)
	}
}

// An engine has a managed server exactly when one of its forms is marked
// Managed, and that server says how to start it, what it starts from and
// how its caps apply; EngineOf finds the server behind the form.
func TestManagedFormsHaveAServer(t *testing.T) {
	for _, e := range Engines() {
		var forms []string
		for _, f := range e.Forms {
			if f.Managed {
				forms = append(forms, f.Long)
			}
		}
		if (e.Managed != nil) != (len(forms) == 1) {
			t.Fatalf("%s: managed forms %v, managed server %v", e.Name, forms, e.Managed)
		}
		if e.Managed == nil {
			continue
		}
		m := e.Managed
		if m.Name == "" || m.Display == "" || m.Start == nil || m.Binaries == nil || e.Tuning.Cache == nil {
			t.Errorf("%s: managed server incomplete: %+v, tuning %+v", e.Name, m, e.Tuning)
		}
		if m.Versions == nil && m.VersionNote == "" {
			t.Errorf("%s: says neither which versions it starts nor what it runs", e.Name)
		}
		got, managed, err := EngineOf(forms[0])
		if err != nil || !managed || got.Name != e.Name {
			t.Errorf("EngineOf(%q) = %s, %v, %v", forms[0], got.Name, managed, err)
		}
		if named, spec, ok := ManagedNamed(m.Name); !ok || named.Name != e.Name || spec != forms[0] {
			t.Errorf("ManagedNamed(%q) = %s, %q, %v", m.Name, named.Name, spec, ok)
		}
	}
}
