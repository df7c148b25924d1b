package instance

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/rightsize/rightsize/internal/secret"
)

// SafeToExecute fails unless only root or the current user can change the
// program at path or any directory above it. Run nothing else as root.
func SafeToExecute(path string) error { return safeToExecute(path) }

// loadSecrets returns the data directory's passwords and whether the
// helper must set them: for a new cluster, or when the cluster's marker
// does not match the stored secrets (an older rightsize's cluster with the
// fixed password, or a lost or unsafe secrets file). New secrets are saved
// before they are set, so a failure half-way is repaired by the next start.
func (p *Postgres) loadSecrets(hasCluster bool) (secret.Secrets, bool, error) {
	s, err := secret.Load(p.secretDir, p.dataDir)
	marker, _ := os.ReadFile(filepath.Join(p.dataDir, authMarker))
	if err == nil && hasCluster && strings.TrimSpace(string(marker)) == s.Fingerprint() {
		return s, false, nil
	}
	if err == nil && !hasCluster {
		return s, true, nil // a re-initialised directory keeps its passwords
	}
	why := "its secrets file is missing or unsafe"
	if len(marker) == 0 {
		why = "it was made by an older rightsize with a fixed password"
	}
	if s, err = secret.New(p.dataDir); err != nil {
		return s, false, err
	}
	if err := secret.Save(p.secretDir, s); err != nil {
		return s, false, fmt.Errorf("instance: keep the passwords of %s: %w", p.dataDir, err)
	}
	if hasCluster {
		fmt.Fprintf(p.notices, "rightsize: new passwords for PostgreSQL data directory %s (%s); they are in %s, readable only by you\n",
			p.dataDir, why, secret.Path(p.secretDir, p.dataDir))
	}
	return s, true, nil
}

// setupRoles makes sure the benchmark role exists with its password and
// only the privileges the benchmark needs: it logs in, creates its
// databases (and copies them as templates), reads the statistics views
// (pg_monitor) and streams base backups (REPLICATION). It is no superuser.
// upgraded: the cluster was made by an older rightsize whose databases the
// superuser owns; they are handed to the benchmark role.
func (p *Postgres) setupRoles(ctx context.Context, upgraded bool) error {
	conn, err := pgx.Connect(ctx, pgURL(pgUser, p.secrets.Admin, p.port, "postgres"))
	if err != nil {
		return fmt.Errorf("instance: log in as the administrator to set up role %s: %w", BenchRole, err)
	}
	defer conn.Close(ctx)
	role := pgx.Identifier{BenchRole}.Sanitize()
	var exists bool
	if err := conn.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = $1)", BenchRole).Scan(&exists); err != nil {
		return fmt.Errorf("instance: look up role %s: %w", BenchRole, err)
	}
	stmts := []string{}
	if !exists {
		stmts = append(stmts, "CREATE ROLE "+role)
	}
	stmts = append(stmts,
		"SET password_encryption = 'scram-sha-256'",
		"ALTER ROLE "+role+" WITH LOGIN NOSUPERUSER CREATEDB NOCREATEROLE REPLICATION PASSWORD '"+p.secrets.Bench+"'",
		"GRANT pg_monitor TO "+role,
	)
	for _, q := range stmts {
		if _, err := conn.Exec(ctx, q); err != nil {
			return fmt.Errorf("instance: set up role %s: %w", BenchRole, secret.Redact(err, p.secrets.Bench))
		}
	}
	if upgraded {
		return p.handOverDatabases(ctx, conn)
	}
	return nil
}

// handOverDatabases gives every user database, and the schemas, tables,
// sequences, views and routines in it that the superuser owns, to the
// benchmark role.
func (p *Postgres) handOverDatabases(ctx context.Context, admin *pgx.Conn) error {
	rows, err := admin.Query(ctx, "SELECT datname FROM pg_database WHERE datallowconn AND datname NOT IN ('postgres', 'template1')")
	if err != nil {
		return fmt.Errorf("instance: list databases: %w", err)
	}
	dbs, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return fmt.Errorf("instance: list databases: %w", err)
	}
	role := pgx.Identifier{BenchRole}.Sanitize()
	for _, db := range dbs {
		if _, err := admin.Exec(ctx, "ALTER DATABASE "+pgx.Identifier{db}.Sanitize()+" OWNER TO "+role); err != nil {
			return fmt.Errorf("instance: give database %s to %s: %w", db, BenchRole, err)
		}
		if err := handOverObjects(ctx, pgURL(pgUser, p.secrets.Admin, p.port, db)); err != nil {
			return fmt.Errorf("instance: give the objects of database %s to %s: %w", db, BenchRole, err)
		}
	}
	return nil
}

