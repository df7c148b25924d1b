package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/rightsize/rightsize/instance"
	"github.com/rightsize/rightsize/store"
)

// Faults of a full disk (issue 45), on real small file systems: loopFS.

// pgBinArgs are the flags choosing the embedded target's binaries.
func pgBinArgs() []string {
	if b := os.Getenv("RIGHTSIZE_PG_BIN"); b != "" {
		return []string{"--pg-bin", b}
	}
	return nil
}

// A build the data directory's file system cannot hold is refused before
// anything starts, with the numbers.
func TestBuildRefusesWhatTheDiskCannotHold(t *testing.T) {
	mnt := loopFS(t, "250M")
	data := filepath.Join(mnt, "pg")
	_, errOut, code := cli(t, context.Background(), append([]string{"build", "--warehouses", "4", "--data-dir", data, "--store", tempStore(t)}, pgBinArgs()...)...)
	if code != 2 {
		t.Fatalf("exit %d, want 2:\n%s", code, errOut)
	}
	for _, want := range []string{"4 warehouses need about ", " MiB of tables and indexes, ", " MiB of WAL", mnt + " has ", " MiB free"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
	if _, err := os.Stat(data); !os.IsNotExist(err) {
		t.Errorf("the refused build made its data directory (%v)", err)
	}
}

// A disk that fills during a build: the build says why (the server's
// reason, where and how full), and run and check then name the database
// half-built instead of failing to start it; build --replace, with room
// again, builds it anew.
func TestBuildDiskFillsThenHalfBuilt(t *testing.T) {
	if testing.Short() {
		t.Skip("builds into its own embedded server")
	}
	mnt := loopFS(t, "400M")
	data := filepath.Join(mnt, "pg")
	args := append([]string{"--data-dir", data}, pgBinArgs()...)
	var filler string
	var once sync.Once
	onErr := func(s string) { // the load is over, the indexes are next
		if strings.Contains(s, "loaded") || strings.Contains(s, "indexes") {
			once.Do(func() { filler = fill(t, mnt) })
		}
	}
	_, errOut, code := cliWatch(t, context.Background(), onErr, append([]string{"build", "--warehouses", "1", "--store", tempStore(t)}, args...)...)
	if filler == "" {
		t.Fatalf("the disk was not filled: exit %d\n%s", code, errOut)
	}
	if code != 1 || !strings.Contains(errOut, "No space left on device") || !strings.Contains(errOut, mnt+", 0 MiB free)") {
		t.Fatalf("build on a full disk: exit %d, want 1 and the reason with where and how full:\n%s", code, errOut)
	}
	if !instance.BuildIncomplete(data) {
		t.Fatal("the failed build left no mark")
	}
	for _, cmd := range [][]string{{"run", "--users", "1", "--duration", "2s", "--store", tempStore(t)}, {"check"}} {
		_, errOut, code := cli(t, context.Background(), append(cmd, args...)...)
		if code != 2 || !strings.Contains(errOut, "the build of this database did not complete") || !strings.Contains(errOut, "build --replace") ||
			strings.Contains(errOut, "pg_ctl start") {
			t.Errorf("%s on the half-built database: exit %d, want 2 naming it half-built:\n%s", cmd[0], code, errOut)
		}
	}
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := cli(t, context.Background(), append([]string{"build", "--replace", "--warehouses", "1", "--store", tempStore(t)}, args...)...)
	if code != 0 || instance.BuildIncomplete(data) {
		t.Fatalf("build --replace with room again: exit %d, marked %v\n%s%s", code, instance.BuildIncomplete(data), out, errOut)
	}
}

// A disk that fills during a run ends the step as a lost server does:
// stored partial, server stopped, and the reason says the disk is full.
func TestRunDiskFills(t *testing.T) {
	mnt, data := builtOnLoop(t, "diskfull-seed-")
	st := tempStore(t)
	var filled bool
	var once sync.Once
	onErr := func(s string) {
		if strings.Contains(s, "step 1/1") {
			once.Do(func() { fill(t, mnt); filled = true })
		}
	}
	out, errOut, code := cliWatch(t, context.Background(), onErr, append([]string{"run", "--users", "2", "--rampup", "1s", "--duration", "1m",
		"--store", st, "--data-dir", data}, pgBinArgs()...)...)
	if !filled {
		t.Fatalf("the disk was not filled: exit %d\n%s%s", code, out, errOut)
	}
	if code != 1 || !strings.Contains(errOut, "lost the database server: ") || !strings.Contains(errOut, "0 MiB free") ||
		!strings.Contains(errOut, "No space left on device") && !strings.Contains(errOut, "file system is full") {
		t.Fatalf("run on a disk that filled: exit %d, want 1 and the disk named in the reason:\n%s%s", code, out, errOut)
	}
	onePartialRun(t, st)
}

// A results store whose disk fills during a run: what was measured goes
// to a spill file that results import brings into the store once there is
// room again.
func TestRunStoreFills(t *testing.T) {
	mnt := loopFS(t, "8M")
	dsn := built(t)
	path := filepath.Join(mnt, "results.db")
	var filler string
	var once sync.Once
	onErr := func(s string) {
		if strings.Contains(s, "step 1/1") {
			once.Do(func() { filler = fill(t, mnt) })
		}
	}
	out, errOut, code := cliWatch(t, context.Background(), onErr, "run", "--target", dsn, "--users", "1", "--rampup", "1s", "--duration", "2s", "--store", path)
	if filler == "" {
		t.Fatalf("the store's disk was not filled: exit %d\n%s%s", code, out, errOut)
	}
	if code != 1 || !strings.Contains(errOut, "the results store could not be written") || !strings.Contains(errOut, "rightsize results import ") {
		t.Fatalf("run with a full store: exit %d, want 1 and how to import the spill:\n%s%s", code, out, errOut)
	}
	spill := strings.TrimSpace(errOut[strings.LastIndex(errOut, "rightsize results import ")+len("rightsize results import "):])
	t.Cleanup(func() { os.Remove(spill) })
	if _, err := os.Stat(spill); err != nil {
		t.Fatalf("no spill file: %v\n%s", err, errOut)
	}
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	for i, want := range []string{"1 step(s) added", "0 step(s) added"} { // twice adds nothing
		out, errOut, code := cli(t, context.Background(), "results", "import", spill, "--store", path)
		if code != 0 || !strings.Contains(out, want) {
			t.Fatalf("results import #%d: exit %d, want %q\n%s%s", i+1, code, want, out, errOut)
		}
	}
	run, steps := onlyRun(t, path)
	if run.Status != store.StatusComplete || len(steps) != 1 || steps[0].TPM <= 0 {
		t.Fatalf("store after the import: %s run with %d step(s), want complete with 1 measured", run.Status, len(steps))
	}
}

// A sweep refuses, before it makes it, the copy of the database its file
// system cannot hold, and measures nothing.
func TestSweepRefusesCopyTheDiskCannotHold(t *testing.T) {
	mnt, data := builtOnLoop(t, "copyfull-seed-")
	st := tempStore(t)
	_, errOut, code := cli(t, context.Background(), append([]string{"sweep", "memory", "--values", "1G,512M", "--users", "1", "--duration", "2s",
		"--store", st, "--data-dir", data}, pgBinArgs()...)...)
	if code != 2 || !strings.Contains(errOut, "the copy of the database that sweeps and fit restore from needs about ") ||
		!strings.Contains(errOut, " MiB of WAL; "+mnt+" has ") {
		t.Fatalf("sweep without room for its copy: exit %d, want 2 and the numbers:\n%s", code, errOut)
	}
	nothingStored(t, st, "")
}

// A server process that dies during the load ("conn closed" to the
// loaders) makes the build say why, from the server's log.
func TestBuildServerDiesSaysWhy(t *testing.T) {
	if testing.Short() {
		t.Skip("builds into its own embedded server")
	}
	args, data := embeddedArgs(t, "dies-")
	done := make(chan struct{})
	killed := make(chan int, 1)
	go func() { // kill the first backend seen running a COPY
		for {
			select {
			case <-done:
				return
			case <-time.After(10 * time.Millisecond):
			}
			if pid := copyBackend(data); pid > 0 && syscall.Kill(pid, syscall.SIGKILL) == nil {
				killed <- pid
				return
			}
		}
	}()
	_, errOut, code := cli(t, context.Background(), append([]string{"build", "--warehouses", "1", "--store", tempStore(t)}, args...)...)
	close(done)
	select {
	case pid := <-killed:
		want := fmt.Sprintf("the server's log says: server process (PID %d) was terminated by signal 9", pid)
		if code != 1 || !strings.Contains(errOut, want) {
			t.Fatalf("build whose backend was killed: exit %d, want 1 and %q:\n%s", code, want, errOut)
		}
		t.Log(strings.TrimSpace(errOut))
	default:
		t.Fatalf("no COPY was seen to kill: exit %d\n%s", code, errOut)
	}
}

// copyBackend is a server process working in dataDir on a COPY (0: none).
func copyBackend(dataDir string) int {
	procs, _ := filepath.Glob("/proc/[0-9]*")
	for _, p := range procs {
		if cwd, err := os.Readlink(p + "/cwd"); err != nil || cwd != dataDir {
			continue
		}
		if cmd, err := os.ReadFile(p + "/cmdline"); err == nil && strings.Contains(string(cmd), " COPY") {
			pid, _ := strconv.Atoi(filepath.Base(p))
			return pid
		}
	}
	return 0
}

// A build whose WAL would not fit growing toward max_wal_size (4GB) runs
// with max_wal_size bounded, and fits.
func TestBuildBoundsItsWAL(t *testing.T) {
	if testing.Short() {
		t.Skip("builds into its own embedded server")
	}
	mnt := loopFS(t, "520M") // 447 MiB free: 476 needed unbounded, 440 bounded
	data := filepath.Join(mnt, "pg")
	out, errOut, code := cli(t, context.Background(), append([]string{"build", "--warehouses", "2", "--data-dir", data, "--store", tempStore(t)}, pgBinArgs()...)...)
	if code != 0 || !strings.Contains(errOut, "the load runs with max_wal_size=64MB") {
		t.Fatalf("2 warehouses on 520 MB: exit %d, want 0 with the WAL bounded:\n%s%s", code, out, errOut)
	}
}

// builtOnLoop is a 1-warehouse data directory (a clone of builtEmbedded's)
// on a 400 MB loop-mounted file system, and its mount point.
func builtOnLoop(t *testing.T, prefix string) (mnt, data string) {
	t.Helper()
	if testing.Short() {
		t.Skip("runs its own embedded server")
	}
	mnt = loopFS(t, "400M")
	_, seed := builtEmbedded(t, prefix)
	data = filepath.Join(mnt, "pg")
	if err := instance.CloneDataDir(seed, data); err != nil {
		t.Fatal(err)
	}
	return mnt, data
}
