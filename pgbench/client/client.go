// Package client runs pgbench scripts for one client over one Session:
// each transaction picks a script by weight as pgbench does, evaluates
// its meta-commands, executes its SQL as statements prepared once per
// connection (pgbench -M prepared), stores \gset / \aset rows into
// variables, and times the script and each of its commands.
package client

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/rightsize/rightsize/pgbench/expr"
	"github.com/rightsize/rightsize/pgbench/prng"
	"github.com/rightsize/rightsize/pgbench/script"
)

// Config is one client's part of a run.
type Config struct {
	Scripts []*script.Script
	ID      int               // :client_id
	Scale   int               // :scale
	Defines map[string]string // --define NAME=VALUE, before the built-in variables
	Seed    Seed
	// MaxTries is how many times a script may run when it fails with a
	// serialization failure or a deadlock (pgbench --max-tries; 0 or 1:
	// no retry).
	MaxTries int
	// Protocol is how statements are sent (pgbench -M; the zero value is
	// Prepared).
	Protocol Protocol
	// Debug receives debug()'s values (nil: dropped).
	Debug func(script, command int, v expr.Value)
}

// Client runs transactions for one client. It is not safe for concurrent
// use.
type Client struct {
	cfg      Config
	sess     Session
	total    int64
	choose   *prng.State
	env      env
	prepared [][]bool
	names    [][]string // the statements' names, P_script_command
	params   [][]byte
	arena    []byte // the parameters' bytes
	query    []byte // Simple's statement text
	piped    bool   // a pipeline is open (\startpipeline)
	times    []time.Duration
	cur      [2]int // script and command running, for debug()
	// next is the script Next drew for the next transaction, plus one
	// (0: none drawn yet)
	next int
}

// New returns a client of sess. The scripts' weights must not all be 0.
func New(sess Session, cfg Config) (*Client, error) {
	// arena is never nil: an empty parameter must be a non-nil empty slice
	c := &Client{cfg: cfg, sess: sess, choose: prng.New(cfg.Seed.Choose), arena: make([]byte, 0, 256)}
	for _, s := range cfg.Scripts {
		c.total += int64(s.Weight)
		c.prepared = append(c.prepared, make([]bool, len(s.Commands)))
		names := make([]string, len(s.Commands))
		for j := range names {
			names[j] = "P_" + strconv.Itoa(len(c.names)) + "_" + strconv.Itoa(j)
		}
		c.names = append(c.names, names)
	}
	if len(cfg.Scripts) == 0 || c.total == 0 {
		return nil, errors.New("no script to run: give at least one script with a weight over 0")
	}
	if _, ok := sess.(PipelineSession); !ok && usesPipeline(cfg.Scripts) {
		return nil, errNotPipelined
	}
	if !supports(sess, cfg.Protocol) {
		return nil, fmt.Errorf("protocol %s: this engine's sessions run prepared statements only (PostgreSQL's run every protocol)", cfg.Protocol)
	}
	v := vars{}
	for name, value := range cfg.Defines {
		v.setString(name, value)
	}
	for name, value := range map[string]int64{"scale": int64(cfg.Scale), "client_id": int64(cfg.ID),
		"default_seed": int64(cfg.Seed.Default), "random_seed": int64(cfg.Seed.Random)} {
		if _, ok := v[name]; !ok {
			v.setValue(name, expr.IntValue(value))
		}
	}
	c.env = env{vars: v, rand: prng.New(cfg.Seed.Func)}
	if cfg.Debug != nil {
		c.env.debug = func(x expr.Value) { cfg.Debug(c.cur[0], c.cur[1], x) }
	}
	return c, nil
}

// SetSession moves the client to sess for its next transactions (pgbench
// -C's new connection): its variables and random state stay, its
// statements are prepared again on sess.
func (c *Client) SetSession(sess Session) {
	c.sess = sess
	for _, p := range c.prepared {
		clear(p)
	}
	c.piped = false
}

// Outcome is one transaction (one run of one script).
type Outcome struct {
	Script  int
	Start   time.Time
	Latency time.Duration
	// Commands is each command's time (0: not run), valid until the next Run.
	Commands []time.Duration
	// Err is the error that ended the script early, a *CommandError.
	Err error
	// Tries is how many times the script ran (more than 1 after retries).
	Tries int
}

// CommandError is an error of one command of a script.
type CommandError struct {
	Script  string
	Command int // index in the script
	Line    int
	SQL     bool // an SQL error (else a meta-command's, which pgbench aborts on)
	Err     error
}

func (e *CommandError) Error() string {
	return fmt.Sprintf("%s:%d: %v", e.Script, e.Line, e.Err)
}

