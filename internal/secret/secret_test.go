package secret

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

func TestSaveLoad(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "secrets")
	data := t.TempDir()
	s, err := New(data)
	if err != nil {
		t.Fatal(err)
	}
	s2, _ := New(data)
	if s.Admin == s2.Admin || s.Admin == s.Bench || len(s.Admin) < 32 {
		t.Fatalf("passwords not random: %q %q %q", s.Admin, s2.Admin, s.Bench)
	}
	if _, err := Load(dir, data); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Load before Save: %v, want ErrNotFound", err)
	}
	if err := Save(dir, s); err != nil {
		t.Fatal(err)
	}
	got, err := Load(dir, data)
	if err != nil || got != s {
		t.Fatalf("Load = %+v, %v; want %+v", got, err, s)
	}
	if runtime.GOOS == "windows" {
		return
	}
	for path, want := range map[string]os.FileMode{dir: 0o700, Path(dir, data): 0o600} {
		st, err := os.Stat(path)
		if err != nil || st.Mode().Perm() != want {
			t.Errorf("%s: mode %v, %v; want %#o", path, st.Mode().Perm(), err, want)
		}
	}
	// A file others could read is not trusted: the caller rotates.
	if err := os.Chmod(Path(dir, data), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(dir, data); !errors.Is(err, ErrNotFound) {
		t.Errorf("Load of a mode 0644 file: %v, want ErrNotFound", err)
	}
}

func TestPrune(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "secrets")
	gone := filepath.Join(t.TempDir(), "gone")
	kept := t.TempDir()
	for _, d := range []string{gone, kept} {
		s, _ := New(d)
		if err := Save(dir, s); err != nil {
			t.Fatal(err)
		}
	}
	// gone never existed: the next Save removes its file
	if _, err := os.Stat(Path(dir, gone)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("secrets of a missing data directory kept: %v", err)
	}
	if _, err := Load(dir, kept); err != nil {
		t.Errorf("secrets of an existing data directory lost: %v", err)
	}
	if s, _ := New(kept); s.Fingerprint() == (Secrets{}).Fingerprint() {
		t.Error("fingerprint ignores the passwords")
	}
}

func TestRedact(t *testing.T) {
	const pw = "s3cr3t-pw"
	cause := fmt.Errorf("timeout: %w", context.DeadlineExceeded)
	for _, tc := range []struct {
		name string
		err  error
		want string
	}{
		{"nil", nil, ""},
		{"no password", cause, "timeout: context deadline exceeded"},
		{"password", fmt.Errorf("ALTER ROLE x PASSWORD '%s': %w", pw, cause), "ALTER ROLE x PASSWORD 'xxxxx': timeout: context deadline exceeded"},
		{"twice", fmt.Errorf("%s %s: %w", pw, pw, cause), "xxxxx xxxxx: timeout: context deadline exceeded"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Redact(tc.err, pw)
			if tc.err == nil {
				if got != nil {
					t.Fatalf("Redact(nil) = %v", got)
				}
				return
			}
			if got.Error() != tc.want {
				t.Errorf("message = %q, want %q", got.Error(), tc.want)
			}
			if !errors.Is(got, context.DeadlineExceeded) {
				t.Errorf("%v does not wrap context.DeadlineExceeded", got)
			}
		})
	}
}
