// Package instance starts and stops managed database servers on private
// loopback ports.
//
// # PostgreSQL
//
// [StartPostgres] runs a PostgreSQL server on 127.0.0.1 and a private port,
// with the binaries github.com/fergusstrange/embedded-postgres uses
// (PostgreSQL 13 to 17, downloaded and unpacked once under the base
// directory by the user running rightsize, see binaries.go) or installed
// ones ([PostgresConfig.BinDir]). Clusters use locale C and encoding UTF8.
//
// # Who can log in
//
// Nobody but the user who runs rightsize. Every data directory has its own
// random passwords (package internal/secret: a file of mode 0600 in a
// directory of mode 0700), one for the superuser "postgres", used only to
// set the server up, and one for the benchmark role [BenchRole]
// (LOGIN, CREATEDB, REPLICATION, pg_monitor; not a superuser), which
// [Postgres.DSN] hands out. pg_hba.conf is rewritten at every start: SCRAM
// password logins only, from 127.0.0.1 and the Unix socket, nothing
// trusted. The socket lives in a directory of mode 0700 owned by the server
// user. A data directory whose passwords are not the stored ones (made by
// an older rightsize with the fixed password, or whose secrets file was
// lost) gets new passwords on its next start: the helper sets them in
// single-user mode, which needs no login, and a one-line notice says so.
//
// Starting is done by a short-lived helper process: the running executable
// re-executed with an environment marker that this package's init function
// recognises (helper.go). The helper has embedded-postgres download and
// extract the binaries, runs initdb for a new cluster (with the library's
// arguments: the library itself would delete and re-create the data
// directory, which needs write access to its parent) and has the library
// run "pg_ctl start -w" and check that the server accepts connections. Then
// it exits; the server, which pg_ctl puts in its own session, keeps running
// (and is not hit by a terminal's Ctrl-C). Stop, Kill and PID signal the
// postmaster directly, so they need no helper, no pg_ctl and no change of
// identity, and are safe to call from a signal handler.
//
// # Running as root
//
// initdb, pg_ctl and postgres refuse to run as root. When the effective uid
// is 0, the system user [SystemUser] is created if missing (useradd
// --system), the directories the server writes to are given to it, and the
// helper — started as root, so it can exec the running binary wherever that
// lives, even under /root — switches itself for good to that user
// (setgroups, setresgid, setresuid: real, effective and saved ids, since
// postgres also refuses differing real and effective uids) before doing
// anything else. The main process never changes identity, so its other
// goroutines (results store, telemetry, a Ctrl-C handler) are unaffected, as
// they would not be by a process-wide setresuid window around the library's
// Start. Every path the server uses (base directory, data directory, log
// file) must be reachable by that user: nothing under /root, which is mode
// 0700; DefaultBaseDir is /var/cache/rightsize for root.
package instance

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/rightsize/rightsize/internal/basedir"
	"github.com/rightsize/rightsize/internal/secret"
)

// SystemUser is the unprivileged user PostgreSQL runs as when rightsize runs as root.
const SystemUser = "rightsize"

// BenchRole is the role virtual users, loaders and probes log in as.
const BenchRole = "rightsize"

const (
	pgUser = "postgres"

	// authMarker is the file in the data directory that holds the
	// fingerprint of the secrets its passwords were set from.
	authMarker = "rightsize.auth"

	defaultStopTimeout  = 2 * time.Minute
	defaultStartTimeout = 60 * time.Second
)

// ErrNotRunning reports that the managed server is not running.
var ErrNotRunning = errors.New("instance: server is not running")

// errPortInUse marks start failures caused by the port being taken.
var errPortInUse = errors.New("port already in use")

// PostgresConfig configures a managed PostgreSQL server.
type PostgresConfig struct {
	// BinDir is the directory holding the postgres binaries (e.g.
	// /usr/lib/postgresql/15/bin); "" downloads the binaries of Version and
	// caches them under BaseDir.
	BinDir string
	// Version is the major version to download when BinDir is "" (one of
	// Versions); "" means DefaultVersion.
	Version string
	// SecretDir holds the per-data-directory password files; "" means
	// <BaseDir>/secrets.
	SecretDir string
	// Notices receives one-line notices for the user (a password rotated
	// on an old data directory); nil means standard error.
	Notices io.Writer
	// DataDir is the data directory; "" means <BaseDir>/data/pg<major>-default.
	// It is reused if it already holds a cluster of the same major version; it
	// must otherwise be missing or empty (it is never wiped).
	DataDir string
	// BaseDir holds the download cache, extracted binaries, runtime files and
	// logs; "" means DefaultBaseDir().
	BaseDir string
	// Port is the TCP port on 127.0.0.1; 0 picks a free one.
	Port uint32
	// Settings are extra server settings passed as -c key=value, e.g.
	// shared_buffers. They override this package's defaults
	// (listen_addresses=127.0.0.1, unix_socket_directories, logging,
	// max_connections=200); listen_addresses must keep 127.0.0.1, which
	// the start check and DSN use.
	Settings map[string]string
	// Log receives initdb and startup output; nil appends it to the log file.
	// The running server always logs to the log file.
	Log io.Writer
	// LogFile is the server log file; "" means
	// <BaseDir>/log/<DataDir name>-<hash of DataDir>.log. It is appended to
	// across starts; its directory must be searchable by the server user.
	LogFile string
	// StartTimeout bounds the wait for the server to accept connections;
	// 0 means 60 s. Use ctx to bound the whole start including a download.
	StartTimeout time.Duration
	// StopTimeout is how long Stop waits for a clean (fast) shutdown before
	// forcing an immediate one; 0 means 2 minutes.
	StopTimeout time.Duration
	// Join puts the server under a confinement (limits.go) from its start.
	Join Join
	// WALDir puts pg_wal of a new cluster there (initdb --waldir; limits.go).
	WALDir string
	// Replace empties a data directory holding a cluster before the first
	// start, which then initialises a new one (build --replace; buildmark.go).
	Replace bool
}

