package cpu

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/rightsize/rightsize/engine"
)

// MySQLLoop is MySQL's and MariaDB's loop: a stored procedure created for
// the run; db must expose a database/sql pool (see SQLDBer).
var MySQLLoop = Loop{Language: "MySQL stored procedure", open: openMySQLLoop}

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

func openMySQLLoop(ctx context.Context, db engine.DB) (looper, error) {
	s, err := sqlPool(db)
	if err != nil {
		return nil, err
	}
	l, err := newMySQLLoop(ctx, s)
	if err != nil {
		return nil, err
	}
	return l, nil
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
