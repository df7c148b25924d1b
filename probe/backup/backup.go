// Package backup is rightsize's backup/restore probe: it times a full
// backup of the benchmark database with the engine's own tools, then a
// restore of that backup, for a number of cycles, and records the disk
// latency the host saw meanwhile — the "backup and restore" and "noisy
// neighbour" tests of database storage studies (a backup every 100 s while
// other databases run their load).
//
// # Methods
//
// PostgreSQL ("pg_basebackup"): pg_basebackup -D DIR -Fp -X stream -c fast
// copies the whole cluster (every database, plus the WAL written meanwhile)
// into a fresh directory. The restore copies that directory into a new data
// directory (plain file copy with fsync, as restoring a plain-format base
// backup is; Options.RestoreInPlace skips the copy), starts a private
// server on it with package instance (WAL replay happens there), checks
// that it answers and that the tables which had rows in the source still
// have rows, and stops it. Both the backup and the restored copy live in a
// work directory under Options.Dir, which therefore needs room for twice
// the cluster (once with RestoreInPlace).
//
// pg_basebackup and the server binaries are looked up in Options.BinDir, the
// managed server's own binaries directory, /usr/lib/postgresql/<major>/bin
// and PATH. The binaries embedded-postgres downloads hold only initdb,
// pg_ctl and postgres: they can run the restored server but a pg_basebackup
// must be installed (Debian: postgresql-client-<major>), and Run says so.
// pg_basebackup must be of the server's major version or newer; the restore
// needs server binaries of exactly the server's major version.
//
// When rightsize runs as root, PostgreSQL refuses to: the restored copy is
// handed to the server user (instance.SystemUser, or the owner of the
// managed server's data directory), and Options.Dir must be reachable by
// that user (nothing under /root).
//
// For a server rightsize does not manage, the restored copy gets a
// pg_hba.conf trusting 127.0.0.1 (the private server listens on 127.0.0.1
// only, on a free port, for the few seconds of the check), an empty
// postgresql.conf when the cluster keeps its configuration elsewhere
// (Debian's /etc/postgresql) and ssl=off; the start check of package
// instance connects as user "postgres", which must exist in the cluster.
// Tablespaces outside the data directory are not supported (plain-format
// pg_basebackup would write them to their original paths).
//
// MySQL and MariaDB: "mariadb-backup" (physical, the whole instance) when
// it is installed, the server is MariaDB on this host (127.0.0.1,
// localhost or a socket) and its data directory is readable here; the
// restore prepares the backup (--prepare), copies it into a new data
// directory (--copy-back; skipped with Options.RestoreInPlace), starts a
// private mariadbd on it (loopback only, a free port, --skip-grant-tables
// since the source's accounts are unknown), checks the tables and stops it.
// Otherwise "mysqldump" (mariadb-dump): a logical dump of the benchmark
// database (--single-transaction, routines, triggers), reloaded with the
// mysql (mariadb) client into a new database <db>_rightsize_restore on the
// same server, checked and dropped. Result.Notes says which was used and
// why. The password reaches the tools in a private option file, never on
// the command line.
//
// SQL Server ("BACKUP DATABASE"): the server backs up and restores itself:
// BACKUP DATABASE [db] TO DISK = N'<Dir>/rightsize-<db>-backup-<n>.bak'
// WITH COPY_ONLY, INIT, STATS = 10 (COPY_ONLY keeps the probe out of the
// database's backup chain), then RESTORE DATABASE [<db>_rightsize_restore]
// ... WITH REPLACE, MOVE each file next to its original; the restored
// database is checked and dropped, and the backup file deleted with
// xp_delete_files (2019+) or xp_delete_file (a note says when neither
// works). Options.Dir is a directory on the SQL Server host ("" means
// SERVERPROPERTY('InstanceDefaultBackupPath'), SQL Server 2019+); Bytes is
// msdb's backup_size. The disk latency recorded is this machine's, which is
// the server's only when rightsize runs on it.
//
// # Timing
//
// BackupSeconds is the wall time of the backup tool; BackupMBps is the
// backup's size (bytes of the files written, MB = 10^6 bytes) over that
// time. RestoreSeconds covers the copy, the server start (recovery) and the
// check; RestoreMBps is the same byte count over RestoreSeconds. The disk
// latency per telemetry interval (1 s by default) over all of the host's
// disks, weighted by I/O count, is recorded for the whole cycle.
//
// # Interruption
//
// When ctx is cancelled (Ctrl-C), the running tool is killed, a restored
// server is stopped, the work directory is removed (a kept backup of a
// completed cycle stays), and Run returns the cycles completed so far with
// Result.Partial set and ctx's error.
package backup

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/rightsize/rightsize/instance"
	"github.com/rightsize/rightsize/internal/units"
	"github.com/rightsize/rightsize/probe/result"
	"github.com/rightsize/rightsize/telemetry"
)

