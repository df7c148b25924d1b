//go:build linux

package storage

import (
	"fmt"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Linux native AIO (io_setup, io_submit, io_getevents), the interface fio's
// libaio engine uses, called directly: the builtin engine's fallback where
// io_uring is refused. It is asynchronous only with O_DIRECT.

// Linux AIO command codes (include/uapi/linux/aio_abi.h).
const (
	aioCmdPread  = 0
	aioCmdPwrite = 1
)

// aioCB is struct iocb (64 bytes). key and rwFlags swap places on
// big-endian machines; both are zero here.
type aioCB struct {
	data         uint64
	key, rwFlags uint32
	opcode       uint16
	reqprio      int16
	fildes       uint32
	buf, nbytes  uint64
	offset       int64
	reserved2    uint64
	flags, resfd uint32
}

// aioEvent is struct io_event.
type aioEvent struct {
	data, obj uint64
	res, res2 int64
}

// aioQueue is one Linux AIO context bound to one file.
type aioQueue struct {
	ctx    uintptr
	fd     int
	cbs    []aioCB
	staged []*aioCB
	events []aioEvent
}

// newAIOQueue sets up an AIO context for depth outstanding I/Os on fd.
func newAIOQueue(fd, depth int) (*aioQueue, error) {
	q := &aioQueue{fd: fd, cbs: make([]aioCB, depth), staged: make([]*aioCB, 0, depth), events: make([]aioEvent, depth)}
	if _, _, errno := unix.Syscall(unix.SYS_IO_SETUP, uintptr(depth), uintptr(unsafe.Pointer(&q.ctx)), 0); errno != 0 {
		return nil, fmt.Errorf("io_setup: %w", errno)
	}
	return q, nil
}

// begin has nothing to do: any thread may use an AIO context.
func (q *aioQueue) begin([][]byte) error { return nil }

// prepare stages a read or write of buf at off in slot.
func (q *aioQueue) prepare(slot int, write bool, buf []byte, off int64) {
	op := uint16(aioCmdPread)
	if write {
		op = aioCmdPwrite
	}
	q.cbs[slot] = aioCB{data: uint64(slot), opcode: op, fildes: uint32(q.fd), buf: uint64(uintptrOf(buf)), nbytes: uint64(len(buf)), offset: off}
	q.staged = append(q.staged, &q.cbs[slot])
}

// submitAndWait submits the staged I/Os (io_submit) and waits for at least
// atLeast completions (io_getevents), appending them to done. Both are
// ordinary system calls, as with io_uring (see uring.submitAndWait).
func (q *aioQueue) submitAndWait(atLeast int, done []completion) ([]completion, error) {
	if err := q.submit(); err != nil {
		return done, err
	}
	return q.getEvents(atLeast, done)
}

// submit sends the staged I/Os (io_submit) without waiting.
func (q *aioQueue) submit() error {
	for len(q.staged) > 0 {
		n, _, errno := unix.Syscall(unix.SYS_IO_SUBMIT, q.ctx, uintptr(len(q.staged)), uintptr(unsafe.Pointer(&q.staged[0])))
		switch {
		case errno == 0:
			q.staged = q.staged[:copy(q.staged, q.staged[n:])]
		case errno == unix.EINTR:
		default:
			return fmt.Errorf("io_submit: %w", errno)
		}
	}
	return nil
}

// getEvents waits for at least atLeast completions and appends every available
// one to done.
func (q *aioQueue) getEvents(atLeast int, done []completion) ([]completion, error) {
	for {
		// A zero timeout polls when nothing has to be waited for.
		var zero unix.Timespec
		timeout := uintptr(unsafe.Pointer(&zero))
		if atLeast > 0 {
			timeout = 0
		}
		n, _, errno := unix.Syscall6(unix.SYS_IO_GETEVENTS, q.ctx, uintptr(atLeast), uintptr(len(q.events)), uintptr(unsafe.Pointer(&q.events[0])), timeout, 0)
		if errno == unix.EINTR {
			continue
		}
		if errno != 0 {
			return done, fmt.Errorf("io_getevents: %w", errno)
		}
		for _, e := range q.events[:n] {
			done = append(done, completion{slot: int(e.data), res: e.res})
		}
		return done, nil
	}
}

// close destroys the context.
func (q *aioQueue) close() error {
	if _, _, errno := unix.Syscall(unix.SYS_IO_DESTROY, q.ctx, 0, 0); errno != 0 {
		return fmt.Errorf("io_destroy: %w", errno)
	}
	return nil
}
