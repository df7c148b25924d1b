package main

import (
	"fmt"
	"io"
	"net/url"
	"strings"

	"github.com/spf13/pflag"
)

// safePasswords are the ways to give a password that no other local user
// can read.
const safePasswords = "PGPASSWORD or a ~/.pgpass file (PostgreSQL), MYSQL_PWD (MySQL, MariaDB), or RIGHTSIZE_STORE for --store; a study plan's password_env"

// warnPassword says in one line that the password given in flag name
// (--target, --store) is readable by every local user (/proc/PID/cmdline).
// It is said at the end of a command that succeeded, so that bad input
// stays one line.
func warnPassword(w io.Writer, flags *pflag.FlagSet, name string) {
	f := flags.Lookup(name)
	if f == nil || !f.Changed || !hasPassword(f.Value.String()) {
		return
	}
	fmt.Fprintf(w, "warning: the password in --%s is readable by every local user in the process list; give it by %s\n", name, safePasswords)
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