// DefaultBaseDir returns the default cache and runtime directory:
// os.UserCacheDir()/rightsize, or /var/cache/rightsize when running as root
// (never under /root, which the unprivileged server user cannot reach).
func DefaultBaseDir() string { return basedir.Default() }

// Postgres is a managed PostgreSQL server. Its methods are safe for concurrent use.
type Postgres struct {
	major        string    // "15"
	libVersion   string    // version given to embedded-postgres
	binariesPath string    // directory whose bin/ holds pg_ctl, initdb, postgres
	bins         *binaries // the download, when BinDir is ""
	baseDir      string
	secretDir    string
	notices      io.Writer
	runDir       string
	logDir       string
	dataDir      string
	logFile      string
	log          io.Writer
	settings     map[string]string
	owner        *account // server user when running as root, else nil
	startTimeout time.Duration
	stopTimeout  time.Duration

	abortMu sync.Mutex
	abort   context.CancelFunc // cancels a start in progress

	mu         sync.Mutex // serialises start, stop, kill
	secrets    secret.Secrets
	port       uint32
	runtimeDir string
	pid        int    // postmaster we started
	pidStart   string // its start time, to detect pid reuse
	join       Join   // confinement the start helper joins
	walDir     string // initdb --waldir
	logStart   int64  // size of the log when the last start began (reason.go)
	replace    bool   // empty the cluster before the next start (buildmark.go)
}

// StartPostgres initialises (if needed) and starts a PostgreSQL server and
// waits until it accepts connections. On failure no server is left running.
func StartPostgres(ctx context.Context, cfg PostgresConfig) (*Postgres, error) {
	p, err := newPostgres(ctx, cfg)
	if err != nil {
		return nil, err
	}
	Reclaim(p.notices) // servers, copies and groups of a killed rightsize (owner.go)
	p.mu.Lock()
	defer p.mu.Unlock()
	for attempt := 1; ; attempt++ {
		err = p.startLocked(ctx)
		if err == nil {
			return p, nil
		}
		// A port picked by us can be taken by someone else before the
		// server binds it: pick another.
		if cfg.Port != 0 || attempt == 3 || !errors.Is(err, errPortInUse) {
			return nil, err
		}
		port, perr := pickPort()
		if perr != nil {
			return nil, err
		}
		p.setPort(port)
	}
}

func newPostgres(ctx context.Context, cfg PostgresConfig) (*Postgres, error) {
	if err := platformSupported(); err != nil {
		return nil, err
	}
	base := cfg.BaseDir
	if base == "" {
		base = DefaultBaseDir()
	}
	base, err := filepath.Abs(base)
	if err != nil {
		return nil, fmt.Errorf("instance: base dir: %w", err)
	}
	p := &Postgres{
		baseDir:      base,
		secretDir:    cfg.SecretDir,
		notices:      cfg.Notices,
		runDir:       filepath.Join(base, "run"),
		logDir:       filepath.Join(base, "log"),
		log:          cfg.Log,
		startTimeout: cfg.StartTimeout,
		stopTimeout:  cfg.StopTimeout,
		join:         cfg.Join,
		walDir:       cfg.WALDir,
		replace:      cfg.Replace,
	}
	if p.startTimeout <= 0 {
		p.startTimeout = defaultStartTimeout
	}
	if p.stopTimeout <= 0 {
		p.stopTimeout = defaultStopTimeout
	}

	if p.secretDir == "" {
		p.secretDir = filepath.Join(base, "secrets")
	}
	if p.notices == nil {
		p.notices = os.Stderr
	}
	if err := p.useBinaries(ctx, cfg); err != nil {
		return nil, err
	}
	if err := p.setPaths(cfg); err != nil {
		return nil, err
	}
	if p.settings, err = p.buildSettings(cfg.Settings); err != nil {
		return nil, err
	}

	if os.Geteuid() == 0 {
		if p.owner, err = ensureAccount(); err != nil {
			return nil, err
		}
	}
	if err := p.prepareBaseDir(); err != nil {
		return nil, err
	}
	if p.bins != nil {
		logw := p.log
		if logw == nil {
			logw = io.Discard
		}
		if err := p.bins.ensure(ctx, logw); err != nil {
			return nil, err
		}
	}

	port := cfg.Port
	if port == 0 {
		if port, err = pickPort(); err != nil {
			return nil, err
		}
	}
	p.setPort(port)
	return p, nil
}

