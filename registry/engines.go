package registry

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/rightsize/rightsize/caps"
	"github.com/rightsize/rightsize/cgroup"
	"github.com/rightsize/rightsize/engine"
	"github.com/rightsize/rightsize/engine/mssql"
	"github.com/rightsize/rightsize/engine/mysql"
	"github.com/rightsize/rightsize/engine/postgres"
	"github.com/rightsize/rightsize/engine/sqlite"
	"github.com/rightsize/rightsize/instance"
	"github.com/rightsize/rightsize/instance/mariadb"
	"github.com/rightsize/rightsize/pgbench/script"
	"github.com/rightsize/rightsize/probe/backup"
	"github.com/rightsize/rightsize/probe/cpu"
)

// Engines is the one list of engines: Open, the engines command, the
// --target help texts, caps, the sweeps, the probes, plan validation and
// doctor all read it. An engine is registered by one line here and the
// function that describes it (see ARCHITECTURE.md, "Adding an engine").
func Engines() []Engine {
	return []Engine{postgresEngine(), mysqlEngine(), sqliteEngine(), mssqlEngine()}
}

// EmbeddedSettings are the server settings the embedded target starts with
// unless overridden.
func EmbeddedSettings() map[string]string {
	return map[string]string{
		"shared_buffers":     "512MB",
		"max_connections":    "300",
		"max_wal_size":       "4GB",
		"checkpoint_timeout": "15min",
	}
}

func hasPrefix(spec string, prefixes ...string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(spec, p) {
			return true
		}
	}
	return false
}

func postgresEngine() Engine {
	return Engine{
		Name: "postgres",
		Forms: []Form{{Short: "embedded", Long: "embedded", Managed: true},
			{Short: "postgres://...", Long: "postgres://user:pass@host:port/db"}},
		Note:  "PL/pgSQL procedures, COPY load",
		Caps:  postgres.Caps,
		Fix:   networkFix,
		Match: func(s string) bool { return s == "" || s == "embedded" || hasPrefix(s, "postgres://", "postgresql://") },
		Open:  connect(postgres.EnsureDatabase, postgres.Open, Redact),
		Managed: &ManagedServer{Name: "postgres", Display: "embedded PostgreSQL", Start: openEmbedded, Binaries: instance.FindBinaries,
			Versions: &Versions{Product: "PostgreSQL", List: slices.Sorted(maps.Keys(instance.Versions)), Default: instance.DefaultVersion},
			WALDir:   "PostgreSQL initdb --waldir for a new cluster", DataDir: instance.DefaultBaseDir},
		Tuning:   postgres.Tuning,
		Backup:   backup.Postgres,
		CPUProbe: cpu.PLpgSQLLoop,
		Prewarm:  true,
		Scripts:  script.AllMetaCommands,
	}
}

// openEmbedded starts the embedded PostgreSQL (package instance) and opens
// its database.
func openEmbedded(ctx context.Context, _ string, opt Options) (*Target, error) {
	settings := EmbeddedSettings()
	maps.Copy(settings, opt.Settings)
	if err := checkPGVersion(opt); err != nil {
		return nil, err
	}
	dataDir := cmp.Or(opt.DataDir, instance.DefaultBaseDir())
	plan, limits, err := capsPlan(postgres.Tuning, opt, dataDir)
	if err != nil {
		return nil, err
	}
	merged := mergeSettings(settings, plan, opt.Settings)
	fitConnections(merged, opt, merged["max_connections"])
	cfg := instance.PostgresConfig{BinDir: opt.PGBin, Version: opt.PGVersion, DataDir: opt.DataDir, Settings: merged, Port: opt.ServerPort,
		WALDir: opt.Caps.WALDir, Replace: opt.Replace}
	inst, err := startPostgres(ctx, cfg, limits, opt.Caps.CgroupOptions())
	if err != nil {
		return nil, fmt.Errorf("start embedded PostgreSQL: %w", err)
	}
	t := &Target{Spec: "embedded", Name: "embedded PostgreSQL", Server: inst}
	return openStarted(ctx, t, inst.DSN(opt.Database), connect(postgres.EnsureDatabase, postgres.Open, Redact), opt, plan)
}

