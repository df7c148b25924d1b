package rawsock

import (
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Loop runs functions as coroutines on the goroutine that calls Run and
// waits for their sockets in an epoll instance of its own, as pgbench's
// thread waits for its clients in poll(2): a coroutine that must wait for
// its socket (an FDConn added to the loop) or sleeps hands control back to
// the loop, which resumes it when its socket is ready. No wait goes through
// the runtime's scheduler or network poller, whose park, wake-up and
// second scheduler thread cost a virtual user more CPU per round trip than
// its own code (ARCHITECTURE.md, "Driver CPU").
//
// A coroutine must not block for long by other means (a channel, a lock
// held elsewhere, a socket not added to the loop): the loop and its other
// coroutines wait with it. A Loop is not safe for concurrent use, but for
// an FDConn's SetDeadline and Close and for the context given to Run.
type Loop struct {
	epfd, evfd int
	cos        []*co
	cur        *co         // the coroutine running, nil in the loop itself
	live       int         // coroutines not ended
	sleeping   int         // coroutines in Sleep
	timed      int         // coroutines waiting on a socket with a deadline
	conns      []*FDConn   // by token-1
	done       atomic.Bool // Run's context ended
	events     [128]unix.EpollEvent
	ts         unix.Timespec // a timed wait's timeout (epoll_pwait2)

	mu     sync.Mutex // guards closed against wake
	closed bool
}

// co is one coroutine of a Loop.
type co struct {
	next  func() (struct{}, bool)
	stop  func()
	yield func(struct{}) bool
	until int64   // Sleep's end (time.Now().UnixNano()), 0 when not sleeping
	conn  *FDConn // the socket it waits for, nil when it does not
}

// wakeToken is the eventfd's epoll data; sockets count from 1.
const wakeToken = 0

// NewLoop returns an empty loop; Close releases it.
func NewLoop() (*Loop, error) {
	epfd, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("epoll_create1: %w", err)
	}
	evfd, err := unix.Eventfd(0, unix.EFD_CLOEXEC|unix.EFD_NONBLOCK)
	if err != nil {
		unix.Close(epfd)
		return nil, fmt.Errorf("eventfd: %w", err)
	}
	ev := unix.EpollEvent{Events: unix.EPOLLIN}
	setData(&ev, wakeToken)
	if err := unix.EpollCtl(epfd, unix.EPOLL_CTL_ADD, evfd, &ev); err != nil {
		unix.Close(evfd)
		unix.Close(epfd)
		return nil, fmt.Errorf("epoll_ctl: %w", err)
	}
	return &Loop{epfd: epfd, evfd: evfd}, nil
}

// Go adds f, to be run as a coroutine by Run.
func (l *Loop) Go(f func()) {
	c := &co{}
	c.next, c.stop = iter.Pull(func(yield func(struct{}) bool) {
		c.yield = yield
		f()
	})
	l.cos = append(l.cos, c)
}

// Run runs the coroutines until all have returned. When ctx ends, every
// Sleep returns at once with ctx's error and every wait for a socket with
// net.ErrClosed, so that coroutines that watch ctx can end. Run holds its
// goroutine's P throughout, waiting too: the process needs another P
// (GOMAXPROCS above the number of loops running) for its other goroutines
// and its timers.
func (l *Loop) Run(ctx context.Context) {
	stop := context.AfterFunc(ctx, func() {
		l.done.Store(true)
		l.wake()
	})
	defer stop()
	l.live = len(l.cos)
	defer func() { l.live = 0 }()
	for _, c := range l.cos {
		l.resume(c)
	}
	for l.live > 0 {
		n, woke := l.wait(), false
		for i := range n {
			tok := getData(&l.events[i])
			if tok == wakeToken {
				var b [8]byte
				_, _ = unix.Read(l.evfd, b[:])
				woke = true
				continue
			}
			if fc := l.conns[tok-1]; fc.waiter != nil {
				l.resume(fc.waiter)
			}
		}
		if woke || n == 0 || l.sleeping > 0 {
			l.resumeDue(time.Now().UnixNano(), woke)
		}
	}
}

