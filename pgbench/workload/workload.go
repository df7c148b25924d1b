// Package workload runs pgbench scripts as a driver.Workload: one
// transaction kind per script, each virtual user a pgbench/client.Client
// on a session its engine opens (SessionOpener), the retries of
// serialization failures and deadlocks made from the random state the
// first try began with, as pgbench --max-tries does.
package workload

import (
	"cmp"
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/rightsize/rightsize/driver"
	"github.com/rightsize/rightsize/engine"
	"github.com/rightsize/rightsize/internal/rawsock"
	"github.com/rightsize/rightsize/pgbench/client"
	"github.com/rightsize/rightsize/pgbench/script"
)

// Session is a client.Session the workload closes.
type Session = engine.ScriptSession

// SessionOpener is what the workload needs from an engine: a session of
// its own per virtual user (postgres.DB opens a ScriptSession).
type SessionOpener interface {
	OpenScriptSession(ctx context.Context) (Session, error)
}

// Workload is a weighted set of pgbench scripts.
type Workload struct {
	// Name is tpcb for pgbench's built-in tpcb-like, else "scripts".
	Name    string
	Scripts []*script.Script
	// Scale is :scale; 0 reads it from pgbench_branches (as pgbench does
	// for its built-in scripts) when Name is tpcb, else 1.
	Scale   int
	Defines map[string]string
	// RandomSeed, when not 0, seeds every step as pgbench --random-seed
	// does (then the clients draw what pgbench's do); 0: the step's seed.
	RandomSeed uint64
	// FigureScript names the script whose TPS is the figure of merit
	// ("": every script's).
	FigureScript string
	// Protocol is how the users send the statements (pgbench -M).
	Protocol client.Protocol
	// Tries, when above 0, is how many times a transaction may run when
	// it fails with a serialization failure or a deadlock (pgbench
	// --max-tries), in place of the step's driver.UserConfig.MaxTries.
	Tries int
	// Connect gives each transaction a new connection, as pgbench -C
	// (--connect): the connecting is not in the transaction's latency,
	// but its time is the user's, so it lowers the TPS.
	Connect bool

	kinds []string
	once  sync.Once
	err   error
}

// New returns the workload of scripts, each named by its file's base name
// without extension (the built-ins by their own names), a name given
// twice numbered.
func New(name string, scripts []*script.Script) *Workload {
	w := &Workload{Name: name, Scripts: scripts}
	seen := map[string]int{}
	for _, s := range scripts {
		k := strings.TrimSuffix(filepath.Base(s.Name), filepath.Ext(s.Name))
		if seen[k]++; seen[k] > 1 {
			k += "#" + strconv.Itoa(seen[k])
		}
		w.kinds = append(w.kinds, k)
	}
	return w
}

// Kinds implements driver.Workload: the scripts' names.
func (w *Workload) Kinds() []string { return w.kinds }

// Figure implements driver.Workload.
func (w *Workload) Figure() int {
	for i, k := range w.kinds {
		if k == w.FigureScript {
			return i
		}
	}
	return -1
}

// Statements implements driver.StatementWorkload: script kind's
// commands, meta-commands included, as pgbench -r reports them.
func (w *Workload) Statements(kind int) []driver.Statement {
	cmds := w.Scripts[kind].Commands
	out := make([]driver.Statement, len(cmds))
	for i, c := range cmds {
		out[i] = driver.Statement{Line: c.Line, Text: c.Text}
	}
	return out
}

// Weights are the scripts' weights by kind.
func (w *Workload) Weights() map[string]int {
	m := map[string]int{}
	for i, s := range w.Scripts {
		m[w.kinds[i]] = s.Weight
	}
	return m
}

// Describe is the workload as the run's environment records it: its
// name and each script with its weight.
func (w *Workload) Describe() (string, string) {
	parts := make([]string, len(w.kinds))
	for i, k := range w.kinds {
		parts[i] = k + "@" + strconv.Itoa(w.Scripts[i].Weight)
	}
	return w.Name, strings.Join(parts, ",")
}

// Connects is Connect, what the run records.
func (w *Workload) Connects() bool { return w.Connect }

// MaxTries is Tries, what the run records (0: the step's).
func (w *Workload) MaxTries() int { return w.Tries }

// Mode is the protocol's name, what the run records as its mode.
func (w *Workload) Mode() string { return w.Protocol.String() }

