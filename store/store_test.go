package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rightsize/rightsize/internal/pgtest"
)

// storeTestRun creates a run with 2 repeats × 2 steps with all children.
func storeTestRun(t *testing.T, s *Store, label string, started time.Time) (*Run, []Step) {
	t.Helper()
	ctx := context.Background()
	r := created(t, s, testRun(label, started))
	var steps []Step
	for rep := 1; rep <= 2; rep++ {
		for idx, users := range r.Users {
			st := testStep(t, r.ID, rep, idx, users, 70, 7, 70)
			if err := s.AddStep(ctx, &st); err != nil {
				t.Fatal(err)
			}
			if st.ID == 0 {
				t.Fatal("AddStep assigned no ID")
			}
			steps = append(steps, st)
		}
	}
	return r, steps
}

func TestRoundTrip(t *testing.T) {
	eachBackend(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		r, want := storeTestRun(t, s, "baseline", t0)
		if len(r.ID) != len("20250314-092653-abcdef") || !strings.HasPrefix(r.ID, "20250314-092653-") {
			t.Errorf("run id %q: want YYYYMMDD-HHMMSS-xxxxxx of the start time", r.ID)
		}
		if r.Status != StatusRunning || r.Source != SourceRightsize {
			t.Errorf("defaults: status %q source %q", r.Status, r.Source)
		}
		ended := t0.Add(time.Hour)
		if err := s.FinishRun(ctx, r.ID, StatusComplete, ended); err != nil {
			t.Fatal(err)
		}
		r.Status, r.EndedAt = StatusComplete, ended

		got, steps, err := s.LoadRun(ctx, r.ID)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, r) {
			t.Errorf("run:\n got %+v\nwant %+v", got, r)
		}
		if len(steps) != len(want) {
			t.Fatalf("%d steps, want %d", len(steps), len(want))
		}
		for i := range want {
			if !reflect.DeepEqual(steps[i], want[i]) {
				diffStep(t, steps[i], want[i])
			}
		}
		// A local time comes back as the same instant.
		local := time.Date(2025, 1, 2, 3, 4, 5, 6, time.FixedZone("X", 3600))
		r2 := created(t, s, testRun("other", local))
		got2, _, err := s.LoadRun(ctx, r2.ID)
		if err != nil {
			t.Fatal(err)
		}
		if !got2.StartedAt.Equal(local) || !got2.EndedAt.IsZero() {
			t.Errorf("started %v (want %v), ended %v", got2.StartedAt, local, got2.EndedAt)
		}
		runs, err := s.ListRuns(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(runs) != 2 || runs[0].ID != r.ID || runs[1].ID != r2.ID {
			t.Errorf("ListRuns not newest first: %v", runIDs(runs))
		}
		listed, err := s.ListRunSteps(ctx)
		if err != nil {
			t.Fatal(err)
		}
		// the listing's rows are the steps' throughput (analysis computes the figures)
		if len(listed) != 2 || len(listed[0].Steps) != 4 || len(listed[1].Steps) != 0 || listed[0].ID != r.ID {
			t.Fatalf("listing: %+v", listed)
		}
		for i, l := range listed[0].Steps {
			w := steps[i]
			if l.Index != w.Index || l.Users != w.Users || l.Partial != w.Partial || l.TPM != w.TPM || l.NOPM != w.NOPM ||
				l.DriverCPUUsPerTxn != w.DriverCPUUsPerTxn || l.DriverCPUPct != w.DriverCPUPct {
				t.Errorf("listed step %d %+v, want the throughput of %+v", i, l, w)
			}
		}
		// A duplicate step is refused and changes nothing.
		dup := testStep(t, r.ID, 1, 0, 1, 3, 1, 3)
		if err := s.AddStep(ctx, &dup); err == nil {
			t.Error("duplicate step stored")
		}
		// A step of an unknown run is refused.
		orphan := testStep(t, "nope", 1, 0, 1, 3, 1, 3)
		if err := s.AddStep(ctx, &orphan); !errors.Is(err, ErrNotFound) {
			t.Errorf("step of unknown run: %v", err)
		}
		if err := s.FinishRun(ctx, "nope", StatusComplete, time.Now()); !errors.Is(err, ErrNotFound) {
			t.Errorf("FinishRun unknown: %v", err)
		}
		if err := s.FinishRun(ctx, r.ID, "done", time.Now()); err == nil {
			t.Error("bad status accepted")
		}
		if err := s.CreateRun(ctx, &Run{ID: r.ID}); err == nil || !strings.Contains(err.Error(), "already exists") {
			t.Errorf("duplicate run: %v", err)
		}
	})
}

