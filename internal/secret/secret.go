// Package secret keeps the random passwords of the servers rightsize
// manages. Every data directory gets its own pair (the administrator's and
// the benchmark role's), generated from crypto/rand when the directory is
// initialised or upgraded, and stored in a file only the user running
// rightsize can read: mode 0600 in a directory of mode 0700 owned by that
// user. No password is ever a constant in the code.
package secret

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Secrets are the passwords of one managed data directory.
type Secrets struct {
	// DataDir is the data directory they belong to (absolute).
	DataDir string `json:"data_dir"`
	// Admin is the password of the server's administrator (PostgreSQL's
	// superuser, MariaDB's root), used only to set the server up.
	Admin string `json:"admin"`
	// Bench is the password of the benchmark role the virtual users log in as.
	Bench string `json:"bench"`
}

// New returns fresh random secrets for dataDir.
func New(dataDir string) (Secrets, error) {
	a, err := password()
	if err != nil {
		return Secrets{}, err
	}
	b, err := password()
	if err != nil {
		return Secrets{}, err
	}
	return Secrets{DataDir: dataDir, Admin: a, Bench: b}, nil
}

// password is 24 random bytes as URL-safe base64 (32 characters that need
// no quoting in a URL, a SQL literal or a configuration file).
func password() (string, error) {
	b := make([]byte, 24)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("secret: random password: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

// Fingerprint is a short one-way digest of the secrets, safe to store next
// to the data directory to tell whether its passwords are these.
func (s Secrets) Fingerprint() string {
	h := sha256.Sum256([]byte("rightsize-secret-v1\x00" + s.Admin + "\x00" + s.Bench))
	return hex.EncodeToString(h[:8])
}

// Path is the file that holds dataDir's secrets under dir.
func Path(dir, dataDir string) string {
	h := sha256.Sum256([]byte(dataDir))
	name := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' {
			return r
		}
		return '_'
	}, filepath.Base(dataDir))
	return filepath.Join(dir, fmt.Sprintf("%s-%s.json", name, hex.EncodeToString(h[:6])))
}

// ErrNotFound reports that no usable secrets file exists for a data directory.
var ErrNotFound = errors.New("secret: no secrets file")

// Load reads dataDir's secrets from dir. A missing file, or one that
// another user owns or could read, wraps ErrNotFound with the reason: the
// caller then rotates the passwords.
func Load(dir, dataDir string) (Secrets, error) {
	path := Path(dir, dataDir)
	f, err := openNoFollow(path)
	if errors.Is(err, os.ErrNotExist) {
		return Secrets{}, fmt.Errorf("%w: %s does not exist", ErrNotFound, path)
	}
	if err != nil {
		return Secrets{}, fmt.Errorf("%w: %s: %v", ErrNotFound, path, err)
	}
	defer f.Close()
	if err := private(f); err != nil {
		return Secrets{}, fmt.Errorf("%w: %s %v", ErrNotFound, path, err)
	}
	var s Secrets
	if err := json.NewDecoder(f).Decode(&s); err != nil || s.Admin == "" || s.Bench == "" {
		return Secrets{}, fmt.Errorf("%w: %s is not a secrets file", ErrNotFound, path)
	}
	if s.DataDir != dataDir {
		return Secrets{}, fmt.Errorf("%w: %s belongs to %s", ErrNotFound, path, s.DataDir)
	}
	return s, nil
}

// Save writes s to its file under dir (created with mode 0700), mode 0600,
// replacing it atomically.
func Save(dir string, s Secrets) error {
	if err := PrivateDir(dir); err != nil {
		return err
	}
	b, err := json.Marshal(s)
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, ".secret-*")
	if err != nil {
		return fmt.Errorf("secret: %w", err)
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return fmt.Errorf("secret: %w", err)
	}
	if _, err := tmp.Write(append(b, '\n')); err != nil {
		tmp.Close()
		return fmt.Errorf("secret: write %s: %w", tmp.Name(), err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("secret: %w", err)
	}
	if err := os.Rename(tmp.Name(), Path(dir, s.DataDir)); err != nil {
		return fmt.Errorf("secret: %w", err)
	}
	prune(dir)
	return nil
}

// prune removes the files of data directories that no longer exist (a
// data directory that comes back gets new passwords at its next start).
func prune(dir string) {
	files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		var s Secrets
		if json.Unmarshal(b, &s) != nil || s.DataDir == "" {
			continue
		}
		if _, err := os.Stat(s.DataDir); errors.Is(err, os.ErrNotExist) {
			os.Remove(f)
		}
	}
}

// PrivateDir creates dir if missing and makes sure only the current user
// can enter it: owned by the effective user, mode 0700.
func PrivateDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("secret: create %s: %w", dir, err)
	}
	st, err := os.Lstat(dir)
	if err != nil {
		return fmt.Errorf("secret: %w", err)
	}
	if !st.IsDir() {
		return fmt.Errorf("secret: %s is not a directory", dir)
	}
	if uid, ok := ownerUID(st); ok && uid != os.Geteuid() {
		return fmt.Errorf("secret: %s belongs to uid %d, not to the user running rightsize (uid %d); remove it", dir, uid, os.Geteuid())
	}
	if st.Mode().Perm() != 0o700 {
		if err := os.Chmod(dir, 0o700); err != nil {
			return fmt.Errorf("secret: %w", err)
		}
	}
	return nil
}

// private checks that only the current user owns and can read f.
func private(f *os.File) error {
	st, err := f.Stat()
	if err != nil {
		return err
	}
	if uid, ok := ownerUID(st); ok {
		if st.Mode().Perm()&0o077 != 0 {
			return fmt.Errorf("has mode %#o (others may read it)", st.Mode().Perm())
		}
		if uid != os.Geteuid() {
			return fmt.Errorf("belongs to uid %d, not to uid %d", uid, os.Geteuid())
		}
	}
	return nil
}

// Redact returns err with every occurrence of password in its message
// replaced by "xxxxx". The result still wraps err, so errors.Is and
// errors.As see a cancellation or a driver error through it.
func Redact(err error, password string) error {
	if err == nil || password == "" || !strings.Contains(err.Error(), password) {
		return err
	}
	return redacted{msg: strings.ReplaceAll(err.Error(), password, "xxxxx"), err: err}
}

// redacted is an error whose message has a password taken out.
type redacted struct {
	msg string
	err error
}

func (r redacted) Error() string { return r.msg }
func (r redacted) Unwrap() error { return r.err }
