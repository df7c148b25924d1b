package client

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
)

// TestCommandErrorFatal: a meta-command's error is fatal (pgbench aborts
// its client), an SQL error is not (counted, the client goes on), nor a
// wait the step's end cancelled.
func TestCommandErrorFatal(t *testing.T) {
	for _, c := range []struct {
		name  string
		err   *CommandError
		fatal bool
	}{
		{"division by zero in \\set", &CommandError{Err: errors.New("division by zero")}, true},
		{"a variable unset", &CommandError{Err: fmt.Errorf("undefined variable %q", "x")}, true},
		{"an SQL error", &CommandError{SQL: true, Err: &pgconn.PgError{Code: "23505"}}, false},
		{"a serialization failure", &CommandError{SQL: true, Err: &pgconn.PgError{Code: "40001"}}, false},
		{"a \\sleep the step's end cancelled", &CommandError{Err: fmt.Errorf("sleep: %w", context.Canceled)}, false},
		{"a \\sleep past a deadline", &CommandError{Err: context.DeadlineExceeded}, false},
	} {
		if got := c.err.Fatal(); got != c.fatal {
			t.Errorf("%s: Fatal() %v, want %v", c.name, got, c.fatal)
		}
	}
}
