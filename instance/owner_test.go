package instance

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/rightsize/rightsize/internal/procid"
	"github.com/rightsize/rightsize/internal/procid/procidtest"
)

// handTo rewrites dataDir's owner record as if owner had made it.
func handTo(t *testing.T, dataDir string, owner procid.ID) ownerRecord {
	t.Helper()
	r, err := readRecord(recordPath(dataDir))
	if err != nil {
		t.Fatalf("no owner record for %s: %v", dataDir, err)
	}
	r.Owner = owner
	if err := writeRecord(r); err != nil {
		t.Fatal(err)
	}
	return r
}

// TestReclaim: a server whose owner is alive is left running and refuses
// a second start on its data directory; once its owner is gone, Reclaim
// stops it with one line naming it, and the next start goes on. A
// temporary copy of a dead owner is removed.
func TestReclaim(t *testing.T) {
	if testing.Short() {
		t.Skip("starts PostgreSQL")
	}
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("needs /proc")
	}
	cfg := testConfig(t)
	p := start(t, cfg)
	pid, err := p.PID()
	if err != nil {
		t.Fatal(err)
	}
	if r, err := readRecord(recordPath(p.DataDir())); err != nil || r.Owner != procid.Self() || r.Server != pid || r.Copier.PID != 0 {
		t.Fatalf("owner record %+v, %v; want this process owning pid %d", r, err, pid)
	}
	var notes bytes.Buffer
	Reclaim(&notes)
	if !ProcessRunning(pid) || strings.Contains(notes.String(), p.DataDir()) {
		t.Fatalf("Reclaim touched a live owner's server (running %v): %s", ProcessRunning(pid), notes.String())
	}
	second := cfg
	second.Port = 0
	if _, err := StartPostgres(context.Background(), second); err == nil || !strings.Contains(err.Error(), "in use by a running server (pid "+strconv.Itoa(pid)+", started by rightsize pid "+strconv.Itoa(os.Getpid())+", still running)") {
		t.Fatalf("a second start on a live owner's data dir: %v, want refused as in use", err)
	}

	dead := procidtest.Killed(t)
	handTo(t, p.DataDir(), dead)
	notes.Reset()
	Reclaim(&notes)
	line := notes.String()
	if ProcessRunning(pid) || !strings.Contains(line, "pid "+strconv.Itoa(pid)+" on "+p.DataDir()) || !strings.Contains(line, "(pid "+strconv.Itoa(dead.PID)) {
		t.Fatalf("the server of a dead owner: running %v, notice %q", ProcessRunning(pid), line)
	}
	if _, err := os.Stat(recordPath(p.DataDir())); !os.IsNotExist(err) {
		t.Errorf("the record of a reclaimed server is left: %v", err)
	}
	// killed mid-start: the record names the port, not yet the server
	again := start(t, second)
	againPID, _ := again.PID()
	for _, port := range []uint32{again.Port() + 1, again.Port()} {
		if err := writeRecord(ownerRecord{DataDir: p.DataDir(), Owner: dead, Port: port}); err != nil {
			t.Fatal(err)
		}
		notes.Reset()
		Reclaim(&notes)
		if stopped := !ProcessRunning(againPID); stopped != (port == again.Port()) {
			t.Fatalf("a dead owner's start on port %d, the server on %d: stopped %v (%q)", port, again.Port(), stopped, notes.String())
		}
	}
	again = start(t, second)
	if err := again.Stop(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(recordPath(p.DataDir())); !os.IsNotExist(err) {
		t.Errorf("a stopped server's record is left: %v", err)
	}

	clone := filepath.Join(filepath.Dir(p.DataDir()), "clone")
	if err := CloneDataDir(p.DataDir(), clone); err != nil {
		t.Fatal(err)
	}
	r, err := readRecord(recordPath(clone))
	if err != nil || r.Copier != procid.Self() {
		t.Fatalf("a copy's record %+v, %v: want this process as its copier", r, err)
	}
	r.Copier = dead
	if err := writeRecord(r); err != nil {
		t.Fatal(err)
	}
	notes.Reset()
	Reclaim(&notes)
	if _, err := os.Stat(clone); !os.IsNotExist(err) || !regexp.MustCompile(`removed \d+ temporary data directory cop`).MatchString(notes.String()) {
		t.Fatalf("a dead owner's copy: %v, notice %q", err, notes.String())
	}
	assertNotRunning(t, p.DataDir())
}

// TestPrivate: owner records are read only from a directory of the
// current user that no one else may write in.
func TestPrivate(t *testing.T) {
	base := t.TempDir()
	for _, c := range []struct {
		name string
		make func(string) error
		want bool
	}{
		{"mode 0700", func(d string) error { return os.Mkdir(d, 0o700) }, true},
		{"writable by others", func(d string) error {
			if err := os.Mkdir(d, 0o700); err != nil {
				return err
			}
			return os.Chmod(d, 0o777)
		}, false},
		{"a link", func(d string) error { return os.Symlink(base, d) }, false},
		{"missing", func(string) error { return nil }, false},
	} {
		d := filepath.Join(base, strings.ReplaceAll(c.name, " ", "-"))
		if err := c.make(d); err != nil {
			t.Fatal(err)
		}
		if got := private(d); got != c.want {
			t.Errorf("%s: private = %v, want %v", c.name, got, c.want)
		}
	}
}
