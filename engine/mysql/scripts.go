package mysql

import (
	"context"
	"fmt"
	"time"

	"github.com/rightsize/rightsize/engine"
	"github.com/rightsize/rightsize/engine/sqlsession"
)

// OpenScriptSession opens a session of pgbench scripts on a dedicated
// connection (pgbench/workload.SessionOpener): statements prepared on
// the server with ? placeholders, deadlocks and lock wait timeouts
// retried as pgbench retries deadlocks.
func (db *DB) OpenScriptSession(ctx context.Context) (engine.ScriptSession, error) {
	return sqlsession.Open(ctx, db.users, sqlsession.Rules{Retry: lockFailure, Deadlock: lockFailure})
}

// ExecScript runs an SQL file as it is (several statements on one
// multi-statement connection), build --init's schema and rows of a
// pgbench workload.
func (db *DB) ExecScript(ctx context.Context, sql string) (time.Duration, error) {
	start := time.Now()
	conn, err := db.users.Conn(ctx)
	if err != nil {
		return 0, fmt.Errorf("connect to MySQL: %w", err)
	}
	defer conn.Close()
	_, err = conn.ExecContext(ctx, sql)
	return time.Since(start), err
}

// lockFailure says whether err is a deadlock or a lock wait timeout (which
// InnoDB also ends deadlocks with): the errors classify retries, each a
// script's deadlock failure in pgbench's aggregated log.
func lockFailure(err error) bool { return classify(err) == engine.ErrRetry }
