//go:build linux

package storage

import (
	"errors"
	"fmt"
	"sync/atomic"
	"unsafe"

	"golang.org/x/sys/unix"
)

// A minimal io_uring for the builtin engine: one ring per thread, its
// submission and completion queues mapped from the kernel, I/O submitted
// and reaped with io_uring_enter through golang.org/x/sys/unix. No Go
// io_uring library is served by the module proxy this project builds from
// (giouring, iouring-go and go-uring were checked), and the engine needs
// only reads, writes and one system call per batch.

// io_uring ABI constants (include/uapi/linux/io_uring.h).
const (
	uringOffSQRing = 0
	uringOffCQRing = 0x8000000
	uringOffSQEs   = 0x10000000

	uringEnterGetEvents = 1 << 0

	// io_uring_register operations.
	uringRegisterBuffers = 0
	uringRegisterFiles   = 2

	uringSQEFixedFile = 1 << 0 // IOSQE_FIXED_FILE: fd is an index of the registered files

	uringFeatSingleMmap = 1 << 0
	uringFeatRWCurPos   = 1 << 3 // kernel 5.6: also IORING_OP_READ and _WRITE

	uringOpReadv      = 1
	uringOpWritev     = 2
	uringOpReadFixed  = 4
	uringOpWriteFixed = 5
	uringOpRead       = 22
	uringOpWrite      = 23
)

// uringParams is struct io_uring_params.
type uringParams struct {
	sqEntries, cqEntries, flags, sqThreadCPU, sqThreadIdle, features, wqFd uint32
	resv                                                                   [3]uint32
	sqOff                                                                  uringSQOffsets
	cqOff                                                                  uringCQOffsets
}

// uringSQOffsets is struct io_sqring_offsets.
type uringSQOffsets struct {
	head, tail, ringMask, ringEntries, flags, dropped, array, resv1 uint32
	userAddr                                                        uint64
}

// uringCQOffsets is struct io_cqring_offsets.
type uringCQOffsets struct {
	head, tail, ringMask, ringEntries, overflow, cqes, flags, resv1 uint32
	userAddr                                                        uint64
}

// uringSQE is struct io_uring_sqe (64 bytes).
type uringSQE struct {
	opcode, flags         uint8
	ioprio                uint16
	fd                    int32
	off, addr             uint64
	len, rwFlags          uint32
	userData              uint64
	bufIndex, personality uint16
	spliceFdIn            int32
	addr3, pad            uint64
}

// uringCQE is struct io_uring_cqe (16 bytes).
type uringCQE struct {
	userData uint64
	res      int32
	flags    uint32
}

// uring is one io_uring instance bound to one file.
type uring struct {
	ringFd, fileFd       int
	sqMem, cqMem, sqeMem []byte

	sqHead, sqTail, cqHead, cqTail *uint32
	sqMask, cqMask                 uint32
	sqArray                        []uint32
	sqes                           []uringSQE
	cqes                           []uringCQE
	vectored                       bool
	iovecs                         []unix.Iovec
	// fixedFile: the file is registered with the ring (index 0).
	fixedFile bool
	// fixedBufs[slot] is the address of slot's registered buffer (nil
	// when the buffers are not registered).
	fixedBufs []uintptr
}

// errURingRefused is what a simulated refusal (Options.RefuseIOUring)
// returns: the error io_uring_setup gives where io_uring is disabled
// (sysctl kernel.io_uring_disabled, a seccomp filter).
var errURingRefused = fmt.Errorf("io_uring_setup: %w (simulated refusal)", unix.EPERM)

// newURing sets up a ring of depth entries for I/O on fd. It is a plain
// ring, usable from any thread: the goroutine that drives it is not locked
// to one (see yieldEvery), which rules out a single submitter with deferred
// completion work (IORING_SETUP_SINGLE_ISSUER, DEFER_TASKRUN); and not
// COOP_TASKRUN either, whose completion work waits for the submitting
// thread to enter the kernel, which a thread the goroutine has left may
// not do for long.
func newURing(fd, depth int) (*uring, error) {
	var p uringParams
	r1, _, errno := unix.Syscall(unix.SYS_IO_URING_SETUP, uintptr(depth), uintptr(unsafe.Pointer(&p)), 0)
	if errno != 0 {
		return nil, fmt.Errorf("io_uring_setup: %w", errno)
	}
	u := &uring{ringFd: int(r1), fileFd: fd}
	if err := u.mapRings(&p); err != nil {
		u.close()
		return nil, err
	}
	u.vectored = p.features&uringFeatRWCurPos == 0
	u.iovecs = make([]unix.Iovec, depth)
	return u, nil
}

