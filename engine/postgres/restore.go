package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// templateName is the database Snapshot copies the benchmark database to.
func (db *DB) templateName() string { return db.dbname + "_rightsize_template" }

// withAdmin closes the pool, runs fn on a connection to the server's
// "postgres" database (no connection may use the benchmark database while
// it is copied or dropped), then reopens the pool.
func (db *DB) withAdmin(ctx context.Context, fn func(conn *pgx.Conn) error) error {
	cfg, err := pgx.ParseConfig(db.dsn)
	if err != nil {
		return err
	}
	cfg.Database = "postgres"
	db.pool.Close()
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err == nil {
		// Other sessions (a psql, a previous crashed run) would block
		// CREATE DATABASE ... TEMPLATE. Only client sessions this role may
		// end are ended (a role that is no superuser, like the managed
		// servers' benchmark role, may end its own); the server ends
		// autovacuum workers on the database itself.
		_, err = conn.Exec(ctx, `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
			WHERE datname = ANY($1) AND pid <> pg_backend_pid() AND backend_type = 'client backend'
			  AND (usename = current_user OR (SELECT rolsuper FROM pg_roles WHERE rolname = current_user))`,
			[]string{db.dbname, db.templateName()})
		if err == nil {
			err = fn(conn)
		}
		conn.Close(ctx)
	}
	pcfg, perr := pgxpool.ParseConfig(db.dsn)
	if perr == nil {
		pcfg.MaxConns = db.poolSize
		db.pool, perr = pgxpool.NewWithConfig(ctx, pcfg)
	}
	if err != nil {
		return err
	}
	return perr
}

// Snapshot implements scenario.Restorer: it copies the benchmark database
// into a template database.
func (db *DB) Snapshot(ctx context.Context) error {
	tpl := pgx.Identifier{db.templateName()}.Sanitize()
	return db.withAdmin(ctx, func(conn *pgx.Conn) error {
		if _, err := conn.Exec(ctx, "DROP DATABASE IF EXISTS "+tpl); err != nil {
			return fmt.Errorf("drop old template: %w", err)
		}
		if _, err := conn.Exec(ctx, "CREATE DATABASE "+tpl+" TEMPLATE "+pgx.Identifier{db.dbname}.Sanitize()); err != nil {
			return fmt.Errorf("create template database: %w", err)
		}
		return nil
	})
}

// Restore implements scenario.Restorer: it drops the benchmark database
// and creates it again from the template.
func (db *DB) Restore(ctx context.Context) error {
	name := pgx.Identifier{db.dbname}.Sanitize()
	return db.withAdmin(ctx, func(conn *pgx.Conn) error {
		if _, err := conn.Exec(ctx, "DROP DATABASE IF EXISTS "+name); err != nil {
			return fmt.Errorf("drop database: %w", err)
		}
		if _, err := conn.Exec(ctx, "CREATE DATABASE "+name+" TEMPLATE "+pgx.Identifier{db.templateName()}.Sanitize()); err != nil {
			return fmt.Errorf("restore database from template: %w", err)
		}
		return nil
	})
}

// HasSnapshot reports whether Snapshot has made the template database.
func (db *DB) HasSnapshot(ctx context.Context) (bool, error) {
	var ok bool
	err := db.pool.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)", db.templateName()).Scan(&ok)
	return ok, err
}