// Method names reported in Result.Method and accepted in Options.Method.
const (
	MethodPgBasebackup  = "pg_basebackup"
	MethodMariaDBBackup = "mariadb-backup"
	MethodMySQLDump     = "mysqldump"
	MethodMSSQL         = "BACKUP DATABASE"
)

// NoisyNeighbourEvery is the backup period of the noisy-neighbour study
// (a backup every 100 s).
const NoisyNeighbourEvery = 100 * time.Second

// Options configure Run.
type Options struct {
	// Dir is where backups (and restored copies) go. Run works in a new
	// directory rightsize-backup-* inside it, removed at the end. "" means
	// next to the managed server's data directory (same file system), else
	// instance.DefaultBaseDir()/backups. For SQL Server, Dir is a directory
	// on the SQL Server host; "" means the server's default backup
	// directory.
	Dir string
	// Cycles is the number of backup+restore cycles; 0 means 1.
	Cycles int
	// Every starts a cycle every Every, counted from the start of the
	// first one (cycle i at i x Every, or at the next multiple if the
	// previous cycle overran); 0 runs the cycles back to back. The
	// noisy-neighbour study uses NoisyNeighbourEvery.
	Every time.Duration
	// Interval is the telemetry sampling interval; 0 means 1 s.
	Interval time.Duration
	// Keep keeps the last completed cycle's backup (Result.Kept names it)
	// instead of removing it.
	Keep bool
	// RestoreInPlace starts the restored server directly on the backup
	// instead of a copy (PostgreSQL, mariadb-backup): half the space, but
	// the restore then measures recovery only, not writing the data files,
	// and a kept backup is the recovered data directory.
	RestoreInPlace bool
	// BinDir is a PostgreSQL binaries directory to look in first for
	// pg_basebackup and the server binaries of the restore.
	BinDir string
	// Method forces a method: "" picks the best available; for MySQL and
	// MariaDB, MethodMySQLDump or MethodMariaDBBackup.
	Method string
}

// Cycle is one backup and restore (defined in probe/result).
type Cycle = result.BackupCycle

// Result is the outcome of Run (defined in probe/result so the report can
// read stored probes without linking database drivers).
type Result = result.Backup

// Target is the database Run backs up.
type Target interface {
	// Engine names the engine: "postgres", "mysql" or "mssql".
	Engine() string
	// BackupMethod is the engine's way to back up and restore (the zero
	// Method: it has none).
	BackupMethod() Method
	// DSN is the connection string of the benchmark database:
	// postgres://..., mysql://user:pass@host:port/db, or a SQL Server
	// sqlserver://... URL.
	DSN() string
}

// ManagedPostgres is implemented by targets whose PostgreSQL server
// rightsize started (the embedded target): Run then finds the server's
// binaries and data directory through it and watches its processes.
type ManagedPostgres interface {
	PostgresInstance() *instance.Postgres
}

// Spec is a ready-made Target.
type Spec struct {
	// EngineName is "postgres", "mysql" or "mssql".
	EngineName string
	// Method is the engine's method (the engine registry's Backup).
	Method Method
	// URL is the connection string of the benchmark database.
	URL string
	// Postgres is the managed server, nil for external servers.
	Postgres *instance.Postgres
}

