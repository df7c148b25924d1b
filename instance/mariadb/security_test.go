package mariadb_test

import (
	"bytes"
	"context"
	"database/sql"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/go-sql-driver/mysql"

	"github.com/rightsize/rightsize/instance/mariadb"
	"github.com/rightsize/rightsize/internal/secret"
)

// login tries user/password over TCP and returns the error of a ping.
func login(s *mariadb.Server, user, password string) error {
	c := mysql.NewConfig()
	c.User, c.Passwd, c.Net = user, password, "tcp"
	c.Addr = net.JoinHostPort("127.0.0.1", strconv.Itoa(int(s.Port())))
	conn, err := mysql.NewConnector(c)
	if err != nil {
		return err
	}
	db := sql.OpenDB(conn)
	defer db.Close()
	return db.Ping()
}

// The managed MariaDB is closed to other local users: no fixed or empty
// passwords over TCP, a private socket, and a benchmark account without
// FILE, SUPER or GRANT OPTION whose server-side file access is confined.
func TestOthersCannotLogIn(t *testing.T) {
	secrets := filepath.Join(t.TempDir(), "secrets")
	dir := t.TempDir()
	var notices bytes.Buffer
	s := start(t, mariadb.Config{DataDir: dir, SecretDir: secrets, Notices: &notices})
	if notices.Len() != 0 {
		t.Errorf("notice for a new data directory: %q", notices.String())
	}
	for _, c := range []struct{ user, password string }{
		{"rightsize", "rightsize"}, {"root", ""}, {"root", "root"}, {"", ""}, {"mysql", ""},
	} {
		if err := login(s, c.user, c.password); err == nil {
			t.Errorf("TCP login as %q with password %q worked", c.user, c.password)
		}
	}
	st, err := os.Stat(filepath.Dir(s.Socket()))
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o700 {
		t.Errorf("socket directory mode %#o, want 0700", st.Mode().Perm())
	}
	sec, err := secret.Load(secrets, dir)
	if err != nil {
		t.Fatalf("the passwords file: %v", err)
	}
	if fi, _ := os.Stat(secret.Path(secrets, dir)); fi == nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("passwords file mode: %v", fi)
	}
	if !strings.Contains(s.URL("x"), sec.Bench) {
		t.Errorf("URL does not use the stored benchmark password")
	}

	db, err := sql.Open("mysql", s.DSN(""))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	var grants []string
	rows, err := db.QueryContext(ctx, "SHOW GRANTS")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var g string
		if err := rows.Scan(&g); err != nil {
			t.Fatal(err)
		}
		grants = append(grants, g)
	}
	all := strings.Join(grants, "\n")
	for _, bad := range []string{"ALL PRIVILEGES", "FILE", "SUPER", "GRANT OPTION", "'%'"} {
		if strings.Contains(all, bad) {
			t.Errorf("the benchmark account has %s:\n%s", bad, all)
		}
	}
	var f sql.NullString
	if err := db.QueryRowContext(ctx, "SELECT load_file('/etc/passwd')").Scan(&f); err != nil || f.Valid {
		t.Errorf("load_file('/etc/passwd') = %v, %v; want NULL", f, err)
	}
	var priv string
	if err := db.QueryRowContext(ctx, "SELECT @@secure_file_priv").Scan(&priv); err != nil || !strings.HasPrefix(priv, filepath.Dir(s.Socket())) {
		t.Errorf("secure_file_priv = %q, %v; want the private directory", priv, err)
	}
	var tmp string
	if err := db.QueryRowContext(ctx, "SELECT @@tmpdir").Scan(&tmp); err != nil || !strings.HasPrefix(tmp, filepath.Dir(s.Socket())) {
		t.Errorf("tmpdir = %q, %v; want the private directory, not one every local user shares", tmp, err)
	} else if fi, err := os.Stat(tmp); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("tmpdir %s: %v, %v; want mode 0700", tmp, fi.Mode(), err)
	}
	if _, err := db.ExecContext(ctx, "CREATE DATABASE sec1"); err != nil {
		t.Errorf("the benchmark account cannot create its database: %v", err)
	}
	db.Close()

	// A restart keeps the passwords; an older rightsize's directory (root
	// without a password) is fixed with one notice.
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	s2 := start(t, mariadb.Config{DataDir: dir, SecretDir: secrets, Notices: &notices})
	if notices.Len() != 0 || !strings.Contains(s2.URL("x"), sec.Bench) {
		t.Errorf("restart changed the passwords (notice %q)", notices.String())
	}
	// Make it what an older rightsize left: root without a password, the
	// benchmark account with the fixed one and every privilege.
	c := mysql.NewConfig()
	c.User, c.Passwd, c.Net, c.Addr = "root", sec.Admin, "unix", s2.Socket()
	conn, err := mysql.NewConnector(c)
	if err != nil {
		t.Fatal(err)
	}
	root := sql.OpenDB(conn)
	for _, q := range []string{"CREATE USER 'rightsize'@'%' IDENTIFIED BY 'rightsize'",
		"GRANT ALL PRIVILEGES ON *.* TO 'rightsize'@'%' WITH GRANT OPTION", "ALTER USER 'root'@'localhost' IDENTIFIED BY ''"} {
		if _, err := root.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	root.Close()
	if err := s2.Stop(); err != nil {
		t.Fatal(err)
	}
	os.Remove(secret.Path(secrets, dir))
	s3 := start(t, mariadb.Config{DataDir: dir, SecretDir: secrets, Notices: &notices})
	if strings.Count(notices.String(), "\n") != 1 || !strings.Contains(notices.String(), "older rightsize") {
		t.Errorf("notice = %q, want one line about an older rightsize", notices.String())
	}
	for _, c := range []struct{ user, password string }{{"rightsize", "rightsize"}, {"root", ""}} {
		if err := login(s3, c.user, c.password); err == nil {
			t.Errorf("after the upgrade, TCP login as %q with password %q worked", c.user, c.password)
		}
	}
	if err := login(s3, mariadb.User, mustLoad(t, secrets, dir).Bench); err != nil {
		t.Errorf("the new benchmark password does not log in: %v", err)
	}
}

func mustLoad(t *testing.T, dir, dataDir string) secret.Secrets {
	t.Helper()
	s, err := secret.Load(dir, dataDir)
	if err != nil {
		t.Fatal(err)
	}
	return s
}
