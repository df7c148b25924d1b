package store

import (
	"context"
	"errors"
	"fmt"
	"os"
	"testing"

	"github.com/rightsize/rightsize/internal/pgtest"
	"github.com/rightsize/rightsize/internal/procid"
	"github.com/rightsize/rightsize/internal/procid/procidtest"
)

// TestRecoverOrphans: runs and sweeps left running by a killed process
// become partial at the next Open, with their steps, and are reported
// once; those of a live process, of another host, of another PID
// namespace or of unknown owner stay running.
func TestRecoverOrphans(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("needs /proc")
	}
	dead := procidtest.Killed(t)
	other := dead
	other.Host = "another-host"
	otherNS := dead
	otherNS.PIDNS = "pid:[1]" // a container with this host's name
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			ctx := context.Background()
			loc := b.location(t)
			s := openAt(t, loc)
			owners := map[string]string{"killed": dead.String(), "killed before a step": dead.String(), "other host": other.String(), "other PID namespace": otherNS.String(), "unknown": "",
				"live": procid.Self().String()}
			ids := map[string]string{}
			for name, owner := range owners {
				r := created(t, s, testRun(name, t0))
				ids[name] = r.ID
				if _, err := s.db.Exec(s.rebind("UPDATE runs SET owner_process = ? WHERE id = ?"), owner, r.ID); err != nil {
					t.Fatal(err)
				}
			}
			step := testStep(t, ids["killed"], 1, 0, 1, 3, 1, 2)
			if err := s.AddStep(ctx, &step); err != nil {
				t.Fatal(err)
			}
			sw := &Sweep{Kind: "memory", Values: []string{"1G", "512M"}}
			if err := s.CreateSweep(ctx, sw); err != nil {
				t.Fatal(err)
			}
			if _, err := s.db.Exec(s.rebind("UPDATE sweeps SET owner_process = ? WHERE id = ?"), dead.String(), sw.ID); err != nil {
				t.Fatal(err)
			}
			if len(s.Recovered()) != 0 {
				t.Fatalf("a store opened before the kill recovered %+v", s.Recovered())
			}

			again := openAt(t, loc)
			got := again.Recovered()
			steps := map[string]int{}
			for _, o := range got {
				steps[o.ID] = o.Steps
				if o.Owner != dead {
					t.Errorf("recovered %+v: owner is not the killed process %v", o, dead)
				}
			}
			if len(got) != 3 || steps[ids["killed"]] != 1 || steps[ids["killed before a step"]] != 0 || got[2].ID != sw.ID || got[2].Kind != "memory" {
				t.Fatalf("recovered %+v, want the killed runs (1 step, none) and the sweep", got)
			}
			for name, id := range ids {
				run, steps, err := again.LoadRun(ctx, id)
				if err != nil {
					t.Fatal(err)
				}
				want := StatusRunning
				switch name {
				case "killed":
					want = StatusPartial
					if len(steps) != 1 || !run.EndedAt.Equal(steps[0].MeasureEnd) {
						t.Errorf("killed run: %d steps, ended %v, want its step's end %v", len(steps), run.EndedAt, steps[0].MeasureEnd)
					}
				case "killed before a step":
					want = StatusPartial
					if !run.EndedAt.Equal(run.StartedAt) {
						t.Errorf("run killed before a step ended %v, want its start %v", run.EndedAt, run.StartedAt)
					}
				}
				if run.Status != want {
					t.Errorf("%s run: status %s, want %s", name, run.Status, want)
				}
			}
			if loaded, err := again.LoadSweep(ctx, sw.ID); err != nil || loaded.Status != StatusPartial {
				t.Errorf("sweep: %+v, %v; want partial", loaded, err)
			}
			if third := openAt(t, loc); len(third.Recovered()) != 0 {
				t.Errorf("recovered twice: %+v", third.Recovered())
			}
		})
	}
}

// TestOwnerRecorded: a run and a sweep created running name this process.
func TestOwnerRecorded(t *testing.T) {
	s := openAt(t, sqliteLocation(t))
	r := created(t, s, testRun("mine", t0))
	sw := &Sweep{Kind: "cpus", Values: []string{"2"}}
	if err := s.CreateSweep(context.Background(), sw); err != nil {
		t.Fatal(err)
	}
	for table, id := range map[string]string{"runs": r.ID, "sweeps": sw.ID} {
		var owner string
		if err := s.db.QueryRow("SELECT owner_process FROM "+table+" WHERE id = ?", id).Scan(&owner); err != nil {
			t.Fatal(err)
		}
		if owner != procid.Self().String() {
			t.Errorf("%s owner %q, want %q", table, owner, procid.Self().String())
		}
	}
}

// TestSharedRunCreatedWithItsWorker: the shared run a worker creates under
// the run's lock is committed with that worker's row, never alone (a
// running run without workers whose owner looks gone is what Open marks
// partial), and a registration that fails leaves no run behind.
func TestSharedRunCreatedWithItsWorker(t *testing.T) {
	ctx := context.Background()
	loc := pgtest.NewDatabase(t)
	s, outside := openAt(t, loc), openAt(t, loc)
	visible := func(id string) bool {
		ok, err := outside.runExists(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		return ok
	}
	for _, fail := range []bool{false, true} {
		id := fmt.Sprintf("shared-%v", fail)
		err := s.WithRunLock(ctx, id, func(tx *RunTx) error {
			r := testRun("shared", t0)
			r.ID = id
			if err := tx.CreateRun(r); err != nil {
				return err
			}
			if visible(id) {
				t.Errorf("run %s seen outside its transaction before its worker", id)
			}
			if fail {
				return errors.New("refused")
			}
			return tx.AddWorker(Worker{Worker: 0, Workers: 2, Status: WorkerRegistered, RegisteredAt: tx.Now, Heartbeat: tx.Now, StepSeq: -1})
		})
		if got := visible(id); (err == nil) != got || (err != nil) != fail {
			t.Errorf("fail %v: err %v, run stored %v", fail, err, got)
		}
	}
}
