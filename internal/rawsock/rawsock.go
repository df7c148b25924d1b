// Package rawsock wraps stream sockets so that their reads and writes do not
// wake the Go runtime's sysmon thread.
//
// A virtual user spends its life waiting for the database: write a request,
// wait, read the answer. With the net package every read and write goes
// through syscall.Syscall, which tells the scheduler that a system call is
// starting; when the whole process was idle (every goroutine waiting on the
// network, the usual state of a benchmark driver) that wakes sysmon, which
// then polls every 20 µs until the process is idle again. On a 2-core VM
// those wake-ups were most of the driver's CPU per transaction (see
// ARCHITECTURE.md, "Driver CPU"). The sockets are non-blocking, so a read or
// write never waits in the kernel: Wrap makes them with syscall.RawSyscall
// inside syscall.RawConn's Read and Write callbacks, which still wait for
// readiness through the runtime's network poller and still honour deadlines
// and Close. A wrapped socket's Exchange writes a request and reads the
// start of its reply in one RawConn.Read, sparing the read that would find
// nothing yet.
package rawsock

import (
	"context"
	"net"
)

// DialFunc is the dial hook of pgx (pgconn.DialFunc) and go-sql-driver/mysql.
type DialFunc = func(ctx context.Context, network, addr string) (net.Conn, error)

// WrapDial returns a DialFunc that dials with dial and wraps the connection
// with Wrap.
func WrapDial(dial DialFunc) DialFunc {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := dial(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return Wrap(c), nil
	}
}
