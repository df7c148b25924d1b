package backup

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/rightsize/rightsize/instance"
	"github.com/rightsize/rightsize/internal/units"
	"github.com/rightsize/rightsize/tpcc"
)

// embeddedMajor is the PostgreSQL major version package instance downloads
// when given no BinDir (instance's embeddedVersion): a restore of a server
// of that version can fall back to the download.
const embeddedMajor = "15"

// restoreStartTimeout bounds the start of a restored server, which replays
// the WAL written during the backup first.
const restoreStartTimeout = 30 * time.Minute

// pgxPooler is implemented by engine/postgres.DB.
type pgxPooler interface {
	Pool() *pgxpool.Pool
}

// pgTable is a table of the source database the restore check looks at.
type pgTable struct{ schema, name string }

func (t pgTable) ident() string { return pgx.Identifier{t.schema, t.name}.Sanitize() }

// pgMethod backs up with pg_basebackup and restores by starting a private
// server on (a copy of) the backup.
type pgMethod struct {
	opt        Options
	cfg        *pgx.ConnConfig
	conninfo   string // for pg_basebackup, without the password
	password   string
	inst       *instance.Postgres // nil for external servers
	ver        string
	major      string
	dbname     string
	clusterSz  int64 // -1 when unknown
	basebackup string
	serverBin  string // "" = the embedded download
	own        *owner
	tables     []pgTable // had rows in the source
	tpcc       bool
	notesList  []string
}

// Postgres is PostgreSQL's method: pg_basebackup, restored by a private server.
var Postgres = Method{func(ctx context.Context, t Target, opt Options) (method, error) { return newPostgres(ctx, t, opt) }}

func newPostgres(ctx context.Context, t Target, opt Options) (*pgMethod, error) {
	if opt.Method != "" && opt.Method != MethodPgBasebackup {
		return nil, fmt.Errorf("backup: method %q is not available for PostgreSQL (use %s)", opt.Method, MethodPgBasebackup)
	}
	m := &pgMethod{opt: opt, clusterSz: -1}
	if mp, ok := t.(ManagedPostgres); ok {
		m.inst = mp.PostgresInstance()
	}
	// pgxpool's parser also accepts (and drops) the pool_* parameters.
	pcfg, err := pgxpool.ParseConfig(t.DSN())
	if err != nil {
		return nil, fmt.Errorf("backup: parse PostgreSQL DSN: %w", err)
	}
	m.cfg = pcfg.ConnConfig
	m.conninfo, m.password = libpqConninfo(t.DSN(), m.cfg)

	conn, err := pgx.ConnectConfig(ctx, m.cfg)
	if err != nil {
		return nil, fmt.Errorf("backup: connect to PostgreSQL: %w", err)
	}
	defer conn.Close(context.Background())
	var num int
	if err := conn.QueryRow(ctx, "SELECT current_setting('server_version'), current_setting('server_version_num')::int, current_database()").
		Scan(&m.ver, &num, &m.dbname); err != nil {
		return nil, fmt.Errorf("backup: read the server version: %w", err)
	}
	m.ver = "PostgreSQL " + m.ver
	if num >= 100000 {
		m.major = strconv.Itoa(num / 10000)
	} else {
		m.major = fmt.Sprintf("%d.%d", num/10000, num/100%100)
	}
	// Needs CONNECT on every database (superusers have it): best effort.
	var sz int64
	if err := conn.QueryRow(ctx, "SELECT sum(pg_database_size(oid))::bigint FROM pg_database").Scan(&sz); err == nil {
		m.clusterSz = sz
	}
	if err := m.findTables(ctx, conn); err != nil {
		return nil, err
	}

	if m.serverBin, err = m.findServerBin(ctx); err != nil {
		return nil, err
	}
	if m.basebackup, err = m.findBasebackup(ctx); err != nil {
		return nil, err
	}
	if os.Geteuid() == 0 {
		if m.own, err = pgOwner(m.inst); err != nil {
			return nil, err
		}
	}
	m.notesList = append(m.notesList, "pg_basebackup copies the whole cluster (every database and the WAL written meanwhile), not only database "+m.dbname)
	if opt.RestoreInPlace {
		m.notesList = append(m.notesList, "restore in place: a server starts on the backup itself (recovery only, no data files written)")
	} else {
		m.notesList = append(m.notesList, "restore: copy of the backup into a new data directory, then a private server started on it (WAL replay) and checked")
	}
	return m, nil
}

