package registry

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/rightsize/rightsize/instance"
	"github.com/rightsize/rightsize/probe/backup"
)

// pgxPooler is implemented by engine/postgres.DB.
type pgxPooler interface {
	Pool() *pgxpool.Pool
}

// urlServer is a managed server that gives its databases' URLs
// (instance/mariadb).
type urlServer interface {
	URL(database string) string
}

// BackupSpec describes t for the backup probe, with its engine's method
// (Engine.Backup): the embedded target's DSN is rebuilt from its instance
// and the database the pool is connected to, the managed MariaDB's is its
// server's URL of the benchmark database; other targets use their
// --target value as the DSN.
func (t *Target) BackupSpec(ctx context.Context) (backup.Spec, error) {
	inst, _ := t.Server.(*instance.Postgres)
	if c, ok := t.Server.(*instance.ConfinedPostgres); ok {
		inst = c.Postgres
	}
	s := backup.Spec{EngineName: t.Engine(), Method: t.Registered.Backup, URL: t.Spec, Postgres: inst}
	if srv, ok := t.Server.(urlServer); ok && inst == nil {
		s.URL = srv.URL(t.Options.Database) // a managed MariaDB: its spec is "mariadb"
	}
	if inst == nil {
		return s, nil
	}
	pool, ok := t.DB.(pgxPooler)
	if !ok {
		return s, fmt.Errorf("backup: embedded target %T has no PostgreSQL pool", t.DB)
	}
	var db string
	if err := pool.Pool().QueryRow(ctx, "SELECT current_database()").Scan(&db); err != nil {
		return s, fmt.Errorf("backup: name of the benchmark database: %w", err)
	}
	s.URL = inst.DSN(db)
	return s, nil
}
