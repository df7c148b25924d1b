// Package target turns a --target value into an open engine.DB: "embedded"
// starts a managed PostgreSQL (package instance), "postgres://..." connects to
// an existing server, "mariadb" starts a managed local MariaDB, "mysql://..."
// connects to MySQL or MariaDB, "sqlserver://..." to SQL Server, and
// "sqlite:PATH" opens a SQLite file in process.
package target

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"

	"github.com/rightsize/rightsize/engine"
	"github.com/rightsize/rightsize/engine/mssql"
	"github.com/rightsize/rightsize/engine/mysql"
	"github.com/rightsize/rightsize/engine/postgres"
	"github.com/rightsize/rightsize/engine/sqlite"
	"github.com/rightsize/rightsize/instance"
	"github.com/rightsize/rightsize/instance/mariadb"
)

// Options configure how a target is opened.
type Options struct {
	PGBin      string            // installed PostgreSQL binaries for the embedded target
	DataDir    string            // data directory of the embedded target
	Settings   map[string]string // server settings of the embedded target
	PoolSize   int               // connections for loaders and index builds
	CreateDB   bool              // create the database if missing (build)
	Database   string            // database name on the embedded server (default "tpcc")
	ServerPort uint32            // fixed port for the embedded server (0: any free one)
}

// Target is an open benchmark database plus what it took to get it.
type Target struct {
	engine.DB
	Spec     string             // the --target value
	Name     string             // display name: "embedded" or the DSN without password
	Instance *instance.Postgres // the managed PostgreSQL, nil otherwise
	MariaDB  *mariadb.Server    // the managed MariaDB, nil otherwise
}

// ServerPID is the managed server's main process (0 when the server is not
// managed by rightsize, or not known).
func (t *Target) ServerPID() int {
	var pid int
	var err error
	switch {
	case t.Instance != nil:
		pid, err = t.Instance.PID()
	case t.MariaDB != nil:
		pid, err = t.MariaDB.PID()
	}
	if err != nil {
		return 0
	}
	return pid
}

// Unwrap returns the engine's own DB, for optional capabilities (such as
// scenario.Restorer) that the engine.DB interface does not carry.
func (t *Target) Unwrap() engine.DB { return t.DB }

// Close closes the database and stops a managed server.
func (t *Target) Close() error {
	err := t.DB.Close()
	if t.Instance != nil {
		if serr := t.Instance.Stop(); err == nil {
			err = serr
		}
	}
	if t.MariaDB != nil {
		if serr := t.MariaDB.Stop(); err == nil {
			err = serr
		}
	}
	return err
}

// ErrBadTarget marks a target spec that cannot be understood.
var ErrBadTarget = errors.New("bad target")

// EmbeddedSettings are the server settings the embedded target starts with
// unless overridden.
var EmbeddedSettings = map[string]string{
	"shared_buffers":     "512MB",
	"max_connections":    "300",
	"max_wal_size":       "4GB",
	"checkpoint_timeout": "15min",
}

// Open opens spec.
func Open(ctx context.Context, spec string, opt Options) (*Target, error) {
	if opt.Database == "" {
		opt.Database = "tpcc"
	}
	switch {
	case spec == "" || spec == "embedded":
		settings := map[string]string{}
		for k, v := range EmbeddedSettings {
			settings[k] = v
		}
		for k, v := range opt.Settings {
			settings[k] = v
		}
		inst, err := instance.StartPostgres(ctx, instance.PostgresConfig{BinDir: opt.PGBin, DataDir: opt.DataDir, Settings: settings, Port: opt.ServerPort})
		if err != nil {
			return nil, fmt.Errorf("start embedded PostgreSQL: %w", err)
		}
		dsn := inst.DSN(opt.Database)
		if err := postgres.EnsureDatabase(ctx, dsn); err != nil {
			_ = inst.Stop()
			return nil, err
		}
		db, err := postgres.Open(ctx, dsn, opt.PoolSize)
		if err != nil {
			_ = inst.Stop()
			return nil, err
		}
		return &Target{DB: db, Spec: "embedded", Name: "embedded PostgreSQL", Instance: inst}, nil
	case strings.HasPrefix(spec, "postgres://") || strings.HasPrefix(spec, "postgresql://"):
		if opt.CreateDB {
			if err := postgres.EnsureDatabase(ctx, spec); err != nil {
				return nil, err
			}
		}
		db, err := postgres.Open(ctx, spec, opt.PoolSize)
		if err != nil {
			return nil, err
		}
		return &Target{DB: db, Spec: spec, Name: Redact(spec)}, nil
	case spec == "mariadb":
		if !mariadb.Installed() {
			return nil, fmt.Errorf("%w %q: no mariadbd on this machine; install it (Debian: apt-get install mariadb-server) or use mysql://user:pass@host:port/db", ErrBadTarget, spec)
		}
		dataDir := opt.DataDir
		if dataDir == "" {
			dataDir = filepath.Join(instance.DefaultBaseDir(), "data", "mariadb-default")
		}
		srv, err := mariadb.Start(ctx, mariadb.Config{DataDir: dataDir, Port: opt.ServerPort, Settings: opt.Settings})
		if err != nil {
			return nil, fmt.Errorf("start the managed MariaDB: %w", err)
		}
		url := srv.URL(opt.Database)
		if err := mysql.EnsureDatabase(ctx, url); err != nil {
			_ = srv.Stop()
			return nil, err
		}
		db, err := mysql.Open(ctx, url, opt.PoolSize)
		if err != nil {
			_ = srv.Stop()
			return nil, err
		}
		return &Target{DB: db, Spec: spec, Name: "managed MariaDB", MariaDB: srv}, nil
	case strings.HasPrefix(spec, "mysql://") || strings.HasPrefix(spec, "mariadb://"):
		if opt.CreateDB {
			if err := mysql.EnsureDatabase(ctx, spec); err != nil {
				return nil, err
			}
		}
		db, err := mysql.Open(ctx, spec, opt.PoolSize)
		if err != nil {
			return nil, err
		}
		return &Target{DB: db, Spec: spec, Name: Redact(spec)}, nil
	case strings.HasPrefix(spec, "sqlserver://"):
		if opt.CreateDB {
			if err := mssql.EnsureDatabase(ctx, spec); err != nil {
				return nil, err
			}
		}
		db, err := mssql.Open(ctx, spec, opt.PoolSize)
		if err != nil {
			return nil, err
		}
		return &Target{DB: db, Spec: spec, Name: mssql.Redact(spec)}, nil
	case strings.HasPrefix(spec, "sqlite:"):
		path := strings.TrimPrefix(strings.TrimPrefix(spec, "sqlite:"), "//")
		if path == "" {
			return nil, fmt.Errorf("%w %q: use sqlite:PATH (a file)", ErrBadTarget, spec)
		}
		db, err := sqlite.Open(ctx, path)
		if err != nil {
			return nil, err
		}
		return &Target{DB: db, Spec: spec, Name: "sqlite:" + path}, nil
	}
	return nil, fmt.Errorf("%w %q: use embedded, postgres://user:pass@host:port/db, mariadb (managed), mysql://user:pass@host:port/db, sqlserver://user:pass@host:port?database=db or sqlite:PATH", ErrBadTarget, spec)
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