// Engine implements Target.
func (s Spec) Engine() string { return s.EngineName }

// DSN implements Target.
func (s Spec) DSN() string { return s.URL }

// BackupMethod implements Target.
func (s Spec) BackupMethod() Method { return s.Method }

// PostgresInstance implements ManagedPostgres.
func (s Spec) PostgresInstance() *instance.Postgres { return s.Postgres }

// method is one engine's way to back up and restore.
type method interface {
	name() string
	version() string
	notes() []string
	// serverPID is the database server's process to watch (0: none).
	serverPID() int
	// local reports whether backups are files on this machine (under a
	// work directory Run creates); SQL Server's are on the server.
	local() bool
	// defaultDir is the directory used when Options.Dir is "".
	defaultDir(ctx context.Context) (string, error)
	// prepareWorkDir checks and adapts the work directory (ownership,
	// free space) before the first cycle.
	prepareWorkDir(dir string) error
	// backup writes a full backup to dir (which it creates) and returns
	// its size. started is called once the tool runs.
	backup(ctx context.Context, dir string, started func()) (int64, error)
	// restore restores the backup in dir, using the new directory scratch
	// for any files (removed by the caller), checks it and cleans up what
	// it started.
	restore(ctx context.Context, dir, scratch string, n int) (restoreStats, error)
	// remove deletes a backup of a method that is not local (Run removes
	// the files of local ones).
	remove(name string) error
	// where tells where backup name is (a path on this machine or on the
	// server).
	where(name string) string
	close()
}

// restoreStats is what a restore reports besides its duration.
type restoreStats struct {
	startSeconds float64
	checked      bool
	note         string
}

// testHook, when set by tests, is called at points where a test may
// cancel the run: "backup-started" (the tool runs; info is the backup
// directory) and "restore-started" (the restored server answers; info is
// its port).
var testHook func(event, info string)

func hook(event, info string) {
	if testHook != nil {
		testHook(event, info)
	}
}

// Run backs up and restores t's database opt.Cycles times and returns the
// timings. progress, if not nil, receives one line per phase. See the
// package documentation for the methods, what they need and how an
// interruption is handled.
func Run(ctx context.Context, t Target, opt Options, progress func(string)) (Result, error) {
	if progress == nil {
		progress = func(string) {}
	}
	opt, err := opt.withDefaults()
	if err != nil {
		return Result{}, err
	}
	res := Result{Engine: t.Engine(), EverySeconds: opt.Every.Seconds()}
	res.Host, _ = os.Hostname()

	m, err := newMethod(ctx, t, opt)
	if err != nil {
		return res, err
	}
	defer m.close()
	res.Version, res.Method, res.Notes = m.version(), m.name(), m.notes()

	base := opt.Dir
	if base == "" {
		if base, err = m.defaultDir(ctx); err != nil {
			return res, err
		}
	}
	res.Dir = base
	work := ""
	if m.local() {
		if res.Dir, work, err = makeWorkDir(m, base); err != nil {
			return res, err
		}
	}

	kept := "" // the kept backup of the last completed cycle (local: its path)
	defer func() { cleanWorkDir(work, kept) }()

	rec := telemetry.Start(ctx, opt.Interval, m.serverPID())
	defer rec.Stop()

	res.StartedAt = time.Now()
	var runErr error
	for i := 0; i < opt.Cycles; i++ {
		n := i + 1
		note := ""
		if i > 0 && opt.Every > 0 {
			if note, err = waitForSlot(ctx, res.StartedAt, i, opt, progress); err != nil {
				runErr = err
				break
			}
		}
		c, err := runCycle(ctx, m, opt, work, n, progress)
		if err != nil {
			runErr = err
			break
		}
		if note != "" {
			c.Note = strings.TrimPrefix(c.Note+"; "+note, "; ")
		}
		var dropErr error
		if kept, dropErr = settleBackup(m, opt.Keep, work, n, kept); dropErr != nil {
			c.Note = strings.TrimPrefix(c.Note+"; "+dropErr.Error(), "; ")
		}
		res.Cycles = append(res.Cycles, c)
	}
	if len(res.Cycles) > 0 && ctx.Err() == nil {
		// let the sampler close the interval holding the last cycle's end
		_ = sleepUntil(ctx, time.Now().Add(opt.Interval+opt.Interval/4))
	}
	addDiskSeries(res.Cycles, rec.Stop())
	if kept != "" {
		res.Kept = m.where(kept)
	}
	if runErr != nil {
		res.Partial = true
		return res, runErr
	}
	return res, nil
}

