package instance

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// Server logs live in one directory, a file per data directory, and would
// otherwise grow for ever (every test and every temporary data directory
// leaves one): pruneLogs keeps them within a budget.
const (
	// logBudget is the total size of the server logs kept: the newest
	// first, older ones removed beyond it.
	logBudget = 256 << 20
	// logRecent protects the logs written to lately from removal: their
	// server may still be running.
	logRecent = time.Hour
)

// pruneLogs removes the oldest *.log files of dir beyond budget bytes (the
// newest kept first), except keep and any written to within recent of now.
// It returns the files removed; errors only leave files in place.
func pruneLogs(dir, keep string, budget int64, recent time.Duration, now time.Time) []string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	type logFile struct {
		path string
		size int64
		mod  time.Time
	}
	var logs []logFile
	for _, e := range entries {
		if !e.Type().IsRegular() || !strings.HasSuffix(e.Name(), ".log") {
			continue
		}
		info, err := e.Info()
		if err != nil {
			continue
		}
		logs = append(logs, logFile{filepath.Join(dir, e.Name()), info.Size(), info.ModTime()})
	}
	sort.Slice(logs, func(i, j int) bool { return logs[i].mod.After(logs[j].mod) })
	var used int64
	var removed []string
	for _, l := range logs {
		used += l.size
		if used <= budget || l.path == keep || now.Sub(l.mod) < recent {
			continue
		}
		if os.Remove(l.path) == nil {
			removed = append(removed, l.path)
		}
	}
	return removed
}
