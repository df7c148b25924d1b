package mariadb

import (
	"bufio"
	"fmt"
	"regexp"
	"strings"

	"github.com/rightsize/rightsize/diskspace"
)

// A server that fails to start or stops says why on its error output (its
// error log: the server runs without --log-error), not to the client: as
// instance.Postgres does from its log, the messages end with the last
// [ERROR] line of that output since the current start.

// errorLine matches an [ERROR] line of mariadbd (MySQL's bracketed tags
// after it dropped) and captures the message.
var errorLine = regexp.MustCompile(`\[ERROR\]\s+(?:\[[^\]]*\]\s+)*(.*)$`)

// diskFull are the phrases of a write that found its disk full.
var diskFull = []string{"No space left on device", "error number 28", "errno: 28", "Disk full", "disk is full"}

// logReason returns the last [ERROR] line of out other than the closing
// "Aborting", "" when there is none. When any [ERROR] line is about a full
// disk, the one returned is the last such, with the data directory's file
// system and its free space: "[ERROR] InnoDB: ... (/mnt, 0 MiB free)".
func logReason(out, dataDir string) string {
	var last, full string
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		m := errorLine.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		msg := strings.TrimSpace(m[1])
		if msg == "" || msg == "Aborting" {
			continue
		}
		last = "[ERROR] " + msg
		if isDiskFull(msg) {
			full = last
		}
	}
	if full == "" {
		return last
	}
	if room, err := diskspace.Of(dataDir); err == nil {
		return fmt.Sprintf("%s (%s)", full, room)
	}
	return full
}

func isDiskFull(msg string) bool {
	for _, s := range diskFull {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

// Reason returns why the server stopped or failed to start, as its error
// output says since the last start ("" when it says nothing of it). While
// the server still runs, only a full disk is a reason: an [ERROR] line of
// a server that goes on is no cause of what failed.
func (s *Server) Reason() string {
	reason := logReason(s.out.String(), s.dataDir)
	if s.running() && !isDiskFull(reason) {
		return ""
	}
	return reason
}

// running reports whether the server process was started and has not exited.
func (s *Server) running() bool {
	if s.done == nil {
		return false
	}
	select {
	case <-s.done:
		return false
	default:
		return true
	}
}

// startFailed is the error of a start that failed as what says: ending
// with the reason from the server's output, else with that output's tail.
func (s *Server) startFailed(what string) error {
	if reason := s.Reason(); reason != "" {
		return fmt.Errorf("mariadb: %s: the server's log says: %s", what, reason)
	}
	return fmt.Errorf("mariadb: %s:\n%s", what, s.out.Tail())
}