// wait waits for events, up to the first sleeper's or deadline's end
// (timeout), and returns how many are in l.events. The wait is a
// raw system call: it keeps the goroutine's P (Run's caller must leave the
// process another, see Run), and the runtime's sysmon, which would take a
// P back from an ordinary system call and then poll every 20 µs, stays
// asleep. Its signals (preemption, a stop of the world) end the wait with
// EINTR.
//
// A timed wait ends when its sleeper's time comes, to the microsecond,
// through epoll_pwait2 (Linux 5.11) and its timespec, as pgbench's ppoll
// does: a paced user (run --rate) starts on its schedule rather than on
// the next whole millisecond. Kernels without it round up to one.
func (l *Loop) wait() int {
	d := l.timeout()
	var r uintptr
	var e syscall.Errno
	if d > 0 && pwait2.Load() {
		l.ts = unix.NsecToTimespec(int64(d))
		r, _, e = syscall.RawSyscall6(unix.SYS_EPOLL_PWAIT2, uintptr(l.epfd), uintptr(unsafe.Pointer(&l.events[0])), uintptr(len(l.events)), uintptr(unsafe.Pointer(&l.ts)), 0, 0)
		if e == syscall.ENOSYS {
			pwait2.Store(false)
			return 0
		}
	} else {
		r, _, e = syscall.RawSyscall6(syscall.SYS_EPOLL_PWAIT, uintptr(l.epfd), uintptr(unsafe.Pointer(&l.events[0])), uintptr(len(l.events)), uintptr(msOf(d)), 0, 0)
	}
	switch e {
	case 0:
		return int(r)
	case syscall.EINTR:
		return 0
	}
	panic(fmt.Sprintf("rawsock: epoll_pwait: %v", e))
}

// maxWait bounds a Loop's timed wait (a sleeper's or a deadline's), so
// that a change of the clock delays neither by more.
const maxWait = 5 * time.Millisecond

// pwait2 tells the kernel has epoll_pwait2; the first ENOSYS clears it.
var pwait2 atomic.Bool

func init() { pwait2.Store(true) }

// msOf is timeout d as epoll_pwait takes it: whole milliseconds rounded
// up, -1 for none.
func msOf(d time.Duration) int {
	if d < 0 {
		return -1
	}
	return int((d + time.Millisecond - 1) / time.Millisecond)
}

// timeout is the wait's: until the first sleeper or socket deadline
// ends, at most maxWait; -1 (none) when nothing is timed. An untimed wait still ends for all that concerns the
// loop: its sockets' events; the eventfd, which Run's context, a deadline
// set and a socket's Close write to; the runtime's preemption signals
// (EINTR). A timeout would arm a timer at each wait, which on a virtual
// machine costs an exit to the hypervisor per round trip.
func (l *Loop) timeout() time.Duration {
	if l.done.Load() {
		return 0
	}
	if l.sleeping == 0 && l.timed == 0 {
		return -1
	}
	first := time.Now().Add(maxWait).UnixNano()
	for _, c := range l.cos {
		t := c.until
		if c.conn != nil {
			t = c.conn.deadline.Load()
		}
		if t > 0 && t < first {
			first = t
		}
	}
	return time.Duration(max(first-time.Now().UnixNano(), 0))
}

// resumeDue resumes the coroutines whose wait ended by now: a Sleep's
// end, a socket's deadline or close, Run's context. After a wake-up
// (woke: a deadline or a context changed elsewhere) every sleeper is
// resumed too, to look at its own context.
func (l *Loop) resumeDue(now int64, woke bool) {
	done := l.done.Load()
	for _, c := range l.cos {
		switch {
		case c.until != 0 && (woke || done || c.until <= now):
			l.resume(c)
		case c.conn != nil && (done || c.conn.closed.Load() || c.conn.expired(now)):
			l.resume(c)
		}
	}
}

// resume runs c until it waits again or returns.
func (l *Loop) resume(c *co) {
	l.cur = c
	_, ok := c.next()
	l.cur = nil
	if !ok {
		l.live--
		c.until, c.conn = 0, nil
	}
}

// park hands control back to the loop until it resumes the coroutine.
func (l *Loop) park() {
	if l.cur == nil {
		panic("rawsock: a Loop's wait outside its coroutines")
	}
	l.cur.yield(struct{}{})
}

// Sleep pauses the calling coroutine for d, or until ctx or Run's context
// ends (then it returns the context's error).
func (l *Loop) Sleep(ctx context.Context, d time.Duration) error {
	c := l.cur
	if c == nil {
		panic("rawsock: Loop.Sleep outside its coroutines")
	}
	c.until = time.Now().Add(d).UnixNano()
	if c.until == 0 {
		c.until = 1
	}
	l.sleeping++
	stop := context.AfterFunc(ctx, l.wake)
	for c.until > time.Now().UnixNano() && ctx.Err() == nil && !l.done.Load() {
		l.park()
	}
	stop()
	l.sleeping--
	c.until = 0
	if err := ctx.Err(); err != nil {
		return err
	}
	if l.done.Load() {
		return context.Canceled
	}
	return nil
}

// wake makes the loop look at its waits again (from any goroutine).
func (l *Loop) wake() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return
	}
	one := [8]byte{1}
	_, _ = unix.Write(l.evfd, one[:])
}

