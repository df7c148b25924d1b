package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/rightsize/rightsize/engine"
)

// OpenScriptSession opens a ScriptSession on the database, one virtual
// user's of a pgbench workload (pgbench/workload.SessionOpener).
func (db *DB) OpenScriptSession(ctx context.Context) (engine.ScriptSession, error) {
	db.scriptCfgOnce.Do(func() { db.scriptCfg, db.scriptCfgErr = pgconn.ParseConfig(db.dsn) })
	if db.scriptCfgErr != nil {
		return nil, fmt.Errorf("parse PostgreSQL DSN: %w", db.scriptCfgErr)
	}
	return connectScriptSession(ctx, db.scriptCfg.Copy())
}

// ConnectPg opens one plain connection to the database, for pgbench/tpcb's
// build and check.
func (db *DB) ConnectPg(ctx context.Context) (*pgconn.PgConn, error) {
	c, err := pgconn.Connect(ctx, db.dsn)
	if err != nil {
		return nil, fmt.Errorf("connect to PostgreSQL: %w", err)
	}
	return c, nil
}