// useBinaries picks the PostgreSQL binaries: a downloaded release of
// cfg.Version without cfg.BinDir, else the binaries in cfg.BinDir.
func (p *Postgres) useBinaries(ctx context.Context, cfg PostgresConfig) error {
	base := p.baseDir
	if cfg.BinDir == "" {
		major := cfg.Version
		if major == "" {
			major = DefaultVersion
		}
		b, err := newBinaries(base, major)
		if err != nil {
			return err
		}
		p.major, p.libVersion, p.binariesPath, p.bins = major, b.version, b.dir, &b
	} else {
		binDir, err := filepath.Abs(cfg.BinDir)
		if err != nil {
			return fmt.Errorf("instance: BinDir: %w", err)
		}
		if err := checkBinDir(binDir); err != nil {
			return err
		}
		full, err := binaryVersion(ctx, binDir)
		if err != nil {
			return err
		}
		p.major = majorOf(full)
		if cfg.Version != "" && cfg.Version != p.major {
			return fmt.Errorf("instance: the binaries in %s are PostgreSQL %s, not %s as asked", binDir, p.major, cfg.Version)
		}
		p.libVersion = p.major + ".0"
		// embedded-postgres runs BinariesPath/bin/pg_ctl: use the parent of
		// a directory named bin, else a private directory linking bin to it.
		p.binariesPath = filepath.Dir(binDir)
		if filepath.Base(binDir) != "bin" {
			p.binariesPath = filepath.Join(base, "pgbin", "custom-"+shortHash(binDir))
			if err := ensureSymlink(binDir, filepath.Join(p.binariesPath, "bin")); err != nil {
				return fmt.Errorf("instance: link BinDir: %w", err)
			}
		}
	}
	return nil
}

// setPaths sets the absolute data directory and log file, refusing paths
// pg_ctl's shell command cannot carry.
func (p *Postgres) setPaths(cfg PostgresConfig) error {
	base := p.baseDir
	var err error
	p.dataDir = cfg.DataDir
	if p.dataDir == "" {
		p.dataDir = filepath.Join(base, "data", "pg"+p.major+"-default")
	}
	if p.dataDir, err = filepath.Abs(p.dataDir); err != nil {
		return fmt.Errorf("instance: data dir: %w", err)
	}
	p.logFile = cfg.LogFile
	if p.logFile == "" {
		p.logFile = filepath.Join(p.logDir, fmt.Sprintf("%s-%s.log", filepath.Base(p.dataDir), shortHash(p.dataDir)))
	}
	if p.logFile, err = filepath.Abs(p.logFile); err != nil {
		return fmt.Errorf("instance: log file: %w", err)
	}
	for _, path := range []string{p.baseDir, p.dataDir, p.binariesPath, p.logFile} {
		if strings.ContainsAny(path, "\"$`\\\n") {
			return fmt.Errorf("instance: path %q contains a character (\" $ ` \\ or newline) that pg_ctl's shell command cannot carry", path)
		}
	}
	return nil
}

// prepareBaseDir creates the base directory layout. Binaries, downloads
// and logs belong to the user running rightsize (the server user may read,
// not change them: root later runs some of these files); only the runtime
// directory, where the server puts its socket and lock files, belongs to
// the server user, with mode 0700.
func (p *Postgres) prepareBaseDir() error {
	if err := ownedDir(p.baseDir); err != nil {
		if p.owner == nil && p.baseDir == DefaultBaseDir() {
			// a user without a writable home (a system account)
			return fmt.Errorf("%w\n  fix: set XDG_CACHE_HOME (or HOME) to a directory you can write: rightsize keeps PostgreSQL's binaries, logs and passwords in rightsize/ under it", err)
		}
		return err
	}
	for _, d := range []string{filepath.Join(p.baseDir, "pgbin"), filepath.Join(p.baseDir, "pgdist"), p.logDir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return fmt.Errorf("instance: create %s: %w", d, err)
		}
		// An older rightsize gave the log directory to the server user.
		if err := p.reclaim(d, 0o755); err != nil {
			return err
		}
	}
	p.removeLegacyCache()
	if err := os.MkdirAll(p.runDir, 0o700); err != nil {
		return fmt.Errorf("instance: create %s: %w", p.runDir, err)
	}
	if err := os.Chmod(p.runDir, 0o700); err != nil {
		return fmt.Errorf("instance: %w", err)
	}
	return p.chown(p.runDir)
}

// removeLegacyCache removes the binaries and downloads an older rightsize
// kept under bin/ and cache/, owned by the server user (who could have
// changed them): nothing runs them any more.
func (p *Postgres) removeLegacyCache() {
	if p.owner == nil {
		return
	}
	for _, d := range []string{filepath.Join(p.baseDir, "bin"), filepath.Join(p.baseDir, "cache")} {
		if uid, ok := fileOwner(d); ok && uid == p.owner.uid {
			_ = os.RemoveAll(d)
		}
	}
}

