package storage

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
	"unsafe"

	"github.com/rightsize/rightsize/internal/units"
)

// Engine names accepted in Options.Engine and reported in JobResult.Engine.
const (
	EngineAuto    = "auto"
	EngineFio     = "fio"
	EngineBuiltin = "builtin"
)

// ResolveEngine returns the engine Run would use for the given
// Options.Engine value: "auto" and "" pick fio when it is on PATH and builtin
// otherwise; "fio" needs fio on PATH.
func ResolveEngine(engine string) (string, error) {
	switch strings.ToLower(strings.TrimSpace(engine)) {
	case "", EngineAuto:
		if _, err := exec.LookPath("fio"); err == nil {
			return EngineFio, nil
		}
		return EngineBuiltin, nil
	case EngineFio:
		if _, err := exec.LookPath("fio"); err != nil {
			return "", fmt.Errorf("storage engine fio requested but fio is not installed (not on PATH): %w", err)
		}
		return EngineFio, nil
	case EngineBuiltin:
		return EngineBuiltin, nil
	}
	return "", fmt.Errorf("unknown storage engine %q (valid: auto, fio, builtin)", engine)
}

// Run lays out the test file in opt.Path, runs the jobs one after the other
// with the selected engine and returns one result per job. progress, if not
// nil, is called with "layout" before the test file is written and with each
// job's Name as the job starts.
//
// Bad input (a path that does not exist, is not a directory or is not
// writable, a size beyond the free space or below a job's block size, an
// invalid job) is reported before any I/O. The test file is removed before
// Run returns, whatever happens. When ctx is cancelled, Run stops the
// running job and returns the results completed so far, plus the
// interrupted job's partial result when the engine could produce one (with
// a note saying so), together with ctx's error.
//
// While a builtin job runs, GOMAXPROCS is raised to at least one more than
// its goroutines (Threads with io_uring or Linux AIO, Threads*QueueDepth
// otherwise) so that each goroutine blocked in a system call keeps a P,
// and restored when the job ends.
func Run(ctx context.Context, opt Options, jobs []Job, progress func(job string)) ([]JobResult, error) {
	if progress == nil {
		progress = func(string) {}
	}
	v, err := Prepare(ctx, opt, jobs, progress)
	if err != nil {
		return nil, err
	}
	defer v.Close()
	results := make([]JobResult, 0, len(jobs))
	for _, j := range jobs {
		if err := ctx.Err(); err != nil {
			return results, err
		}
		progress(j.Name)
		r, err := v.RunJob(ctx, opt, j)
		if err != nil {
			if ctx.Err() != nil && r.IOsDone() > 0 {
				results = append(results, r)
			}
			return results, err
		}
		results = append(results, r)
	}
	return results, nil
}

// Volume is the laid-out test file of a probe, on which jobs run with any
// engine (Prepare, RunJob, Close). Run is the usual way; a benchmark uses a
// Volume to interleave engines job by job on one test file.
type Volume struct {
	file        string
	size        int64
	direct      bool
	layoutNotes []string
	fio         *fioSetup
}

// Prepare checks opt and jobs as Run does (bad input before any I/O) and
// lays out the test file; progress, if not nil, is called with "layout"
// first. The caller must Close the volume to remove the file.
func Prepare(ctx context.Context, opt Options, jobs []Job, progress func(job string)) (*Volume, error) {
	if len(jobs) == 0 {
		return nil, errors.New("storage probe: no jobs to run")
	}
	if _, err := ResolveEngine(opt.Engine); err != nil {
		return nil, err
	}
	if _, err := checkBuiltinIO(opt.BuiltinIO); err != nil {
		return nil, err
	}
	size := opt.Size
	if size == 0 {
		size = DefaultSize
	}
	if size < 0 {
		return nil, fmt.Errorf("storage probe: test file size %d is negative", size)
	}
	size &^= 4095
	for _, j := range jobs {
		if err := j.validate(); err != nil {
			return nil, fmt.Errorf("storage probe: %w", err)
		}
		if int64(j.BlockSize) > size {
			return nil, fmt.Errorf("storage probe: test file size %d bytes is smaller than job %s's block size %d", opt.Size, j.Name, j.BlockSize)
		}
		if !j.Random && size/int64(j.Threads) < int64(j.BlockSize) {
			return nil, fmt.Errorf("storage probe: test file size %d bytes is too small for job %s: each of its %d threads needs at least one %d-byte block", opt.Size, j.Name, j.Threads, j.BlockSize)
		}
	}
	file, err := checkDir(opt.Path, size)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if progress != nil {
		progress("layout")
	}
	v := &Volume{file: file, size: size}
	if v.direct, v.layoutNotes, err = layout(ctx, file, size); err != nil {
		v.Close()
		return nil, err
	}
	return v, nil
}

