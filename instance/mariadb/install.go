package mariadb

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"
)

// searchDirs are looked at after $PATH for the server and its tools
// (/usr/sbin is often missing from a non-root PATH).
var searchDirs = []string{"/usr/sbin", "/usr/bin", "/usr/local/sbin", "/usr/local/bin",
	"/usr/local/mysql/bin", "/usr/local/mysql/scripts", "/usr/libexec", "/opt/mariadb/bin", "/opt/mysql/bin"}

// lookPath finds the first of names in $PATH or searchDirs; "" if none.
func lookPath(names ...string) string {
	for _, n := range names {
		if p, err := exec.LookPath(n); err == nil {
			return p
		}
	}
	for _, n := range names {
		for _, d := range searchDirs {
			p := filepath.Join(d, n)
			if st, err := os.Stat(p); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
				return p
			}
		}
	}
	return ""
}

// serverBinary returns the path of mariadbd (or mysqld); "" if not installed.
func serverBinary() string { return lookPath("mariadbd", "mysqld") }

// installDBBinary returns the path of mariadb-install-db (or
// mysql_install_db); "" if not installed (MySQL 8 initialises with
// mysqld --initialize-insecure instead).
func installDBBinary() string { return lookPath("mariadb-install-db", "mysql_install_db") }

// Installed reports whether a MariaDB or MySQL server binary is available.
func Installed() bool { return serverBinary() != "" }

// FindBinaries lists the server binary on PATH with its version; note
// says how to install one when Installed finds none (doctor prints both).
func FindBinaries(ctx context.Context, _ string) (found []string, note string) {
	for _, name := range []string{"mariadbd", "mysqld"} {
		if p, err := exec.LookPath(name); err == nil {
			vctx, cancel := context.WithTimeout(ctx, 10*time.Second)
			out, _ := exec.CommandContext(vctx, p, "--no-defaults", "--version").CombinedOutput()
			cancel()
			found = append(found, p+" ("+strings.TrimSpace(string(out))+")")
			break
		}
	}
	if !Installed() {
		note = "not installed (Debian: apt-get install mariadb-server)"
	}
	return found, note
}

// EnsureInstalled makes sure a MariaDB server binary is available. When
// mariadbd/mysqld is missing it installs the Debian package mariadb-server
// (apt-get update && apt-get install -y mariadb-server; needs root and
// apt-get). The package's own system-wide service is never used: if the
// installation started it, it is stopped and disabled again, and Start only
// ever runs private servers with their own data directory, socket, pid file
// and port. Concurrent calls (several test binaries) are serialised with a
// lock file.
func EnsureInstalled(ctx context.Context) error {
	if Installed() {
		return nil
	}
	if runtime.GOOS != "linux" {
		return fmt.Errorf("mariadb: no mariadbd or mysqld found; install MariaDB 10.11+ (or MySQL 8) and put it on PATH")
	}
	aptGet := lookPath("apt-get")
	if aptGet == "" {
		return errors.New("mariadb: no mariadbd or mysqld found and apt-get is not available; " +
			"install MariaDB 10.11+ (or MySQL 8) with the system's package manager")
	}
	if os.Geteuid() != 0 {
		return errors.New("mariadb: no mariadbd or mysqld found; installing needs root: " +
			"run sudo apt-get install -y mariadb-server (rightsize never uses the system service it creates)")
	}
	unlock, err := lockFile(filepath.Join(os.TempDir(), "rightsize-mariadb-install.lock"))
	if err != nil {
		return fmt.Errorf("mariadb: lock for installation: %w", err)
	}
	defer unlock()
	if Installed() { // another process installed it while we waited
		return nil
	}
	env := append(os.Environ(), "DEBIAN_FRONTEND=noninteractive")
	run := func(args ...string) error {
		var out bytes.Buffer
		// wait for another apt/dpkg run (another tool installing) instead of failing
		args = append([]string{"-o", "DPkg::Lock::Timeout=900"}, args...)
		cmd := exec.CommandContext(ctx, aptGet, args...)
		cmd.Env = env
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("mariadb: apt-get %s: %v\n%s", strings.Join(args[2:], " "), err, tail(out.Bytes(), 2000))
		}
		return nil
	}
	if err := run("update"); err != nil {
		return err
	}
	if err := run("install", "-y", "--no-install-recommends", "mariadb-server"); err != nil {
		return err
	}
	stopSystemService(ctx)
	if !Installed() {
		return errors.New("mariadb: apt-get installed mariadb-server but no mariadbd or mysqld binary was found")
	}
	return nil
}

// stopSystemService stops and disables the distribution's MariaDB/MySQL
// service if the package installation started it. Errors are ignored: on
// most containers no service was started (policy-rc.d, no init system).
func stopSystemService(ctx context.Context) {
	quiet := func(name string, args ...string) {
		if p := lookPath(name); p != "" {
			_ = exec.CommandContext(ctx, p, args...).Run()
		}
	}
	systemd := false
	if st, err := os.Stat("/run/systemd/system"); err == nil && st.IsDir() {
		systemd = true
	}
	for _, svc := range []string{"mariadb", "mysql"} {
		if systemd {
			quiet("systemctl", "stop", svc)
			quiet("systemctl", "disable", svc)
		} else {
			quiet("service", svc, "stop")
			quiet("update-rc.d", svc, "disable")
		}
	}
}

// tail returns at most the last n bytes of b, as a string.
func tail(b []byte, n int) string {
	if len(b) > n {
		b = b[len(b)-n:]
	}
	return strings.TrimSpace(string(b))
}