// mapRings maps the queues the kernel set up and locates their fields.
func (u *uring) mapRings(p *uringParams) error {
	sqSize := int(p.sqOff.array + p.sqEntries*4)
	cqSize := int(p.cqOff.cqes + p.cqEntries*uint32(unsafe.Sizeof(uringCQE{})))
	single := p.features&uringFeatSingleMmap != 0
	if single {
		sqSize = max(sqSize, cqSize)
	}
	var err error
	prot, flags := unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED|unix.MAP_POPULATE
	if u.sqMem, err = unix.Mmap(u.ringFd, uringOffSQRing, sqSize, prot, flags); err != nil {
		return fmt.Errorf("io_uring: mapping the submission queue: %w", err)
	}
	u.cqMem = u.sqMem
	if !single {
		if u.cqMem, err = unix.Mmap(u.ringFd, uringOffCQRing, cqSize, prot, flags); err != nil {
			return fmt.Errorf("io_uring: mapping the completion queue: %w", err)
		}
	}
	sqeSize := int(p.sqEntries) * int(unsafe.Sizeof(uringSQE{}))
	if u.sqeMem, err = unix.Mmap(u.ringFd, uringOffSQEs, sqeSize, prot, flags); err != nil {
		return fmt.Errorf("io_uring: mapping the submission entries: %w", err)
	}
	at := func(mem []byte, off uint32) *uint32 { return (*uint32)(unsafe.Pointer(&mem[off])) }
	u.sqHead, u.sqTail, u.sqMask = at(u.sqMem, p.sqOff.head), at(u.sqMem, p.sqOff.tail), *at(u.sqMem, p.sqOff.ringMask)
	u.cqHead, u.cqTail, u.cqMask = at(u.cqMem, p.cqOff.head), at(u.cqMem, p.cqOff.tail), *at(u.cqMem, p.cqOff.ringMask)
	u.sqArray = unsafe.Slice(at(u.sqMem, p.sqOff.array), p.sqEntries)
	u.sqes = unsafe.Slice((*uringSQE)(unsafe.Pointer(&u.sqeMem[0])), p.sqEntries)
	u.cqes = unsafe.Slice((*uringCQE)(unsafe.Pointer(&u.cqMem[p.cqOff.cqes])), p.cqEntries)
	return nil
}

// begin registers the file and the slots' buffers with the ring where the
// kernel accepts it: the kernel then pins the buffers' pages
// once rather than at every I/O (the larger the block, the more pages) and
// takes no reference on the file per I/O. Without registration (a
// memlock limit too low, an old kernel) the ring works as well.
func (u *uring) begin(bufs [][]byte) error {
	fd := int32(u.fileFd)
	u.fixedFile = u.register(uringRegisterFiles, unsafe.Pointer(&fd), 1) == nil
	if len(bufs) == 0 {
		return nil
	}
	iov := make([]unix.Iovec, len(bufs))
	for i, b := range bufs {
		iov[i] = unix.Iovec{Base: unsafe.SliceData(b)}
		iov[i].SetLen(len(b))
	}
	if u.register(uringRegisterBuffers, unsafe.Pointer(&iov[0]), len(iov)) == nil {
		u.fixedBufs = make([]uintptr, len(bufs))
		for i, b := range bufs {
			u.fixedBufs[i] = uintptrOf(b)
		}
	}
	return nil
}

// register calls io_uring_register.
func (u *uring) register(op uintptr, arg unsafe.Pointer, n int) error {
	if _, _, errno := unix.Syscall6(unix.SYS_IO_URING_REGISTER, uintptr(u.ringFd), op, uintptr(arg), uintptr(n), 0, 0); errno != 0 {
		return errno
	}
	return nil
}

// prepare stages a read or write of buf at off in slot.
func (u *uring) prepare(slot int, write bool, buf []byte, off int64) {
	tail := atomic.LoadUint32(u.sqTail)
	i := tail & u.sqMask
	sqe := uringSQE{fd: int32(u.fileFd), off: uint64(off), userData: uint64(slot)}
	if u.fixedFile {
		sqe.fd, sqe.flags = 0, uringSQEFixedFile
	}
	u.setBuffer(&sqe, slot, write, buf)
	u.sqes[i] = sqe
	u.sqArray[i] = i
	atomic.StoreUint32(u.sqTail, tail+1)
}