// findTables lists the tables to check after a restore: the TPC-C tables
// when the database holds them, else up to 20 user tables; of those, the
// ones that have rows now.
func (m *pgMethod) findTables(ctx context.Context, conn *pgx.Conn) error {
	rows, err := conn.Query(ctx, `SELECT n.nspname, c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE c.relkind IN ('r', 'p') AND n.nspname NOT IN ('pg_catalog', 'information_schema')
  AND n.nspname NOT LIKE 'pg\_toast%' AND n.nspname NOT LIKE 'pg\_temp%'
  AND has_table_privilege(c.oid, 'SELECT')
ORDER BY c.relname = ANY($1) DESC, c.reltuples DESC, 1, 2`, tpccNames())
	if err != nil {
		return fmt.Errorf("backup: list tables: %w", err)
	}
	all, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (pgTable, error) {
		var t pgTable
		err := r.Scan(&t.schema, &t.name)
		return t, err
	})
	if err != nil {
		return fmt.Errorf("backup: list tables: %w", err)
	}
	var cands []pgTable
	found := map[string]bool{}
	for _, t := range all {
		if slices.Contains(tpccNames(), t.name) && !found[t.name] {
			found[t.name] = true
			cands = append(cands, t)
		}
	}
	if m.tpcc = len(found) == len(tpcc.Tables); !m.tpcc {
		cands = all[:min(len(all), 20)]
	}
	for _, t := range cands {
		var has bool
		if err := conn.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM "+t.ident()+")").Scan(&has); err != nil {
			return fmt.Errorf("backup: look at table %s: %w", t.ident(), err)
		}
		if has {
			m.tables = append(m.tables, t)
		}
	}
	return nil
}

func tpccNames() []string {
	var s []string
	for _, t := range tpcc.Tables {
		s = append(s, string(t))
	}
	return s
}

// pgOwner is the user the restored server runs as when we are root.
func pgOwner(inst *instance.Postgres) (*owner, error) {
	if inst != nil {
		if uid, gid, ok := fileOwner(inst.DataDir()); ok && uid != 0 {
			return &owner{uid, gid}, nil
		}
	}
	u, err := user.Lookup(instance.SystemUser)
	if err != nil {
		return nil, fmt.Errorf("backup: PostgreSQL refuses to run as root and the user %q the restored server would run as does not exist: "+
			"create it (useradd --system --user-group --no-create-home --shell /usr/sbin/nologin %s) or run rightsize as a non-root user", instance.SystemUser, instance.SystemUser)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	return &owner{uid, gid}, nil
}

var pgVersionRE = regexp.MustCompile(`\(PostgreSQL\) (\d+)(?:\.(\d+))?`)

// toolMajor runs "tool --version" and returns the major version ("15", "9.6").
func toolMajor(ctx context.Context, tool string) (string, error) {
	// never run, as root or not, a program another user could replace
	if err := instance.SafeToExecute(tool); err != nil {
		return "", err
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, tool, "--version").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("%s --version: %w: %s", tool, err, strings.TrimSpace(string(out)))
	}
	mm := pgVersionRE.FindStringSubmatch(string(out))
	if mm == nil {
		return "", fmt.Errorf("%s --version: cannot read the version in %q", tool, strings.TrimSpace(string(out)))
	}
	if n, _ := strconv.Atoi(mm[1]); n < 10 && mm[2] != "" {
		return mm[1] + "." + mm[2], nil
	}
	return mm[1], nil
}

// majorNum orders major versions ("9.6" < "15").
func majorNum(s string) float64 {
	f, _ := strconv.ParseFloat(s, 64)
	return f
}

// debianBinDirs lists /usr/lib/postgresql/*/bin, newest first.
func debianBinDirs() []string {
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	slices.SortFunc(dirs, func(a, b string) int {
		va, vb := majorNum(filepath.Base(filepath.Dir(a))), majorNum(filepath.Base(filepath.Dir(b)))
		switch {
		case va > vb:
			return -1
		case va < vb:
			return 1
		}
		return strings.Compare(a, b)
	})
	return dirs
}

