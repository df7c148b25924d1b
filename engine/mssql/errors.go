package mssql

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"io"
	"net"
	"strconv"
	"strings"
	"syscall"

	gomssql "github.com/microsoft/go-mssqldb"

	"github.com/rightsize/rightsize/engine"
)

// SQL Server error numbers the engine acts on.
const (
	// ErrDeadlockVictim (1205): "Transaction (Process ID n) was deadlocked
	// on lock resources with another process and has been chosen as the
	// deadlock victim. Rerun the transaction."
	ErrDeadlockVictim = 1205
	// ErrSnapshotConflict (3960): "Snapshot isolation transaction aborted
	// due to update conflict."
	ErrSnapshotConflict = 3960
	// ErrRaisError (50000) is the number of every RAISERROR with a message
	// text; the procedures' CATCH blocks re-raise with it.
	ErrRaisError = 50000
)

// reraisePrefix starts the message of an error the procedures re-raise from
// their CATCH block: "rs_error <original number> in <procedure>: <message>".
// RAISERROR cannot raise system error numbers (and THROW, which can, needs
// SQL Server 2012), so the original number travels in the text.
const reraisePrefix = "rs_error "

// Classify implements engine.DB: deadlock victims (1205) and snapshot
// update conflicts (3960), raised directly or re-raised by a procedure, are
// retried; a broken connection (driver.ErrBadConn, io.EOF, network errors,
// fatal errors of severity 20 and up, which close the connection) means
// reconnect; anything else is counted.
func (db *DB) Classify(err error) engine.ErrClass { return classify(err) }

func classify(err error) engine.ErrClass {
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		// context.DeadlineExceeded is a net.Error too: not a broken connection.
		return engine.ErrOther
	}
	var msErr gomssql.Error
	if errors.As(err, &msErr) {
		for _, e := range sqlErrors(msErr) {
			switch effectiveNumber(e) {
			case ErrDeadlockVictim, ErrSnapshotConflict:
				return engine.ErrRetry
			}
		}
	}
	if isConnectionError(err) {
		return engine.ErrConnection
	}
	if errors.As(err, &msErr) && msErr.Class >= 20 {
		return engine.ErrConnection
	}
	return engine.ErrOther
}

func isConnectionError(err error) bool {
	var serverErr gomssql.ServerError
	var streamErr gomssql.StreamError
	var netErr net.Error
	var opErr *net.OpError
	switch {
	case errors.Is(err, driver.ErrBadConn), errors.Is(err, sql.ErrConnDone),
		errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, net.ErrClosed),
		errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE), errors.Is(err, syscall.ECONNREFUSED),
		errors.As(err, &serverErr), errors.As(err, &streamErr), errors.As(err, &netErr), errors.As(err, &opErr):
		return true
	}
	s := err.Error()
	for _, frag := range []string{"connection reset", "broken pipe", "use of closed network connection", "bad connection"} {
		if strings.Contains(s, frag) {
			return true
		}
	}
	return false
}

// sqlErrors lists every error a response carried (e.All when set).
func sqlErrors(e gomssql.Error) []gomssql.Error {
	if len(e.All) > 0 {
		return e.All
	}
	return []gomssql.Error{e}
}

// effectiveNumber is the error's number, or for an error a procedure
// re-raised (50000, "rs_error N in ..."), the original number N.
func effectiveNumber(e gomssql.Error) int32 {
	if e.Number == ErrRaisError {
		if n, ok := reraisedNumber(e.Message); ok {
			return n
		}
	}
	return e.Number
}

// reraisedNumber parses the original error number out of a message that
// starts with reraisePrefix.
func reraisedNumber(msg string) (int32, bool) {
	rest, ok := strings.CutPrefix(msg, reraisePrefix)
	if !ok {
		return 0, false
	}
	end := strings.IndexByte(rest, ' ')
	if end < 0 {
		end = len(rest)
	}
	n, err := strconv.ParseInt(rest[:end], 10, 32)
	if err != nil {
		return 0, false
	}
	return int32(n), true
}

// hasNumber reports whether err carries SQL Server error number n
// (directly or re-raised by a procedure).
func hasNumber(err error, n int32) bool {
	var msErr gomssql.Error
	if !errors.As(err, &msErr) {
		return false
	}
	for _, e := range sqlErrors(msErr) {
		if effectiveNumber(e) == n {
			return true
		}
	}
	return false
}
