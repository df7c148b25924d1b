package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/rightsize/rightsize/engine"
	"github.com/rightsize/rightsize/tpcc"
)

// Processed is the number of order lines the last statements-mode
// New-Order of ex processed.
func Processed(ex tpcc.Executor) int { return ex.(*stmtExec).processed }

// UserConn opens a connection configured as a statements-mode virtual
// user's (isolation included), for two-session tests that pause inside a
// transaction.
func UserConn(ctx context.Context, db *DB) (*pgx.Conn, error) {
	cfg, err := db.userConfig(engine.Statements)
	if err != nil {
		return nil, err
	}
	return pgx.ConnectConfig(ctx, cfg)
}

// DSN is the data source name db was opened with.
func (db *DB) DSN() string { return db.dsn }
