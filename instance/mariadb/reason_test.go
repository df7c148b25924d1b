package mariadb

import (
	"context"
	"strings"
	"testing"
)

func TestLogReason(t *testing.T) {
	for _, tc := range []struct {
		name, out, want string
	}{
		{"bad option", "2026-11-28 19:00:00 0 [Note] Starting MariaDB\n2026-11-28 19:00:00 0 [ERROR] /usr/sbin/mariadbd: unknown variable 'x=1'\n2026-11-28 19:00:00 0 [ERROR] Aborting\n",
			"[ERROR] /usr/sbin/mariadbd: unknown variable 'x=1'"},
		{"mysql tags", "2026-11-28T19:00:00Z 0 [ERROR] [MY-000067] [Server] unknown variable 'x=1'.\n", "[ERROR] unknown variable 'x=1'."},
		{"nothing", "2026-11-28 19:00:00 0 [Note] ready for connections\n", ""},
		{"full disk first", "0 [ERROR] InnoDB: Write to file ./ib_logfile0 failed: No space left on device\n0 [ERROR] InnoDB: Plugin initialization aborted\n",
			"[ERROR] InnoDB: Write to file ./ib_logfile0 failed: No space left on device ("},
	} {
		got := logReason(tc.out, t.TempDir())
		if tc.want == "" && got != "" || !strings.HasPrefix(got, tc.want) || strings.HasSuffix(tc.want, "(") && !strings.HasSuffix(got, " MiB free)") {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
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
