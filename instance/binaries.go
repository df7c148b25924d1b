package instance

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"

	embeddedpostgres "github.com/fergusstrange/embedded-postgres"
	"github.com/xi2/xz"
)

// The PostgreSQL binaries rightsize downloads are the ones embedded-postgres
// uses (io.zonky.test.postgres on Maven Central). rightsize fetches and
// unpacks them itself, in the process of the user running it (root, or
// the invoking user), never in the unprivileged server user's helper: the
// files are then owned by that user and not writable by the server user,
// so a server user that was compromised cannot plant a program that root
// runs later (probe backup, postgres --version).

// Versions are the PostgreSQL major versions --pg-version offers, with the
// release downloaded for each: embedded-postgres' own, except where Maven
// Central has no linux-amd64 build of it (13.21.0: the nearest that has).
var Versions = map[string]embeddedpostgres.PostgresVersion{
	"13": "13.22.0",
	"14": embeddedpostgres.V14,
	"15": embeddedpostgres.V15,
	"16": embeddedpostgres.V16,
	"17": embeddedpostgres.V17,
}

// DefaultVersion is the major version used when none is asked for.
const DefaultVersion = "15"

// VersionList is the offered majors in order, for messages.
func VersionList() string {
	v := make([]string, 0, len(Versions))
	for k := range Versions {
		v = append(v, k)
	}
	sort.Strings(v)
	return strings.Join(v, ", ")
}

// mavenRepo is where the binaries come from (embedded-postgres' default).
const mavenRepo = "https://repo1.maven.org/maven2"

// platform is the embedded-postgres-binaries platform name of this machine.
func platform() (string, error) {
	arch := map[string]string{"amd64": "amd64", "arm64": "arm64v8", "386": "i386", "ppc64le": "ppc64le"}[runtime.GOARCH]
	if arch == "" || (runtime.GOOS != "linux" && runtime.GOOS != "darwin" && runtime.GOOS != "windows") {
		return "", fmt.Errorf("no downloadable PostgreSQL for %s/%s: install PostgreSQL and use --pg-bin", runtime.GOOS, runtime.GOARCH)
	}
	if _, err := os.Stat("/etc/alpine-release"); err == nil {
		arch += "-alpine"
	}
	return runtime.GOOS + "-" + arch, nil
}

// binaries is one downloaded release.
type binaries struct {
	version string // full release, e.g. 15.13.0
	dir     string // holds bin/, lib/, share/
	dist    string // cached archive (.txz)
}

func newBinaries(base, major string) (binaries, error) {
	v, ok := Versions[major]
	if !ok {
		return binaries{}, fmt.Errorf("instance: PostgreSQL %s cannot be downloaded: use one of %s, or --pg-bin with installed binaries", major, VersionList())
	}
	plat, err := platform()
	if err != nil {
		return binaries{}, fmt.Errorf("instance: %w", err)
	}
	name := fmt.Sprintf("postgres-%s-%s", v, plat)
	return binaries{
		version: string(v),
		dir:     filepath.Join(base, "pgbin", name),
		dist:    filepath.Join(base, "pgdist", name+".txz"),
	}, nil
}

// ensure downloads (once) and unpacks (once) the release. Everything is
// created by the current user with no write permission for anyone else.
func (b binaries) ensure(ctx context.Context, logw io.Writer) error {
	marker := filepath.Join(b.dir, ".rightsize-complete")
	if err := safeToExecute(filepath.Join(b.dir, "bin", "postgres")); err == nil {
		if _, err := os.Stat(marker); err == nil {
			return nil
		}
	}
	for _, d := range []string{filepath.Dir(b.dir), filepath.Dir(b.dist)} {
		if err := ownedDir(d); err != nil {
			return err
		}
	}
	unlock, err := lockFile(b.dir + ".lock")
	if err != nil {
		return fmt.Errorf("instance: lock %s: %w", b.dir, err)
	}
	defer unlock()
	if _, err := os.Stat(marker); err == nil {
		return safeToExecute(filepath.Join(b.dir, "bin", "postgres"))
	}
	if _, err := os.Stat(b.dist); err != nil {
		fmt.Fprintf(logw, "downloading PostgreSQL %s from Maven Central\n", b.version)
		if err := b.download(ctx); err != nil {
			return err
		}
	}
	return b.unpack()
}

// ownedDir creates dir (and its parents) as the current user, mode 0755.
func ownedDir(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("instance: create %s: %w", dir, err)
	}
	return safeDir(dir)
}

