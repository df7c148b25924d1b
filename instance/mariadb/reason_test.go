package mariadb

import (
	"context"
	"strings"
	"syscall"
	"testing"
)

func TestLogReason(t *testing.T) {
	const cascade = `0 [Note] Starting MariaDB
0 [ERROR] Unknown suffix 'a' used for variable 'innodb-buffer-pool-size' (value 'abc'). Legal suffix characters are: K, M, G, T, P, E
0 [ERROR] /usr/sbin/mariadbd: Error while setting value 'abc' to 'innodb-buffer-pool-size'
0 [ERROR] Parsing options for plugin 'InnoDB' failed. Disabling plugin
0 [Note] Plugin 'FEEDBACK' is disabled.
0 [ERROR] Unknown/unsupported storage engine: InnoDB
0 [ERROR] Aborting
`
	for _, tc := range []struct {
		name, out, want string
		full            bool
	}{
		{"bad option", "2026-11-28 19:00:00 0 [Note] Starting MariaDB\n2026-11-28 19:00:00 0 [ERROR] /usr/sbin/mariadbd: unknown variable 'x=1'\n2026-11-28 19:00:00 0 [ERROR] Aborting\n",
			"[ERROR] /usr/sbin/mariadbd: unknown variable 'x=1'", false},
		{"cascade", cascade, "[ERROR] /usr/sbin/mariadbd: Error while setting value 'abc' to 'innodb-buffer-pool-size'; " +
			"[ERROR] Parsing options for plugin 'InnoDB' failed. Disabling plugin; [ERROR] Unknown/unsupported storage engine: InnoDB", false},
		{"mysql tags", "2026-11-28T19:00:00Z 0 [ERROR] [MY-000067] [Server] unknown variable 'x=1'.\n", "[ERROR] unknown variable 'x=1'.", false},
		{"nothing", "2026-11-28 19:00:00 0 [Note] ready for connections\n", "", false},
		{"full disk first", "0 [ERROR] InnoDB: Write to file ./ib_logfile0 failed: No space left on device\n0 [ERROR] a\n0 [ERROR] b\n0 [ERROR] c\n",
			"[ERROR] InnoDB: Write to file ./ib_logfile0 failed: No space left on device; [ERROR] b; [ERROR] c (", true},
	} {
		got, full := logReason(tc.out, t.TempDir())
		if full != tc.full || tc.want == "" && got != "" || !strings.HasPrefix(got, tc.want) ||
			tc.full && !strings.HasSuffix(got, " MiB free)") || !tc.full && got != tc.want {
			t.Errorf("%s: %q (full %v), want %q (full %v)", tc.name, got, full, tc.want, tc.full)
		}
	}
}

// A start that fails on a bad option ends its message with mariadbd's own
// [ERROR] line, not with its output's tail.
func TestFailedStartSaysWhy(t *testing.T) {
	_, err := Start(context.Background(), Config{Settings: map[string]string{"rightsize_no_such_option": "1"}})
	if err == nil {
		t.Fatal("started with an unknown option")
	}
	msg := err.Error()
	const want = "the server's log says: [ERROR] "
	if i := strings.LastIndex(msg, want); i < 0 || strings.Contains(msg, "\n") ||
		!strings.Contains(msg[i:], "unknown variable 'rightsize_no_such_option=1'") {
		t.Fatalf("failed start: %q, want it to end with %q and the unknown variable", msg, want)
	}
	t.Log(msg)
}

// A server that dies (SIGSEGV: mariadbd logs the signal) says why: Reason
// is its [ERROR] line; while it ran, Reason was empty.
func TestDeadServerSaysWhy(t *testing.T) {
	s, err := Start(context.Background(), Config{})
	if err != nil {
		t.Fatalf("start: %v", err)
	}
	defer s.Stop()
	if r := s.Reason(); r != "" {
		t.Errorf("reason of a running server: %q, want none", r)
	}
	pid, err := s.PID()
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(pid, syscall.SIGSEGV); err != nil {
		t.Fatal(err)
	}
	<-s.done
	if r := s.Reason(); !strings.Contains(r, "[ERROR] ") || !strings.Contains(r, "got signal 11") {
		t.Fatalf("reason of a server killed by SIGSEGV: %q, want its [ERROR] line about signal 11\n%s", r, s.out.Tail())
	} else {
		t.Log(r)
	}
}