func runIDs(rs []Run) []string {
	var ids []string
	for _, r := range rs {
		ids = append(ids, r.ID)
	}
	return ids
}

// diffStep reports which fields of two steps differ.
func diffStep(t *testing.T, got, want Step) {
	t.Helper()
	gv, wv := reflect.ValueOf(got), reflect.ValueOf(want)
	for i := range gv.NumField() {
		g, w := gv.Field(i).Interface(), wv.Field(i).Interface()
		if !reflect.DeepEqual(g, w) {
			t.Errorf("step %d/%d: field %s differs:\n got %.600s\nwant %.600s", want.Repeat, want.Index, gv.Type().Field(i).Name,
				fmt.Sprintf("%+v", g), fmt.Sprintf("%+v", w))
		}
	}
}

func TestResolve(t *testing.T) {
	eachBackend(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		var ids []string
		for i, label := range []string{"baseline", "8 cores", "baseline", "4 cores"} {
			r := created(t, s, &Run{Label: label, StartedAt: t0.Add(time.Duration(i) * time.Hour)})
			ids = append(ids, r.ID)
		}
		cases := []struct{ key, want string }{
			{"baseline", ids[2]}, {"8 cores", ids[1]}, {ids[0], ids[0]}, {ids[3], ids[3]},
			{ids[1][:len(ids[1])-2], ids[1]}, // unique prefix
		}
		for _, c := range cases {
			got, err := s.Resolve(ctx, c.key)
			if err != nil || got != c.want {
				t.Errorf("Resolve(%q) = %q, %v; want %q", c.key, got, err, c.want)
			}
		}
		_, err := s.Resolve(ctx, "nothing")
		if !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), `"nothing"`) {
			t.Errorf("unknown label: %v", err)
		}
		if _, err := s.Resolve(ctx, "20250314"); err == nil || !strings.Contains(err.Error(), "ambiguous") {
			t.Errorf("ambiguous prefix: %v", err)
		}
		if _, _, err := s.LoadRun(ctx, "nothing"); !errors.Is(err, ErrNotFound) {
			t.Errorf("LoadRun unknown: %v", err)
		}
	})
}

func TestDeleteRun(t *testing.T) {
	eachBackend(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		keep, keepSteps := storeTestRun(t, s, "keep", t0)
		gone, _ := storeTestRun(t, s, "gone", t0.Add(time.Hour))
		before := childCounts(t, s, "")
		if err := s.DeleteRun(ctx, gone.ID); err != nil {
			t.Fatal(err)
		}
		if n := childCounts(t, s, gone.ID); n != (counts{}) {
			t.Errorf("rows of the deleted run left: %+v", n)
		}
		after := childCounts(t, s, "")
		if after.steps*2 != before.steps || after.txn*2 != before.txn || after.seconds*2 != before.seconds ||
			after.windows*2 != before.windows || after.samples*2 != before.samples {
			t.Errorf("before %+v, after %+v: want half", before, after)
		}
		if _, _, err := s.LoadRun(ctx, gone.ID); !errors.Is(err, ErrNotFound) {
			t.Errorf("LoadRun deleted: %v", err)
		}
		_, steps, err := s.LoadRun(ctx, keep.ID)
		if err != nil || !reflect.DeepEqual(steps, keepSteps) {
			t.Errorf("the other run changed: %v", err)
		}
		if err := s.DeleteRun(ctx, gone.ID); !errors.Is(err, ErrNotFound) {
			t.Errorf("delete twice: %v", err)
		}
	})
}

type counts struct{ runs, steps, txn, seconds, windows, samples int }

