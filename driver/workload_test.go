package driver

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

// cycleWorkload's users run kinds 0, 1, ... in turn, each in 50 µs; every
// 7th transaction of kind 2 takes 3 tries, every 5th of kind 1 fails.
type cycleWorkload struct {
	kinds  []string
	figure int
}

func (w cycleWorkload) Kinds() []string { return w.kinds }
func (w cycleWorkload) Figure() int     { return w.figure }
func (w cycleWorkload) NewUser(context.Context, Target, UserConfig) (User, error) {
	return &cycleUser{kinds: len(w.kinds)}, nil
}

type cycleUser struct{ n, kinds int }

func (u *cycleUser) Run(ctx context.Context) (int, int, error) {
	k := u.n % u.kinds
	u.n++
	if err := Sleep(ctx, 50*time.Microsecond); err != nil {
		return k, 1, err
	}
	switch {
	case k == 1 && (u.n/u.kinds)%5 == 0:
		return k, 1, errors.New("kind 1 failed")
	case k == 2 && (u.n/u.kinds)%7 == 0:
		return k, 3, nil
	}
	return k, 1, nil
}
func (*cycleUser) Close(context.Context) error { return nil }

// TestWorkloadStep: a step of a workload that is not TPC-C counts each of
// its kinds under its name (TPC-C's figures stay empty), its retries and
// errors, and per second its figure kind or every kind.
func TestWorkloadStep(t *testing.T) {
	for _, figure := range []int{-1, 0} {
		wl := cycleWorkload{kinds: []string{"a", "b", "c"}, figure: figure}
		res, err := RunStep(context.Background(), idleTarget{}, StepConfig{Users: 2, Seed: 1,
			Spec: Spec{Rampup: 200 * time.Millisecond, Duration: 2 * time.Second, Workload: wl}})
		if err != nil {
			t.Fatal(err)
		}
		if strings.Join(res.KindNames, ",") != "a,b,c" || len(res.Kinds) != 3 {
			t.Fatalf("kinds %v (%d figures), want a,b,c", res.KindNames, len(res.Kinds))
		}
		for _, tx := range res.Txn {
			if tx.Count != 0 || tx.Hist != nil {
				t.Errorf("TPC-C's figures hold %+v with another workload", tx)
			}
		}
		a, b, c := res.Kinds[0], res.Kinds[1], res.Kinds[2]
		if a.Count < 10 || c.Count < 10 || a.Hist.TotalCount() != a.Count || c.Retries == 0 || b.Errors == 0 || b.FirstError != "kind 1 failed" {
			t.Errorf("kinds' figures a %+v, b %+v, c %+v: want counts, c's retries and b's errors", a, b, c)
		}
		if a.Errors != 0 || a.Retries != 0 || res.Completed() != a.Count+b.Count+c.Count {
			t.Errorf("a %+v, completed %d", a, res.Completed())
		}
		var txn, fig int64
		for i := range res.PerSecondTxn {
			txn += res.PerSecondTxn[i]
			fig += res.PerSecondNewOrder[i]
		}
		if (figure < 0) != (fig == txn) || fig == 0 {
			t.Errorf("figure %d: %d figure transactions of %d per second", figure, fig, txn)
		}
		if w := res.Windows[0]; len(w.Kinds) != 3 || w.Kinds[0].TotalCount() == 0 || w.Hists[0] != nil {
			t.Errorf("first window: %d kinds' histograms, want 3 (and no TPC-C one)", len(w.Kinds))
		}
	}
}

func TestWorkloadRefusesTPCCOptions(t *testing.T) {
	wl := cycleWorkload{kinds: []string{"a"}}
	for _, spec := range []Spec{{KeyingThinking: true}, {Connections: 1}, {Delivery: DeliveryDeferred}} {
		spec.Duration, spec.Workload = time.Second, wl
		if _, err := RunStep(context.Background(), idleTarget{}, StepConfig{Users: 2, Spec: spec}); err == nil || !strings.Contains(err.Error(), "TPC-C's") {
			t.Errorf("%+v: err %v, want TPC-C's option refused", spec, err)
		}
	}
}

// stmtWorkload is cycleWorkload whose kinds have two commands each: the
// first timed 100 µs, the second never run (an untaken \if branch).
type stmtWorkload struct {
	cycleWorkload
	ids chan UserConfig
}

func (w stmtWorkload) Statements(kind int) []Statement {
	return []Statement{{Line: 1, Text: w.kinds[kind] + " first"}, {Line: 2, Text: w.kinds[kind] + " second"}}
}