func (e *CommandError) Unwrap() error { return e.Err }

// Fatal says whether no transaction can go on after the error: a
// meta-command's (an expression that fails, such as a division by zero,
// or a variable unset), which pgbench aborts its client on. An SQL error
// is counted and the client goes on; a cancelled wait is the step's end.
func (e *CommandError) Fatal() bool {
	return !e.SQL && !errors.Is(e.Err, context.Canceled) && !errors.Is(e.Err, context.DeadlineExceeded)
}

func retryable(err error) bool {
	var ce *CommandError
	return errors.As(err, &ce) && ce.Retryable()
}

// Retryable says whether the error is a serialization failure or a
// deadlock, which a new try of the whole script may not meet.
func (e *CommandError) Retryable() bool {
	var pe *pgconn.PgError
	return errors.As(e.Err, &pe) && (pe.Code == "40001" || pe.Code == "40P01") || retryableElsewhere(e.Err)
}

// Deadlock says whether the error is a deadlock (PostgreSQL's 40P01, or
// another engine's, engine/sqlsession.RetryError): pgbench's aggregated
// log counts deadlock failures apart from serialization failures.
func (e *CommandError) Deadlock() bool {
	var pe *pgconn.PgError
	if errors.As(e.Err, &pe) {
		return pe.Code == "40P01"
	}
	var d interface{ Deadlock() bool }
	return errors.As(e.Err, &d) && d.Deadlock()
}

// Choose draws the next script by weight, as pgbench's chooseScript.
func (c *Client) Choose() int {
	if len(c.cfg.Scripts) == 1 {
		return 0
	}
	w := expr.Uniform(c.choose, 0, c.total-1)
	i := 0
	for {
		w -= int64(c.cfg.Scripts[i].Weight)
		i++
		if w < 0 {
			return i - 1
		}
	}
}

// Next is the script the next Run runs, drawn now if not yet: pgbench
// draws a transaction's script before it decides to skip it (-R with
// -L), and every transaction it skips then is logged with the script of
// the one that runs after them.
func (c *Client) Next() int {
	if c.next == 0 {
		c.next = c.Choose() + 1
	}
	return c.next - 1
}

// Run runs one transaction: a script chosen by weight (or by Next), to
// its end or its first error. After an error, an open transaction block
// is rolled back.
func (c *Client) Run(ctx context.Context) Outcome {
	i := c.Next()
	c.next = 0
	return c.RunScript(ctx, i)
}

// RunScript runs script i once, and again while it fails with a
// serialization failure or a deadlock and fewer than MaxTries tries were
// made: each try from the random state the first began with, as pgbench
// --max-tries does.
func (c *Client) RunScript(ctx context.Context, i int) Outcome {
	if n := len(c.cfg.Scripts[i].Commands); cap(c.times) < n {
		c.times = make([]time.Duration, n)
	} else {
		c.times = c.times[:n]
		clear(c.times)
	}
	o := Outcome{Script: i, Start: time.Now(), Commands: c.times}
	saved := *c.env.rand
	end := o.Start
	for {
		o.Tries++
		end, o.Err = c.runOnce(ctx, i, end)
		if o.Err == nil || !retryable(o.Err) || o.Tries >= c.cfg.MaxTries || ctx.Err() != nil {
			break
		}
		*c.env.rand = saved
	}
	o.Latency = end.Sub(o.Start)
	return o
}

// runOnce runs script i, from start, to its end or its first error, and
// returns when it ended; after an error, an open transaction block is
// rolled back. A command's time runs from the previous one's end, so
// each reads the clock once.
func (c *Client) runOnce(ctx context.Context, i int, start time.Time) (time.Time, error) {
	s := c.cfg.Scripts[i]
	t := start
	for pc := 0; pc < len(s.Commands); {
		c.cur = [2]int{i, pc}
		next, err := c.step(ctx, i, pc)
		end := time.Now()
		c.times[pc] += end.Sub(t)
		t = end
		if err != nil {
			return c.fail(ctx, i, pc, t, err)
		}
		pc = next
	}
	if err := c.pipelineLeftOpen(); err != nil {
		return c.fail(ctx, i, len(s.Commands)-1, t, err)
	}
	return t, nil
}

