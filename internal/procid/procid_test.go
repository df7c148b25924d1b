package procid

import (
	"os/exec"
	"runtime"
	"testing"
)

// deadChild is the ID a child process had while it ran, after it was
// killed and reaped.
func deadChild(t *testing.T) ID {
	t.Helper()
	c := exec.Command("sleep", "60")
	if err := c.Start(); err != nil {
		t.Skip("no sleep command:", err)
	}
	id := Of(c.Process.Pid)
	if id.Gone() {
		t.Fatalf("a running child %v is gone", id)
	}
	_ = c.Process.Kill()
	_ = c.Wait()
	return id
}

func TestGone(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	self := Self()
	if self.Start == "" || self.Gone() {
		t.Fatalf("Self() = %v, gone %v", self, self.Gone())
	}
	dead := deadChild(t)
	reused := self
	reused.Start = "1" // this pid, but started at another time: a reused pid
	other := dead
	other.Host = "another-host"
	for _, c := range []struct {
		name string
		id   ID
		gone bool
	}{
		{"self", self, false},
		{"killed child", dead, true},
		{"pid reused", reused, true},
		{"another host", other, false},
		{"no pid", ID{Host: self.Host}, false},
	} {
		if got := c.id.Gone(); got != c.gone {
			t.Errorf("%s: %v.Gone() = %v, want %v", c.name, c.id, got, c.gone)
		}
	}
}

func TestParse(t *testing.T) {
	id := ID{Host: "h", PID: 42, Start: "123"}
	if got, ok := Parse(id.String()); !ok || got != id {
		t.Errorf("Parse(%q) = %v, %v", id.String(), got, ok)
	}
	for _, s := range []string{"", "h 0 1", "h x 1", "h 1"} {
		if _, ok := Parse(s); ok {
			t.Errorf("Parse(%q) ok", s)
		}
	}
}