// reclaim makes dir the current user's with the given mode.
func (p *Postgres) reclaim(dir string, mode os.FileMode) error {
	if p.owner != nil {
		if err := os.Lchown(dir, 0, 0); err != nil {
			return fmt.Errorf("instance: take back %s: %w", dir, err)
		}
	}
	if err := os.Chmod(dir, mode); err != nil {
		return fmt.Errorf("instance: %w", err)
	}
	return nil
}

func (p *Postgres) chown(path string) error {
	if p.owner == nil {
		return nil
	}
	if err := os.Lchown(path, p.owner.uid, p.owner.gid); err != nil {
		return fmt.Errorf("instance: give %s to user %s: %w", path, SystemUser, err)
	}
	return nil
}

var settingName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_.]*$`)

func (p *Postgres) buildSettings(extra map[string]string) (map[string]string, error) {
	s := map[string]string{
		"listen_addresses":  "127.0.0.1",
		"logging_collector": "on",
		"log_directory":     filepath.Dir(p.logFile),
		"log_filename":      strings.ReplaceAll(filepath.Base(p.logFile), "%", "%%"), // a strftime pattern
		"log_rotation_age":  "0",
		"log_rotation_size": "0",
		"log_file_mode":     "0640",
		"log_line_prefix":   "%m [%p] %q%u@%d ",
		"log_timezone":      "UTC",
		// A TPC-C run's expected errors (serialization failures, retried;
		// the 1 % of New-Orders rolled back by the specification) are
		// logged as ERROR lines, but not each with its statement: that
		// doubled a 30-minute run's log to hundreds of MB, written by the
		// server while it is measured (the driver counts the errors).
		"log_min_error_statement": "panic",
		"max_connections":         "200",
		// only the server user may connect through the socket file (its
		// directory is private too)
		"unix_socket_permissions": "0700",
		"password_encryption":     "scram-sha-256",
	}
	for k, v := range extra {
		if !settingName.MatchString(k) {
			return nil, fmt.Errorf("instance: invalid setting name %q", k)
		}
		if strings.EqualFold(k, "port") {
			return nil, errors.New("instance: set the port with PostgresConfig.Port, not Settings")
		}
		if strings.ContainsAny(v, "\"$`\\\n") {
			return nil, fmt.Errorf("instance: setting %s=%q: value contains a character (\" $ ` \\ or newline) that pg_ctl's shell command cannot carry", k, v)
		}
		s[k] = v
	}
	return s, nil
}

// serverSettings returns the settings for the current port.
func (p *Postgres) serverSettings() map[string]string {
	s := make(map[string]string, len(p.settings)+1)
	// Unix sockets go to the private runtime directory (Debian's default,
	// /var/run/postgresql, is not writable by us); a path beyond the
	// 107-byte socket limit disables them (we connect over TCP anyway).
	sock := p.runtimeDir
	if len(sock)+len("/.s.PGSQL.65535.lock") > 100 {
		sock = ""
	}
	s["unix_socket_directories"] = sock
	for k, v := range p.settings {
		s[k] = v
	}
	return s
}

func (p *Postgres) setPort(port uint32) {
	p.port = port
	p.runtimeDir = filepath.Join(p.runDir, fmt.Sprintf("pg-%d", port))
}

// startLocked starts the server; p.mu is held.
func (p *Postgres) startLocked(ctx context.Context) (err error) {
	defer func(ctx context.Context) { err = withCancellation(ctx, err) }(ctx)
	if err := p.prepareDataDir(); err != nil {
		return err
	}
	if err := p.prepareWALDir(); err != nil {
		return err
	}
	// Serialise starts on one data directory across processes (flock on
	// the directory itself), so that the clean-up of a failed start can
	// never stop another process's server.
	unlock, err := lockFile(p.dataDir)
	if err != nil {
		return fmt.Errorf("instance: lock data dir %s: %w", p.dataDir, err)
	}
	defer unlock()
	if err := p.checkNotRunning(); err != nil {
		return err
	}
	if p.replace {
		if err := p.replaceCluster(); err != nil {
			return err
		}
		p.replace = false
	}
	// A start that creates the cluster and fails (or is cancelled, maybe
	// mid-initdb) empties the directory again, so the next start can
	// initialise it instead of tripping over half a cluster. Decided under
	// the lock: the directory is verified empty here.
	hasCluster, err := inspectDataDir(p.dataDir, p.major)
	if err != nil {
		return err
	}
	fresh := !hasCluster
	defer func() {
		if err != nil && fresh {
			if rerr := emptyDir(p.dataDir); rerr != nil {
				err = fmt.Errorf("%w (and emptying the new data dir failed: %v)", err, rerr)
			}
		}
	}()

	ctx, release := p.abortable(ctx)
	defer release()
	logw, closeLog, err := p.openStartLog()
	if err != nil {
		return err
	}
	defer closeLog()

	// The helper's scratch directory: removed here even if the helper is
	// killed (cancelled) half-way.
	tmp, err := os.MkdirTemp(p.runDir, "helper-")
	if err != nil {
		return fmt.Errorf("instance: create helper dir: %w", err)
	}
	defer os.RemoveAll(tmp)
	if err := p.chown(tmp); err != nil {
		return err
	}
	return p.launch(ctx, tmp, logw, hasCluster)
}

