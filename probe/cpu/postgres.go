package cpu

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/rightsize/rightsize/engine"
)

// PLpgSQLLoop is PostgreSQL's loop: a PL/pgSQL function in the session's
// temporary schema; db must implement PgxPooler.
var PLpgSQLLoop = Loop{Language: "PL/pgSQL", open: openPostgresLoop}

// PgxPooler is implemented by engine.DB values of the PostgreSQL engine
// (engine/postgres.DB has it).
type PgxPooler interface {
	Pool() *pgxpool.Pool
}

// PLpgSQL returns the PL/pgSQL function the PostgreSQL probe creates in the
// session's temporary schema and calls as
// SELECT ms, x FROM pg_temp.rightsize_cpu_probe(n).
func PLpgSQL() string {
	return `CREATE OR REPLACE FUNCTION pg_temp.rightsize_cpu_probe(n bigint, OUT ms double precision, OUT x double precision)
LANGUAGE plpgsql AS $$
DECLARE
    i  bigint := 0;
    t0 timestamptz := clock_timestamp();
BEGIN
    x := 0;
    WHILE i < n LOOP
        x := x + sqrt(i::double precision) * 1.0001::double precision;
        i := i + 1;
    END LOOP;
    ms := extract(epoch FROM clock_timestamp() - t0)::double precision * 1000;
END
$$`
}

func openPostgresLoop(ctx context.Context, db engine.DB) (looper, error) {
	p, ok := db.(PgxPooler)
	if !ok {
		return nil, fmt.Errorf("%w: the %s engine value %T has no Pool() *pgxpool.Pool", ErrNotSupported, db.Engine(), db)
	}
	l, err := newPostgresLoop(ctx, p.Pool())
	if err != nil {
		return nil, err
	}
	return l, nil
}

// postgresLoop runs the PL/pgSQL function on one pinned connection (the
// function lives in that session's temporary schema).
type postgresLoop struct {
	conn *pgxpool.Conn
}

func newPostgresLoop(ctx context.Context, pool *pgxpool.Pool) (*postgresLoop, error) {
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return nil, fmt.Errorf("cpu probe: connect: %w", err)
	}
	if _, err := conn.Exec(ctx, PLpgSQL()); err != nil {
		conn.Release()
		return nil, fmt.Errorf("cpu probe: create the PL/pgSQL function in pg_temp (needs the TEMP privilege): %w", err)
	}
	return &postgresLoop{conn: conn}, nil
}

func (l *postgresLoop) run(ctx context.Context, n int64) (ms, x float64, err error) {
	err = l.conn.QueryRow(ctx, "SELECT ms, x FROM pg_temp.rightsize_cpu_probe($1)", n).Scan(&ms, &x)
	return ms, x, err
}

func (l *postgresLoop) close() {
	ctx, cancel := context.WithTimeout(context.Background(), cleanupTimeout)
	defer cancel()
	if !l.conn.Conn().IsClosed() {
		if _, err := l.conn.Exec(ctx, "DROP FUNCTION IF EXISTS pg_temp.rightsize_cpu_probe(bigint)"); err != nil {
			// A session whose statement was cancelled may be unusable: drop
			// it from the pool, which also drops its temporary schema.
			_ = l.conn.Conn().Close(ctx)
		}
	}
	l.conn.Release()
}
