package backup

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/rightsize/rightsize/instance"
)

// mysqlConn is a parsed mysql://user:pass@host:port/db?socket=/path URL.
type mysqlConn struct {
	user, password, host, port, socket, db string
}

func parseMySQLURL(raw string) (mysqlConn, error) {
	var c mysqlConn
	u, err := url.Parse(raw)
	if err != nil {
		return c, fmt.Errorf("parse MySQL URL: %w", err)
	}
	if u.Scheme != "mysql" && u.Scheme != "mariadb" {
		return c, fmt.Errorf("parse MySQL URL: scheme %q, want mysql://user:pass@host:port/db", u.Scheme)
	}
	if u.User != nil {
		c.user = u.User.Username()
		c.password, _ = u.User.Password()
	}
	c.host, c.port = u.Hostname(), u.Port()
	if c.host == "" {
		c.host = "127.0.0.1"
	}
	if c.port == "" {
		c.port = "3306"
	}
	c.socket = u.Query().Get("socket")
	c.db = strings.TrimPrefix(u.Path, "/")
	if c.db == "" {
		return c, errors.New("MySQL URL names no database: use mysql://user:pass@host:port/db")
	}
	return c, nil
}

// driverConfig is the go-sql-driver configuration for database db.
func (c mysqlConn) driverConfig(db string) *mysql.Config {
	cfg := mysql.NewConfig()
	cfg.User, cfg.Passwd, cfg.DBName = c.user, c.password, db
	if c.socket != "" {
		cfg.Net, cfg.Addr = "unix", c.socket
	} else {
		cfg.Net, cfg.Addr = "tcp", net.JoinHostPort(c.host, c.port)
	}
	cfg.Timeout = 30 * time.Second
	return cfg
}

// args are the connection options of the command-line tools.
func (c mysqlConn) args() []string {
	a := []string{"--user=" + c.user}
	if c.socket != "" {
		return append(a, "--protocol=SOCKET", "--socket="+c.socket)
	}
	return append(a, "--protocol=TCP", "--host="+c.host, "--port="+c.port)
}

// local reports whether the server runs on this machine.
func (c mysqlConn) local() bool {
	if c.socket != "" || c.host == "localhost" {
		return true
	}
	ip := net.ParseIP(c.host)
	return ip != nil && ip.IsLoopback()
}

func openMySQL(cfg *mysql.Config) (*sql.DB, error) {
	conn, err := mysql.NewConnector(cfg)
	if err != nil {
		return nil, err
	}
	db := sql.OpenDB(conn)
	db.SetMaxOpenConns(2)
	return db, nil
}

// lookTool returns the first of names found on PATH or in /usr/sbin,
// /usr/bin ("" if none).
func lookTool(names ...string) string {
	for _, n := range names {
		if p, err := exec.LookPath(n); err == nil {
			return p
		}
		for _, d := range []string{"/usr/sbin", "/usr/bin", "/usr/local/bin", "/usr/local/mysql/bin"} {
			if p := filepath.Join(d, n); isExecutable(p) {
				return p
			}
		}
	}
	return ""
}

type mysqlMethod struct {
	opt       Options
	conn      mysqlConn
	db        *sql.DB
	ver       string
	mariadb   bool
	method    string
	dump      string // mysqldump / mariadb-dump
	client    string // mysql / mariadb
	mbackup   string // mariadb-backup
	server    string // mariadbd, for restoring a physical backup
	datadir   string
	pid       int
	credDir   string // private directory of the option file
	credFile  string
	tables    []string // had rows in the source
	notesList []string
}

// MySQL is MySQL's and MariaDB's method: mariadb-backup or mysqldump.
var MySQL = Method{func(ctx context.Context, t Target, opt Options) (method, error) { return newMySQL(ctx, t, opt) }}

