package rawsock

import (
	"io"
	"net"
	"syscall"
	"unsafe"
)

// conn is a socket whose Read and Write use raw system calls.
type conn struct {
	net.Conn // deadlines, Close, addresses
	rc       syscall.RawConn
	network  string
}

// Wrap returns c with raw reads and writes when c is a TCP or Unix socket,
// and c itself otherwise.
func Wrap(c net.Conn) net.Conn {
	var network string
	switch c.(type) {
	case *net.TCPConn:
		network = "tcp"
	case *net.UnixConn:
		network = "unix"
	default:
		return c
	}
	rc, err := c.(syscall.Conn).SyscallConn()
	if err != nil {
		return c
	}
	return &conn{Conn: c, rc: rc, network: network}
}

func (c *conn) opError(op string, err error) error {
	return &net.OpError{Op: op, Net: c.network, Source: c.LocalAddr(), Addr: c.RemoteAddr(), Err: err}
}

// Read implements net.Conn.
func (c *conn) Read(b []byte) (int, error) {
	if len(b) == 0 {
		return 0, nil
	}
	var n int
	var errno syscall.Errno
	err := c.rc.Read(func(fd uintptr) bool {
		for {
			r, _, e := syscall.RawSyscall(syscall.SYS_READ, fd, uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)))
			switch e {
			case syscall.EINTR:
				continue
			case syscall.EAGAIN:
				return false // wait for readiness in the poller
			}
			n, errno = int(r), e
			return true
		}
	})
	switch {
	case err != nil:
		return 0, c.opError("read", err)
	case errno != 0:
		return 0, c.opError("read", errno)
	case n == 0:
		return 0, io.EOF
	}
	return n, nil
}

// Write implements net.Conn: it writes all of b unless an error comes.
func (c *conn) Write(b []byte) (int, error) {
	w := 0
	var errno syscall.Errno
	for w < len(b) {
		err := c.rc.Write(func(fd uintptr) bool {
			for w < len(b) {
				r, _, e := syscall.RawSyscall(syscall.SYS_WRITE, fd, uintptr(unsafe.Pointer(&b[w])), uintptr(len(b)-w))
				switch e {
				case 0:
					w += int(r)
				case syscall.EINTR:
				case syscall.EAGAIN:
					return false // socket buffer full: wait in the poller
				default:
					errno = e
					return true
				}
			}
			return true
		})
		if err != nil {
			return w, c.opError("write", err)
		}
		if errno != 0 {
			return w, c.opError("write", errno)
		}
	}
	return w, nil
}
