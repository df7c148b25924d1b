package instance

import (
	"bufio"
	"cmp"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/rightsize/rightsize/diskspace"
)

// A server that dies or fails to start says why in its log, not to the
// client ("conn closed") nor to pg_ctl ("could not start server"): reason
// reads that log from where the current start began and returns its last
// PANIC or FATAL line, with where a full disk is and how full.

// reasonTail is how much of the log's end reason reads: the lines of a
// death are its last ones.
const reasonTail = 256 << 10

// severe matches a PANIC or FATAL line of the server's log (any
// log_line_prefix) and captures the message.
var severe = regexp.MustCompile(`\b(PANIC|FATAL):\s+(.*)$`)

// errorLine matches an ERROR line and captures the message.
var errorLine = regexp.MustCompile(`\bERROR:\s+(.*)$`)

// noSpaceFile finds the file a write to failed for on a full disk.
var noSpaceFile = regexp.MustCompile(`"([^"]+)"`)

// crashLine matches the postmaster's line about a child that died (a
// backend killed by the OOM killer or a signal, an auxiliary process that
// failed) and captures it.
var crashLine = regexp.MustCompile(`\bLOG:\s+(\S+(?: \S+)? process \(PID \d+\) (?:was terminated by signal|exited with exit code [1-9]).*)$`)

// logReason returns the last PANIC line written to logFile after offset,
// else its last FATAL line (not a client's) before a child process died,
// else the postmaster's last line about a child process that died (the
// FATAL lines after it are its consequences: other backends ended, a
// client's COPY cut off, "protocol synchronization was lost"), else a
// FATAL line after it, else a consequence's FATAL line (a client that cut
// its COPY off can be logged before the postmaster's line about the death
// that made it), else its last ERROR line of a write that found no space,
// "" when there is none. A line about a full
// disk gets the directory it was written to, its file system and the
// space left there: "PANIC: could not write to file "pg_wal/xlogtemp.1":
// No space left on device (pg_wal on /mnt, 0 MiB free)".
func logReason(logFile string, offset int64, dataDir string) string {
	f, err := os.Open(logFile)
	if err != nil {
		return ""
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.Size()-offset > reasonTail {
		offset = st.Size() - reasonTail
	}
	if _, err := f.Seek(offset, io.SeekStart); err != nil {
		return ""
	}
	var r reasons
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		r.read(sc.Text())
	}
	line := cmp.Or(r.panic, r.fatal, r.crash, r.fatalAfter, r.consequence, r.full)
	if line == "" {
		return ""
	}
	return line + spaceNote(line, dataDir)
}

// reasons are the last lines of each kind logReason weighs: fatal is
// the last FATAL before the first child died, fatalAfter the last after
// it, consequence the last FATAL a client's cut-off caused, wherever it
// was logged.
type reasons struct{ panic, fatal, crash, fatalAfter, consequence, full string }

// consequenceFatal is the FATAL of a backend whose client broke off
// mid-message: when the client did so because another backend died, its
// line can come before the postmaster's about that death.
const consequenceFatal = "protocol synchronization was lost"

func (r *reasons) read(text string) {
	if m := severe.FindStringSubmatch(text); m != nil {
		if ignoredFatal(m[2]) {
			return
		}
		line := m[1] + ": " + strings.TrimSpace(m[2])
		switch {
		case m[1] == "PANIC":
			r.panic = line
		case strings.Contains(m[2], consequenceFatal):
			r.consequence = line
		case r.crash != "":
			r.fatalAfter = line
		default:
			r.fatal = line
		}
		return
	}
	if m := crashLine.FindStringSubmatch(text); m != nil {
		r.crash = strings.TrimSpace(m[1])
		return
	}
	if strings.Contains(text, "No space left on device") {
		if e := errorLine.FindStringSubmatch(text); e != nil {
			r.full = "ERROR: " + strings.TrimSpace(e[1])
		}
	}
}

// ignoredFatal are FATAL lines of a healthy server: a client's failed
// login, a backend ended by a shutdown or by pg_terminate_backend.
func ignoredFatal(msg string) bool {
	for _, s := range []string{"password authentication failed", "terminating connection due to administrator command",
		"the database system is starting up", "the database system is shutting down", "role \"", "database \"",
		"no pg_hba.conf entry", "terminating connection because of crash of another server process",
		"the database system is in recovery mode", "canceling authentication due to timeout", "connection to client lost"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

// spaceNote is " (pg_wal on /mnt, 0 MiB free)" for a line about a full
// disk, "" otherwise.
func spaceNote(line, dataDir string) string {
	if !strings.Contains(line, "No space left on device") {
		return ""
	}
	dir := dataDir
	where := ""
	if m := noSpaceFile.FindStringSubmatch(line); m != nil {
		sub := strings.SplitN(m[1], "/", 2)[0]
		if sub != m[1] {
			where = sub + " on "
			if target, err := filepath.EvalSymlinks(filepath.Join(dataDir, sub)); err == nil {
				dir = target
			}
		}
	}
	room, err := diskspace.Of(dir)
	if err != nil {
		return ""
	}
	return fmt.Sprintf(" (%s%s)", where, room)
}

// logSize is the current size of the log (where a start's lines begin).
func logSize(logFile string) int64 {
	st, err := os.Stat(logFile)
	if err != nil {
		return 0
	}
	return st.Size()
}

// Reason returns why the server stopped or failed to start, as its log
// says since the last start ("" when the log says nothing of it): the
// last PANIC, else FATAL line.
func (p *Postgres) Reason() string {
	p.mu.Lock()
	offset := p.logStart
	p.mu.Unlock()
	return logReason(p.logFile, offset, p.dataDir)
}

// startError is a failed start: the error of pg_ctl (or the library),
// shown only when the log has no reason, which it then ends with.
type startError struct {
	err     error // what failed
	dataDir string
	what    string // "start postgres 15 on port 5432 (data dir /d)"
	reason  string // from the log
}

func (e *startError) Error() string {
	if e.reason == "" {
		return fmt.Sprintf("instance: %s: %v", e.what, e.err)
	}
	return fmt.Sprintf("instance: %s: the server's log says: %s", e.what, e.reason)
}

func (e *startError) Unwrap() error { return e.err }

// StartReason returns the server's reason a start failed ("" when err is
// no failed start of this package, or the log said nothing).
func StartReason(err error) string {
	var se *startError
	if errors.As(err, &se) {
		return se.reason
	}
	var ie incompleteError
	if errors.As(err, &ie) {
		return ie.reason
	}
	return ""
}

// failedStart is the error of a start that failed with err: the reason
// from the log, and the build's state when it did not complete.
func (p *Postgres) failedStart(err error) error {
	se := &startError{err: err, dataDir: p.dataDir, what: fmt.Sprintf("start postgres %s on port %d (data dir %s)", p.major, p.port, p.dataDir),
		reason: logReason(p.logFile, p.logStart, p.dataDir)}
	if BuildIncomplete(p.dataDir) && !errors.Is(err, errPortInUse) {
		return incompleteError{se}
	}
	return se
}