func newMySQL(ctx context.Context, t Target, opt Options) (_ *mysqlMethod, err error) {
	m := &mysqlMethod{opt: opt}
	if m.conn, err = parseMySQLURL(t.DSN()); err != nil {
		return nil, fmt.Errorf("backup: %w", err)
	}
	if m.db, err = openMySQL(m.conn.driverConfig(m.conn.db)); err != nil {
		return nil, fmt.Errorf("backup: %w", err)
	}
	defer func() {
		if err != nil {
			m.close()
		}
	}()
	if err := m.db.QueryRowContext(ctx, "SELECT VERSION(), @@datadir").Scan(&m.ver, &m.datadir); err != nil {
		return nil, fmt.Errorf("backup: connect to MySQL: %w", err)
	}
	m.mariadb = strings.Contains(strings.ToLower(m.ver), "mariadb")
	if m.mariadb {
		m.ver = "MariaDB " + m.ver
	} else {
		m.ver = "MySQL " + m.ver
	}
	if err := m.findTables(ctx); err != nil {
		return nil, err
	}
	if err := m.chooseMethod(); err != nil {
		return nil, err
	}
	if m.credDir, err = os.MkdirTemp("", "rightsize-mysql-"); err != nil {
		return nil, fmt.Errorf("backup: %w", err)
	}
	m.credFile = filepath.Join(m.credDir, "client.cnf")
	cnf := "[client]\npassword=\"" + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(m.conn.password) + "\"\n"
	if err := os.WriteFile(m.credFile, []byte(cnf), 0o600); err != nil {
		return nil, fmt.Errorf("backup: %w", err)
	}
	return m, nil
}

// chooseMethod picks mariadb-backup or mysqldump and finds the tools.
func (m *mysqlMethod) chooseMethod() error {
	m.mbackup = lookTool("mariadb-backup", "mariabackup")
	m.server = lookTool("mariadbd", "mysqld")
	physical := ""
	switch {
	case m.mbackup == "":
		physical = "mariadb-backup is not installed"
	case !m.mariadb:
		physical = "the server is MySQL, not MariaDB"
	case !m.conn.local():
		physical = "the server is not on this host"
	case m.server == "":
		physical = "no mariadbd here to start the restored copy"
	default:
		if _, err := os.ReadDir(m.datadir); err != nil {
			physical = fmt.Sprintf("its data directory %s is not readable here (%v)", m.datadir, err)
		}
	}
	switch m.opt.Method {
	case "":
		m.method = MethodMySQLDump
		if physical == "" {
			m.method = MethodMariaDBBackup
		}
	case MethodMariaDBBackup:
		if physical != "" {
			return fmt.Errorf("backup: %s %w: %s", MethodMariaDBBackup, errUnavailable, physical)
		}
		m.method = MethodMariaDBBackup
	case MethodMySQLDump:
		m.method = MethodMySQLDump
	default:
		return fmt.Errorf("backup: method %q is not available for MySQL/MariaDB (use %s or %s)", m.opt.Method, MethodMariaDBBackup, MethodMySQLDump)
	}
	if m.method == MethodMariaDBBackup {
		m.notesList = append(m.notesList, "mariadb-backup copies the whole instance (every database); restore: --prepare, --copy-back into a new data directory, a private mariadbd started on it and checked")
		return nil
	}
	if m.opt.Method == "" && physical != "" {
		m.notesList = append(m.notesList, "mariadb-backup not used: "+physical)
	}
	if m.mariadb {
		m.dump, m.client = lookTool("mariadb-dump", "mysqldump"), lookTool("mariadb", "mysql")
	} else {
		m.dump, m.client = lookTool("mysqldump", "mariadb-dump"), lookTool("mysql", "mariadb")
	}
	if m.dump == "" || m.client == "" {
		return fmt.Errorf("backup: %w: mysqldump and the mysql client (or mariadb-dump and mariadb) are needed: install the client tools (Debian: apt-get install mariadb-client)", errUnavailable)
	}
	m.notesList = append(m.notesList, "mysqldump: a logical dump of database "+m.conn.db+"; restore: reload into a new database "+m.restoreDB()+" on the same server, checked, then dropped")
	return nil
}