// childCounts counts rows of one run (all runs when id is "").
func childCounts(t *testing.T, s *Store, id string) counts {
	t.Helper()
	where, args := "", []any{}
	if id != "" {
		where, args = " WHERE run_id = ?", []any{id}
	}
	n := func(q string) int {
		var c int
		if err := s.db.QueryRow(s.rebind(q), args...).Scan(&c); err != nil {
			t.Fatal(err)
		}
		return c
	}
	child := func(table string) int {
		return n("SELECT COUNT(*) FROM " + table + " WHERE step_id IN (SELECT id FROM steps" + where + ")")
	}
	runsWhere := ""
	if id != "" {
		runsWhere = " WHERE id = ?"
	}
	return counts{
		runs: n("SELECT COUNT(*) FROM runs" + runsWhere), steps: n("SELECT COUNT(*) FROM steps" + where),
		txn: child("step_txn"), seconds: child("step_seconds"), windows: child("step_windows"), samples: child("host_samples"),
	}
}

// TestCancelledAddStep cancels the context in the middle of AddStep (after
// the step row and two child tables are written): nothing of the step may
// remain, and the store stays usable.
func TestCancelledAddStep(t *testing.T) {
	eachBackend(t, func(t *testing.T, s *Store) {
		r := testRun("cancel", t0)
		if err := s.CreateRun(context.Background(), r); err != nil {
			t.Fatal(err)
		}
		for _, stage := range []string{"steps", "step_seconds", "step_windows"} {
			ctx, cancel := context.WithCancel(context.Background())
			testHook = func(_ context.Context, table string) {
				if table == stage {
					cancel()
				}
			}
			st := testStep(t, r.ID, 1, 0, 1, 70, 7, 70)
			err := s.AddStep(ctx, &st)
			testHook = nil
			cancel()
			if err == nil {
				t.Fatalf("cancelled after %s: AddStep succeeded", stage)
			}
			if st.ID != 0 {
				t.Errorf("ID set on a failed AddStep")
			}
			if c := childCounts(t, s, r.ID); c != (counts{runs: 1}) {
				t.Errorf("cancelled after %s: rows left %+v", stage, c)
			}
		}
		st := testStep(t, r.ID, 1, 0, 1, 70, 7, 70)
		if err := s.AddStep(context.Background(), &st); err != nil {
			t.Fatalf("AddStep after the cancelled ones: %v", err)
		}
	})
}

func TestProbes(t *testing.T) {
	eachBackend(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		var ids []string
		for i, p := range []Probe{
			{Kind: ProbeStorage, Label: "nvme", Host: "db1", Result: []byte(`{"iops": 12345.5}`)},
			{Kind: ProbeCPU, Label: "cpu", Host: "db1", Result: []byte(`{"score": 1}`)},
			{Kind: ProbeStorage, Label: "nvme", Host: "db2", Result: []byte(`{"iops": 20000}`)},
		} {
			p.CreatedAt = t0.Add(time.Duration(i) * time.Minute)
			if err := s.AddProbe(ctx, &p); err != nil {
				t.Fatal(err)
			}
			ids = append(ids, p.ID)
		}
		ps, err := s.ListProbes(ctx, ProbeStorage)
		if err != nil || len(ps) != 2 || ps[0].ID != ids[2] || string(ps[1].Result) != `{"iops": 12345.5}` {
			t.Errorf("ListProbes(storage) = %+v, %v", ps, err)
		}
		if all, _ := s.ListProbes(ctx, ""); len(all) != 3 {
			t.Errorf("ListProbes('') = %d probes", len(all))
		}
		p, err := s.LoadProbe(ctx, "nvme")
		if err != nil || p.ID != ids[2] || p.Host != "db2" || !p.CreatedAt.Equal(t0.Add(2*time.Minute)) {
			t.Errorf("LoadProbe(nvme) = %+v, %v", p, err)
		}
		if p, err := s.LoadProbe(ctx, ids[0]); err != nil || p.Label != "nvme" || p.Kind != ProbeStorage {
			t.Errorf("LoadProbe(id) = %+v, %v", p, err)
		}
		if _, err := s.LoadProbe(ctx, "missing"); !errors.Is(err, ErrNotFound) {
			t.Errorf("LoadProbe(missing): %v", err)
		}
		if err := s.AddProbe(ctx, &Probe{Kind: "gpu", Result: []byte(`{}`)}); err == nil {
			t.Error("unknown kind accepted")
		}
		if err := s.AddProbe(ctx, &Probe{Kind: ProbeCPU, Result: []byte(`not json`)}); err == nil {
			t.Error("non-JSON result accepted")
		}
	})
}