// abortable returns a context that Abort cancels until release is called.
func (p *Postgres) abortable(ctx context.Context) (_ context.Context, release func()) {
	ctx, cancel := context.WithCancel(ctx)
	p.abortMu.Lock()
	p.abort = cancel
	p.abortMu.Unlock()
	return ctx, func() {
		p.abortMu.Lock()
		p.abort = nil
		p.abortMu.Unlock()
		cancel()
	}
}

// openStartLog opens the server log for a start and returns where initdb
// and startup output go. The server's logging collector (running as the
// server user) appends to the log file; initdb and startup output go there
// too unless p.log is set.
func (p *Postgres) openStartLog() (_ io.Writer, closeLog func(), err error) {
	if err := os.MkdirAll(filepath.Dir(p.logFile), 0o755); err != nil {
		return nil, nil, fmt.Errorf("instance: create log dir: %w", err)
	}
	if removed := pruneLogs(p.logDir, p.logFile, logBudget, logRecent, time.Now()); len(removed) > 0 {
		fmt.Fprintf(p.notices, "rightsize: removed %d old server log(s) from %s, over %d MiB (the newest are kept)\n", len(removed), p.logDir, logBudget>>20)
	}
	logf, err := openLog(p.logFile)
	if err != nil {
		return nil, nil, fmt.Errorf("instance: open log: %w", err)
	}
	if err := p.chown(p.logFile); err != nil {
		logf.Close()
		return nil, nil, err
	}
	closeLog = func() { logf.Close() }
	if p.log != nil {
		return p.log, closeLog, nil
	}
	return logf, closeLog, nil
}

// launch has the privileged helper start the server in tmp (initialising
// the cluster first when there is none), then records its process and sets
// up the roles. A failed start is cleaned up.
func (p *Postgres) launch(ctx context.Context, tmp string, logw io.Writer, hasCluster bool) error {
	p.logStart = logSize(p.logFile) // where this start's lines begin (reason.go)
	sec, rotate, err := p.loadSecrets(hasCluster)
	if err != nil {
		return err
	}
	req := startRequest{
		TempDir:      tmp,
		Version:      p.libVersion,
		BinariesPath: p.binariesPath,
		RunDir:       p.runDir,
		Password:     sec.Admin,
		SetPassword:  rotate,
		Fingerprint:  sec.Fingerprint(),
		RuntimeDir:   p.runtimeDir,
		DataDir:      p.dataDir,
		LogFile:      p.logFile,
		Port:         p.port,
		Settings:     p.serverSettings(),
		StartTimeout: p.startTimeout,
		Join:         p.join,
		WALDir:       p.walDir,
	}
	if p.owner != nil {
		req.UID, req.GID = p.owner.uid, p.owner.gid
	}
	p.claim(0, "") // a kill mid-start leaves the server reclaimable by its port (owner.go)
	if err := runHelper(ctx, req, logw); err != nil {
		p.cleanupFailedStart(ctx.Err() != nil)
		return p.failedStart(err)
	}
	pid, err := readPostmasterPID(p.dataDir)
	if err != nil || !ProcessRunning(pid) {
		p.cleanupFailedStart(false)
		return fmt.Errorf("instance: postgres on port %d reported started but is not running (postmaster.pid: %v)", p.port, err)
	}
	p.pid, p.pidStart = pid, procStartTime(pid)
	p.claim(pid, p.pidStart)
	p.secrets = sec
	if err := p.setupRoles(ctx, hasCluster && rotate); err != nil {
		_ = p.stopLocked()
		return err
	}
	return nil
}

// withCancellation makes err say that ctx ended, when it did while the
// operation ran and err does not already wrap that: a dial that runs into
// ctx's deadline reports "i/o timeout", which errors.Is does not match to
// context.DeadlineExceeded, so callers would not see the cancellation.
func withCancellation(ctx context.Context, err error) error {
	if err == nil || ctx.Err() == nil || errors.Is(err, ctx.Err()) {
		return err
	}
	return fmt.Errorf("%w (%w)", err, ctx.Err())
}

// prepareDataDir checks the data directory; a missing or empty one is
// created and given to the server user (initdb fills it). Missing parents
// are created with mode 0755, so the server user can pass through them.
func (p *Postgres) prepareDataDir() error {
	if p.owner != nil {
		if dir := closedAncestor(p.dataDir, p.owner.uid, p.owner.gid); dir != "" {
			return fmt.Errorf("instance: the server user %s cannot reach data directory %s: %s does not let other users enter it\n  fix: choose a --data-dir outside %s, or let others enter it (chmod o+x %s)",
				SystemUser, p.dataDir, dir, dir, dir)
		}
	}
	hasCluster, err := inspectDataDir(p.dataDir, p.major)
	if err != nil || hasCluster {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(p.dataDir), 0o755); err != nil {
		return fmt.Errorf("instance: create data dir parent: %w", err)
	}
	if err := os.Mkdir(p.dataDir, 0o700); err != nil && !errors.Is(err, os.ErrExist) {
		return fmt.Errorf("instance: create data dir: %w", err)
	}
	if err := os.Chmod(p.dataDir, 0o700); err != nil {
		return fmt.Errorf("instance: data dir: %w", err)
	}
	return p.chown(p.dataDir)
}