// runCycle runs backup n and its restore.
func runCycle(ctx context.Context, m method, opt Options, work string, n int, progress func(string)) (c Cycle, err error) {
	c = Cycle{N: n, Start: time.Now()}
	bdir := fmt.Sprintf("backup-%d", n)
	scratch := ""
	if m.local() {
		bdir = filepath.Join(work, bdir)
		scratch = filepath.Join(work, fmt.Sprintf("restore-%d", n))
	}
	defer func() {
		if scratch != "" {
			_ = os.RemoveAll(scratch)
		}
		if err != nil {
			if m.local() {
				_ = os.RemoveAll(bdir)
			} else {
				_ = m.remove(bdir)
			}
		}
	}()
	if scratch != "" {
		if err := os.Mkdir(scratch, 0o755); err != nil {
			return c, fmt.Errorf("backup: %w", err)
		}
	}

	progress(fmt.Sprintf("cycle %d/%d: backup with %s", n, opt.Cycles, m.name()))
	t0 := time.Now()
	c.Bytes, err = m.backup(ctx, bdir, func() { hook("backup-started", bdir) })
	if err != nil {
		return c, cycleErr(ctx, n, "backup", err)
	}
	c.BackupSeconds = time.Since(t0).Seconds()
	c.BackupMBps = mbps(c.Bytes, c.BackupSeconds)
	progress(fmt.Sprintf("cycle %d/%d: backup done: %s in %.1f s (%.1f MB/s)", n, opt.Cycles, units.HumanBytes(c.Bytes), c.BackupSeconds, c.BackupMBps))

	progress(fmt.Sprintf("cycle %d/%d: restore", n, opt.Cycles))
	t0 = time.Now()
	st, err := m.restore(ctx, bdir, scratch, n)
	if err != nil {
		return c, cycleErr(ctx, n, "restore", err)
	}
	c.RestoreSeconds = time.Since(t0).Seconds()
	c.RestoreMBps = mbps(c.Bytes, c.RestoreSeconds)
	c.RestoreStartSeconds = st.startSeconds
	c.RestoreChecked, c.Note = st.checked, st.note
	c.End = time.Now()
	check := "checked"
	if !c.RestoreChecked {
		check = "NOT checked: " + c.Note
	}
	progress(fmt.Sprintf("cycle %d/%d: restore done: %.1f s (%.1f MB/s), %s", n, opt.Cycles, c.RestoreSeconds, c.RestoreMBps, check))
	return c, nil
}

// cycleErr names the phase, preferring ctx's error when it was cancelled.
func cycleErr(ctx context.Context, n int, phase string, err error) error {
	if ctx.Err() != nil {
		return fmt.Errorf("backup: cycle %d: %s interrupted: %w", n, phase, context.Cause(ctx))
	}
	return fmt.Errorf("backup: cycle %d: %s: %w", n, phase, err)
}

func sleepUntil(ctx context.Context, t time.Time) error {
	d := time.Until(t)
	if d <= 0 {
		return ctx.Err()
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return context.Cause(ctx)
	case <-timer.C:
		return nil
	}
}

func mbps(bytes int64, secs float64) float64 {
	if secs <= 0 {
		return 0
	}
	return float64(bytes) / 1e6 / secs
}