// findTables lists the tables to check after a restore, as for PostgreSQL.
func (m *mysqlMethod) findTables(ctx context.Context) error {
	rows, err := m.db.QueryContext(ctx, "SELECT TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_TYPE = 'BASE TABLE' ORDER BY TABLE_ROWS DESC, TABLE_NAME")
	if err != nil {
		return fmt.Errorf("backup: list tables: %w", err)
	}
	var all []string
	for rows.Next() {
		var t string
		if err := rows.Scan(&t); err != nil {
			rows.Close()
			return fmt.Errorf("backup: list tables: %w", err)
		}
		all = append(all, t)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("backup: list tables: %w", err)
	}
	var cands []string
	for _, t := range tpccNames() {
		if slices.ContainsFunc(all, func(a string) bool { return strings.EqualFold(a, t) }) {
			cands = append(cands, t)
		}
	}
	if len(cands) != len(tpccNames()) {
		cands = all[:min(len(all), 20)]
	}
	for _, t := range cands {
		var has bool
		if err := m.db.QueryRowContext(ctx, "SELECT EXISTS (SELECT 1 FROM "+quoteMySQL(t)+")").Scan(&has); err != nil {
			return fmt.Errorf("backup: look at table %s: %w", t, err)
		}
		if has {
			m.tables = append(m.tables, t)
		}
	}
	return nil
}

func quoteMySQL(s string) string { return "`" + strings.ReplaceAll(s, "`", "``") + "`" }

// restoreDB names the database a dump is reloaded into (at most 64 characters).
func (m *mysqlMethod) restoreDB() string {
	const suffix = "_rightsize_restore"
	db := m.conn.db
	if len(db)+len(suffix) > 64 {
		db = db[:64-len(suffix)]
	}
	return db + suffix
}

func (m *mysqlMethod) name() string                { return m.method }
func (m *mysqlMethod) version() string             { return m.ver }
func (m *mysqlMethod) notes() []string             { return m.notesList }
func (m *mysqlMethod) local() bool                 { return true }
func (m *mysqlMethod) remove(string) error         { return nil }
func (m *mysqlMethod) prepareWorkDir(string) error { return nil }

func (m *mysqlMethod) serverPID() int {
	if !m.conn.local() {
		return 0
	}
	if b, err := os.ReadFile(filepath.Join(m.datadir, "mysqld.pid")); err == nil {
		pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
		return pid
	}
	var pidFile string
	if err := m.db.QueryRow("SELECT @@pid_file").Scan(&pidFile); err == nil {
		if !filepath.IsAbs(pidFile) {
			pidFile = filepath.Join(m.datadir, pidFile)
		}
		if b, err := os.ReadFile(pidFile); err == nil {
			pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
			return pid
		}
	}
	return 0
}

func (m *mysqlMethod) defaultDir(context.Context) (string, error) {
	return filepath.Join(instance.DefaultBaseDir(), "backups"), nil
}

func (m *mysqlMethod) where(name string) string { return name }

func (m *mysqlMethod) close() {
	if m.db != nil {
		m.db.Close()
	}
	if m.credDir != "" {
		os.RemoveAll(m.credDir)
	}
}

// tool runs a client tool with the option file and connection options
// first, in its own process group, killed when ctx is done.
func (m *mysqlMethod) tool(ctx context.Context, path string, args ...string) *exec.Cmd {
	all := append([]string{"--defaults-extra-file=" + m.credFile}, m.conn.args()...)
	cmd := exec.CommandContext(ctx, path, append(all, args...)...)
	ownGroup(cmd)
	return cmd
}

func run(cmd *exec.Cmd, started func()) error {
	var out errTail
	if cmd.Stdout == nil {
		cmd.Stdout = &out
	}
	cmd.Stderr = &out
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start %s: %w", cmd.Path, err)
	}
	if started != nil {
		started()
	}
	if err := cmd.Wait(); err != nil {
		return toolError(filepath.Base(cmd.Path), err, &out)
	}
	return nil
}