// Close releases the loop's epoll instance; its sockets stay open.
func (l *Loop) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return nil
	}
	l.closed = true
	if l.live == 0 { // never while Run runs them
		for _, c := range l.cos {
			c.stop()
		}
	}
	return errors.Join(unix.Close(l.evfd), unix.Close(l.epfd))
}

// interest registers (op) fc's socket in its loop for events.
func (fc *FDConn) interest(op int, events uint32) error {
	ev := unix.EpollEvent{Events: events | unix.EPOLLRDHUP | unix.EPOLLET}
	setData(&ev, fc.tok)
	if err := unix.EpollCtl(fc.l.epfd, op, fc.fd, &ev); err != nil {
		return fmt.Errorf("epoll_ctl: %w", err)
	}
	return nil
}

// setData and getData keep a token in an epoll event's 8 data bytes
// (golang.org/x/sys/unix splits them into Fd and Pad).
func setData(ev *unix.EpollEvent, tok uint64) { *(*uint64)(unsafe.Pointer(&ev.Fd)) = tok }
func getData(ev *unix.EpollEvent) uint64      { return *(*uint64)(unsafe.Pointer(&ev.Fd)) }

// FDConn is a TCP or Unix socket owned outside the runtime's network
// poller: Detach moves a connection there. Added to a Loop (Loop.Add), its
// calls wait through the loop and must come from the loop's coroutines;
// otherwise they wait in poll(2). Its deadline and Close may be set from
// any goroutine, Close only when no call is under way or to come.
type FDConn struct {
	fd           int
	laddr, raddr net.Addr
	l            *Loop
	tok          uint64
	waiter       *co          // the coroutine waiting for the socket
	deadline     atomic.Int64 // UnixNano, 0: none
	closed       atomic.Bool
}

var _ net.Conn = (*FDConn)(nil)

// Detach takes c's socket out of the runtime's network poller: a duplicate
// of its descriptor becomes an FDConn and c is closed. c must be a TCP or
// Unix socket (a Wrap of one too) with no call under way.
func Detach(c net.Conn) (*FDConn, error) {
	inner := c
	if w, ok := c.(*conn); ok {
		inner = w.Conn
	}
	sc, ok := inner.(syscall.Conn)
	if !ok {
		return nil, fmt.Errorf("detach %T: not a socket", c)
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return nil, fmt.Errorf("detach: %w", err)
	}
	nfd := -1
	var dupErr error
	if err := rc.Control(func(fd uintptr) {
		nfd, dupErr = unix.FcntlInt(fd, unix.F_DUPFD_CLOEXEC, 0)
	}); err != nil {
		return nil, fmt.Errorf("detach: %w", err)
	}
	if dupErr != nil {
		return nil, fmt.Errorf("detach: dup: %w", dupErr)
	}
	if err := unix.SetNonblock(nfd, true); err != nil {
		unix.Close(nfd)
		return nil, fmt.Errorf("detach: %w", err)
	}
	fc := &FDConn{fd: nfd, laddr: c.LocalAddr(), raddr: c.RemoteAddr()}
	_ = c.Close()
	return fc, nil
}

// Add makes fc wait through l; its calls must then come from l's
// coroutines. The socket is registered edge-triggered, for input: a
// virtual user's requests fit in the socket's buffer, and each ACK would
// otherwise wake the loop for output (await adds it while a write waits).
func (l *Loop) Add(fc *FDConn) error {
	if fc.l != nil {
		return errors.New("rawsock: the socket is in a loop already")
	}
	fc.l, fc.tok = l, uint64(len(l.conns)+1)
	if err := fc.interest(unix.EPOLL_CTL_ADD, unix.EPOLLIN); err != nil {
		fc.l = nil
		return err
	}
	l.conns = append(l.conns, fc)
	return nil
}

func (fc *FDConn) opError(op string, err error) error {
	return &net.OpError{Op: op, Net: fc.raddr.Network(), Source: fc.laddr, Addr: fc.raddr, Err: err}
}

// expired says whether the deadline passed at now.
func (fc *FDConn) expired(now int64) bool {
	d := fc.deadline.Load()
	return d != 0 && d <= now
}

// expiredNow says whether the deadline passed (reading the clock only
// when there is one).
func (fc *FDConn) expiredNow() bool {
	return fc.deadline.Load() != 0 && fc.expired(time.Now().UnixNano())
}