// Method is an engine's way to back up and restore, which the engine
// registry gives each engine that has one (Postgres, MySQL, MSSQL, each
// declared in the engine's own file; the zero Method backs up nothing).
type Method struct {
	open func(ctx context.Context, t Target, opt Options) (method, error)
}

// newMethod opens the engine's method.
func newMethod(ctx context.Context, t Target, opt Options) (method, error) {
	if m := t.BackupMethod(); m.open != nil {
		return m.open(ctx, t, opt)
	}
	return nil, fmt.Errorf("backup: engine %q is not supported (it has no backup method)", t.Engine())
}

// errTail keeps the last lines of a tool's output for error messages.
type errTail struct{ b []byte }

func (t *errTail) Write(p []byte) (int, error) {
	t.b = append(t.b, p...)
	if len(t.b) > 8<<10 {
		t.b = append(t.b[:0], t.b[len(t.b)-4<<10:]...)
	}
	return len(p), nil
}

func (t *errTail) String() string { return strings.TrimSpace(string(t.b)) }

// toolError formats a failed tool run.
func toolError(tool string, err error, out *errTail) error {
	if s := out.String(); s != "" {
		return fmt.Errorf("%s: %w: %s", tool, err, s)
	}
	return fmt.Errorf("%s: %w", tool, err)
}

// errUnavailable marks a method whose tools or conditions are missing.
var errUnavailable = errors.New("not available")

// FormatText writes r as the table backup studies print: per cycle the
// backup and restore duration and throughput, the size, whether the
// restore was checked and the disk latency meanwhile; then the averages.
func FormatText(w io.Writer, r Result) {
	every := "back to back"
	if r.EverySeconds > 0 {
		every = fmt.Sprintf("every %v", time.Duration(r.EverySeconds*float64(time.Second)))
	}
	fmt.Fprintf(w, "Backup/restore probe: %s, %s, %d cycle(s) %s, to %s (host %s)\n", r.Version, r.Method, len(r.Cycles), every, r.Dir, r.Host)
	for _, n := range r.Notes {
		fmt.Fprintf(w, "  note: %s\n", n)
	}
	fmt.Fprintf(w, "\n  %5s | %12s | %10s | %10s | %10s | %10s | %8s | %12s | %12s\n",
		"cycle", "size", "backup s", "backup MB/s", "restore s", "rest. MB/s", "checked", "disk avg ms", "disk max ms")
	fmt.Fprintf(w, "  %s\n", strings.Repeat("-", 5+12+10+11+10+10+8+12+12+8*3+4))
	var sb, sr, lat float64
	for _, c := range r.Cycles {
		maxLat := 0.0
		for _, l := range c.DiskLatencyMs {
			maxLat = max(maxLat, l)
		}
		checked := "yes"
		if !c.RestoreChecked {
			checked = "NO"
		}
		fmt.Fprintf(w, "  %5d | %12s | %10.1f | %11.1f | %10.1f | %10.1f | %8s | %12.2f | %12.2f\n",
			c.N, units.HumanBytes(c.Bytes), c.BackupSeconds, c.BackupMBps, c.RestoreSeconds, c.RestoreMBps, checked, c.DiskAvgLatencyMs, maxLat)
		sb += c.BackupSeconds
		sr += c.RestoreSeconds
		lat += c.DiskAvgLatencyMs
	}
	if n := float64(len(r.Cycles)); n > 1 {
		fmt.Fprintf(w, "  %5s | %12s | %10.1f | %11s | %10.1f | %10s | %8s | %12.2f |\n", "avg", "", sb/n, "", sr/n, "", "", lat/n)
	}
	for _, c := range r.Cycles {
		if c.Note != "" {
			fmt.Fprintf(w, "  cycle %d: %s\n", c.N, c.Note)
		}
	}
	if r.Partial {
		fmt.Fprintln(w, "  interrupted: partial result")
	}
	if r.Kept != "" {
		fmt.Fprintf(w, "  backup kept in %s\n", r.Kept)
	}
}