// NewUser implements driver.Workload: a client of the scripts on a new
// session of db.
func (w *Workload) NewUser(ctx context.Context, db driver.Target, cfg driver.UserConfig) (driver.User, error) {
	op, ok := db.(SessionOpener)
	if !ok {
		return nil, fmt.Errorf("this engine cannot run pgbench scripts (PostgreSQL can)")
	}
	sess, err := op.OpenScriptSession(ctx)
	if err != nil {
		return nil, err
	}
	w.once.Do(func() { w.err = w.readScale(ctx, sess) })
	if w.err != nil {
		_ = sess.Close(context.Background())
		return nil, w.err
	}
	seed := cmpSeed(w.RandomSeed, cfg.Seed)
	c, err := client.New(sess, client.Config{Scripts: w.Scripts, ID: cfg.ID, Scale: w.Scale, Defines: w.Defines,
		Seed: client.Seeds(seed, cfg.Users)[cfg.ID], MaxTries: cmp.Or(w.Tries, cfg.MaxTries), Protocol: w.Protocol})
	if err != nil {
		_ = sess.Close(context.Background())
		return nil, err
	}
	u := &user{c: c, sess: sess}
	if w.Connect {
		u.renew = op.OpenScriptSession
	}
	return u, nil
}

func cmpSeed(a, b uint64) uint64 {
	if a != 0 {
		return a
	}
	return b
}

// readScale sets Scale when it is 0: pgbench_branches' rows for tpcb, 1
// for other scripts.
func (w *Workload) readScale(ctx context.Context, sess Session) error {
	if w.Scale > 0 {
		return nil
	}
	if w.Name != "tpcb" {
		w.Scale = 1
		return nil
	}
	if err := sess.Prepare(ctx, "rightsize_scale", "select count(*) from pgbench_branches"); err != nil {
		return fmt.Errorf("read the scale from pgbench_branches (build it first: rightsize build --workload tpcb --scale N): %w", err)
	}
	if _, err := sess.Exec(ctx, "rightsize_scale", nil, true); err != nil {
		return fmt.Errorf("read the scale from pgbench_branches: %w", err)
	}
	_, row := sess.Last()
	n, err := strconv.Atoi(string(row[0]))
	if err != nil || n < 1 {
		return fmt.Errorf("pgbench_branches has %q rows: build the tpcb tables first (rightsize build --workload tpcb --scale N)", row[0])
	}
	w.Scale = n
	return nil
}

// user is one virtual user: a client on its session.
type user struct {
	c     *client.Client
	sess  Session
	times []time.Duration // the last transaction's commands' times
	// start and end are the last transaction's
	start, end time.Time
	// renew, with Workload.Connect, opens the session of each
	// transaction after the first; loop is the driver's loop the
	// sessions wait in (Attach), or nil.
	renew func(context.Context) (Session, error)
	loop  *rawsock.Loop
	ran   bool
}

func (u *user) Run(ctx context.Context) (int, int, error) {
	if u.renew != nil && u.ran {
		if err := u.reconnect(ctx); err != nil {
			return 0, 1, err
		}
	}
	u.ran = true
	o := u.c.Run(ctx)
	u.times, u.start, u.end = o.Commands, o.Start, o.Start.Add(o.Latency)
	return o.Script, o.Tries, o.Err
}

// Next implements driver.Chooser: the script the next transaction runs,
// which a skipped one is logged with, as pgbench's.
func (u *user) Next() int { return u.c.Next() }

// Span implements driver.Timed: the last transaction's start and end.
func (u *user) Span() (time.Time, time.Time) { return u.start, u.end }

// Statements implements driver.StatementTimer.
func (u *user) Statements() []time.Duration { return u.times }

func (u *user) Close(ctx context.Context) error { return u.sess.Close(ctx) }

// Attach implements driver.LoopUser: a session whose engine can wait in
// the driver's loop (PostgreSQL's) moves there; others say no.
func (u *user) Attach(l *rawsock.Loop) (bool, error) {
	a, ok := u.sess.(attacher)
	if !ok {
		return false, nil
	}
	u.loop = l
	return true, a.Attach(l)
}

// attacher is a session that can wait in the driver's loop.
type attacher interface{ Attach(*rawsock.Loop) error }

// reconnect closes the user's session and opens the next transaction's
// (Workload.Connect, pgbench -C), in the driver's loop when the user is:
// the client keeps its variables and random state and prepares its
// statements again, as pgbench's does.
func (u *user) reconnect(ctx context.Context) error {
	_ = u.sess.Close(ctx)
	sess, err := u.renew(ctx)
	if err != nil {
		return fmt.Errorf("connect for the next transaction (--connect): %w", err)
	}
	if a, ok := sess.(attacher); ok && u.loop != nil {
		if err := a.Attach(u.loop); err != nil {
			_ = sess.Close(context.Background())
			return fmt.Errorf("connect for the next transaction (--connect): %w", err)
		}
	}
	u.sess = sess
	u.c.SetSession(sess)
	return nil
}