// TestConcurrentOpen opens a new store from several goroutines at once:
// the migrations must be applied exactly once and every Open succeed.
func TestConcurrentOpen(t *testing.T) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			loc := b.location(t)
			var wg sync.WaitGroup
			errs := make([]error, 6)
			for i := range errs {
				wg.Add(1)
				go func() {
					defer wg.Done()
					s, err := Open(context.Background(), loc)
					if err == nil {
						err = s.CreateRun(context.Background(), &Run{Label: "c"})
						s.Close()
					}
					errs[i] = err
				}()
			}
			wg.Wait()
			for _, err := range errs {
				if err != nil {
					t.Error(err)
				}
			}
			s := openAt(t, loc)
			var n int
			if err := s.db.QueryRow("SELECT COUNT(*) FROM schema_migrations").Scan(&n); err != nil || n != len(migrations) {
				t.Errorf("schema_migrations has %d rows (%v), want %d", n, err, len(migrations))
			}
			if runs, _ := s.ListRuns(context.Background()); len(runs) != len(errs) {
				t.Errorf("%d runs, want %d", len(runs), len(errs))
			}
		})
	}
}

func TestNonFiniteStoredAsZero(t *testing.T) {
	eachBackend(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		r := created(t, s, &Run{})
		st := Step{RunID: r.ID, Repeat: 1, Users: 1, TPM: math.NaN(), NOPM: math.Inf(1), TPMPerUser: math.Inf(-1),
			Samples: []HostSample{{Host: HostSummary{CPUBusyPct: math.NaN()}}}}
		if err := s.AddStep(ctx, &st); err != nil {
			t.Fatal(err)
		}
		_, steps, err := s.LoadRun(ctx, r.ID)
		if err != nil {
			t.Fatal(err)
		}
		if g := steps[0]; g.TPM != 0 || g.NOPM != 0 || g.TPMPerUser != 0 || g.Samples[0].CPUBusyPct != 0 || !g.Start.IsZero() {
			t.Errorf("got %+v", g)
		}
	})
}

