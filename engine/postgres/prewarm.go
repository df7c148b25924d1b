package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/rightsize/rightsize/engine"
	"github.com/rightsize/rightsize/tpcc"
)

// Prewarm loads every TPC-C table and index into shared buffers with the
// pg_prewarm extension (PostgreSQL's contrib), so that a short run measures
// the cache's size rather than its cold start. Tables come first, then
// indexes, each the largest first: where the database is larger than the
// cache, what stays is what was read last, the indexes every lookup goes
// through and the small hot tables. The extension is created where it is
// missing: through admin, a superuser's connection URL to the same
// database (rightsize's managed server has one), else as the DB's own
// role, which then needs that privilege. Without the extension or the
// privilege the error wraps engine.ErrCannotPrewarm and names the fix.
func (db *DB) Prewarm(ctx context.Context, admin string) (engine.Warmed, error) {
	var w engine.Warmed
	if err := db.ensurePrewarm(ctx, admin); err != nil {
		return w, err
	}
	rels, err := db.prewarmOrder(ctx)
	if err != nil {
		return w, err
	}
	for _, rel := range rels {
		var n int64
		if err := db.pool.QueryRow(ctx, "SELECT pg_prewarm($1::text::regclass)", rel).Scan(&n); err != nil {
			return w, fmt.Errorf("prewarm %s: %w", rel, err)
		}
		w.Relations++
		w.Blocks += n
	}
	var size int64
	if err := db.pool.QueryRow(ctx, "SELECT current_setting('block_size')::int8").Scan(&size); err != nil {
		return w, fmt.Errorf("read block_size: %w", err)
	}
	w.Bytes = w.Blocks * size
	return w, nil
}

// prewarmOrder lists the TPC-C tables, then their indexes, each the
// largest first.
func (db *DB) prewarmOrder(ctx context.Context) ([]string, error) {
	names := make([]string, len(tpcc.Tables))
	for i, t := range tpcc.Tables {
		names[i] = string(t)
	}
	rows, err := db.pool.Query(ctx, `WITH t AS (SELECT u.tbl::regclass AS rel FROM unnest($1::text[]) AS u(tbl))
SELECT c.oid::regclass::text FROM pg_class c
WHERE c.oid IN (SELECT rel FROM t) OR c.oid IN (SELECT indexrelid FROM pg_index WHERE indrelid IN (SELECT rel FROM t))
ORDER BY c.relkind = 'i', pg_relation_size(c.oid) DESC, 1`, names)
	if err != nil {
		return nil, fmt.Errorf("list the tables and indexes to prewarm: %w", err)
	}
	rels, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("list the tables and indexes to prewarm: %w", err)
	}
	return rels, nil
}

const createPrewarm = "CREATE EXTENSION IF NOT EXISTS pg_prewarm"

// ensurePrewarm creates the pg_prewarm extension in the benchmark database
// where it is missing: as admin when given, else as the DB's own role.
func (db *DB) ensurePrewarm(ctx context.Context, admin string) error {
	var have bool
	if err := db.pool.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'pg_prewarm')").Scan(&have); err != nil {
		return fmt.Errorf("look up the pg_prewarm extension: %w", err)
	}
	if have {
		return nil
	}
	if admin == "" {
		_, err := db.pool.Exec(ctx, createPrewarm)
		return db.prewarmError(err)
	}
	conn, err := pgx.Connect(ctx, admin)
	if err != nil {
		return fmt.Errorf("log in as the administrator to create the pg_prewarm extension: %w", oneLine(err))
	}
	defer conn.Close(context.WithoutCancel(ctx))
	_, err = conn.Exec(ctx, createPrewarm)
	return db.prewarmError(err)
}

// prewarmError explains why the extension could not be created.
func (db *DB) prewarmError(err error) error {
	switch {
	case err == nil, isCode(err, "23505"): // unique_violation: created beside us
		return nil
	case isCode(err, "42501"): // insufficient_privilege
		role := "this role"
		if cfg, perr := pgx.ParseConfig(db.dsn); perr == nil {
			role = "role " + cfg.User
		}
		return fmt.Errorf("%w: it needs the pg_prewarm extension in database %s, which %s may not create; as a superuser run CREATE EXTENSION pg_prewarm; in database %s, or drop --prewarm",
			engine.ErrCannotPrewarm, db.dbname, role, db.dbname)
	case isCode(err, "58P01"): // undefined_file: no control file
		return fmt.Errorf("%w: this PostgreSQL server has no pg_prewarm extension (part of PostgreSQL's contrib: Debian's postgresql-NN, RHEL's postgresql-contrib); install it, or drop --prewarm",
			engine.ErrCannotPrewarm)
	}
	return fmt.Errorf("create the pg_prewarm extension: %w", oneLine(err))
}