func (b binaries) download(ctx context.Context) error {
	plat, _ := platform()
	goos, arch, _ := strings.Cut(plat, "-")
	art := fmt.Sprintf("embedded-postgres-binaries-%s-%s", goos, arch)
	url := fmt.Sprintf("%s/io/zonky/test/postgres/%s/%s/%s-%s.jar", mavenRepo, art, b.version, art, b.version)
	jar, err := httpGet(ctx, url)
	if err != nil {
		return fmt.Errorf("instance: download PostgreSQL %s: %w", b.version, err)
	}
	sum, err := httpGet(ctx, url+".sha256")
	if err != nil {
		return fmt.Errorf("instance: download the checksum of PostgreSQL %s: %w", b.version, err)
	}
	got := sha256.Sum256(jar)
	if want := strings.TrimSpace(string(sum)); !strings.EqualFold(want, hex.EncodeToString(got[:])) {
		return fmt.Errorf("instance: %s: checksum %x does not match the published %s", url, got, want)
	}
	zr, err := zip.NewReader(bytes.NewReader(jar), int64(len(jar)))
	if err != nil {
		return fmt.Errorf("instance: %s: %w", url, err)
	}
	for _, f := range zr.File {
		if strings.HasSuffix(f.Name, ".txz") && !f.FileInfo().IsDir() {
			return writeFileAtomic(b.dist, f)
		}
	}
	return fmt.Errorf("instance: %s holds no .txz archive", url)
}

func httpGet(ctx context.Context, url string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	return io.ReadAll(io.LimitReader(resp.Body, 512<<20))
}

func writeFileAtomic(path string, f *zip.File) error {
	r, err := f.Open()
	if err != nil {
		return err
	}
	defer r.Close()
	tmp, err := os.CreateTemp(filepath.Dir(path), ".dist-*")
	if err != nil {
		return fmt.Errorf("instance: %w", err)
	}
	defer os.Remove(tmp.Name())
	if _, err := io.Copy(tmp, r); err != nil {
		tmp.Close()
		return fmt.Errorf("instance: write %s: %w", path, err)
	}
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// unpack extracts the archive into a fresh directory and moves it into
// place; no file in it is writable by anyone but the current user.
func (b binaries) unpack() error {
	tmp, err := os.MkdirTemp(filepath.Dir(b.dir), ".unpack-")
	if err != nil {
		return fmt.Errorf("instance: %w", err)
	}
	defer os.RemoveAll(tmp)
	if err := os.Chmod(tmp, 0o755); err != nil {
		return err
	}
	if err := untarXz(b.dist, tmp); err != nil {
		return fmt.Errorf("instance: unpack %s: %w", b.dist, err)
	}
	if err := os.WriteFile(filepath.Join(tmp, ".rightsize-complete"), nil, 0o644); err != nil {
		return err
	}
	if err := os.RemoveAll(b.dir); err != nil {
		return fmt.Errorf("instance: remove the incomplete %s: %w", b.dir, err)
	}
	if err := os.Rename(tmp, b.dir); err != nil {
		return fmt.Errorf("instance: %w", err)
	}
	return nil
}

func untarXz(archive, dest string) error {
	f, err := os.Open(archive)
	if err != nil {
		return err
	}
	defer f.Close()
	xr, err := xz.NewReader(f, 0)
	if err != nil {
		return err
	}
	tr := tar.NewReader(xr)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		name := filepath.Clean(h.Name)
		if name == "." || filepath.IsAbs(name) || name == ".." || strings.HasPrefix(name, "../") {
			continue
		}
		path := filepath.Join(dest, name)
		mode := os.FileMode(h.Mode).Perm() &^ 0o022
		switch h.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(path, mode|0o700); err != nil {
				return err
			}
		case tar.TypeReg:
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				return err
			}
			out, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, mode)
			if err != nil {
				return err
			}
			if _, err := io.Copy(out, tr); err != nil {
				out.Close()
				return err
			}
			if err := out.Close(); err != nil {
				return err
			}
		case tar.TypeSymlink:
			target := h.Linkname
			if filepath.IsAbs(target) || slices.Contains(strings.Split(filepath.Clean(filepath.Join(filepath.Dir(name), target)), "/"), "..") {
				return fmt.Errorf("symlink %s -> %s leaves the archive", name, target)
			}
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				return err
			}
			if err := os.Symlink(target, path); err != nil {
				return err
			}
		}
	}
}

// FindBinaries lists the PostgreSQL binaries a managed server can start
// from: the versions extracted under the base directory base and the
// installed Debian/Ubuntu ones; note says what happens when there are
// none yet (doctor prints both).
func FindBinaries(_ context.Context, base string) (found []string, note string) {
	for _, pattern := range []string{filepath.Join(base, "pgbin", "postgres-*-*-*"), "/usr/lib/postgresql/*/bin"} {
		matches, _ := filepath.Glob(pattern)
		sort.Strings(matches)
		for _, m := range matches {
			if st, err := os.Stat(m); err != nil || !st.IsDir() {
				continue
			}
			if _, err := os.Stat(filepath.Join(m, "bin", "postgres")); err == nil || strings.HasSuffix(m, "/bin") {
				found = append(found, m)
			}
		}
	}
	if len(found) == 0 {
		note = "no binaries yet: the first start downloads PostgreSQL " + DefaultVersion + " (about 15 MB)"
	}
	return found, note
}
