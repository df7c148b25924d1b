//go:build !unix

package storage

import "os"

// rawFile issues positioned I/O through os.File on platforms without pread.
type rawFile struct{ f *os.File }

func newRawFile(f *os.File) rawFile { return rawFile{f: f} }

// pread reads len(b) bytes at off.
func (r rawFile) pread(b []byte, off int64) (int, error) { return r.f.ReadAt(b, off) }

// pwrite writes b at off.
func (r rawFile) pwrite(b []byte, off int64) (int, error) { return r.f.WriteAt(b, off) }

// fsync flushes the file to stable storage.
func (r rawFile) fsync() error { return r.f.Sync() }