// checkNotRunning fails if a server runs on the data directory and removes
// a stale postmaster.pid left by a crash.
func (p *Postgres) checkNotRunning() error {
	pid, err := readPostmasterPID(p.dataDir)
	if err != nil {
		return nil // no (readable) lock file: nothing running
	}
	if ProcessRunning(pid) {
		return fmt.Errorf("instance: data dir %s is in use by a running server (pid %d%s); stop it first", p.dataDir, pid, startedBy(p.dataDir, pid))
	}
	// Let backends orphaned by a crashed postmaster exit (they hold shared
	// memory; they are found by their working directory, as the pid in a
	// stale file may by now belong to anything), then remove the lock
	// file: postgres treats a lock whose pid is a zombie (never reaped by
	// an init that does not reap orphans) as held.
	killOrphans(p.dataDir, 10*time.Second)
	pidFile := filepath.Join(p.dataDir, "postmaster.pid")
	if err := os.Remove(pidFile); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("instance: remove stale %s: %w", pidFile, err)
	}
	return nil
}

// killOrphans gives the processes left on dataDir by a dead postmaster
// grace to exit on their own, then SIGKILLs what is left: stuck (a backend
// waiting on a lock held by a process that was killed), it belongs to a
// dead cluster.
func killOrphans(dataDir string, grace time.Duration) {
	for deadline := time.Now().Add(grace); time.Now().Before(deadline) && len(dataDirProcesses(dataDir)) > 0; {
		time.Sleep(50 * time.Millisecond)
	}
	for _, pid := range dataDirProcesses(dataDir) {
		_ = signalKill(pid)
		waitGone(pid, 5*time.Second)
	}
}

// inspectDataDir reports whether dir holds a cluster of the given major
// version; it fails for a cluster of another version or a non-empty
// directory that holds no cluster (never overwritten).
func inspectDataDir(dir, major string) (bool, error) {
	st, err := os.Stat(dir)
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("instance: data dir: %w", err)
	}
	if !st.IsDir() {
		return false, fmt.Errorf("instance: data dir %s is not a directory", dir)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "PG_VERSION")); err == nil {
		got := strings.TrimSpace(string(b))
		if got != major {
			return false, fmt.Errorf("instance: data dir %s holds a PostgreSQL %s cluster, but the binaries are PostgreSQL %s; use another DataDir", dir, got, major)
		}
		return true, nil
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return false, fmt.Errorf("instance: data dir: %w", err)
	}
	if len(entries) > 0 {
		return false, fmt.Errorf("instance: data dir %s is not empty and holds no PostgreSQL cluster (no PG_VERSION); refusing to initialise it", dir)
	}
	return false, nil
}

// cleanupFailedStart stops a server left behind by a failed or cancelled start.
func (p *Postgres) cleanupFailedStart(cancelled bool) {
	// A cancelled helper may have been killed just after pg_ctl forked
	// the postmaster: give it a moment to write its lock file.
	deadline := time.Now()
	if cancelled {
		deadline = deadline.Add(time.Second)
	}
	for {
		if pid, err := readPostmasterPID(p.dataDir); err == nil && ProcessRunning(pid) {
			_ = shutdownPostmaster(pid, 10*time.Second)
			return
		}
		if time.Now().After(deadline) {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// DSN returns a connection URL for database on this server, logging in as
// the benchmark role [BenchRole] with its password.
func (p *Postgres) DSN(database string) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return pgURL(BenchRole, p.secrets.Bench, p.port, database)
}

// AdminDSN returns a connection URL for database as the superuser. Only
// set-up code and tests that must change the server itself use it.
func (p *Postgres) AdminDSN(database string) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return pgURL(pgUser, p.secrets.Admin, p.port, database)
}

// SecretsFile is the file holding this data directory's passwords.
func (p *Postgres) SecretsFile() string { return secret.Path(p.secretDir, p.dataDir) }

func pgURL(user, password string, port uint32, database string) string {
	u := url.URL{Scheme: "postgres", User: url.UserPassword(user, password),
		Host: fmt.Sprintf("127.0.0.1:%d", port), Path: "/" + database, RawQuery: "sslmode=disable"}
	return u.String()
}

// Port returns the TCP port the server listens on (127.0.0.1).
func (p *Postgres) Port() uint32 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.port
}

// DataDir returns the absolute data directory.
func (p *Postgres) DataDir() string { return p.dataDir }

// Version returns the PostgreSQL major version, e.g. "15".
func (p *Postgres) Version() string { return p.major }

// LogFile returns the server log file.
func (p *Postgres) LogFile() string { return p.logFile }

