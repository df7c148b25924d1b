package registry

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

// Every --target form of the registry is matched by its own engine and by
// no other, and the help and error texts list it.
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
			spec, ok := examples[f.Short]
			if !ok {
				t.Fatalf("no example for form %q of %s; add one", f.Short, e.Name)
			}
			for _, other := range Engines() {
				if got := other.Match(spec); got != (other.Name == e.Name) {
					t.Errorf("%s.Match(%q) = %v", other.Name, spec, got)
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

// Reopen closes a target and opens it again with new options; a target
// without a managed server has no server PID.
func TestReopenSQLite(t *testing.T) {
	ctx := context.Background()
	spec := "sqlite:" + filepath.Join(t.TempDir(), "tpcc.db")
	tg, err := Open(ctx, spec, Options{PoolSize: 2})
	if err != nil {
		t.Fatal(err)
	}
	if tg.Server != nil || tg.ServerPID() != 0 {
		t.Fatalf("sqlite target has a server: %v", tg.Server)
	}
	tg2, err := tg.Reopen(ctx, Options{PoolSize: 3, Database: "tpcc"})
	if err != nil {
		t.Fatal(err)
	}
	defer tg2.Close()
	if tg2.Spec != spec || tg2.Options.PoolSize != 3 {
		t.Fatalf("reopened %q with %+v", tg2.Spec, tg2.Options)
	}
	if _, err := tg2.Version(ctx); err != nil {
		t.Fatalf("reopened target does not answer: %v", err)
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