func TestDefaultLocation(t *testing.T) {
	t.Setenv(EnvStore, "")
	if got := DefaultLocation(); got != "./rightsize.db" {
		t.Errorf("DefaultLocation() = %q", got)
	}
	t.Setenv(EnvStore, "/tmp/x.db")
	if got := DefaultLocation(); got != "/tmp/x.db" {
		t.Errorf("DefaultLocation() with env = %q", got)
	}
	// Open("") uses the environment variable; "sqlite:" prefix is optional.
	p := filepath.Join(t.TempDir(), "env.db")
	t.Setenv(EnvStore, "sqlite:"+p)
	s, err := Open(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	if s.Location() != p {
		t.Errorf("Location() = %q, want %q", s.Location(), p)
	}
	if _, err := os.Stat(p); err != nil {
		t.Errorf("store not created at $%s: %v", EnvStore, err)
	}
}

func TestOpenErrors(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()

	missing := filepath.Join(dir, "missing.db")
	if _, err := OpenExisting(ctx, missing); !errors.Is(err, ErrNoStore) {
		t.Errorf("OpenExisting(missing): %v", err)
	}
	if _, err := os.Stat(missing); !errors.Is(err, os.ErrNotExist) {
		t.Error("OpenExisting created the file")
	}

	garbage := filepath.Join(dir, "garbage.db")
	os.WriteFile(garbage, []byte(strings.Repeat("this is not a database at all. ", 200)), 0o644)
	_, err := Open(ctx, garbage)
	if !errors.Is(err, ErrNotAStore) || !strings.Contains(err.Error(), garbage) {
		t.Errorf("Open(garbage): %v", err)
	}

	other := filepath.Join(dir, "other.db")
	s := openAt(t, other) // make it a SQLite file, then replace its tables
	for _, q := range []string{"DROP TABLE schema_migrations", "CREATE TABLE customers (id INTEGER)"} {
		if _, err := s.db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	s.Close()
	if _, err := Open(ctx, other); !errors.Is(err, ErrNotAStore) {
		t.Errorf("Open(SQLite file of another application): %v", err)
	}

	if _, err := Open(ctx, dir); err == nil || !strings.Contains(err.Error(), "directory") {
		t.Errorf("Open(directory): %v", err)
	}
	if _, err := Open(ctx, filepath.Join(dir, "no", "such", "dir.db")); err == nil || !strings.Contains(err.Error(), "does not exist") {
		t.Errorf("Open(missing directory): %v", err)
	}
	if _, err := Open(ctx, "postgres://u:secret@127.0.0.1:1/x?connect_timeout=2"); err == nil || strings.Contains(err.Error(), "secret") {
		t.Errorf("Open(unreachable postgres): %v (the password must not show)", err)
	}
}

// TestSQLiteSettings checks every connection runs in WAL mode with a busy
// timeout and foreign keys on.
func TestSQLiteSettings(t *testing.T) {
	s := openAt(t, sqliteLocation(t))
	ctx := context.Background()
	conns := make([]*sql.Conn, 3) // several pool connections, not just the first
	for i := range conns {
		c, err := s.db.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		conns[i] = c
	}
	for i, c := range conns {
		var mode string
		var busy, fk int
		if err := c.QueryRowContext(ctx, "PRAGMA journal_mode").Scan(&mode); err != nil {
			t.Fatal(err)
		}
		c.QueryRowContext(ctx, "PRAGMA busy_timeout").Scan(&busy)
		c.QueryRowContext(ctx, "PRAGMA foreign_keys").Scan(&fk)
		if mode != "wal" || busy < 5000 || fk != 1 {
			t.Errorf("connection %d: journal_mode %q, busy_timeout %d, foreign_keys %d", i, mode, busy, fk)
		}
	}
}

// TestConcurrentWriters has several stores (as several processes would)
// write steps to one SQLite file at once while another reads: no "database
// is locked" error may surface.
func TestConcurrentWriters(t *testing.T) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			loc := b.location(t)
			ctx := context.Background()
			const writers, steps = 4, 5
			var wg sync.WaitGroup
			errs := make(chan error, writers*steps+100)
			stop := make(chan struct{})
			reader := openAt(t, loc)
			readerDone := make(chan struct{})
			report := func(err error) {
				select {
				case errs <- err:
				default:
				}
			}
			go func() {
				defer close(readerDone)
				for {
					select {
					case <-stop:
						return
					default:
					}
					if runs, err := reader.ListRuns(ctx); err != nil {
						report(err)
					} else if len(runs) > 0 {
						if _, _, err := reader.LoadRun(ctx, runs[0].ID); err != nil {
							report(err)
						}
					}
				}
			}()
			for w := range writers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					s, err := Open(ctx, loc)
					if err != nil {
						errs <- err
						return
					}
					defer s.Close()
					r := &Run{Label: fmt.Sprint("writer ", w)}
					if err := s.CreateRun(ctx, r); err != nil {
						errs <- err
						return
					}
					for i := range steps {
						st := testStep(t, r.ID, 1, i, i+1, 60, 6, 60)
						if err := s.AddStep(ctx, &st); err != nil {
							errs <- err
						}
					}
					if err := s.FinishRun(ctx, r.ID, StatusComplete, time.Now()); err != nil {
						errs <- err
					}
				}()
			}
			wg.Wait()
			close(stop)
			<-readerDone
			close(errs)
			for err := range errs {
				t.Error(err)
			}
			if c := childCounts(t, reader, ""); c.runs != writers || c.steps != writers*steps {
				t.Errorf("counts %+v", c)
			}
		})
	}
}

// TestPostgresSchema: the tables go to schema "rightsize", or the one the
// URL's search_path names; a bad search_path is refused.
func TestPostgresSchema(t *testing.T) {
	dsn := pgtest.NewDatabase(t)
	ctx := context.Background()
	s := openAt(t, dsn)
	created(t, s, &Run{Label: "default schema"})
	sep := "?"
	if strings.Contains(dsn, "?") {
		sep = "&"
	}
	other := openAt(t, dsn+sep+"search_path=team_b")
	if runs, err := other.ListRuns(ctx); err != nil || len(runs) != 0 {
		t.Errorf("schema team_b sees %d runs (%v), want its own empty store", len(runs), err)
	}
	var n int
	if err := s.db.QueryRow("SELECT COUNT(*) FROM information_schema.tables WHERE table_schema IN ('rightsize', 'team_b') AND table_name = 'runs'").Scan(&n); err != nil || n != 2 {
		t.Errorf("runs tables in rightsize and team_b: %d, %v", n, err)
	}
	if _, err := Open(ctx, dsn+sep+"search_path=a,b"); err == nil || !strings.Contains(err.Error(), "search_path") {
		t.Errorf("bad search_path: %v", err)
	}
}
