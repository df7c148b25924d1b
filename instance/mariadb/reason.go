package mariadb

import (
	"bufio"
	"fmt"
	"regexp"
	"slices"
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

// diskFullPhrases are the phrases of a write that found its disk full.
var diskFullPhrases = []string{"No space left on device", "error number 28", "errno: 28", "Disk full", "disk is full"}

// reasonLines is how many of the last [ERROR] lines logReason keeps: one
// fault cascades ("Error while setting value 'abc' to
// 'innodb-buffer-pool-size'", "Parsing options for plugin 'InnoDB'
// failed", "Unknown/unsupported storage engine: InnoDB").
const reasonLines = 3

// logReason returns the last reasonLines [ERROR] lines of out other than
// the closing "Aborting", joined by "; ", "" when there is none. When an
// [ERROR] line is about a full disk (diskFull), the last such is among
// them, and the reason ends with the data directory's file system and
// its free space: "[ERROR] InnoDB: ... No space left on device (/mnt, 0
// MiB free)".
func logReason(out, dataDir string) (reason string, diskFull bool) {
	var lines []string
	full := ""
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		m := errorLine.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		msg := strings.TrimRight(m[1], " \t;") // mariadbd: "got signal 11 ;"
		if msg == "" || msg == "Aborting" || slices.Contains(lines, "[ERROR] "+msg) {
			continue
		}
		lines = append(lines, "[ERROR] "+msg)
		if isDiskFull(msg) {
			full = lines[len(lines)-1]
		}
	}
	if len(lines) > reasonLines {
		lines = lines[len(lines)-reasonLines:]
	}
	if full != "" && !slices.Contains(lines, full) {
		lines = append([]string{full}, lines[1:]...)
	}
	reason = strings.Join(lines, "; ")
	if full == "" {
		return reason, false
	}
	if room, err := diskspace.Of(dataDir); err == nil {
		reason += fmt.Sprintf(" (%s)", room)
	}
	return reason, true
}

func isDiskFull(msg string) bool {
	for _, s := range diskFullPhrases {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

// Reason returns why the server stopped or failed to start, as its error
// output says since the last start ("" when it says nothing of it): its
// last [ERROR] lines. While the server still runs, only a full disk is a
// reason: an [ERROR] line of a server that goes on is no cause of what
// failed.
func (s *Server) Reason() string {
	reason, full := logReason(s.out.String(), s.dataDir)
	if s.running() && !full {
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