func (w stmtWorkload) NewUser(_ context.Context, _ Target, cfg UserConfig) (User, error) {
	w.ids <- cfg
	return &stmtUser{cycleUser: cycleUser{kinds: len(w.kinds)}}, nil
}

type stmtUser struct {
	cycleUser
	times [2]time.Duration
}

func (u *stmtUser) Statements() []time.Duration {
	u.times = [2]time.Duration{100 * time.Microsecond, 0}
	return u.times[:]
}

// TestWorkloadStatements: a StatementWorkload's commands are timed over
// the measured interval, one histogram per kind and command that ran (as
// many as the kind's completed transactions); a worker's users are
// numbered among every worker's (FirstUser, AllUsers).
func TestWorkloadStatements(t *testing.T) {
	wl := stmtWorkload{cycleWorkload{kinds: []string{"a", "b", "c"}, figure: -1}, make(chan UserConfig, 2)}
	res, err := RunStep(context.Background(), idleTarget{}, StepConfig{Users: 2, Seed: 1, FirstUser: 3, AllUsers: 7,
		Spec: Spec{Rampup: 200 * time.Millisecond, Duration: time.Second, Workload: wl}})
	if err != nil {
		t.Fatal(err)
	}
	ids := map[int]bool{}
	for range 2 {
		cfg := <-wl.ids
		ids[cfg.ID] = cfg.Users == 7
	}
	if !ids[3] || !ids[4] {
		t.Errorf("users %v, want 3 and 4 of 7", ids)
	}
	if len(res.Statements) != 3 {
		t.Fatalf("%d statements %+v, want the first command of each of 3 kinds", len(res.Statements), res.Statements)
	}
	for i, s := range res.Statements {
		if s.Kind != i || s.Index != 0 || s.Text != res.KindNames[i]+" first" || s.Hist.TotalCount() != res.Kinds[i].Count {
			t.Errorf("statement %+v with %d times, want kind %d's first with its %d transactions", s.Statement, s.Hist.TotalCount(), i, res.Kinds[i].Count)
		}
		if p := s.Hist.ValueAtQuantile(50); p < 99 || p > 101 {
			t.Errorf("statement %d: median %d µs, want 100", i, p)
		}
	}
}

// fatalErr is an error no transaction can go on after (a Fataler).
type fatalErr struct{}

func (fatalErr) Error() string { return "s.sql:2: division by zero" }
func (fatalErr) Fatal() bool   { return true }

// fatalUser fails fatally on its third transaction.
type fatalUser struct{ cycleUser }

func (u *fatalUser) Run(ctx context.Context) (int, int, error) {
	if u.n == 2 {
		u.n++
		return 0, 1, fatalErr{}
	}
	return u.cycleUser.Run(ctx)
}

type fatalWorkload struct{ cycleWorkload }

func (w fatalWorkload) NewUser(context.Context, Target, UserConfig) (User, error) {
	return &fatalUser{cycleUser{kinds: len(w.kinds)}}, nil
}

// TestWorkloadFatalEndsStep: a user's Fataler ends the step at once,
// partial, with a ScriptError naming the user and the script's error
// (pgbench aborts its client there), where an ordinary error is counted
// and the users go on (TestWorkloadStep): the 30 s step ends within
// seconds, the error counted once per user that met it.
func TestWorkloadFatalEndsStep(t *testing.T) {
	wl := fatalWorkload{cycleWorkload{kinds: []string{"a"}, figure: -1}}
	start := time.Now()
	res, err := RunStep(context.Background(), idleTarget{}, StepConfig{Users: 2, Seed: 1,
		Spec: Spec{Rampup: 0, Duration: 30 * time.Second, Workload: wl}})
	if err != nil {
		t.Fatal(err)
	}
	var se *ScriptError
	if took := time.Since(start); took > 15*time.Second || !res.Partial || !errors.As(res.Err, &se) || !strings.Contains(res.Err.Error(), "s.sql:2: division by zero") {
		t.Fatalf("step took %s, partial %v, err %v: want it ended at once with the script's error", took, res.Partial, res.Err)
	}
	if e := res.Kinds[0]; e.Errors < 1 || e.Errors > 2 || e.FirstError != "s.sql:2: division by zero" {
		t.Errorf("errors %d, first %q: want the fatal error counted", e.Errors, e.FirstError)
	}
}