const handOverSQL = `DO $$
DECLARE r record;
BEGIN
  FOR r IN SELECT n.nspname FROM pg_namespace n
           WHERE n.nspowner = 'postgres'::regrole AND n.nspname NOT LIKE 'pg\_%' AND n.nspname <> 'information_schema' LOOP
    EXECUTE format('ALTER SCHEMA %I OWNER TO ` + BenchRole + `', r.nspname);
  END LOOP;
  FOR r IN SELECT c.oid::regclass AS rel FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
           WHERE c.relowner = 'postgres'::regrole AND c.relkind IN ('r', 'p', 'S', 'v', 'm', 'f')
             AND n.nspname NOT LIKE 'pg\_%' AND n.nspname <> 'information_schema' LOOP
    EXECUTE format('ALTER TABLE %s OWNER TO ` + BenchRole + `', r.rel);
  END LOOP;
  FOR r IN SELECT p.oid::regprocedure AS fn FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
           WHERE p.proowner = 'postgres'::regrole AND n.nspname NOT LIKE 'pg\_%' AND n.nspname <> 'information_schema' LOOP
    EXECUTE format('ALTER ROUTINE %s OWNER TO ` + BenchRole + `', r.fn);
  END LOOP;
END $$`

func handOverObjects(ctx context.Context, dsn string) error {
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, handOverSQL)
	return err
}

// openLog opens the server log for appending without following a
// symbolic link (the log directory is ours, but be strict: root writes
// here).
func openLog(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND|oNoFollow, 0o640)
}

// The helper's side: runs as the server user.

// hbaConf is the whole pg_hba.conf of a managed server.
const hbaConf = `# Written by rightsize at every start. Password (SCRAM) logins only, from
# this machine (the private socket and 127.0.0.1); nothing is trusted.
local   all          all                  scram-sha-256
host    all          all    127.0.0.1/32  scram-sha-256
local   replication  all                  scram-sha-256
host    replication  all    127.0.0.1/32  scram-sha-256
`

// writeAuth writes pg_hba.conf (where the settings put it) and, when asked,
// sets the superuser's password in single-user mode, which needs no login,
// then records the secrets' fingerprint in the data directory.
func writeAuth(req startRequest) error {
	hba := req.Settings["hba_file"]
	if hba == "" {
		hba = filepath.Join(req.DataDir, "pg_hba.conf")
	}
	if err := os.WriteFile(hba, []byte(hbaConf), 0o600); err != nil {
		return fmt.Errorf("write %s: %w", hba, err)
	}
	marker := filepath.Join(req.DataDir, authMarker)
	if !req.SetPassword {
		return nil
	}
	_ = os.Remove(marker)
	cmd := exec.Command(filepath.Join(req.BinariesPath, "bin", "postgres"), "--single", "-D", req.DataDir,
		"-c", "password_encryption=scram-sha-256", "-c", "log_min_messages=warning", "postgres")
	// A standalone backend runs as the bootstrap superuser, whatever its
	// name (a restored copy of another server's cluster may not call it
	// postgres): it gets the password, and "postgres" is made a superuser
	// with the same password if it is not that user.
	cmd.Stdin = strings.NewReader("ALTER ROLE CURRENT_USER WITH PASSWORD '" + req.Password + "'\n" +
		"DO $$BEGIN IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '" + pgUser + "') THEN CREATE ROLE " + pgUser + "; END IF; END$$\n" +
		"ALTER ROLE " + pgUser + " WITH SUPERUSER LOGIN PASSWORD '" + req.Password + "'\n")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("set the administrator's password (postgres --single): %w: %s", err, strings.TrimSpace(out.String()))
	}
	if strings.Contains(out.String(), "ERROR:") {
		return fmt.Errorf("set the administrator's password (postgres --single): %s", strings.TrimSpace(out.String()))
	}
	return os.WriteFile(marker, []byte(req.Fingerprint+"\n"), 0o600)
}