func (m *mysqlMethod) backup(ctx context.Context, dir string, started func()) (int64, error) {
	if m.method == MethodMariaDBBackup {
		cmd := m.tool(ctx, m.mbackup, "--backup", "--target-dir="+dir, "--datadir="+m.datadir)
		if err := run(cmd, started); err != nil {
			return 0, err
		}
		return dirSize(dir)
	}
	if err := os.Mkdir(dir, 0o755); err != nil {
		return 0, err
	}
	file := filepath.Join(dir, "dump.sql")
	args := []string{"--single-transaction", "--quick", "--routines", "--triggers", "--hex-blob", "--no-tablespaces", "--result-file=" + file}
	if !m.toolIsMariaDB(ctx, m.dump) {
		args = append(args, "--set-gtid-purged=OFF") // MySQL's mysqldump: no GTID statements in a dump reloaded elsewhere
	}
	if err := run(m.tool(ctx, m.dump, append(args, m.conn.db)...), started); err != nil {
		return 0, err
	}
	st, err := os.Stat(file)
	if err != nil {
		return 0, err
	}
	return st.Size(), nil
}

// toolIsMariaDB tells MariaDB's client tools from MySQL's.
func (m *mysqlMethod) toolIsMariaDB(ctx context.Context, tool string) bool {
	out, _ := exec.CommandContext(ctx, tool, "--version").CombinedOutput()
	return bytes.Contains(bytes.ToLower(out), []byte("mariadb"))
}

func (m *mysqlMethod) restore(ctx context.Context, dir, scratch string, n int) (restoreStats, error) {
	if m.method == MethodMariaDBBackup {
		return m.restorePhysical(ctx, dir, scratch)
	}
	var st restoreStats
	rdb := quoteMySQL(m.restoreDB())
	drop := func() {
		dctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		_, _ = m.db.ExecContext(dctx, "DROP DATABASE IF EXISTS "+rdb)
	}
	drop()
	defer drop()
	if _, err := m.db.ExecContext(ctx, "CREATE DATABASE "+rdb); err != nil {
		return st, fmt.Errorf("create database %s: %w", rdb, err)
	}
	f, err := os.Open(filepath.Join(dir, "dump.sql"))
	if err != nil {
		return st, err
	}
	defer f.Close()
	cmd := m.tool(ctx, m.client, "--database="+m.restoreDB())
	cmd.Stdin = f
	if err := run(cmd, nil); err != nil {
		return st, err
	}
	check, err := openMySQL(m.conn.driverConfig(m.restoreDB()))
	if err != nil {
		return st, err
	}
	defer check.Close()
	st.checked, st.note, err = checkMySQLTables(ctx, check, m.tables)
	return st, err
}

// checkMySQLTables checks that each table has rows.
func checkMySQLTables(ctx context.Context, db *sql.DB, tables []string) (bool, string, error) {
	var empty []string
	for _, t := range tables {
		var has bool
		if err := db.QueryRowContext(ctx, "SELECT EXISTS (SELECT 1 FROM "+quoteMySQL(t)+")").Scan(&has); err != nil {
			if ctx.Err() != nil {
				return false, "", ctx.Err()
			}
			empty = append(empty, t+" ("+err.Error()+")")
			continue
		}
		if !has {
			empty = append(empty, t)
		}
	}
	if len(empty) > 0 {
		return false, "restored tables without rows: " + strings.Join(empty, ", "), nil
	}
	return true, "", nil
}

// restorePhysical prepares a mariadb-backup backup, copies it back into a
// new data directory and checks it on a private server.
func (m *mysqlMethod) restorePhysical(ctx context.Context, dir, scratch string) (restoreStats, error) {
	var st restoreStats
	if err := run(exec.CommandContext(ctx, m.mbackup, "--no-defaults", "--prepare", "--target-dir="+dir), nil); err != nil {
		return st, err
	}
	data := dir
	if !m.opt.RestoreInPlace {
		data = filepath.Join(scratch, "data")
		if err := run(exec.CommandContext(ctx, m.mbackup, "--no-defaults", "--copy-back", "--target-dir="+dir, "--datadir="+data), nil); err != nil {
			return st, err
		}
	}
	t0 := time.Now()
	srv, err := startMariaDB(ctx, m.server, data, scratch)
	if err != nil {
		return st, err
	}
	defer srv.stop()
	hook("restore-started", strconv.Itoa(srv.port))
	cfg := mysql.NewConfig()
	cfg.User, cfg.Net, cfg.Addr, cfg.DBName = "root", "tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(srv.port)), m.conn.db
	check, err := openMySQL(cfg)
	if err != nil {
		return st, err
	}
	defer check.Close()
	st.checked, st.note, err = checkMySQLTables(ctx, check, m.tables)
	st.startSeconds = time.Since(t0).Seconds()
	if err != nil {
		return st, err
	}
	return st, srv.stop()
}