// findServerBin finds postgres, pg_ctl and initdb of the server's major
// version for the restore; "" means the embedded download.
func (m *pgMethod) findServerBin(ctx context.Context) (string, error) {
	var cands []string
	if m.opt.BinDir != "" {
		cands = append(cands, m.opt.BinDir)
	}
	if m.inst != nil {
		if pid, err := m.inst.PID(); err == nil {
			if exe := procExe(pid); exe != "" {
				cands = append(cands, filepath.Dir(exe))
			}
		}
	}
	cands = append(cands, filepath.Join("/usr/lib/postgresql", m.major, "bin"))
	if p, err := exec.LookPath("pg_ctl"); err == nil {
		cands = append(cands, filepath.Dir(p))
	}
	for _, dir := range cands {
		if !isExecutable(filepath.Join(dir, "postgres")) || !isExecutable(filepath.Join(dir, "pg_ctl")) || !isExecutable(filepath.Join(dir, "initdb")) {
			continue
		}
		if v, err := toolMajor(ctx, filepath.Join(dir, "postgres")); err == nil && v == m.major {
			return dir, nil
		}
	}
	if m.major == embeddedMajor {
		return "", nil
	}
	return "", fmt.Errorf("backup: no PostgreSQL %s server binaries (postgres, pg_ctl, initdb) found to start the restored copy on "+
		"(looked in %s): install PostgreSQL %s (Debian: apt-get install postgresql-%s) or give its bin directory (--pg-bin)",
		m.major, strings.Join(cands, ", "), m.major, m.major)
}

// findBasebackup finds a pg_basebackup of the server's major version or
// newer, preferring the server's own.
func (m *pgMethod) findBasebackup(ctx context.Context) (string, error) {
	var cands []string
	if m.opt.BinDir != "" {
		cands = append(cands, filepath.Join(m.opt.BinDir, "pg_basebackup"))
	}
	if m.serverBin != "" {
		cands = append(cands, filepath.Join(m.serverBin, "pg_basebackup"))
	}
	cands = append(cands, filepath.Join("/usr/lib/postgresql", m.major, "bin", "pg_basebackup"))
	for _, d := range debianBinDirs() {
		cands = append(cands, filepath.Join(d, "pg_basebackup"))
	}
	if p, err := exec.LookPath("pg_basebackup"); err == nil {
		cands = append(cands, p)
	}
	var tried []string
	for _, c := range cands {
		if slices.Contains(tried, c) {
			continue
		}
		tried = append(tried, c)
		if !isExecutable(c) {
			continue
		}
		v, err := toolMajor(ctx, c)
		if err != nil || majorNum(v) < majorNum(m.major) {
			continue
		}
		return c, nil
	}
	return "", fmt.Errorf("backup: %w: no pg_basebackup of PostgreSQL %s or newer (looked for %s; the PostgreSQL binaries rightsize downloads "+
		"hold only initdb, pg_ctl and postgres): install the PostgreSQL client tools (Debian: apt-get install postgresql-client-%s) "+
		"or give their bin directory (--pg-bin)", errUnavailable, m.major, strings.Join(tried, ", "), m.major)
}

func (m *pgMethod) name() string    { return MethodPgBasebackup }
func (m *pgMethod) version() string { return m.ver }
func (m *pgMethod) notes() []string { return m.notesList }
func (m *pgMethod) local() bool     { return true }
func (m *pgMethod) remove(string) error {
	return nil
}
func (m *pgMethod) where(name string) string { return name }

func (m *pgMethod) close() {}

func (m *pgMethod) serverPID() int {
	if m.inst == nil {
		return 0
	}
	pid, _ := m.inst.PID()
	return pid
}

func (m *pgMethod) defaultDir(context.Context) (string, error) {
	if m.inst != nil {
		return filepath.Dir(m.inst.DataDir()), nil
	}
	return filepath.Join(instance.DefaultBaseDir(), "backups"), nil
}

