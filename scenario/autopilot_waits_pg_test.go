package scenario

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rightsize/rightsize/analysis"
	"github.com/rightsize/rightsize/driver"
	"github.com/rightsize/rightsize/engine/postgres"
	"github.com/rightsize/rightsize/internal/pgtest"
	"github.com/rightsize/rightsize/loader"
	"github.com/rightsize/rightsize/registry"
	"github.com/rightsize/rightsize/store"
	"github.com/rightsize/rightsize/waits"
)

// pgWaitTarget starts a managed PostgreSQL with fsync on (the shared test
// server runs with fsync off, where commits never wait for the WAL) and
// builds 1 warehouse in it.
func pgWaitTarget(t *testing.T) *registry.Target {
	t.Helper()
	if testing.Short() {
		t.Skip("starts PostgreSQL")
	}
	ctx := context.Background()
	dir := pgtest.ServerDir(t, "waits-")
	tg, err := registry.Open(ctx, "embedded", registry.Options{PGBin: pgtest.Bin(), DataDir: filepath.Join(dir, "data"), PoolSize: 4,
		Settings: map[string]string{"fsync": "on", "shared_buffers": "128MB", "full_page_writes": "off"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tg.Close() })
	if _, err := loader.Build(ctx, tg, loader.Config{Warehouses: 1, Loaders: 2, Seed: 7}); err != nil {
		t.Fatal(err)
	}
	return tg
}

// setDB sets database-level settings, which the next step's connections get.
func setDB(t *testing.T, tg *registry.Target, settings ...string) {
	t.Helper()
	for _, s := range settings {
		if _, err := tg.DB.(*postgres.DB).Pool().Exec(context.Background(), "ALTER DATABASE tpcc SET "+s); err != nil {
			t.Fatal(err)
		}
	}
}

func runSteps(t *testing.T, tg *registry.Target, o RunOptions) []store.Step {
	t.Helper()
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "results.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	o.Repeats, o.Seed = 1, 11
	res, err := Run(ctx, st, tg, o)
	if err != nil {
		t.Fatal(err)
	}
	return res.Steps
}

// topClass is the profile's largest class other than Client.
func topClass(p *waits.Profile) waits.Class {
	var best waits.Class
	for c, s := range p.ByClass() {
		if c != waits.Client && (best == "" || s > p.ByClass()[best]) {
			best = c
		}
	}
	return best
}

// TestWaitsPostgres provokes the waits the diagnosis must name on a real
// PostgreSQL: commits that wait for the WAL (synchronous_commit on, a slow
// WAL flush made by commit_delay), then a hot warehouse and district (one
// warehouse, many users: Payment updates the one warehouse row, New-Order
// the district's d_next_o_id), and checks --no-waits stores no profile.
func TestWaitsPostgres(t *testing.T) {
	t.Parallel()
	tg := pgWaitTarget(t) // restarted in place by the cases, closed by pgWaitTarget's cleanup
	t.Run("WAL", func(t *testing.T) {
		setDB(t, tg, "synchronous_commit = on")
		// A slow log disk: the server's writes throttled to 25 IOPS (WAL
		// flushes are fsync-driven, which a cgroup v1 blkio limit does
		// catch), or, where no cgroup can, another writer flushing the
		// same disk while the step runs. One user: with more, sessions
		// queue on the warehouse row a committing Payment holds through
		// its flush (lock-bound).
		base, throttled := tg.Options, false
		if opt := tg.Options; os.Geteuid() == 0 {
			opt.Caps.IO.WriteIOPS = 25
			if registry.CheckCaps(tg.Spec, opt) == nil {
				if err := tg.Restart(context.Background(), opt); err != nil {
					t.Fatal(err)
				}
				throttled = true
			}
		}
		stop := func() {}
		if !throttled {
			stop = slowDisk(t, tg.Server.DataDir())
		}
		steps := runSteps(t, tg, RunOptions{RunSpec: RunSpec{Users: []int{1}, Spec: driver.Spec{Rampup: time.Second, Duration: 4 * time.Second}}})
		stop()
		if throttled { // the next cases run unthrottled
			if err := tg.Restart(context.Background(), base); err != nil {
				t.Fatal(err)
			}
		}
		p := analysis.WhyOf(&steps[0]).Waits
		if p == nil || p.Source != "pg_stat_activity" || p.Ticks < 10 {
			t.Fatalf("profile %+v", p)
		}
		if c := topClass(p); c != waits.Log {
			t.Errorf("top class %s, want %s; events %+v", c, waits.Log, p.Events)
		}
		if v := analysis.WhyOf(&steps[0]).Verdict; v == nil || v.Kind != "log-bound" {
			t.Errorf("verdict %+v, want log-bound", v)
		}
		if p.Counters["wal.wal_sync"] <= 0 {
			t.Errorf("no WAL sync counted: %v", p.Counters)
		}
		t.Logf("verdict: %s; events %+v", analysis.WhyOf(&steps[0]).Verdict.Text, p.Events)
	})
	t.Run("Lock", func(t *testing.T) {
		setDB(t, tg, "synchronous_commit = off")
		steps := runSteps(t, tg, RunOptions{RunSpec: RunSpec{Users: []int{32}, Spec: driver.Spec{Rampup: time.Second, Duration: 4 * time.Second}}})
		p := analysis.WhyOf(&steps[0]).Waits
		if p == nil {
			t.Fatal("no profile")
		}
		if c := topClass(p); c != waits.Lock {
			t.Errorf("top class %s, want %s; events %+v", c, waits.Lock, p.Events)
		}
		if v := analysis.WhyOf(&steps[0]).Verdict; v == nil || v.Kind != "lock-bound" {
			t.Errorf("verdict %+v, want lock-bound", v)
		}
		if len(p.Locks) == 0 {
			t.Errorf("no ungranted lock sampled (%d ticks, %d skipped, missing %q)", p.Ticks, p.Skipped, p.Missing)
		}
		if why := BuildReport(&store.Run{}, steps).Why; !strings.Contains(why, "lock-bound") {
			t.Errorf("run --json why = %q", why)
		}
		t.Logf("verdict: %s; locks %+v; %d ticks, %d skipped", analysis.WhyOf(&steps[0]).Verdict.Text, p.Locks, p.Ticks, p.Skipped)
		// the step's WAL second by second (walSampler): every second that
		// completed transactions logged some
		var logged int64
		for _, sec := range steps[0].Seconds {
			if sec.Txn > 0 && sec.WALBytes <= 0 {
				t.Errorf("second %d: %d transactions and no WAL: %+v", sec.Offset, sec.Txn, steps[0].Seconds)
			}
			logged += sec.WALBytes
		}
		if logged <= 0 || logged < steps[0].DB.WALBytes {
			t.Errorf("%d bytes of WAL over the step's seconds, %d over its window alone", logged, steps[0].DB.WALBytes)
		}
	})
	t.Run("NoWaits", func(t *testing.T) {
		steps := runSteps(t, tg, RunOptions{RunSpec: RunSpec{Users: []int{1}, NoWaits: true, Spec: driver.Spec{Duration: time.Second}}})
		if analysis.WhyOf(&steps[0]).Waits != nil {
			t.Errorf("--no-waits stored a profile: %+v", analysis.WhyOf(&steps[0]).Waits)
		}
		if analysis.WhyOf(&steps[0]).Saturation == nil {
			t.Errorf("no saturation stored")
		}
	})
}

// slowDisk writes and flushes 1 MiB blocks next to dir until stopped, so
// that the server's WAL flushes queue behind them.
func slowDisk(t *testing.T, dir string) (stop func()) {
	f, err := os.CreateTemp(filepath.Dir(dir), "slowdisk-")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		buf := make([]byte, 1<<20)
		for i := 0; ; i++ {
			select {
			case <-done:
				return
			default:
			}
			buf[0] = byte(i)
			if _, err := f.WriteAt(buf, int64(i%64)<<20); err != nil {
				return
			}
			f.Sync()
		}
	}()
	return func() {
		close(done)
		<-finished
		f.Close()
		os.Remove(f.Name())
	}
}