// await waits until the socket may be ready (an edge since the last
// EAGAIN), the deadline passes or the socket is closed.
func (fc *FDConn) await(events int16) error {
	for {
		switch {
		case fc.closed.Load():
			return net.ErrClosed
		case fc.expiredNow():
			return os.ErrDeadlineExceeded
		}
		if fc.l == nil {
			return fc.poll(events)
		}
		if fc.l.done.Load() {
			return net.ErrClosed
		}
		if events&unix.POLLOUT != 0 {
			if err := fc.interest(unix.EPOLL_CTL_MOD, unix.EPOLLIN|unix.EPOLLOUT); err != nil {
				return err
			}
		}
		c, timed := fc.l.cur, fc.deadline.Load() != 0
		fc.waiter, c.conn = c, fc
		if timed {
			fc.l.timed++
		}
		fc.l.park()
		if timed {
			fc.l.timed--
		}
		fc.waiter, c.conn = nil, nil
		if events&unix.POLLOUT != 0 && !fc.closed.Load() {
			if err := fc.interest(unix.EPOLL_CTL_MOD, unix.EPOLLIN); err != nil {
				return err
			}
		}
		if !fc.closed.Load() && !fc.expiredNow() && !fc.l.done.Load() {
			return nil
		}
	}
}

// poll waits in poll(2) for events, up to the deadline.
func (fc *FDConn) poll(events int16) error {
	timeout := -1
	if d := fc.deadline.Load(); d != 0 {
		ms := (d - time.Now().UnixNano() + int64(time.Millisecond) - 1) / int64(time.Millisecond)
		timeout = int(max(ms, 0))
	}
	fds := []unix.PollFd{{Fd: int32(fc.fd), Events: events}}
	for {
		_, err := unix.Poll(fds, timeout)
		if !errors.Is(err, unix.EINTR) {
			return err
		}
	}
}

// Read implements net.Conn.
func (fc *FDConn) Read(b []byte) (int, error) {
	if len(b) == 0 {
		return 0, nil
	}
	for {
		if fc.closed.Load() {
			return 0, fc.opError("read", net.ErrClosed)
		}
		r, _, e := syscall.RawSyscall(syscall.SYS_READ, uintptr(fc.fd), uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)))
		switch e {
		case 0:
			if r == 0 {
				return 0, io.EOF
			}
			return int(r), nil
		case syscall.EINTR:
			continue
		case syscall.EAGAIN:
			if err := fc.await(unix.POLLIN); err != nil {
				return 0, fc.opError("read", err)
			}
		default:
			return 0, fc.opError("read", e)
		}
	}
}

// Write implements net.Conn: it writes all of b unless an error comes.
func (fc *FDConn) Write(b []byte) (int, error) {
	n := 0
	for n < len(b) {
		if fc.closed.Load() {
			return n, fc.opError("write", net.ErrClosed)
		}
		r, _, e := syscall.RawSyscall(syscall.SYS_WRITE, uintptr(fc.fd), uintptr(unsafe.Pointer(&b[n])), uintptr(len(b)-n))
		switch e {
		case 0:
			n += int(r)
		case syscall.EINTR:
		case syscall.EAGAIN:
			if err := fc.await(unix.POLLOUT); err != nil {
				return n, fc.opError("write", err)
			}
		default:
			return n, fc.opError("write", e)
		}
	}
	return n, nil
}

// Exchange writes req and reads the start of its reply into b, waiting
// for the reply before the first read (which would find nothing yet).
func (fc *FDConn) Exchange(req, b []byte) (int, error) {
	if len(b) == 0 {
		return 0, io.ErrShortBuffer
	}
	if _, err := fc.Write(req); err != nil {
		return 0, err
	}
	if fc.l != nil {
		if err := fc.await(unix.POLLIN); err != nil {
			return 0, fc.opError("read", err)
		}
	}
	return fc.Read(b)
}

// Close implements net.Conn.
func (fc *FDConn) Close() error {
	if fc.closed.Swap(true) {
		return fc.opError("close", net.ErrClosed)
	}
	if l := fc.l; l != nil {
		l.mu.Lock()
		if !l.closed {
			_ = unix.EpollCtl(l.epfd, unix.EPOLL_CTL_DEL, fc.fd, nil)
		}
		l.mu.Unlock()
		l.wake()
	}
	return unix.Close(fc.fd)
}

// LocalAddr implements net.Conn.
func (fc *FDConn) LocalAddr() net.Addr { return fc.laddr }

// RemoteAddr implements net.Conn.
func (fc *FDConn) RemoteAddr() net.Addr { return fc.raddr }

// SetDeadline implements net.Conn: reads and writes alike.
func (fc *FDConn) SetDeadline(t time.Time) error {
	var d int64
	if !t.IsZero() {
		d = max(t.UnixNano(), 1)
	}
	fc.deadline.Store(d)
	if fc.l != nil {
		fc.l.wake()
	}
	return nil
}

// SetReadDeadline implements net.Conn, as SetDeadline.
func (fc *FDConn) SetReadDeadline(t time.Time) error { return fc.SetDeadline(t) }

// SetWriteDeadline implements net.Conn, as SetDeadline.
func (fc *FDConn) SetWriteDeadline(t time.Time) error { return fc.SetDeadline(t) }
