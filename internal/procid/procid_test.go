package procid

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strings"
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
	otherNS := dead
	otherNS.PIDNS = "pid:[1]" // a dead pid of ours, but numbered in another namespace
	oldRecord := dead
	oldRecord.PIDNS = "" // stored before the namespace was recorded
	for _, c := range []struct {
		name string
		id   ID
		gone bool
	}{
		{"self", self, false},
		{"killed child", dead, true},
		{"pid reused", reused, true},
		{"another host", other, false},
		{"another PID namespace", otherNS, false},
		{"namespace not recorded", oldRecord, true},
		{"no pid", ID{Host: self.Host}, false},
	} {
		if got := c.id.Gone(); got != c.gone {
			t.Errorf("%s: %v.Gone() = %v, want %v", c.name, c.id, got, c.gone)
		}
	}
}

func TestParse(t *testing.T) {
	for _, id := range []ID{
		{Host: "h", PID: 42, Start: "123", PIDNS: "pid:[4026531836]"},
		{Host: "h", PID: 42, Start: "123"},
		{Host: "h", PID: 42, PIDNS: "pid:[4026531836]"},
	} {
		if got, ok := Parse(id.String()); !ok || got != id {
			t.Errorf("Parse(%q) = %v, %v; want %v", id.String(), got, ok, id)
		}
	}
	if got, ok := Parse("h 42 123"); !ok || got != (ID{Host: "h", PID: 42, Start: "123"}) {
		t.Errorf("Parse of an owner stored before namespaces = %v, %v", got, ok)
	}
	for _, s := range []string{"", "h 0 1", "h x 1", "h 1", "h 1 2 3 4"} {
		if _, ok := Parse(s); ok {
			t.Errorf("Parse(%q) ok", s)
		}
	}
}

// TestHelperSelf is a process's own ID, printed when the test binary runs
// it as a child (PROCID_HELPER=1); it then waits for its standard input to
// close.
func TestHelperSelf(t *testing.T) {
	if os.Getenv("PROCID_HELPER") != "1" {
		return
	}
	fmt.Println(Self().String())
	_, _ = io.Copy(io.Discard, os.Stdin)
	os.Exit(0)
}

// TestGoneInAnotherNamespace: a live process of another PID namespace
// with this host's name (a container on the host network, as a Kubernetes
// pod with hostNetwork) is pid 1 there; here pid 1 is another process,
// started at another time. It is not gone: its runs and servers are not
// ours to take.
func TestGoneInAnotherNamespace(t *testing.T) {
	if runtime.GOOS != "linux" || os.Geteuid() != 0 {
		t.Skip("makes a PID namespace: needs Linux and root")
	}
	unshare, err := exec.LookPath("unshare")
	if err != nil {
		t.Skip("no unshare command (util-linux)")
	}
	c := exec.Command(unshare, "--pid", "--fork", "--mount-proc", os.Args[0], "-test.run=^TestHelperSelf$")
	c.Env = append(os.Environ(), "PROCID_HELPER=1")
	stdin, _ := c.StdinPipe()
	stdout, _ := c.StdoutPipe()
	c.Stderr = os.Stderr
	if err := c.Start(); err != nil {
		t.Skip("unshare:", err)
	}
	defer func() { stdin.Close(); _ = c.Wait() }()
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Skipf("no PID namespace here (unshare: %v)", err)
	}
	child, ok := Parse(strings.TrimSpace(line))
	if !ok {
		t.Fatalf("the child printed %q, not an ID", line)
	}
	self := Self()
	if child.Host != self.Host || child.PIDNS == "" || child.PIDNS == self.PIDNS {
		t.Fatalf("child %v beside %v: want this host, another PID namespace", child, self)
	}
	if child.PID == 1 && Of(1).Start == child.Start {
		t.Skip("pid 1 here started in the same clock tick as the child's")
	}
	if child.Gone() {
		t.Errorf("a live process of another PID namespace (%v) is gone", child)
	}
}
