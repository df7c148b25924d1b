package cpu

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/rightsize/rightsize/engine"
)

// TSQLLoop is SQL Server's loop: a T-SQL batch; db must expose a
// database/sql pool (see SQLDBer).
var TSQLLoop = Loop{Language: "T-SQL", open: openTSQLLoop}

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

func openTSQLLoop(_ context.Context, db engine.DB) (looper, error) {
	s, err := sqlPool(db)
	if err != nil {
		return nil, err
	}
	return &tsqlLoop{db: s}, nil
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
