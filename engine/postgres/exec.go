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
	cfg, err := db.userConfig()
	if err != nil {
		return nil, err
	}
	if mode == engine.Procedures {
		if err := db.ensureProcedures(ctx); err != nil {
			return nil, err
		}
	}
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
		e, err := newStmtExec(ctx, conn)
		if err != nil {
			conn.Close(ctx)
			return nil, err
		}
		return e, nil
	}
	conn.Close(ctx)
	return nil, fmt.Errorf("postgres: unknown mode %q", mode)
}

// userConfig is the connection configuration of a virtual user.
func (db *DB) userConfig() (*pgx.ConnConfig, error) {
	cfg, err := pgx.ParseConfig(db.dsn)
	if err != nil {
		return nil, fmt.Errorf("parse PostgreSQL DSN: %w", err)
	}
	// A virtual user waits on its socket all the time: raw reads and
	// writes spare the runtime a sysmon wake-up per round trip.
	cfg.DialFunc = rawsock.WrapDial(cfg.DialFunc)
	// Isolation (clause 3.4): every transaction of a virtual user runs at
	// the session's default. REPEATABLE READ is snapshot isolation: no dirty
	// reads, no non-repeatable reads, no phantoms, and a write conflicting
	// with a concurrent one fails with a serialization failure (40001) that
	// the driver retries and counts. Read committed reproduces HammerDB.
	cfg.RuntimeParams["default_transaction_isolation"] = isolationLevel(db.isolation)
	return cfg, nil
}

// isolationLevel is the PostgreSQL level an isolation choice runs at.
func isolationLevel(i engine.Isolation) string {
	if i.Compliant() {
		return "repeatable read"
	}
	return "read committed"
}

// SetIsolation implements engine.IsolationSetter.
func (db *DB) SetIsolation(i engine.Isolation) { db.isolation = i }

func isCode(err error, code string) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == code
}
