package cpu

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// cleanupTimeout bounds the statement that drops what a probe created,
// which runs even when the probe's context is cancelled.
const cleanupTimeout = 10 * time.Second

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

// TSQL returns the T-SQL batch of the SQL Server probe: the classic
// DECLARE/WHILE loop of iterations, timed with SYSDATETIME(), ending with
// SELECT ms, x. It can be pasted into SSMS or sqlcmd as is. It runs on SQL
// Server 2008 and later (DATEDIFF in microseconds, not DATEDIFF_BIG, so a
// run must stay under 35 minutes).
func TSQL(iterations int64) string {
	return fmt.Sprintf(`SET NOCOUNT ON;
DECLARE @n bigint = %d, @i bigint = 0, @x float = 0, @t0 datetime2(7) = SYSDATETIME();
WHILE @i < @n
BEGIN
    SET @x = @x + SQRT(CAST(@i AS float)) * CAST(1.0001 AS float);
    SET @i += 1;
END;
SELECT CAST(DATEDIFF(microsecond, @t0, SYSDATETIME()) AS float) / 1000.0 AS ms, @x AS x;`, iterations)
}

// mysqlProcName is the stored procedure the MySQL/MariaDB probe creates.
const mysqlProcName = "rightsize_cpu_probe"

// MySQLProcedure returns the stored procedure of the MySQL/MariaDB probe,
// created in the target database for the run (CALL rightsize_cpu_probe(n)
// returns one row: ms, x) and dropped afterwards. SYSDATE(6), unlike NOW(6),
// reads the clock when evaluated.
func MySQLProcedure() string {
	return `CREATE PROCEDURE ` + mysqlProcName + `(IN n BIGINT)
BEGIN
    DECLARE i BIGINT DEFAULT 0;
    DECLARE x DOUBLE DEFAULT 0;
    DECLARE t0 DATETIME(6) DEFAULT SYSDATE(6);
    WHILE i < n DO
        SET x = x + SQRT(i) * CAST(1.0001 AS DOUBLE);
        SET i = i + 1;
    END WHILE;
    SELECT TIMESTAMPDIFF(MICROSECOND, t0, SYSDATE(6)) / 1000.0 AS ms, x;
END`
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

// mysqlLoop calls the stored procedure.
type mysqlLoop struct {
	db *sql.DB
}

func newMySQLLoop(ctx context.Context, db *sql.DB) (*mysqlLoop, error) {
	if _, err := db.ExecContext(ctx, "DROP PROCEDURE IF EXISTS "+mysqlProcName); err != nil {
		return nil, fmt.Errorf("cpu probe: drop an old %s procedure: %w", mysqlProcName, err)
	}
	if _, err := db.ExecContext(ctx, MySQLProcedure()); err != nil {
		return nil, fmt.Errorf("cpu probe: create the %s procedure (needs CREATE ROUTINE on the database): %w", mysqlProcName, err)
	}
	return &mysqlLoop{db: db}, nil
}

func (l *mysqlLoop) run(ctx context.Context, n int64) (ms, x float64, err error) {
	err = l.db.QueryRowContext(ctx, "CALL "+mysqlProcName+"(?)", n).Scan(&ms, &x)
	return ms, x, err
}

func (l *mysqlLoop) close() {
	ctx, cancel := context.WithTimeout(context.Background(), cleanupTimeout)
	defer cancel()
	_, _ = l.db.ExecContext(ctx, "DROP PROCEDURE IF EXISTS "+mysqlProcName)
}

// tsqlLoop runs the T-SQL batch.
type tsqlLoop struct {
	db *sql.DB
}

func (l *tsqlLoop) run(ctx context.Context, n int64) (ms, x float64, err error) {
	err = l.db.QueryRowContext(ctx, TSQL(n)).Scan(&ms, &x)
	return ms, x, err
}

func (l *tsqlLoop) close() {}
