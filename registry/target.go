// Package registry holds the engine registry and turns a --target value into an open engine.DB. Engines are
// registered in one place (Engines, engines.go): each says which --target
// values it takes, what it can do, how to open them and, for the rest of
// rightsize, how it is started and tuned when managed, backed up and
// CPU-probed (Engine). "embedded" starts a managed
// PostgreSQL (package instance), "postgres://..." connects to an existing
// server, "mariadb" starts a managed local MariaDB, "mysql://..." connects
// to MySQL or MariaDB, "sqlserver://..." to SQL Server, and "sqlite:PATH"
// opens a SQLite file in process.
package registry

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/rightsize/rightsize/caps"
	"github.com/rightsize/rightsize/engine"
	"github.com/rightsize/rightsize/probe/backup"
	"github.com/rightsize/rightsize/probe/cpu"
)

// Options configure how a target is opened.
type Options struct {
	PGBin      string            // installed PostgreSQL binaries for the embedded target
	DataDir    string            // data directory of a managed server
	Settings   map[string]string // server settings of a managed server
	PoolSize   int               // connections for loaders and index builds
	CreateDB   bool              // create the database if missing (build)
	Database   string            // database name on a managed server (default "tpcc")
	ServerPort uint32            // fixed port for a managed server (0: any free one)
	Caps       caps.Caps         // --cpus, --memory, --io-limit ... of a managed server (caps.go)
	PGVersion  string            // --pg-version of the embedded PostgreSQL ("": the default)
	// Connections is the most virtual users a run opens at once (its
	// largest step): a managed server starts with connection slots for
	// them (fitConnections) unless Settings sets max_connections.
	Connections int
	// Replace empties the embedded target's data directory of its cluster
	// before it starts (build --replace); the target's Options keep it false.
	Replace bool
}

// Server is a database server rightsize started for a target and stops
// with it (the embedded PostgreSQL, the managed MariaDB). The managers in
// package instance satisfy it.
type Server interface {
	// PID is the server's main process (an error when it is not running).
	PID() (int, error)
	// Version is the server's version as the manager knows it.
	Version() string
	// DataDir is the server's data directory.
	DataDir() string
	// Stop shuts the server down; it is idempotent.
	Stop() error
}

// Target is an open benchmark database plus what it took to get it.
type Target struct {
	engine.DB
	Spec string // the --target value
	Name string // display name: "embedded PostgreSQL" or the DSN without password
	// Server is the managed server behind the target, nil when rightsize
	// did not start it.
	Server Server
	// Options are the options the target was opened (or last restarted)
	// with.
	Options Options
	// Registered is the registry's engine that opened the target: what
	// the caps, the sweeps, the probes and the doctor read of it.
	Registered Engine
	// unpin restores the driver's CPU affinity (caps.go), nil when unpinned.
	unpin func()
	// closed is set by Close (Close and Restart read it).
	closed bool
}

// ServerPID is the managed server's main process (0 when the server is not
// managed by rightsize, or not known).
func (t *Target) ServerPID() int {
	if t.Server == nil {
		return 0
	}
	pid, err := t.Server.PID()
	if err != nil {
		return 0
	}
	return pid
}

// Close closes the database and stops a managed server. It is
// idempotent: closing a closed target, or one whose Restart failed, does
// nothing and returns nil.
func (t *Target) Close() error {
	if t.closed {
		return nil
	}
	t.closed = true
	if t.unpin != nil {
		t.unpin()
		t.unpin = nil
	}
	err := t.DB.Close()
	if t.Server != nil {
		if serr := t.Server.Stop(); err == nil {
			err = serr
		}
	}
	return err
}

// Restart restarts t in place with opt: it closes t (stopping its managed
// server) and opens the same target again, a managed server with opt's
// settings and caps over opt's data directory (the same one unless opt
// names another, as a version sweep does); a target rightsize does not
// manage reconnects. The database, server, options and driver pinning
// inside t are replaced, so whoever holds t holds the restarted target; an
// engine.DB taken out of t before is closed. When the start fails, t is
// left closed: Close is safe, and a later Restart starts it again.
// Scenarios that change one configuration value at a time (sweeps, fit)
// use it between runs.
func (t *Target) Restart(ctx context.Context, opt Options) error {
	if err := t.Close(); err != nil {
		return fmt.Errorf("stop %s before restarting it: %w", t.Name, err)
	}
	n, err := Open(ctx, t.Spec, opt)
	if err != nil {
		return err
	}
	*t = *n
	return nil
}

// ErrBadTarget marks a target spec that cannot be understood.
var ErrBadTarget = errors.New("bad target")