// prepareWorkDir checks that the server user can reach the work directory
// and gives it to that user, and checks the free space.
func (m *pgMethod) prepareWorkDir(dir string) error {
	if m.own != nil {
		if err := reachable(dir, m.own.uid, m.own.gid); err != nil {
			return fmt.Errorf("backup: the restored PostgreSQL server runs as user %s (it refuses root), which cannot reach the backup directory: %w; "+
				"choose a directory outside /root (--to)", instance.SystemUser, err)
		}
		if err := m.own.chown(dir); err != nil {
			return fmt.Errorf("backup: %w", err)
		}
	}
	if m.clusterSz > 0 {
		need := m.clusterSz + m.clusterSz/10
		if !m.opt.RestoreInPlace {
			need *= 2
		}
		if free := freeBytes(dir); free >= 0 && free < need {
			return fmt.Errorf("backup: %s has %s free, the backup and its restored copy need about %s (the cluster is %s)",
				filepath.Dir(dir), units.HumanBytes(free), units.HumanBytes(need), units.HumanBytes(m.clusterSz))
		}
	}
	return nil
}

// libpqConninfo turns a DSN into a conninfo for libpq tools: the password
// is removed (passed in PGPASSWORD instead, not on the command line) and so
// are URL parameters libpq does not know (pgx's pool_max_conns ...).
func libpqConninfo(dsn string, cfg *pgx.ConnConfig) (conninfo, password string) {
	password = cfg.Password
	u, err := url.Parse(dsn)
	if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
		return dsn, "" // keyword=value form: handed over as is
	}
	if u.User != nil {
		u.User = url.User(u.User.Username())
	}
	q := u.Query()
	for k := range q {
		if !libpqParams[k] {
			q.Del(k)
		}
	}
	u.RawQuery = q.Encode()
	return u.String(), password
}

var libpqParams = map[string]bool{
	"host": true, "hostaddr": true, "port": true, "dbname": true, "user": true, "passfile": true, "connect_timeout": true,
	"options": true, "application_name": true, "keepalives": true, "keepalives_idle": true, "keepalives_interval": true,
	"keepalives_count": true, "tcp_user_timeout": true, "sslmode": true, "sslcert": true, "sslkey": true, "sslrootcert": true,
	"sslcrl": true, "sslpassword": true, "sslcompression": true, "requirepeer": true, "gssencmode": true, "krbsrvname": true,
	"target_session_attrs": true, "service": true, "channel_binding": true, "ssl_min_protocol_version": true,
	"ssl_max_protocol_version": true, "sslsni": true, "load_balance_hosts": true, "sslcertmode": true, "require_auth": true,
}

// pgEnv is the environment of libpq tools: ours, with the password.
func pgEnv(password string) []string {
	env := []string{}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "PGPASSWORD=") && !strings.HasPrefix(kv, "PGAPPNAME=") {
			env = append(env, kv)
		}
	}
	env = append(env, "PGAPPNAME=rightsize-backup")
	if password != "" {
		env = append(env, "PGPASSWORD="+password)
	}
	return env
}

func (m *pgMethod) backup(ctx context.Context, dir string, started func()) (int64, error) {
	var out errTail
	args := []string{"-D", dir, "-Fp", "-X", "stream", "-c", "fast", "-w", "-d", m.conninfo}
	if testNoSync {
		args = append(args, "--no-sync")
	}
	cmd := exec.CommandContext(ctx, m.basebackup, args...)
	cmd.Env = pgEnv(m.password)
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.Dir = filepath.Dir(dir)
	ownGroup(cmd)
	if err := cmd.Start(); err != nil {
		return 0, fmt.Errorf("start %s: %w", m.basebackup, err)
	}
	started()
	if err := cmd.Wait(); err != nil {
		return 0, toolError(m.basebackup, err, &out)
	}
	n, err := dirSize(dir)
	if err != nil {
		return 0, fmt.Errorf("size of the backup: %w", err)
	}
	return n, nil
}

