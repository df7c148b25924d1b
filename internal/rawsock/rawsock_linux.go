package rawsock

import (
	"io"
	"net"
	"sync"
	"syscall"
	"unsafe"
)

// conn is a socket whose Read and Write use raw system calls. Each
// direction keeps its call's state and its RawConn callback, made once, so
// a read or a write allocates nothing; the mutexes keep concurrent calls
// of one direction (which net.Conn allows) apart.
type conn struct {
	net.Conn // deadlines, Close, addresses
	rc       syscall.RawConn
	network  string

	rmu    sync.Mutex
	rbuf   []byte
	rn     int
	rerrno syscall.Errno
	readFn func(fd uintptr) bool

	wmu     sync.Mutex
	wbuf    []byte
	wn      int
	werrno  syscall.Errno
	writeFn func(fd uintptr) bool

	// Exchange's callback and whether it has written yet
	exchangeFn func(fd uintptr) bool
	sent       bool
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
	rs := &conn{Conn: c, rc: rc, network: network}
	rs.readFn, rs.writeFn, rs.exchangeFn = rs.read, rs.write, rs.exchange
	return rs
}

func (c *conn) opError(op string, err error) error {
	return &net.OpError{Op: op, Net: c.network, Source: c.LocalAddr(), Addr: c.RemoteAddr(), Err: err}
}

// Read implements net.Conn.
func (c *conn) Read(b []byte) (int, error) {
	if len(b) == 0 {
		return 0, nil
	}
	c.rmu.Lock()
	defer c.rmu.Unlock()
	c.rbuf, c.rn, c.rerrno = b, 0, 0
	err := c.rc.Read(c.readFn)
	n, errno := c.rn, c.rerrno
	c.rbuf = nil
	return c.readResult(n, errno, err)
}

// readResult is what a Read returns after n bytes read, the read's errno
// and the RawConn's error.
func (c *conn) readResult(n int, errno syscall.Errno, err error) (int, error) {
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

// read is Read's RawConn callback: false means wait for readiness.
func (c *conn) read(fd uintptr) bool {
	for {
		r, _, e := syscall.RawSyscall(syscall.SYS_READ, fd, uintptr(unsafe.Pointer(&c.rbuf[0])), uintptr(len(c.rbuf)))
		switch e {
		case syscall.EINTR:
			continue
		case syscall.EAGAIN:
			return false // wait for readiness in the poller
		}
		c.rn, c.rerrno = int(r), e
		return true
	}
}

// Write implements net.Conn: it writes all of b unless an error comes.
func (c *conn) Write(b []byte) (int, error) {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	c.wbuf, c.wn, c.werrno = b, 0, 0
	defer func() { c.wbuf = nil }()
	for c.wn < len(b) {
		if err := c.rc.Write(c.writeFn); err != nil {
			return c.wn, c.opError("write", err)
		}
		if c.werrno != 0 {
			return c.wn, c.opError("write", c.werrno)
		}
	}
	return c.wn, nil
}

// write is Write's RawConn callback: false means wait for readiness.
func (c *conn) write(fd uintptr) bool {
	for c.wn < len(c.wbuf) {
		r, _, e := syscall.RawSyscall(syscall.SYS_WRITE, fd, uintptr(unsafe.Pointer(&c.wbuf[c.wn])), uintptr(len(c.wbuf)-c.wn))
		switch e {
		case 0:
			c.wn += int(r)
		case syscall.EINTR:
		case syscall.EAGAIN:
			return false // socket buffer full: wait in the poller
		default:
			c.werrno = e
			return true
		}
	}
	return true
}

// Exchange writes req and reads the start of its reply into b (at least
// one byte, as Read). The write is the first callback of a RawConn.Read,
// which then waits for the reply in the poller before its first read: a
// request and Read would try a read first, which finds nothing yet
// (EAGAIN) since the server has barely got the request. Waiting without
// that read loses no wake-up: the poller forgets past readiness as the
// RawConn.Read starts, before the request is written. A write the socket
// buffer cannot take at once is finished by Write, then Read reads.
func (c *conn) Exchange(req, b []byte) (int, error) {
	if len(b) == 0 {
		return 0, io.ErrShortBuffer
	}
	c.rmu.Lock()
	c.wmu.Lock()
	c.wbuf, c.wn, c.werrno, c.sent = req, 0, 0, false
	c.rbuf, c.rn, c.rerrno = b, 0, 0
	err := c.rc.Read(c.exchangeFn)
	wn, werrno, n, rerrno := c.wn, c.werrno, c.rn, c.rerrno
	c.wbuf, c.rbuf = nil, nil
	c.wmu.Unlock()
	c.rmu.Unlock()
	switch {
	case werrno != 0:
		return 0, c.opError("write", werrno)
	case wn < len(req) && err == nil:
		if _, err := c.Write(req[wn:]); err != nil {
			return 0, err
		}
		return c.Read(b)
	}
	return c.readResult(n, rerrno, err)
}

// exchange is Exchange's RawConn.Read callback: the first call writes the
// request (true ends the Read when the write failed or is not finished),
// the next ones read.
func (c *conn) exchange(fd uintptr) bool {
	if !c.sent {
		c.sent = true
		c.write(fd)
		return c.werrno != 0 || c.wn < len(c.wbuf)
	}
	return c.read(fd)
}