// Engine is one registered engine: everything the rest of rightsize
// needs to know of it besides its engine.DB (see ARCHITECTURE.md, "Adding
// an engine").
type Engine struct {
	Name string // "postgres"
	// Forms are the --target values it takes, short (for help texts) and
	// long (for the engines command and error messages).
	Forms []Form
	Note  string      // one line for the engines command
	Caps  engine.Caps // what the engine can do
	// Match reports whether a --target value is this engine's.
	Match func(spec string) bool
	// Open opens a matched --target value of a server rightsize does not
	// manage.
	Open func(ctx context.Context, spec string, opt Options) (*Target, error)
	// Fix is what to check when a target that is not managed cannot be
	// opened ("": its errors say it).
	Fix string
	// Managed is the server rightsize starts itself for the Form marked
	// Managed (nil: none).
	Managed *ManagedServer
	// Tuning is how a managed server's settings follow its caps (cache
	// and parallelism settings, the memory split).
	Tuning engine.Tuning
	// Backup is its backup and restore method for probe backup and the
	// neighbour scenario (zero: none).
	Backup backup.Method
	// CPUProbe is its server-side loop for probe cpu (zero: none).
	CPUProbe cpu.Loop
	// Prewarm says it loads its cache ahead of a run (run --prewarm: its
	// DB has a Prewarm method); CheckPrewarm says why not.
	Prewarm bool
	// Scripts are the pgbench meta-commands its script sessions run
	// (script.MetaCommands' names; nil: it runs no pgbench scripts).
	Scripts []string
}

// ManagedServer is how rightsize runs an engine's server itself.
type ManagedServer struct {
	// Name is the engine's name in a plan file (engine: postgres, mariadb)
	// and in doctor's report.
	Name string
	// Display names the server in messages ("embedded PostgreSQL").
	Display string
	// Start starts the server under opt's caps and opens its database.
	Start func(ctx context.Context, spec string, opt Options) (*Target, error)
	// Binaries lists what is installed or cached to start it from, and a
	// note (how to get them) when that matters; base is the base
	// directory of managed servers (doctor).
	Binaries func(ctx context.Context, base string) (found []string, note string)
	// Versions are the versions it can start (--pg-version, a plan's
	// version:, the version sweep), nil when it runs the installed one.
	Versions *Versions
	// VersionNote says what it runs when Versions is nil.
	VersionNote string
	// WALDir says how it keeps its transaction log on --wal-dir's path, for
	// doctor ("": it cannot, and --wal-dir is refused).
	WALDir string
	// DataDir is where its data directory is without --data-dir (Start
	// puts it there; CheckCaps finds the device of an I/O limit there).
	DataDir func() string
}

// Versions are the server versions a managed engine can start.
type Versions struct {
	Product string   // "PostgreSQL"
	List    []string // in order
	Default string   // when none is asked for
}

// networkFix is the Fix of the engines reached over the network.
const networkFix = "check --target (server running? user, password, database right?)"

// FixFor is the Fix of the engine that takes spec ("" when none does).
func FixFor(spec string) string {
	e, _, err := EngineOf(spec)
	if err != nil {
		return ""
	}
	return e.Fix
}

// Form is one way to name an engine's target.
type Form struct {
	Short, Long string
	Managed     bool // rightsize starts and stops the server
}

// Help is the short list of --target forms for flag help texts.
func Help() string {
	var forms []string
	for _, e := range Engines() {
		for _, f := range e.Forms {
			forms = append(forms, f.Short)
		}
	}
	return strings.Join(forms[:len(forms)-1], ", ") + " or " + forms[len(forms)-1]
}

// usage is the long list of --target forms for error messages.
func usage() string {
	var forms []string
	for _, e := range Engines() {
		for _, f := range e.Forms {
			s := f.Long
			if f.Managed {
				s += " (managed)"
			}
			forms = append(forms, s)
		}
	}
	return strings.Join(forms[:len(forms)-1], ", ") + " or " + forms[len(forms)-1]
}

// Managed reports whether spec names a server rightsize starts itself.
func Managed(spec string) bool {
	_, managed, err := EngineOf(spec)
	return err == nil && managed
}

// Open opens spec with the registered engine that takes it: a managed
// form starts its server (Engine.Managed.Start), others connect (Open).
func Open(ctx context.Context, spec string, opt Options) (*Target, error) {
	if opt.Database == "" {
		opt.Database = "tpcc"
	}
	e, managed, err := EngineOf(spec)
	if err != nil {
		return nil, err
	}
	open := e.Open
	if managed {
		if err := checkWALDir(e, opt); err != nil {
			return nil, err
		}
		open = e.Managed.Start
	}
	t, err := open(ctx, spec, opt)
	if err != nil {
		return nil, err
	}
	opt.Replace = false // done: a restart keeps the new cluster
	t.Options, t.Registered = opt, e
	return t, nil
}

// Redact removes the password from a URL-style DSN.
func Redact(dsn string) string {
	u, err := url.Parse(dsn)
	if err != nil || u.User == nil {
		return dsn
	}
	if _, ok := u.User.Password(); ok {
		u.User = url.UserPassword(u.User.Username(), "xxxxx")
	}
	return u.String()
}