// mariadbServer is a private mariadbd on a restored data directory.
type mariadbServer struct {
	cmd  *exec.Cmd
	done chan struct{}
	port int
	out  errTail
}

// startMariaDB starts mariadbd on data (loopback, a free port, no grant
// checks) and waits until it answers.
func startMariaDB(ctx context.Context, server, data, scratch string) (*mariadbServer, error) {
	// unix sockets have a short path limit: keep the socket under /tmp
	sockDir, err := os.MkdirTemp("", "rsbk")
	if err != nil {
		return nil, err
	}
	runAs := ""
	if os.Geteuid() == 0 {
		runAs = "root"
		if u, err := user.Lookup("mysql"); err == nil {
			uid, _ := strconv.Atoi(u.Uid)
			gid, _ := strconv.Atoi(u.Gid)
			o := &owner{uid, gid}
			if reachable(data, uid, gid) == nil && reachable(sockDir, uid, gid) == nil &&
				o.chownTree(data) == nil && o.chown(sockDir) == nil {
				runAs = "mysql"
			}
		}
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		os.RemoveAll(sockDir)
		return nil, err
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	args := []string{"--no-defaults", "--datadir=" + data, "--socket=" + filepath.Join(sockDir, "s.sock"),
		"--pid-file=" + filepath.Join(sockDir, "mariadbd.pid"), "--port=" + strconv.Itoa(port), "--bind-address=127.0.0.1",
		"--skip-grant-tables", "--skip-name-resolve", "--skip-log-bin", "--innodb-buffer-pool-size=128M"}
	if runAs != "" {
		args = append(args, "--user="+runAs)
	}
	s := &mariadbServer{port: port, done: make(chan struct{})}
	s.cmd = exec.CommandContext(context.Background(), server, args...)
	s.cmd.Stdout, s.cmd.Stderr = &s.out, &s.out
	s.cmd.Dir = scratch
	ownGroup(s.cmd)
	if err := s.cmd.Start(); err != nil {
		os.RemoveAll(sockDir)
		return nil, fmt.Errorf("start %s: %w", server, err)
	}
	go func() { _ = s.cmd.Wait(); os.RemoveAll(sockDir); close(s.done) }()

	cfg := mysql.NewConfig()
	cfg.User, cfg.Net, cfg.Addr, cfg.Timeout = "root", "tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), 2*time.Second
	deadline := time.Now().Add(restoreStartTimeout)
	for {
		select {
		case <-s.done:
			return nil, fmt.Errorf("mariadbd exited during start-up: %s", s.out.String())
		case <-ctx.Done():
			s.kill()
			return nil, ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			s.kill()
			return nil, fmt.Errorf("mariadbd did not answer within %v: %s", restoreStartTimeout, s.out.String())
		}
		db, err := openMySQL(cfg)
		if err == nil {
			pctx, cancel := context.WithTimeout(ctx, 2*time.Second)
			err = db.PingContext(pctx)
			cancel()
			db.Close()
			if err == nil {
				return s, nil
			}
		}
	}
}

// stop shuts the server down (SIGTERM; SIGKILL after a minute).
func (s *mariadbServer) stop() error {
	select {
	case <-s.done:
		return nil
	default:
	}
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.done:
		return nil
	case <-time.After(time.Minute):
		s.kill()
		return errors.New("the restored mariadbd did not stop within a minute: killed")
	}
}

func (s *mariadbServer) kill() {
	killTree(s.cmd)
	<-s.done
}
