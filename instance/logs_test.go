package instance

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// TestPruneLogs checks the log budget: the oldest logs beyond it go, the
// newest stay, and neither the instance's own log nor one written to
// lately is removed, whatever its age rank; other files are left alone.
func TestPruneLogs(t *testing.T) {
	dir := t.TempDir()
	now := time.Now()
	files := []struct {
		name string
		size int
		age  time.Duration
	}{
		{"new.log", 40, 2 * time.Hour},
		{"mid.log", 40, 3 * time.Hour},
		{"old.log", 40, 4 * time.Hour},
		{"own.log", 40, 5 * time.Hour}, // the instance's own: kept
		{"oldest.log", 40, 6 * time.Hour},
		{"busy.log", 40, time.Minute},     // written to lately: kept, counted
		{"notes.txt", 400, 9 * time.Hour}, // not a log
	}
	for _, f := range files {
		p := filepath.Join(dir, f.name)
		if err := os.WriteFile(p, make([]byte, f.size), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, now.Add(-f.age), now.Add(-f.age)); err != nil {
			t.Fatal(err)
		}
	}
	removed := pruneLogs(dir, filepath.Join(dir, "own.log"), 100, time.Hour, now)
	for i := range removed {
		removed[i] = filepath.Base(removed[i])
	}
	slices.Sort(removed)
	if want := []string{"mid.log", "old.log", "oldest.log"}; !slices.Equal(removed, want) {
		t.Errorf("removed %v, want %v (budget 100 bytes: busy 40 + new 40, then over)", removed, want)
	}
	for _, keep := range []string{"new.log", "own.log", "busy.log", "notes.txt"} {
		if _, err := os.Stat(filepath.Join(dir, keep)); err != nil {
			t.Errorf("%s: %v", keep, err)
		}
	}
	if again := pruneLogs(dir, "", 1<<20, time.Hour, now); len(again) != 0 {
		t.Errorf("within the budget, removed %v", again)
	}
}