// RunJob runs one job on the volume with opt's Engine, BuiltinIO and
// RefuseIOUring (its Path and Size are the volume's). When ctx is
// cancelled it returns the job's partial result, noted as such, with ctx's
// error.
func (v *Volume) RunJob(ctx context.Context, opt Options, j Job) (JobResult, error) {
	engine, err := ResolveEngine(opt.Engine)
	if err != nil {
		return JobResult{}, err
	}
	bio, err := checkBuiltinIO(opt.BuiltinIO)
	if err != nil {
		return JobResult{}, err
	}
	if engine == EngineFio && v.fio == nil {
		if v.fio, err = detectFio(ctx); err != nil {
			return JobResult{}, err
		}
	}
	var r JobResult
	useDirect := j.Direct && v.direct
	if engine == EngineFio {
		r, err = runFio(ctx, v.fio, v.file, v.size, j, useDirect)
	} else {
		r, err = runBuiltin(ctx, v.file, v.size, j, useDirect, builtinConfig{io: bio, refuseURing: opt.RefuseIOUring})
	}
	r.Job, r.Engine, r.DirectIO = j, engine, useDirect
	if j.Direct && !v.direct {
		r.Notes = append(append([]string(nil), v.layoutNotes...), r.Notes...)
	}
	switch {
	case err == nil:
		return r, nil
	case ctx.Err() != nil:
		if r.IOsDone() > 0 {
			r.Notes = append(r.Notes, "interrupted: partial result")
		}
		return r, ctx.Err()
	}
	return r, fmt.Errorf("storage probe: job %s (%s): %w", j.Name, engine, err)
}

// Close removes the test file.
func (v *Volume) Close() error {
	if err := os.Remove(v.file); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("storage probe: removing the test file: %w", err)
	}
	return nil
}

// IOsDone is the number of reads and writes the result counts.
func (r JobResult) IOsDone() int64 { return r.Read.IOs + r.Write.IOs }

// checkDir validates the target directory and free space without creating
// anything; it returns the test file's path.
func checkDir(path string, size int64) (string, error) {
	if path == "" {
		return "", errors.New("storage probe: no directory given")
	}
	dir, err := filepath.Abs(path)
	if err != nil {
		return "", fmt.Errorf("storage probe: %w", err)
	}
	st, err := os.Stat(dir)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return "", fmt.Errorf("storage probe: directory %s does not exist", dir)
		}
		return "", fmt.Errorf("storage probe: %w", err)
	}
	if !st.IsDir() {
		return "", fmt.Errorf("storage probe: %s is not a directory", dir)
	}
	if err := checkWritable(dir); err != nil {
		return "", fmt.Errorf("storage probe: directory %s is not writable: %w", dir, err)
	}
	file := filepath.Join(dir, TestFileName)
	free, err := freeSpace(dir)
	if err != nil {
		return "", fmt.Errorf("storage probe: free space of %s: %w", dir, err)
	}
	// A leftover test file is reused or replaced: its space counts as free.
	if fst, err := os.Lstat(file); err == nil {
		if !fst.Mode().IsRegular() {
			return "", fmt.Errorf("storage probe: %s exists and is not a regular file", file)
		}
		free += uint64(fst.Size())
	}
	if uint64(size) > free {
		return "", fmt.Errorf("storage probe: test file size %s is larger than the free space %s in %s",
			units.HumanBytes(size), units.HumanBytes(int64(free)), dir)
	}
	return file, nil
}

// layoutChunk is the size of each write when laying out the test file.
const layoutChunk = 1 << 20

// layout creates (or reuses, if it has the right size) the test file and
// fills it with random-looking data, so that the measured I/O hits allocated
// blocks and nothing compresses or deduplicates it. It reports whether
// O_DIRECT is supported on the file system.
func layout(ctx context.Context, file string, size int64) (direct bool, notes []string, err error) {
	f, direct, err := openTestFile(file, true, true)
	if err != nil {
		return false, nil, fmt.Errorf("storage probe: creating the test file: %w", err)
	}
	defer func() {
		if cerr := f.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("storage probe: closing the test file: %w", cerr)
		}
	}()
	if !direct {
		notes = append(notes, "O_DIRECT is not supported on this file system: buffered I/O was used, results include the page cache")
	}
	st, err := f.Stat()
	if err != nil {
		return direct, notes, fmt.Errorf("storage probe: %w", err)
	}
	if st.Size() == size {
		return direct, notes, nil
	}
	if err := f.Truncate(0); err != nil {
		return direct, notes, fmt.Errorf("storage probe: %w", err)
	}
	buf := alignedBuffer(layoutChunk)
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 0x9e3779b97f4a7c15))
	for i := 0; i+8 <= len(buf); i += 8 {
		v := rng.Uint64()
		for k := 0; k < 8; k++ {
			buf[i+k] = byte(v >> (8 * k))
		}
	}
	for off := int64(0); off < size; off += layoutChunk {
		if err := ctx.Err(); err != nil {
			return direct, notes, err
		}
		n := int64(layoutChunk)
		if size-off < n {
			n = size - off
		}
		// Stamp every 4 KiB block so that no two blocks are identical.
		for b := int64(0); b < n; b += 4096 {
			v := uint64(off+b) ^ rng.Uint64()
			for k := 0; k < 8; k++ {
				buf[b+int64(k)] = byte(v >> (8 * k))
			}
		}
		if _, err := f.WriteAt(buf[:n], off); err != nil {
			return direct, notes, fmt.Errorf("storage probe: laying out the test file: %w", err)
		}
	}
	if err := f.Sync(); err != nil {
		return direct, notes, fmt.Errorf("storage probe: laying out the test file: %w", err)
	}
	return direct, notes, nil
}

// alignedBuffer returns a zeroed slice of n bytes whose start is aligned to
// 4096 bytes, as O_DIRECT needs.
func alignedBuffer(n int) []byte {
	const align = 4096
	b := make([]byte, n+align)
	off := 0
	if r := int(uintptrOf(b) % align); r != 0 {
		off = align - r
	}
	return b[off : off+n : off+n]
}

// uintptrOf is the address of b's first byte.
func uintptrOf(b []byte) uintptr { return uintptr(unsafe.Pointer(unsafe.SliceData(b))) }