// makeWorkDir creates, under the absolute form of base, the work directory
// a local method writes its backups into; it returns both paths.
func makeWorkDir(m method, base string) (abs, work string, err error) {
	rel := base
	if base, err = filepath.Abs(base); err != nil {
		return rel, "", fmt.Errorf("backup: directory: %w", err)
	}
	if err := os.MkdirAll(base, 0o755); err != nil {
		return base, "", fmt.Errorf("backup: create %s: %w", base, err)
	}
	if work, err = os.MkdirTemp(base, "rightsize-backup-"); err != nil {
		return base, "", fmt.Errorf("backup: create a work directory in %s: %w", base, err)
	}
	if err := os.Chmod(work, 0o755); err != nil {
		os.RemoveAll(work)
		return base, "", fmt.Errorf("backup: %w", err)
	}
	if err := m.prepareWorkDir(work); err != nil {
		os.RemoveAll(work)
		return base, "", err
	}
	return base, work, nil
}

// waitForSlot sleeps until the next free period slot for cycle i (0-based,
// i > 0) and returns a note when an overrunning cycle pushed it to a later slot.
func waitForSlot(ctx context.Context, start time.Time, i int, opt Options, progress func(string)) (string, error) {
	note := ""
	slot := i
	next := start.Add(time.Duration(slot) * opt.Every)
	for now := time.Now(); next.Before(now); next = start.Add(time.Duration(slot) * opt.Every) {
		slot++
	}
	if slot > i {
		note = fmt.Sprintf("started at %v instead of %v: the previous cycle overran", time.Duration(slot)*opt.Every, time.Duration(i)*opt.Every)
	}
	progress(fmt.Sprintf("cycle %d/%d: waiting until %s", i+1, opt.Cycles, next.Format("15:04:05")))
	return note, sleepUntil(ctx, next)
}

// addDiskSeries fills each cycle's disk latency and throughput series, and its
// average latency, from the samples inside its window.
func addDiskSeries(cycles []Cycle, samples []telemetry.Sample) {
	for i := range cycles {
		c := &cycles[i]
		win := telemetry.Window(samples, c.Start, c.End)
		for _, s := range win {
			one := telemetry.Summarize([]telemetry.Sample{s})
			c.DiskLatencyMs = append(c.DiskLatencyMs, one.DiskAvgLatencyMs)
			c.DiskMBps = append(c.DiskMBps, one.DiskReadMBps+one.DiskWriteMBps)
		}
		c.DiskAvgLatencyMs = telemetry.Summarize(win).DiskAvgLatencyMs
	}
}

// cleanWorkDir removes a local method's work directory, or, when a backup is
// kept, everything in it but that backup.
func cleanWorkDir(work, kept string) {
	if work == "" {
		return
	}
	if kept == "" {
		_ = os.RemoveAll(work)
		return
	}
	entries, _ := os.ReadDir(work)
	for _, e := range entries {
		if p := filepath.Join(work, e.Name()); p != kept {
			_ = os.RemoveAll(p)
		}
	}
}

// settleBackup keeps cycle n's backup when keep, dropping the one kept
// before, else drops it; it returns the backup kept now and the error of
// dropping cycle n's.
func settleBackup(m method, keep bool, work string, n int, kept string) (string, error) {
	bdir := fmt.Sprintf("backup-%d", n)
	if m.local() {
		bdir = filepath.Join(work, bdir)
	}
	drop := func(dir string) error {
		if m.local() {
			return os.RemoveAll(dir)
		}
		return m.remove(dir)
	}
	if keep {
		if kept != "" {
			_ = drop(kept)
		}
		return bdir, nil
	}
	return kept, drop(bdir)
}

// withDefaults fills the unset cycle count and sampling interval.
func (opt Options) withDefaults() (Options, error) {
	if opt.Cycles <= 0 {
		opt.Cycles = 1
	}
	if opt.Interval <= 0 {
		opt.Interval = time.Second
	}
	if opt.Every < 0 {
		return opt, fmt.Errorf("backup: negative period %v", opt.Every)
	}
	return opt, nil
}
