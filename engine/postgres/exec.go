package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/rightsize/rightsize/engine"
	"github.com/rightsize/rightsize/internal/rawsock"
	"github.com/rightsize/rightsize/tpcc"
)

// NewExecutor implements engine.DB: a dedicated connection per virtual user.
func (db *DB) NewExecutor(ctx context.Context, mode engine.Mode) (tpcc.Executor, error) {
	cfg, err := pgx.ParseConfig(db.dsn)
	if err != nil {
		return nil, fmt.Errorf("parse PostgreSQL DSN: %w", err)
	}
	// A virtual user waits on its socket all the time: raw reads and
	// writes spare the runtime a sysmon wake-up per round trip.
	cfg.DialFunc = rawsock.WrapDial(cfg.DialFunc)
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("connect virtual user: %w", err)
	}
	switch mode {
	case engine.Procedures:
		e, err := newProcExec(ctx, conn)
		if err != nil {
			conn.Close(ctx)
			return nil, err
		}
		return e, nil
	case engine.Statements:
		return newStmtExec(conn), nil
	}
	conn.Close(ctx)
	return nil, fmt.Errorf("postgres: unknown mode %q", mode)
}

func isCode(err error, code string) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == code
}