// fail ends a run of script i at command pc, at time t, with err: an
// open pipeline forgotten and an open transaction block rolled back. It
// returns when the run ended and err as a *CommandError.
func (c *Client) fail(ctx context.Context, i, pc int, t time.Time, err error) (time.Time, error) {
	s := c.cfg.Scripts[i]
	var ce *elifError
	if errors.As(err, &ce) {
		pc, err = ce.at, ce.err
	}
	cmd := &s.Commands[pc]
	var cerr error = &CommandError{Script: s.Name, Command: pc, Line: cmd.Line, SQL: cmd.Kind == script.SQL || isSQLError(err), Err: err}
	c.dropPipeline()
	if c.sess.InTransaction() {
		if rerr := c.sess.Rollback(context.WithoutCancel(ctx)); rerr != nil {
			cerr = errors.Join(cerr, fmt.Errorf("rollback after the error: %w", rerr))
		}
		t = time.Now() // a retry's first command starts after the rollback
	}
	return t, cerr
}

// step runs command pc of script i and returns the next command's index.
func (c *Client) step(ctx context.Context, i, pc int) (int, error) {
	cmd := &c.cfg.Scripts[i].Commands[pc]
	switch cmd.Kind {
	case script.SQL:
		return pc + 1, c.sql(ctx, i, pc)
	case script.Set:
		v, err := cmd.Expr.Eval(&c.env)
		if err != nil {
			return 0, err
		}
		c.env.vars.setValue(cmd.Var, v)
		return pc + 1, nil
	case script.Sleep:
		return pc + 1, c.sleep(ctx, cmd)
	case script.If:
		return c.branch(i, pc)
	case script.StartPipeline, script.SyncPipeline, script.EndPipeline:
		return pc + 1, c.pipeline(ctx, i, pc, cmd)
	case script.Elif, script.Else: // the branch before ran: skip to \endif
		return cmd.End + 1, nil
	}
	return pc + 1, nil // \endif
}

// branch evaluates the \if at pc and, while false, the \elif conditions
// after it; it returns the first command of the branch taken.
func (c *Client) branch(i, pc int) (int, error) {
	cmds := c.cfg.Scripts[i].Commands
	for {
		cmd := &cmds[pc]
		switch cmd.Kind {
		case script.Else, script.Endif:
			return pc + 1, nil
		}
		c.cur[1] = pc
		v, err := cmd.Expr.Eval(&c.env)
		if err != nil {
			return 0, &elifError{at: pc, err: err}
		}
		if v.Truth() {
			return pc + 1, nil
		}
		pc = cmd.Next
	}
}

// elifError is the error of the condition at command at of an \if chain.
type elifError struct {
	at  int
	err error
}

func (e *elifError) Error() string { return e.err.Error() }

func (c *Client) sleep(ctx context.Context, cmd *script.Command) error {
	n := cmd.SleepN
	if cmd.SleepVar != "" {
		s, ok := c.env.vars.text(cmd.SleepVar)
		if !ok {
			return fmt.Errorf("sleep: undefined variable \"%s\"", cmd.SleepVar)
		}
		var err error
		if n, err = sleepMicros(s); err != nil {
			return fmt.Errorf("sleep: %w for variable \"%s\"", err, cmd.SleepVar)
		}
	}
	d := time.Duration(n*cmd.SleepUnit) * time.Microsecond
	if sl, ok := c.sess.(Sleeper); ok {
		if slept, err := sl.Sleep(ctx, d); slept {
			return err
		}
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// sql executes SQL command pc of script i, preparing it on first use.
func (c *Client) sql(ctx context.Context, i, pc int) error {
	cmd := &c.cfg.Scripts[i].Commands[pc]
	c.params, c.arena = c.params[:0], c.arena[:0]
	for _, p := range cmd.Params {
		start := len(c.arena)
		var ok bool
		if c.arena, ok = c.env.vars.appendText(c.arena, p); !ok {
			c.params = append(c.params, nil) // sent as NULL, as pgbench does
			continue
		}
		c.params = append(c.params, c.arena[start:len(c.arena):len(c.arena)])
	}
	if c.piped { // its result is read at \endpipeline
		c.queue(i, pc, cmd)
		return nil
	}
	rows, err := c.send(ctx, i, pc, cmd, cmd.Store != script.NoStore)
	if err != nil || cmd.Store == script.NoStore {
		return err
	}
	if cmd.Store == script.Gset && rows != 1 {
		return fmt.Errorf("\\gset expected one row, got %d", rows)
	}
	if rows == 0 { // \aset: nothing to store
		return nil
	}
	cols, last := c.sess.Last()
	for k, col := range cols {
		name := cmd.Prefix + col
		if !script.ValidName(name) {
			return fmt.Errorf("cannot store column %q: invalid variable name \"%s\" (name the column with AS)", col, name)
		}
		c.env.vars.setString(name, string(last[k]))
	}
	return nil
}

// Var is a client variable's value as its string, for tests and reports.
func (c *Client) Var(name string) (string, bool) { return c.env.vars.text(name) }
