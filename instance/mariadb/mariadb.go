// Package mariadb runs managed, private MariaDB (or MySQL 8) servers for
// tests and for users who want rightsize to start the database itself.
//
// Start initialises a data directory of its own (mariadb-install-db, or
// mysqld --initialize-insecure for MySQL), then runs mariadbd with
// --no-defaults on a loopback port, with a private socket and pid file, so
// no system configuration file, system service or system data directory is
// read or touched. The server only listens on 127.0.0.1; its socket is in a
// private directory (mode 0700).
//
// # Who can log in
//
// Nobody but the user who runs rightsize. Each data directory gets random
// passwords (package internal/secret: a file of mode 0600 in a directory of
// mode 0700): root's (root@localhost, the only administrator account left;
// the password-less accounts mariadb-install-db creates are dropped) and
// the benchmark account's, [User]@127.0.0.1, which has only what the
// benchmark and the backup probe need: no FILE, no SUPER, no GRANT OPTION.
// secure_file_priv points at a private, empty directory. A data directory
// from an older rightsize (root without a password, the benchmark account
// with a fixed one and all privileges) is fixed on its next start, with a
// one-line notice.
//
// When rightsize runs as root, the server runs as the "mysql" system user
// (created by the distribution package) if that user exists and can reach
// the data directory, which is then handed to it; otherwise it runs as root
// (--user=root). Either way the kernel sends it SIGTERM should rightsize
// die without stopping it.
//
// EnsureInstalled installs the distribution package when no server binary
// is found (Debian/Ubuntu: apt-get install mariadb-server) and stops the
// system service the package may have started.
package mariadb

import (
	"bytes"
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/rightsize/rightsize/instance"
	"github.com/rightsize/rightsize/internal/secret"
)

// User is the benchmark account Start creates for clients (at 127.0.0.1).
const User = "rightsize"

// benchGrants are the benchmark account's privileges: the schema, load,
// procedures and transactions, statistics (PROCESS, performance_schema),
// and what mariadb-backup and mysqldump need (RELOAD, LOCK TABLES,
// REPLICATION CLIENT).
const benchGrants = "SELECT, INSERT, UPDATE, DELETE, CREATE, DROP, INDEX, ALTER, CREATE TEMPORARY TABLES, LOCK TABLES, " +
	"EXECUTE, CREATE VIEW, SHOW VIEW, CREATE ROUTINE, ALTER ROUTINE, EVENT, TRIGGER, RELOAD, PROCESS, REPLICATION CLIENT"

// ErrNotRunning is returned by PID once the server has exited.
var ErrNotRunning = errors.New("mariadb: server is not running")

// DefaultSettings are the server options a managed server starts with
// unless Config.Settings overrides them (keys may use - or _). The binary
// log is off (skip_log_bin) unless Settings sets log_bin.
var DefaultSettings = map[string]string{
	"innodb_buffer_pool_size": "512M",
	"innodb_log_file_size":    "512M",
	"max_connections":         "1000",
	// statements mode prepares ~30 statements per virtual user
	"max_prepared_stmt_count": "1048576",
	"local_infile":            "ON",
	"skip_name_resolve":       "ON",
	"skip_log_bin":            "",
}

const (
	startTimeout = 3 * time.Minute
	stopTimeout  = 3 * time.Minute
)

// Config configures a managed server.
type Config struct {
	// DataDir is the data directory, initialised on first use. "" uses a
	// temporary directory that Stop removes.
	DataDir string
	// Port is the TCP port on 127.0.0.1; 0 picks a free one.
	Port uint32
	// Settings are server options passed as --name=value (overriding
	// DefaultSettings); an empty value passes --name alone.
	Settings map[string]string
	// Log receives the output of initialisation and of the server; nil
	// discards it.
	Log io.Writer
	// SecretDir holds the per-data-directory password files; "" means
	// internal/basedir.Secrets(). A temporary data directory's passwords
	// are kept in memory only.
	SecretDir string
	// Notices receives one-line notices for the user (passwords set on an
	// older data directory); nil means standard error.
	Notices io.Writer
	// OnStart, when set, is given the server's pid right after it is
	// started (limits.go puts it under a confinement); an error stops it.
	OnStart func(pid int) error
}

