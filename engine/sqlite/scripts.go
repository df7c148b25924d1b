package sqlite

import (
	"context"
	"strings"
	"time"

	"github.com/rightsize/rightsize/engine"
	"github.com/rightsize/rightsize/engine/sqlsession"
)

// OpenScriptSession opens a session of pgbench scripts on a dedicated
// connection of the file (pgbench/workload.SessionOpener): statements
// prepared with ? placeholders, SQLITE_BUSY and SQLITE_LOCKED retried as
// pgbench retries serialization failures. A script's BEGIN is SQLite's
// (deferred): write BEGIN IMMEDIATE for a transaction that reads then
// writes, or it may fail with SQLITE_BUSY when another writer went first.
func (db *DB) OpenScriptSession(ctx context.Context) (engine.ScriptSession, error) {
	return sqlsession.Open(ctx, db.sql, sqlsession.Rules{
		Retry:         func(err error) bool { return classify(err) == engine.ErrRetry },
		NoTransaction: func(err error) bool { return strings.Contains(err.Error(), "no transaction is active") },
	})
}

// ExecScript runs an SQL file as it is (every statement of it, under the
// in-process writer lock), build --init's schema and rows of a pgbench
// workload.
func (db *DB) ExecScript(ctx context.Context, sql string) (time.Duration, error) {
	start := time.Now()
	if err := db.lockWriter(ctx); err != nil {
		return 0, err
	}
	defer db.unlockWriter()
	_, err := db.sql.ExecContext(ctx, sql)
	return time.Since(start), err
}
