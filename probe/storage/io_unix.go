//go:build unix

package storage

import (
	"os"
	"syscall"
)

// rawFile issues positioned I/O straight to the file descriptor: no file
// position, no locking, no allocation per call.
type rawFile struct {
	f  *os.File
	fd int
}

func newRawFile(f *os.File) rawFile { return rawFile{f: f, fd: int(f.Fd())} }

// pread reads len(b) bytes at off.
func (r rawFile) pread(b []byte, off int64) (int, error) {
	for {
		n, err := syscall.Pread(r.fd, b, off)
		if err != syscall.EINTR {
			return n, err
		}
	}
}

// pwrite writes b at off.
func (r rawFile) pwrite(b []byte, off int64) (int, error) {
	for {
		n, err := syscall.Pwrite(r.fd, b, off)
		if err != syscall.EINTR {
			return n, err
		}
	}
}

// fsync flushes the file to stable storage.
func (r rawFile) fsync() error {
	for {
		err := syscall.Fsync(r.fd)
		if err != syscall.EINTR {
			return err
		}
	}
}