// PID returns the postmaster's pid from postmaster.pid, or an error wrapping
// ErrNotRunning if the server is not running.
func (p *Postgres) PID() (int, error) {
	pid, err := readPostmasterPID(p.dataDir)
	if err != nil {
		return 0, fmt.Errorf("%w: %v", ErrNotRunning, err)
	}
	if !ProcessRunning(pid) {
		return 0, fmt.Errorf("%w (postmaster pid %d is gone)", ErrNotRunning, pid)
	}
	return pid, nil
}

// runningPID returns the pid of the postmaster we started if it still runs, else 0.
func (p *Postgres) runningPID() int {
	if p.pid == 0 {
		return 0
	}
	pid, err := readPostmasterPID(p.dataDir)
	if err != nil || pid != p.pid || !ProcessRunning(pid) {
		return 0
	}
	if p.pidStart != "" && procStartTime(pid) != p.pidStart {
		return 0
	}
	return pid
}

// Stop shuts the server down with a fast shutdown (an immediate one after
// StopTimeout) and waits for it to exit. It is idempotent, safe to call
// concurrently (e.g. from a signal handler) and aborts a Restart in progress.
func (p *Postgres) Stop() error {
	p.abortMu.Lock()
	if p.abort != nil {
		p.abort()
	}
	p.abortMu.Unlock()

	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stopLocked()
}

func (p *Postgres) stopLocked() error {
	if pid := p.runningPID(); pid != 0 {
		if err := shutdownPostmaster(pid, p.stopTimeout); err != nil {
			return fmt.Errorf("instance: stop postgres (pid %d, data dir %s): %w", pid, p.dataDir, err)
		}
	} else if p.pid != 0 {
		// The postmaster died (killed by a memory limit, say) and may have
		// left backends behind (each in a session of its own, working in
		// the data directory); one blocked on a lock its dead peer held
		// never notices, and holds the shared memory the next start needs.
		killOrphans(p.dataDir, time.Second)
	}
	p.pid, p.pidStart = 0, ""
	release(p.dataDir)
	_ = os.RemoveAll(p.runtimeDir)
	return nil
}

// Kill sends SIGKILL to the postmaster, simulating a crash, and waits until
// it and its children are gone: the children, each in a session of its
// own, notice the death and exit (SIGKILLed after 10 s, as killOrphans
// does). Restart then performs crash recovery.
func (p *Postgres) Kill() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	pid := p.runningPID()
	if pid == 0 {
		return fmt.Errorf("instance: kill: %w", ErrNotRunning)
	}
	if err := killPostmaster(pid, p.dataDir); err != nil {
		return fmt.Errorf("instance: kill postgres (pid %d): %w", pid, err)
	}
	p.pid, p.pidStart = 0, ""
	return nil
}

// Restart starts the server again on the same port and data directory,
// after Kill or Stop; a running server is stopped first.
func (p *Postgres) Restart(ctx context.Context) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if err := p.stopLocked(); err != nil {
		return err
	}
	return p.startLocked(ctx)
}

// StopDataDir stops a PostgreSQL server running on dataDir that no Postgres
// value manages, e.g. one left behind by a crashed process. It waits up to
// timeout for a fast shutdown before forcing an immediate one. A data
// directory with no running server is not an error.
func StopDataDir(dataDir string, timeout time.Duration) error {
	pid, err := readPostmasterPID(dataDir)
	if err != nil || !ProcessRunning(pid) {
		return nil
	}
	if err := shutdownPostmaster(pid, timeout); err != nil {
		return fmt.Errorf("instance: stop postgres (pid %d, data dir %s): %w", pid, dataDir, err)
	}
	return nil
}

// shutdownPostmaster requests a fast shutdown, escalating to immediate
// shutdown and SIGKILL, and waits for the postmaster and its children.
// A server in crash recovery (a backend was killed, say by a memory
// limit's OOM killer) gets an immediate shutdown instead, also when the
// recovery is seen during the wait: a fast shutdown then ends the startup
// process but leaves the postmaster waiting for ever on the checkpointer
// it started for the recovery (PostgreSQL 15), and the next start
// recovers again either way.
func shutdownPostmaster(pid int, grace time.Duration) error {
	steps := []struct {
		send  func(int) error
		wait  time.Duration
		clean bool // a fast shutdown: not while recovering
	}{
		{signalFastShutdown, grace, true},
		{signalImmediateShutdown, 15 * time.Second, false},
		{signalKill, 10 * time.Second, false},
	}
	recovering := func() bool { return inRecovery(pid) }
	for _, s := range steps {
		giveUp := func() bool { return false }
		if s.clean {
			if recovering() {
				continue
			}
			giveUp = recovering
		}
		if err := s.send(pid); err != nil && ProcessRunning(pid) {
			return err
		}
		if waitGoneUnless(pid, s.wait, giveUp) {
			waitGroupGone(pid, 10*time.Second)
			return nil
		}
	}
	return fmt.Errorf("postmaster pid %d still running after SIGKILL", pid)
}

