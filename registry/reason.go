package registry

import (
	"context"
	"errors"
	"fmt"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/rightsize/rightsize/diskspace"
	"strings"
	"time"
)

// reasoner is a managed server that can say why it stopped or failed to
// start (instance.Postgres: the last PANIC or FATAL line of its log).
type reasoner interface {
	Reason() string
}

// ServerReason is why the managed server stopped, as its log says since
// it started ("" when it is not managed, or its log says nothing).
func (t *Target) ServerReason() string {
	if r, ok := t.Server.(reasoner); ok {
		return r.Reason()
	}
	return ""
}

// ServerLost wraps err, met while the managed server ran, with the
// reason its log gives since it started: "load item: conn closed; the
// server's log says: PANIC: could not write to file "pg_wal/xlogtemp.1":
// No space left on device (pg_wal on /mnt, 0 MiB free)". An error about a
// full disk gets where and how full it is. Anything else is left as it is.
func (t *Target) ServerLost(err error) error {
	if err == nil || t.Server == nil {
		return err
	}
	if strings.Contains(err.Error(), "No space left on device") { // the client knows: say where
		if room, rerr := diskspace.Of(t.Server.DataDir()); rerr == nil {
			return fmt.Errorf("%w (%s)", err, room)
		}
		return err
	}
	reason := t.ServerReason()
	// The client sees its connection close before the postmaster has
	// logged why (it reaps the child first, its logger writes later).
	for deadline := time.Now().Add(reasonWait); reason == "" && connectionLost(err) && time.Now().Before(deadline); {
		time.Sleep(100 * time.Millisecond)
		reason = t.ServerReason()
	}
	if reason == "" || strings.Contains(err.Error(), reason) {
		return err
	}
	return &LostError{Err: err, Reason: reason}
}

// reasonWait bounds ServerLost's wait for the log to say why a connection
// was lost: nothing is logged when the postmaster itself was killed.
const reasonWait = 10 * time.Second

// connectionLost reports whether err is a connection the server dropped:
// anything but an answer of the server (a *pgconn.PgError), or the FATAL
// a crash sends the other backends.
func connectionLost(err error) bool {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return strings.Contains(pe.Message, "crash of another server process")
	}
	return !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded)
}

// LostError is an error met while the managed server failed, with the
// reason from its log.
type LostError struct {
	Err    error  // what failed, e.g. "load item: conn closed"
	Reason string // the log's last PANIC or FATAL line
}

func (e *LostError) Error() string {
	return fmt.Sprintf("%v; the server's log says: %s", e.Err, e.Reason)
}

func (e *LostError) Unwrap() error { return e.Err }
