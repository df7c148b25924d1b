// Package cpu is rightsize's single-thread CPU probe: the test SQL Server
// practitioners run to compare the per-core speed of database servers. A
// server-side loop of floating-point arithmetic runs for a fixed number of
// iterations inside the database's own procedural language,
//
//	WHILE i < n: x = x + SQRT(i) * 1.0001; i = i + 1
//
// and its elapsed time is measured by the server's clock around the loop,
// in milliseconds (lower is faster). It exercises one core, the engine's
// interpreter and the CPU's clock and memory latency, none of the storage:
// a quick way to tell whether a "faster" VM really is faster per core, and
// what per-core licences buy.
//
// The loop is written for each engine with procedures:
//
//   - PostgreSQL: a PL/pgSQL function created in the session's temporary
//     schema (pg_temp), so nothing is left in the database;
//   - SQL Server: a T-SQL batch (DECLARE ... WHILE ... SELECT);
//   - MySQL and MariaDB: a stored procedure, created for the run and
//     dropped afterwards (needs CREATE ROUTINE and ALTER ROUTINE on the
//     database).
//
// The same arithmetic also runs as a Go loop in the client ([ClientGo]):
// compiled code, for scale — an interpreter is typically tens to hundreds
// of times slower, and the ratio shows how much of the server figure is the
// engine rather than the CPU.
//
// Before the measured runs one short warm-up run (1,000 iterations) lets the
// engine compile and cache the code.
package cpu

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"time"

	"github.com/rightsize/rightsize/engine"
	"github.com/rightsize/rightsize/probe/result"
)

// DefaultIterations is the loop length the CLI should use when none is
// given: about 0.1 to 1 s per run on current servers.
const DefaultIterations int64 = 1_000_000

// DefaultRuns is the number of measured runs the CLI should use when none
// is given.
const DefaultRuns = 5

// warmupIterations is the length of the unmeasured first run.
const warmupIterations = 1000

// Result is the outcome of one CPU probe (defined in probe/result so the
// report can read stored probes without linking database drivers).
type Result = result.CPU

// SQLDBer is how Run reaches the database/sql pool of the MySQL/MariaDB and
// SQL Server engines. The engines currently expose their pool under other
// names (engine/mysql: Pool() *sql.DB; engine/mssql: SQL() *sql.DB), which
// Run also accepts; SQLDB() is the name to add so that every database/sql
// engine answers the same way.
type SQLDBer interface {
	SQLDB() *sql.DB
}

// sqlDB finds db's database/sql pool under any of the known method names.
func sqlDB(db engine.DB) (*sql.DB, bool) {
	switch d := db.(type) {
	case SQLDBer:
		return d.SQLDB(), true
	case interface{ SQL() *sql.DB }:
		return d.SQL(), true
	case interface{ Pool() *sql.DB }:
		return d.Pool(), true
	}
	return nil, false
}

// cleanupTimeout bounds the statement that drops what a probe created,
// which runs even when the probe's context is cancelled.
const cleanupTimeout = 10 * time.Second

// ErrNotSupported is returned (wrapped) by Run for engines without a
// server-side procedural language, or without a pool Run can reach.
var ErrNotSupported = errors.New("cpu probe: not supported")

// Loop is an engine's server-side loop, which the engine registry gives
// each engine with a procedural language (PLpgSQLLoop, MySQLLoop,
// TSQLLoop, each declared in the file of its language); the zero Loop has
// none.
type Loop struct {
	// Language names the loop's language in the result ("PL/pgSQL").
	Language string
	open     func(ctx context.Context, db engine.DB) (looper, error)
}

// sqlPool is db's database/sql pool, or why there is none.
func sqlPool(db engine.DB) (*sql.DB, error) {
	s, ok := sqlDB(db)
	if !ok {
		return nil, fmt.Errorf("%w: the %s engine value %T exposes no database/sql pool (add SQLDB() *sql.DB)", ErrNotSupported, db.Engine(), db)
	}
	return s, nil
}

