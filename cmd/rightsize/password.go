package main

import (
	"fmt"
	"io"
	"net/url"
	"strings"

	"github.com/spf13/pflag"
)

// passwordFlags are the flags whose value may be a URL with a password.
var passwordFlags = []string{"target", "store"}

// safePasswords are the ways to give a password that no other local user
// can read.
const safePasswords = "PGPASSWORD or a ~/.pgpass file (PostgreSQL), MYSQL_PWD (MySQL, MariaDB), or RIGHTSIZE_STORE for --store; a study plan's password_env"

// warnPasswords says, one line per flag, that a password given on the
// command line is readable by every local user (/proc/PID/cmdline).
func warnPasswords(w io.Writer, flags *pflag.FlagSet) {
	for _, name := range passwordFlags {
		f := flags.Lookup(name)
		if f == nil || !f.Changed || !hasPassword(f.Value.String()) {
			continue
		}
		fmt.Fprintf(w, "warning: the password in --%s is readable by every local user in the process list; give it by %s\n", name, safePasswords)
	}
}

// hasPassword reports whether a target or store spec carries a password:
// a URL's user:password, or a key=value DSN's password=.
func hasPassword(spec string) bool {
	if u, err := url.Parse(spec); err == nil && u.User != nil {
		if p, ok := u.User.Password(); ok && p != "" {
			return true
		}
	}
	for _, kv := range strings.Fields(spec) {
		if k, v, ok := strings.Cut(kv, "="); ok && strings.EqualFold(k, "password") && v != "" {
			return true
		}
	}
	return false
}