// Server is a running managed server.
type Server struct {
	cmd      *exec.Cmd
	done     chan struct{} // closed when the process has exited
	waitErr  error
	port     uint32
	dataDir  string
	runDir   string // socket and pid file
	tempData bool   // dataDir is ours to remove
	unlock   func() // releases the data directory lock
	version  string
	out      *tailBuffer
	secrets  secret.Secrets

	stopOnce sync.Once
	stopErr  error
}

// account is the system user the server runs as when rightsize is root.
type account struct {
	name     string
	uid, gid int
}

// flavor of the installed server.
type flavor struct {
	server, installDB string
	mysql             bool // Oracle MySQL (initialises with --initialize-insecure)
}

func detect(ctx context.Context) (flavor, error) {
	f := flavor{server: serverBinary(), installDB: installDBBinary()}
	if f.server == "" {
		return f, errors.New("mariadb: no mariadbd or mysqld binary found (call EnsureInstalled, or install MariaDB 10.11+)")
	}
	out, _ := exec.CommandContext(ctx, f.server, "--no-defaults", "--version").CombinedOutput()
	f.mysql = !bytes.Contains(bytes.ToLower(out), []byte("mariadb"))
	return f, nil
}

// detectReclaiming finds the installed server; then, as every managed
// start does, it reclaims what a killed rightsize left (instance.Reclaim:
// PostgreSQL servers, copies, groups; mariadbd itself dies with its
// rightsize, by the parent-death signal).
func detectReclaiming(ctx context.Context, cfg Config) (flavor, error) {
	fl, err := detect(ctx)
	if err == nil {
		instance.Reclaim(cmp.Or[io.Writer](cfg.Notices, os.Stderr))
	}
	return fl, err
}

// Start initialises cfg.DataDir if needed and starts a server on it. The
// server runs until Stop (or until this process dies).
func Start(ctx context.Context, cfg Config) (*Server, error) {
	fl, err := detectReclaiming(ctx, cfg)
	if err != nil {
		return nil, err
	}
	logw := cfg.Log
	if logw == nil {
		logw = io.Discard
	}
	s := &Server{dataDir: cfg.DataDir, out: &tailBuffer{w: logw, max: 16 << 10}}
	if s.dataDir == "" {
		if s.dataDir, err = os.MkdirTemp("", "rightsize-mariadb-"); err != nil {
			return nil, fmt.Errorf("mariadb: %w", err)
		}
		s.tempData = true
	}
	if s.dataDir, err = filepath.Abs(s.dataDir); err != nil {
		return nil, err
	}
	// unix sockets have a short path limit: keep the socket under /tmp
	if s.runDir, err = os.MkdirTemp("", "rsmdb"); err != nil {
		s.cleanup()
		return nil, fmt.Errorf("mariadb: %w", err)
	}
	if err := os.MkdirAll(s.dataDir, 0o750); err != nil {
		s.cleanup()
		return nil, fmt.Errorf("mariadb: data directory: %w", err)
	}
	if s.unlock, err = tryLockFile(filepath.Join(s.dataDir, "rightsize-mariadb.lock")); err != nil {
		s.cleanup()
		return nil, fmt.Errorf("mariadb: data directory %s is in use by another managed server: %w", s.dataDir, err)
	}

	runAs, err := s.chooseUser()
	if err != nil {
		s.cleanup()
		return nil, err
	}
	if err := s.privateDirs(runAs); err != nil {
		s.cleanup()
		return nil, err
	}
	fresh, err := s.initialise(ctx, fl, runAs)
	if err != nil {
		s.cleanup()
		return nil, err
	}
	s.out.Reset() // start-up errors quote the server's own output
	for attempt := 0; ; attempt++ {
		s.port = cfg.Port
		if s.port == 0 {
			if s.port, err = freePort(); err != nil {
				s.cleanup()
				return nil, err
			}
		}
		err = s.start(ctx, fl, runAs, cfg.Settings, cfg.OnStart)
		if err == nil {
			break
		}
		inUse := strings.Contains(s.out.String(), "Address already in use")
		if cfg.Port != 0 || attempt == 4 || !inUse {
			s.cleanup()
			if inUse {
				return nil, fmt.Errorf("mariadb: port %d is already in use: %w", s.port, err)
			}
			return nil, err
		}
		s.out.Reset() // another process took the free port: try another one
	}
	if err := s.secure(ctx, cfg, fresh); err != nil {
		_ = s.Stop()
		return nil, err
	}
	if err := s.setup(ctx); err != nil {
		_ = s.Stop()
		return nil, err
	}
	return s, nil
}