// connect is the Open of an engine's server reached over the network,
// given the engine's EnsureDatabase, Open and how its target is named
// without a password: it creates the database first when opt.CreateDB,
// then opens a pool on spec.
func connect[D engine.DB](ensure func(context.Context, string) error, open func(context.Context, string, int) (D, error),
	redact func(string) string) func(context.Context, string, Options) (*Target, error) {
	return func(ctx context.Context, spec string, opt Options) (*Target, error) {
		if opt.CreateDB {
			if err := ensure(ctx, spec); err != nil {
				return nil, err
			}
		}
		db, err := open(ctx, spec, opt.PoolSize)
		if err != nil {
			return nil, err
		}
		return &Target{DB: db, Spec: spec, Name: redact(spec)}, nil
	}
}

// openStarted gives t, whose managed server has just started, its
// database at dsn: created when missing and opened with open (connect),
// then the driver pinned as plan says. The server is stopped when any of
// that fails.
func openStarted(ctx context.Context, t *Target, dsn string, open func(context.Context, string, Options) (*Target, error),
	opt Options, plan caps.Plan) (*Target, error) {
	opt.CreateDB = true
	c, err := open(ctx, dsn, opt)
	if err != nil {
		_ = t.Server.Stop()
		return nil, err
	}
	if t.unpin, err = pinDriver(opt, plan); err != nil {
		c.DB.Close()
		_ = t.Server.Stop()
		return nil, err
	}
	t.DB = c.DB
	return t, nil
}

// postgresServer is what openEmbedded needs of a started server.
type postgresServer interface {
	Server
	DSN(database string) string
}

// startPostgres starts the embedded PostgreSQL, confined when there are limits.
func startPostgres(ctx context.Context, cfg instance.PostgresConfig, l cgroup.Limits, o cgroup.Options) (postgresServer, error) {
	if !limited(l) {
		return instance.StartPostgres(ctx, cfg)
	}
	return instance.StartPostgresConfined(ctx, cfg, l, o)
}

// checkPGVersion refuses a --pg-version this build cannot start.
func checkPGVersion(opt Options) error {
	if opt.PGVersion == "" {
		return nil
	}
	if opt.PGBin != "" {
		return fmt.Errorf("%w: --pg-version and --pg-bin both choose the binaries; give one", ErrBadTarget)
	}
	if err := CheckVersion("postgres", opt.PGVersion); err != nil {
		return fmt.Errorf("%w: --pg-version %s: %v; use one of them, or --pg-bin DIR for installed binaries", ErrBadTarget, opt.PGVersion, err)
	}
	return nil
}

func mysqlEngine() Engine {
	return Engine{
		Name: "mysql",
		Forms: []Form{{Short: "mariadb", Long: "mariadb", Managed: true},
			{Short: "mysql://...", Long: "mysql://user:pass@host:port/db"}},
		Note:  "MySQL 8 / MariaDB 10.11+: procedures, LOAD DATA LOCAL",
		Caps:  mysql.Caps,
		Fix:   networkFix,
		Match: func(s string) bool { return s == "mariadb" || hasPrefix(s, "mysql://", "mariadb://") },
		Open:  connect(mysql.EnsureDatabase, mysql.Open, Redact),
		Managed: &ManagedServer{Name: "mariadb", Display: "managed MariaDB", Start: openManagedMariaDB, Binaries: mariadb.FindBinaries,
			VersionNote: "MariaDB runs the installed mariadbd", WALDir: "MariaDB innodb_log_group_home_dir", DataDir: mariaDBDataDir},
		Tuning:   mysql.Tuning,
		Backup:   backup.MySQL,
		CPUProbe: cpu.MySQLLoop,
		Scripts:  script.MetaCommands,
	}
}

