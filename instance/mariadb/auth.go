package mariadb

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/go-sql-driver/mysql"

	"github.com/rightsize/rightsize/internal/basedir"
	"github.com/rightsize/rightsize/internal/secret"
)

// filesDir is the private directory secure_file_priv points at: server-side
// file reads and writes (LOAD DATA INFILE, SELECT ... INTO OUTFILE,
// load_file) can reach nothing else.
func (s *Server) filesDir() string { return filepath.Join(s.runDir, "files") }

// tmpDir is the server's private temporary directory (its tmpdir: temporary
// tables and files), instead of a /tmp every local user shares.
func (s *Server) tmpDir() string { return filepath.Join(s.runDir, "tmp") }

// privateDirs creates filesDir and tmpDir, mode 0700, owned by the server's
// user.
func (s *Server) privateDirs(runAs *account) error {
	for _, dir := range []string{s.filesDir(), s.tmpDir()} {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return fmt.Errorf("mariadb: create %s: %w", dir, err)
		}
		if runAs != nil && runAs.name != "root" {
			if err := os.Chown(dir, runAs.uid, runAs.gid); err != nil {
				return fmt.Errorf("mariadb: give %s to the %s user: %w", dir, runAs.name, err)
			}
		}
	}
	return nil
}

// accessDenied reports a refused login (the server is up).
func accessDenied(err error) bool {
	var me *mysql.MySQLError
	return errors.As(err, &me) && (me.Number == 1045 || me.Number == 1698)
}

// secure makes root@localhost the only administrator, with the data
// directory's stored password, and drops every other account but the
// benchmark one and the server's own (mariadb.sys). It uses the stored
// password when it still logs in; otherwise (a new directory, or one from
// an older rightsize, where root has no password) it sets new passwords.
func (s *Server) secure(ctx context.Context, cfg Config, fresh bool) error {
	dir := cfg.SecretDir
	if dir == "" {
		dir = basedir.Secrets()
	}
	if !s.tempData {
		if sec, err := secret.Load(dir, s.dataDir); err == nil && s.rootWorks(ctx, sec.Admin) {
			s.secrets = sec
			return nil
		}
	}
	if !s.rootWorks(ctx, "") {
		return fmt.Errorf("mariadb: cannot log in as root to data directory %s: its passwords file (%s) is missing or not yours, and root has a password; restore that file or use a new --data-dir",
			s.dataDir, secret.Path(dir, s.dataDir))
	}
	sec, err := secret.New(s.dataDir)
	if err != nil {
		return err
	}
	if !s.tempData {
		if err := secret.Save(dir, sec); err != nil {
			return fmt.Errorf("mariadb: keep the passwords of %s: %w", s.dataDir, err)
		}
	}
	if err := s.lockDown(ctx, sec); err != nil {
		return err
	}
	s.secrets = sec
	if !fresh && !s.tempData {
		notices := cfg.Notices
		if notices == nil {
			notices = os.Stderr
		}
		fmt.Fprintf(notices, "rightsize: new passwords for MariaDB data directory %s (it was made by an older rightsize: root had no password); they are in %s, readable only by you\n",
			s.dataDir, secret.Path(dir, s.dataDir))
	}
	return nil
}

func (s *Server) rootWorks(ctx context.Context, password string) bool {
	db, err := s.rootDB(password)
	if err != nil {
		return false
	}
	defer db.Close()
	return db.PingContext(ctx) == nil
}

// lockDown sets root's password and drops the other accounts.
func (s *Server) lockDown(ctx context.Context, sec secret.Secrets) error {
	db, err := s.rootDB("")
	if err != nil {
		return err
	}
	defer db.Close()
	rows, err := db.QueryContext(ctx, "SELECT User, Host FROM mysql.user WHERE NOT (User = 'root' AND Host = 'localhost') AND User NOT IN ('mariadb.sys', 'mysql.sys', 'mysql.session', 'mysql.infoschema')")
	if err != nil {
		return fmt.Errorf("mariadb: list accounts: %w", err)
	}
	var drop []string
	for rows.Next() {
		var u, h string
		if err := rows.Scan(&u, &h); err != nil {
			rows.Close()
			return err
		}
		drop = append(drop, fmt.Sprintf("DROP USER %s@%s", quote(u), quote(h)))
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for _, q := range drop {
		if _, err := db.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("mariadb: %s: %w", q, err)
		}
	}
	if _, err := db.ExecContext(ctx, "ALTER USER 'root'@'localhost' IDENTIFIED BY '"+sec.Admin+"'"); err != nil {
		return fmt.Errorf("mariadb: set root's password: %w", secret.Redact(err, sec.Admin))
	}
	return nil
}

func quote(s string) string {
	b := []byte{'\''}
	for i := 0; i < len(s); i++ {
		if s[i] == '\'' || s[i] == '\\' {
			b = append(b, '\\')
		}
		b = append(b, s[i])
	}
	return string(append(b, '\''))
}