// chooseUser returns the account the server runs as when rightsize runs as
// root (nil otherwise): the mysql system user, which is handed the
// directories, when it exists and can reach them, else root.
func (s *Server) chooseUser() (*account, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	root := &account{name: "root"}
	u, err := user.Lookup("mysql")
	if err != nil {
		return root, nil
	}
	uid, err1 := strconv.Atoi(u.Uid)
	gid, err2 := strconv.Atoi(u.Gid)
	if err1 != nil || err2 != nil || !searchable(s.dataDir, uid, gid) || !searchable(s.runDir, uid, gid) {
		return root, nil
	}
	for _, d := range []string{s.dataDir, s.runDir} {
		if err := chownTree(d, uid, gid); err != nil {
			return nil, fmt.Errorf("mariadb: give %s to the mysql user: %w", d, err)
		}
	}
	return &account{name: "mysql", uid: uid, gid: gid}, nil
}

// initialise creates the system tables in an empty data directory and
// reports whether it did.
func (s *Server) initialise(ctx context.Context, fl flavor, runAs *account) (bool, error) {
	if _, err := os.Stat(filepath.Join(s.dataDir, "mysql")); err == nil {
		return false, nil // already initialised
	}
	var cmd *exec.Cmd
	switch {
	case fl.mysql:
		args := []string{"--no-defaults", "--initialize-insecure", "--datadir=" + s.dataDir}
		if runAs != nil {
			args = append(args, "--user="+runAs.name)
		}
		cmd = exec.CommandContext(ctx, fl.server, args...)
	case fl.installDB != "":
		args := []string{"--no-defaults", "--datadir=" + s.dataDir, "--auth-root-authentication-method=normal",
			"--skip-test-db", "--skip-name-resolve"}
		if base := filepath.Dir(filepath.Dir(fl.server)); base != "/" {
			args = append(args, "--basedir="+base)
		}
		if runAs != nil {
			args = append(args, "--user="+runAs.name)
		}
		cmd = exec.CommandContext(ctx, fl.installDB, args...)
	default:
		return false, errors.New("mariadb: mariadb-install-db (or mysql_install_db) not found next to " + fl.server)
	}
	cmd.Stdout, cmd.Stderr = s.out, s.out
	cmd.Dir = s.runDir
	cmd.Env = append(os.Environ(), "TMPDIR="+s.tmpDir()) // the bootstrap server's tmpdir
	if err := cmd.Run(); err != nil {
		return false, fmt.Errorf("mariadb: initialise %s: %v\n%s", s.dataDir, err, s.out.Tail())
	}
	return true, nil
}

func optionName(k string) string { return strings.ReplaceAll(strings.TrimLeft(k, "-"), "-", "_") }

// start runs the server and waits until it accepts connections.
func (s *Server) start(ctx context.Context, fl flavor, runAs *account, settings map[string]string, onStart func(int) error) error {
	args, switchTo := s.serverArgs(fl, runAs, settings)
	cmd := exec.Command(fl.server, args...)
	cmd.Stdout, cmd.Stderr = s.out, s.out
	cmd.Dir = s.runDir
	cmd.SysProcAttr = sysProcAttr(switchTo)
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("mariadb: start %s: %w", fl.server, err)
	}
	s.cmd = cmd
	s.done = make(chan struct{})
	go func() { s.waitErr = cmd.Wait(); close(s.done) }()
	if onStart != nil {
		if err := onStart(cmd.Process.Pid); err != nil {
			s.kill()
			return fmt.Errorf("mariadb: confine the server: %w", err)
		}
	}
	return s.waitReady(ctx)
}