// Run runs loop (the engine's, from the engine registry) of iterations on
// db's server runs times (after a short warm-up) and the same arithmetic
// as a Go loop here, and returns the timings. The zero loop returns an
// error wrapping ErrNotSupported, as does a db the loop cannot reach.
// Iterations and runs of zero or less take DefaultIterations and
// DefaultRuns. Run leaves nothing behind in the database (the MySQL
// procedure is dropped, also when ctx is cancelled).
func Run(ctx context.Context, db engine.DB, loop Loop, iterations int64, runs int) (Result, error) {
	if iterations <= 0 {
		iterations = DefaultIterations
	}
	if runs <= 0 {
		runs = DefaultRuns
	}
	r := Result{Engine: db.Engine(), Iterations: iterations, Runs: runs, StartedAt: time.Now()}
	r.Host, _ = os.Hostname()
	if loop.open == nil {
		return r, fmt.Errorf("%w for engine %q: it has no server-side procedural language", ErrNotSupported, r.Engine)
	}
	r.Language = loop.Language
	l, err := loop.open(ctx, db)
	if err != nil {
		return r, err
	}
	defer l.close()

	if r.Version, err = db.Version(ctx); err != nil {
		return r, fmt.Errorf("cpu probe: server version: %w", err)
	}
	if _, _, err := l.run(ctx, warmupIterations); err != nil {
		return r, fmt.Errorf("cpu probe: warm-up run: %w", err)
	}
	for i := 0; i < runs; i++ {
		ms, _, err := l.run(ctx, iterations)
		if err != nil {
			return r, fmt.Errorf("cpu probe: run %d of %d: %w", i+1, runs, err)
		}
		r.ServerMs = append(r.ServerMs, ms)
	}
	r.BestMs, r.MedianMs = bestMedian(r.ServerMs)

	best := time.Duration(math.MaxInt64)
	for i := 0; i < runs; i++ {
		best = min(best, ClientGo(iterations))
	}
	r.ClientGoMs = float64(best) / float64(time.Millisecond)
	return r, nil
}

// bestMedian returns the minimum and the median of v (0, 0 for none).
func bestMedian(v []float64) (best, median float64) {
	if len(v) == 0 {
		return 0, 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[0], s[n/2]
	}
	return s[0], (s[n/2-1] + s[n/2]) / 2
}

// sink keeps the compiler from removing the client loop.
var sink float64

// clientLoop is the Go version of the server loop; it returns x.
func clientLoop(iterations int64) float64 {
	x := 0.0
	for i := int64(0); i < iterations; i++ {
		x += math.Sqrt(float64(i)) * 1.0001
	}
	return x
}

// ClientGo times the loop's arithmetic (x += sqrt(i) * 1.0001 for i from 0
// to iterations-1) as compiled Go code on this machine.
func ClientGo(iterations int64) time.Duration {
	start := time.Now()
	sink = clientLoop(iterations)
	return time.Since(start)
}

// looper runs the server-side loop once.
type looper interface {
	// run runs n iterations and returns the server-measured milliseconds
	// and the loop's result x.
	run(ctx context.Context, n int64) (ms, x float64, err error)
	close()
}

// FormatText writes r as a short human-readable report.
func FormatText(w io.Writer, r Result) {
	fmt.Fprintf(w, "Single-thread CPU probe: %s (%s)\n", r.Version, r.Engine)
	fmt.Fprintf(w, "loop: %s iterations of x = x + SQRT(i) * 1.0001 in %s, %d run(s), host %s\n",
		group(r.Iterations), r.Language, r.Runs, r.Host)
	for i, ms := range r.ServerMs {
		fmt.Fprintf(w, "  run %2d: %10.1f ms\n", i+1, ms)
	}
	if len(r.ServerMs) == 0 {
		fmt.Fprintln(w, "  no completed run")
		return
	}
	rate := 0.0
	if r.BestMs > 0 {
		rate = float64(r.Iterations) / r.BestMs * 1000
	}
	fmt.Fprintf(w, "best %.1f ms, median %.1f ms (%.2f M iterations/s at best; lower time is faster)\n",
		r.BestMs, r.MedianMs, rate/1e6)
	if r.ClientGoMs > 0 {
		fmt.Fprintf(w, "same arithmetic as compiled Go on the client: %.2f ms (the server loop is %.0fx slower)\n",
			r.ClientGoMs, r.BestMs/r.ClientGoMs)
	}
}

// group formats n with thousands separators.
func group(n int64) string {
	s := fmt.Sprint(n)
	neg := s[0] == '-'
	if neg {
		s = s[1:]
	}
	var out []byte
	for i := range len(s) {
		if i > 0 && (len(s)-i)%3 == 0 {
			out = append(out, ',')
		}
		out = append(out, s[i])
	}
	if neg {
		return "-" + string(out)
	}
	return string(out)
}