// openManagedMariaDB starts a private MariaDB (package instance/mariadb)
// and opens its database.
func openManagedMariaDB(ctx context.Context, spec string, opt Options) (*Target, error) {
	if !mariadb.Installed() {
		return nil, fmt.Errorf("%w %q: no mariadbd on this machine; install it (Debian: apt-get install mariadb-server) or use mysql://user:pass@host:port/db", ErrBadTarget, spec)
	}
	dataDir := cmp.Or(opt.DataDir, mariaDBDataDir())
	plan, limits, err := capsPlan(mysql.Tuning, opt, dataDir)
	if err != nil {
		return nil, err
	}
	if opt.Caps.WALDir != "" {
		if err := mariadb.PrepareLogDir(opt.Caps.WALDir); err != nil {
			return nil, err
		}
		plan.Settings["innodb_log_group_home_dir"], _ = filepath.Abs(opt.Caps.WALDir)
	}
	merged := mergeSettings(nil, plan, opt.Settings)
	fitConnections(merged, opt, mariadb.DefaultSettings["max_connections"])
	srv, err := startMariaDB(ctx, mariadb.Config{DataDir: dataDir, Port: opt.ServerPort, Settings: merged}, limits, opt.Caps.CgroupOptions())
	if err != nil {
		return nil, fmt.Errorf("start the managed MariaDB: %w", err)
	}
	t := &Target{Spec: spec, Name: "managed MariaDB", Server: srv}
	return openStarted(ctx, t, srv.URL(opt.Database), connect(mysql.EnsureDatabase, mysql.Open, Redact), opt, plan)
}

// mariaDBDataDir is the managed MariaDB's data directory without --data-dir.
func mariaDBDataDir() string {
	return filepath.Join(instance.DefaultBaseDir(), "data", "mariadb-default")
}

// mariaDBServer is what openManagedMariaDB needs of a started server.
type mariaDBServer interface {
	Server
	URL(database string) string
}

// startMariaDB starts the managed MariaDB, confined when there are limits.
func startMariaDB(ctx context.Context, cfg mariadb.Config, l cgroup.Limits, o cgroup.Options) (mariaDBServer, error) {
	if !limited(l) {
		return mariadb.Start(ctx, cfg)
	}
	return mariadb.StartConfined(ctx, cfg, l, o)
}

func sqliteEngine() Engine {
	return Engine{
		Name:  "sqlite",
		Forms: []Form{{Short: "sqlite:PATH", Long: "sqlite:PATH"}},
		Note:  "no server, in process; WAL, BEGIN IMMEDIATE",
		Caps:  sqlite.Caps,
		Match: func(s string) bool { return hasPrefix(s, "sqlite:") },
		Open: func(ctx context.Context, spec string, _ Options) (*Target, error) {
			path := strings.TrimPrefix(strings.TrimPrefix(spec, "sqlite:"), "//")
			if path == "" {
				return nil, fmt.Errorf("%w %q: use sqlite:PATH (a file)", ErrBadTarget, spec)
			}
			db, err := sqlite.Open(ctx, path)
			if err != nil {
				return nil, err
			}
			return &Target{DB: db, Spec: spec, Name: "sqlite:" + path}, nil
		},
		Scripts: script.MetaCommands,
	}
}

func mssqlEngine() Engine {
	return Engine{
		Name:     "mssql",
		Forms:    []Form{{Short: "sqlserver://...", Long: "sqlserver://user:pass@host:port?database=db"}},
		Note:     "T-SQL procedures, bulk copy; SQL Server 2008+ (not verified live)",
		Caps:     mssql.Caps,
		Fix:      networkFix,
		Match:    func(s string) bool { return hasPrefix(s, "sqlserver://") },
		Open:     connect(mssql.EnsureDatabase, mssql.Open, mssql.Redact),
		Backup:   backup.MSSQL,
		CPUProbe: cpu.TSQLLoop,
	}
}