// serverArgs are the server's command line: DefaultSettings overlaid with
// settings, in name order, after the paths and port of s; and the account to
// exec the server as (nil: as this process, or root by --user).
func (s *Server) serverArgs(fl flavor, runAs *account, settings map[string]string) (args []string, switchTo *account) {
	opts := map[string]string{}
	for k, v := range DefaultSettings {
		opts[optionName(k)] = v
	}
	for k, v := range settings {
		opts[optionName(k)] = v
	}
	if _, ok := opts["log_bin"]; ok {
		delete(opts, "skip_log_bin") // the caller wants a binary log
	}
	args = []string{"--no-defaults",
		"--datadir=" + s.dataDir,
		"--socket=" + s.socket(),
		"--pid-file=" + filepath.Join(s.runDir, "mariadbd.pid"),
		"--port=" + strconv.FormatUint(uint64(s.port), 10),
		"--bind-address=127.0.0.1",
		"--secure-file-priv=" + s.filesDir(),
		"--tmpdir=" + s.tmpDir(),
	}
	if fl.mysql {
		args = append(args, "--mysqlx=OFF") // its port 33060 would clash between servers
	}
	switch {
	case runAs == nil:
	case runAs.name == "root":
		args = append(args, "--user=root") // mariadbd refuses to run as root otherwise
	default:
		switchTo = runAs // exec as that user (not --user: see sysProcAttr)
	}
	keys := make([]string, 0, len(opts))
	for k := range opts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if v := opts[k]; v == "" {
			args = append(args, "--"+k)
		} else {
			args = append(args, "--"+k+"="+v)
		}
	}
	return args, switchTo
}

// waitReady waits until the started server answers a connection (access
// denied counts: it is up), killing it on cancellation or after
// startTimeout.
func (s *Server) waitReady(ctx context.Context) error {
	deadline := time.NewTimer(startTimeout)
	defer deadline.Stop()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-s.done:
			return s.startFailed(fmt.Sprintf("server exited during start-up (%v)", s.waitErr))
		case <-ctx.Done():
			s.kill()
			return ctx.Err()
		case <-deadline.C:
			s.kill()
			return s.startFailed(fmt.Sprintf("server did not accept connections within %v", startTimeout))
		case <-tick.C:
		}
		if db, err := s.rootDB(""); err == nil {
			pctx, cancel := context.WithTimeout(ctx, 2*time.Second)
			err = db.PingContext(pctx)
			cancel()
			db.Close()
			if err == nil || accessDenied(err) { // it answers: it is up
				return nil
			}
		}
	}
}

// rootDB connects as root over the private socket.
func (s *Server) rootDB(password string) (*sql.DB, error) {
	c := mysql.NewConfig()
	c.User, c.Passwd, c.Net, c.Addr = "root", password, "unix", s.socket()
	c.Timeout = 2 * time.Second
	conn, err := mysql.NewConnector(c)
	if err != nil {
		return nil, err
	}
	return sql.OpenDB(conn), nil
}

// setup creates the benchmark account with its privileges and password,
// and records the version.
func (s *Server) setup(ctx context.Context) error {
	db, err := s.rootDB(s.secrets.Admin)
	if err != nil {
		return err
	}
	defer db.Close()
	account := "'" + User + "'@'127.0.0.1'"
	for _, q := range []string{
		"CREATE USER IF NOT EXISTS " + account + " IDENTIFIED BY '" + s.secrets.Bench + "'",
		"ALTER USER " + account + " IDENTIFIED BY '" + s.secrets.Bench + "'",
		"REVOKE ALL PRIVILEGES, GRANT OPTION FROM " + account,
		"GRANT " + benchGrants + " ON *.* TO " + account,
	} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("mariadb: set up the %s account: %w", User, secret.Redact(err, s.secrets.Bench))
		}
	}
	if err := db.QueryRowContext(ctx, "SELECT VERSION()").Scan(&s.version); err != nil {
		return fmt.Errorf("mariadb: read version: %w", err)
	}
	return nil
}

