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
// stdin, drops from root to the server user if asked, runs initdb for a new
// cluster (initCluster), writes pg_hba.conf and sets the administrator's
// password when asked (writeAuth), runs embedded-postgres' Start — pg_ctl
// start -w and a connection check — and writes a startResponse as the last
// line of stdout. The binaries are already in place: the parent downloads
// them as its own user (binaries.go), never the server user. Output of initdb, pg_ctl and the library goes to stderr,
// which the parent points at the log. A separate process
//   - can drop root for good without touching the main process's identity,
//   - can be killed with its pg_ctl/initdb when the context is cancelled
//     (the library's start cannot be interrupted),
//   - gets a private TMPDIR (the library leaves a temp log file per start)
//     and an environment without PG* variables.
const (
	helperEnv   = "RIGHTSIZE_INSTANCE_HELPER"
	helperMagic = "postgres-start-v2"
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
	RunDir       string
	// Password is the administrator's; SetPassword sets it (single-user
	// mode) and records Fingerprint in the data directory.
	Password     string
	SetPassword  bool
	Fingerprint  string
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
	// Everything the server creates (runtime and socket directories,
	// files) is its user's alone.
	setUmask(0o077)
	for _, dir := range []string{req.TempDir, filepath.Dir(req.BinariesPath), req.DataDir, filepath.Dir(req.LogFile)} {
		if _, err := os.Stat(dir); err != nil {
			return fmt.Errorf("user uid %d cannot reach %s: %w (every directory above it must be searchable by that user; nothing under /root is)", os.Geteuid(), dir, err)
		}
	}

	// embedded-postgres writes its log to a temp file it never removes:
	// keep it in the private directory the parent removes afterwards.
	tmp := req.TempDir
	os.Setenv("TMPDIR", tmp)

	if _, err := os.Stat(filepath.Join(req.DataDir, "PG_VERSION")); err != nil {
		if err := initCluster(req, tmp); err != nil {
			return err
		}
	}
	if err := writeAuth(req); err != nil {
		return err
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
		Password(req.Password).
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
	if err := os.WriteFile(pwfile, []byte(req.Password), 0o600); err != nil {
		return fmt.Errorf("write password file: %w", err)
	}
	defer os.Remove(pwfile)
	var out bytes.Buffer
	cmd := exec.Command(filepath.Join(req.BinariesPath, "bin", "initdb"),
		"-A", "scram-sha-256", "-U", pgUser, "-D", req.DataDir, "--pwfile="+pwfile,
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