func (m *pgMethod) restore(ctx context.Context, dir, scratch string, n int) (restoreStats, error) {
	var st restoreStats
	if err := m.own.chown(scratch); err != nil { // the server's log goes there
		return st, err
	}
	data := dir
	if m.opt.RestoreInPlace {
		if err := m.own.chownTree(dir); err != nil {
			return st, err
		}
	} else {
		data = filepath.Join(scratch, "data")
		if err := copyTree(ctx, dir, data, m.own); err != nil {
			return st, fmt.Errorf("copy the backup into a new data directory: %w", err)
		}
	}
	if err := os.Chmod(data, 0o700); err != nil {
		return st, err
	}
	if m.inst == nil {
		if err := m.adaptExternal(data); err != nil {
			return st, err
		}
	}
	t0 := time.Now()
	logFile := filepath.Join(scratch, fmt.Sprintf("restore-%d.log", n))
	srv, err := instance.StartPostgres(ctx, instance.PostgresConfig{
		BinDir:  m.serverBin,
		DataDir: data,
		LogFile: logFile,
		Settings: map[string]string{
			"shared_buffers": "128MB",
			"hba_file":       filepath.Join(data, "pg_hba.conf"),
			"ident_file":     filepath.Join(data, "pg_ident.conf"),
			"ssl":            "off",
			"archive_mode":   "off",
		},
		StartTimeout: restoreStartTimeout,
		StopTimeout:  time.Minute,
		Notices:      io.Discard, // the copy's new passwords are no news
		SecretDir:    filepath.Join(scratch, fmt.Sprintf("secrets-%d", n)),
	})
	if err != nil {
		return st, fmt.Errorf("start a server on the restored data directory: %w%s", err, logTail(logFile))
	}
	defer func() { _ = srv.Stop() }()
	hook("restore-started", strconv.Itoa(int(srv.Port())))

	st.checked, st.note, err = m.check(ctx, srv)
	st.startSeconds = time.Since(t0).Seconds()
	if err != nil {
		return st, err
	}
	if err := srv.Stop(); err != nil {
		return st, fmt.Errorf("stop the restored server: %w", err)
	}
	return st, nil
}

// adaptExternal makes a copy of a server rightsize does not manage
// startable here: configuration files its data directory may lack
// (Debian keeps them in /etc) and a pg_hba.conf trusting local TCP
// connections (the source's passwords and rules do not apply).
func (m *pgMethod) adaptExternal(data string) error {
	// pg_hba.conf is written by the managed server's start (SCRAM only).
	files := map[string]string{}
	for _, f := range []string{"postgresql.conf", "pg_ident.conf"} {
		if _, err := os.Stat(filepath.Join(data, f)); errors.Is(err, os.ErrNotExist) {
			files[f] = ""
		}
	}
	for f, content := range files {
		p := filepath.Join(data, f)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			return fmt.Errorf("write %s: %w", p, err)
		}
		if err := m.own.chown(p); err != nil {
			return err
		}
	}
	return nil
}

// check connects to the restored server as its administrator (the copy
// got passwords of its own when it started), to the benchmark database,
// and checks the tables that had rows still have some.
func (m *pgMethod) check(ctx context.Context, srv *instance.Postgres) (bool, string, error) {
	cfg, err := pgx.ParseConfig(srv.AdminDSN(m.cfg.Database))
	if err != nil {
		return false, "", err
	}
	cfg.ConnectTimeout = 30 * time.Second
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return false, "", fmt.Errorf("connect to the restored server: %w", err)
	}
	defer conn.Close(context.Background())
	var empty []string
	for _, t := range m.tables {
		var has bool
		if err := conn.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM "+t.ident()+")").Scan(&has); err != nil {
			if ctx.Err() != nil {
				return false, "", ctx.Err()
			}
			empty = append(empty, t.ident()+" ("+err.Error()+")")
			continue
		}
		if !has {
			empty = append(empty, t.ident())
		}
	}
	if len(empty) > 0 {
		return false, "restored tables without rows: " + strings.Join(empty, ", "), nil
	}
	return true, "", nil
}

// logTail returns the end of a server log for an error message.
func logTail(path string) string {
	b, err := os.ReadFile(path)
	if err != nil || len(b) == 0 {
		return ""
	}
	if len(b) > 2000 {
		b = b[len(b)-2000:]
	}
	return "\nserver log (" + path + "):\n" + strings.TrimSpace(string(b))
}