func (s *Server) socket() string { return filepath.Join(s.runDir, "mysqld.sock") }

// Port returns the server's TCP port on 127.0.0.1.
func (s *Server) Port() uint32 { return s.port }

// DataDir returns the server's data directory.
func (s *Server) DataDir() string { return s.dataDir }

// Socket returns the path of the server's private unix socket.
func (s *Server) Socket() string { return s.socket() }

// DSN returns a go-sql-driver/mysql DSN for database on this server.
func (s *Server) DSN(database string) string {
	c := mysql.NewConfig()
	c.User, c.Passwd, c.Net = User, s.secrets.Bench, "tcp"
	c.Addr = net.JoinHostPort("127.0.0.1", strconv.FormatUint(uint64(s.port), 10))
	c.DBName = database
	return c.FormatDSN()
}

// URL returns the mysql://user:pass@127.0.0.1:port/database form that
// rightsize's --target and engine/mysql.Open take.
func (s *Server) URL(database string) string {
	u := url.URL{Scheme: "mysql", User: url.UserPassword(User, s.secrets.Bench),
		Host: net.JoinHostPort("127.0.0.1", strconv.FormatUint(uint64(s.port), 10)), Path: "/" + database}
	return u.String()
}

// Version is the server's version string, e.g. "10.11.6-MariaDB-0+deb12u1".
func (s *Server) Version() string { return s.version }

// PID returns the server's process id, or ErrNotRunning once it has exited.
func (s *Server) PID() (int, error) {
	if s.cmd == nil || s.cmd.Process == nil {
		return 0, ErrNotRunning
	}
	select {
	case <-s.done:
		return 0, ErrNotRunning
	default:
		return s.cmd.Process.Pid, nil
	}
}

// Stop shuts the server down cleanly (SIGTERM, then waits for it to exit;
// SIGKILL after three minutes) and removes its socket directory and, if
// Start created it, its temporary data directory. It is safe to call more
// than once.
func (s *Server) Stop() error {
	s.stopOnce.Do(func() {
		if s.cmd != nil {
			select {
			case <-s.done:
			default:
				_ = s.cmd.Process.Signal(syscall.SIGTERM)
				select {
				case <-s.done:
				case <-time.After(stopTimeout):
					s.kill()
					s.stopErr = fmt.Errorf("mariadb: server did not stop within %v: killed", stopTimeout)
				}
			}
		}
		s.cleanup()
	})
	return s.stopErr
}

// kill SIGKILLs the server and waits for it.
func (s *Server) kill() {
	if s.cmd == nil {
		return
	}
	_ = s.cmd.Process.Kill()
	<-s.done
}

func (s *Server) cleanup() {
	if s.unlock != nil {
		s.unlock()
		s.unlock = nil
	}
	if s.runDir != "" {
		_ = os.RemoveAll(s.runDir)
	}
	if s.tempData && s.dataDir != "" {
		_ = os.RemoveAll(s.dataDir)
	}
}

// freePort asks the kernel for a free loopback port.
func freePort() (uint32, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("mariadb: find a free port: %w", err)
	}
	defer l.Close()
	return uint32(l.Addr().(*net.TCPAddr).Port), nil
}

// tailBuffer forwards writes to w and keeps the last max bytes for error
// messages.
type tailBuffer struct {
	mu  sync.Mutex
	w   io.Writer
	max int
	buf []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > 2*t.max {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-t.max:]...)
	}
	_, _ = t.w.Write(p)
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return tail(t.buf, t.max)
}

// Tail returns the last 2000 bytes written, for error messages.
func (t *tailBuffer) Tail() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return tail(t.buf, 2000)
}

func (t *tailBuffer) Reset() {
	t.mu.Lock()
	t.buf = t.buf[:0]
	t.mu.Unlock()
}