// setBuffer sets an entry's operation and buffer: the slot's registered
// buffer, else buf by its address (through an iovec before kernel 5.6).
func (u *uring) setBuffer(sqe *uringSQE, slot int, write bool, buf []byte) {
	addr := uintptrOf(buf)
	sqe.addr, sqe.len = uint64(addr), uint32(len(buf))
	switch {
	case slot < len(u.fixedBufs) && u.fixedBufs[slot] == addr:
		sqe.opcode, sqe.bufIndex = uringOpReadFixed, uint16(slot)
	case u.vectored:
		u.iovecs[slot] = unix.Iovec{Base: &buf[0]}
		u.iovecs[slot].SetLen(len(buf))
		sqe.opcode, sqe.addr, sqe.len = uringOpReadv, uint64(uintptr(unsafe.Pointer(&u.iovecs[slot]))), 1
	default:
		sqe.opcode = uringOpRead
	}
	if write {
		sqe.opcode++ // each write operation follows its read
	}
}

// submitAndWait submits the staged entries and waits until at least atLeast
// completions are available, appending all available ones to done.
//
// io_uring_enter is an ordinary system call, not a raw one: a goroutine in
// a raw call looks to the runtime as if it ran for ever, so sysmon preempts
// it with a signal every 10 ms (measured with a locked thread: hundreds of
// CPU migrations a second and a longer latency tail). With a spare P (the
// job raised GOMAXPROCS) and the thread yielding regularly (yieldEvery) the
// runtime takes no P from the waiting thread.
func (u *uring) submitAndWait(atLeast int, done []completion) ([]completion, error) {
	base := len(done)
	for {
		done = u.reap(done)
		toSubmit := u.staged()
		if toSubmit == 0 && len(done)-base >= atLeast {
			return done, nil
		}
		busy, err := u.enter(toSubmit, max(atLeast-(len(done)-base), 0))
		if err != nil {
			return done, err
		}
		if busy && len(done) > base {
			return done, nil // completions free the kernel's resources
		}
	}
}

// submit sends the staged entries without waiting for completions; when the
// kernel is out of resources for now, the next submitAndWait sends them once
// completions have freed some.
func (u *uring) submit() error {
	for toSubmit := u.staged(); toSubmit > 0; toSubmit = u.staged() {
		if busy, err := u.enter(toSubmit, 0); busy || err != nil {
			return err
		}
	}
	return nil
}

// staged is the number of entries prepared but not yet taken by the kernel.
func (u *uring) staged() uint32 { return atomic.LoadUint32(u.sqTail) - atomic.LoadUint32(u.sqHead) }

// enter calls io_uring_enter to submit toSubmit entries and wait for wait
// completions; busy reports that the kernel is out of resources for now
// (EAGAIN, EBUSY), an interrupted call is neither busy nor an error.
func (u *uring) enter(toSubmit uint32, wait int) (busy bool, err error) {
	flags := 0
	if wait > 0 {
		flags = uringEnterGetEvents
	}
	_, _, errno := unix.Syscall6(unix.SYS_IO_URING_ENTER, uintptr(u.ringFd), uintptr(toSubmit), uintptr(wait), uintptr(flags), 0, 0)
	switch errno {
	case 0, unix.EINTR:
		return false, nil
	case unix.EAGAIN, unix.EBUSY:
		return true, nil
	}
	return false, fmt.Errorf("io_uring_enter: %w", errno)
}

// reap appends the available completions to done and frees their entries.
func (u *uring) reap(done []completion) []completion {
	head, tail := atomic.LoadUint32(u.cqHead), atomic.LoadUint32(u.cqTail)
	for ; head != tail; head++ {
		c := &u.cqes[head&u.cqMask]
		done = append(done, completion{slot: int(c.userData), res: int64(c.res)})
	}
	atomic.StoreUint32(u.cqHead, head)
	return done
}

// close unmaps the queues and closes the ring.
func (u *uring) close() error {
	var errs []error
	if u.sqeMem != nil {
		errs = append(errs, unix.Munmap(u.sqeMem))
	}
	if u.cqMem != nil && (u.sqMem == nil || &u.cqMem[0] != &u.sqMem[0]) {
		errs = append(errs, unix.Munmap(u.cqMem))
	}
	if u.sqMem != nil {
		errs = append(errs, unix.Munmap(u.sqMem))
	}
	errs = append(errs, unix.Close(u.ringFd))
	return errors.Join(errs...)
}