// killPostmaster SIGKILLs the postmaster of dataDir and waits until it and
// its children are gone: what is left in its process group, then
// PostgreSQL's own children, which each call setsid and so are found by
// their working directory (killOrphans).
func killPostmaster(pid int, dataDir string) error {
	if err := signalKill(pid); err != nil && ProcessRunning(pid) {
		return err
	}
	if !waitGone(pid, 10*time.Second) {
		return fmt.Errorf("postmaster pid %d survived SIGKILL", pid)
	}
	waitGroupGone(pid, 10*time.Second)
	killOrphans(dataDir, 10*time.Second)
	return nil
}

// waitGone polls until pid is no longer running (exited or zombie).
func waitGone(pid int, d time.Duration) bool {
	return waitGoneUnless(pid, d, func() bool { return false })
}

// waitGoneUnless is waitGone that also stops waiting (false) when giveUp,
// checked every quarter second, says so.
func waitGoneUnless(pid int, d time.Duration, giveUp func() bool) bool {
	deadline := time.Now().Add(d)
	for i := 0; ProcessRunning(pid); i++ {
		if time.Now().After(deadline) || (i%12 == 11 && giveUp()) {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
	return true
}

// waitGroupGone waits for the process group led by the postmaster (pg_ctl
// starts it with setsid) to empty, then SIGKILLs what is left.
func waitGroupGone(pgid int, d time.Duration) {
	deadline := time.Now().Add(d)
	for groupRunning(pgid) {
		if time.Now().After(deadline) {
			killGroup(pgid)
			waitGroupGoneBriefly(pgid)
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func waitGroupGoneBriefly(pgid int) {
	for i := 0; i < 100 && groupRunning(pgid); i++ {
		time.Sleep(20 * time.Millisecond)
	}
}

// readPostmasterPID reads the postmaster's pid from dataDir/postmaster.pid.
func readPostmasterPID(dataDir string) (int, error) {
	f, err := os.Open(filepath.Join(dataDir, "postmaster.pid"))
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	if !sc.Scan() {
		return 0, fmt.Errorf("%s/postmaster.pid is empty", dataDir)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(sc.Text()))
	if err != nil || pid <= 0 {
		return 0, fmt.Errorf("%s/postmaster.pid: bad pid %q", dataDir, sc.Text())
	}
	return pid, nil
}

var (
	portMu    sync.Mutex
	portsUsed = map[uint32]bool{}
)

// pickPort returns a free loopback port not handed out before by this process.
func pickPort() (uint32, error) {
	portMu.Lock()
	defer portMu.Unlock()
	for i := 0; i < 50; i++ {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return 0, fmt.Errorf("instance: pick a free port: %w", err)
		}
		port := uint32(l.Addr().(*net.TCPAddr).Port)
		l.Close()
		if !portsUsed[port] {
			portsUsed[port] = true
			return port, nil
		}
	}
	return 0, errors.New("instance: pick a free port: none found")
}

func checkBinDir(binDir string) error {
	hint := "want the directory holding pg_ctl, initdb and postgres, e.g. /usr/lib/postgresql/15/bin, or leave BinDir empty to download PostgreSQL"
	st, err := os.Stat(binDir)
	if err != nil {
		return fmt.Errorf("instance: BinDir %s: %w (%s)", binDir, err, hint)
	}
	if !st.IsDir() {
		return fmt.Errorf("instance: BinDir %s is not a directory (%s)", binDir, hint)
	}
	for _, name := range []string{"pg_ctl", "initdb", "postgres"} {
		st, err := os.Stat(filepath.Join(binDir, name))
		if err != nil || st.IsDir() || st.Mode()&0o111 == 0 {
			return fmt.Errorf("instance: BinDir %s has no executable %s (%s)", binDir, name, hint)
		}
	}
	return nil
}

var versionRE = regexp.MustCompile(`\(PostgreSQL\) (\d+(?:\.\d+)*)`)

// binaryVersion runs "postgres --version" (allowed as root, for a file only
// root or the current user can change).
func binaryVersion(ctx context.Context, binDir string) (string, error) {
	if err := safeToExecute(filepath.Join(binDir, "postgres")); err != nil {
		return "", err
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, filepath.Join(binDir, "postgres"), "--version").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("instance: %s/postgres --version: %w: %s", binDir, err, strings.TrimSpace(string(out)))
	}
	m := versionRE.FindStringSubmatch(string(out))
	if m == nil {
		return "", fmt.Errorf("instance: cannot parse version from %s/postgres --version: %q", binDir, strings.TrimSpace(string(out)))
	}
	return m[1], nil
}

// majorOf maps "15.13.0" to "15" and "9.6.24" to "9.6".
func majorOf(v string) string {
	parts := strings.Split(v, ".")
	if n, err := strconv.Atoi(parts[0]); err == nil && n < 10 && len(parts) > 1 {
		return parts[0] + "." + parts[1]
	}
	return parts[0]
}

func shortHash(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:4])
}

// emptyDir removes dir's contents, keeping dir itself (and its owner).
func emptyDir(dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
			return err
		}
	}
	return nil
}

func ensureSymlink(target, link string) error {
	if cur, err := os.Readlink(link); err == nil && cur == target {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		return err
	}
	_ = os.Remove(link)
	return os.Symlink(target, link)
}
