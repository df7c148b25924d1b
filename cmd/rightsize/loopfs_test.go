package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rightsize/rightsize/instance"
)

// loopFS mounts a fresh ext4 file system of size (truncate's syntax,
// "250M") on a loop device and returns its mount point, reachable by the
// server user (mode 0755 up to /). Cleanup stops any server left on it,
// unmounts it, checks that its loop device is gone and removes the image.
// It skips the test when not root or without loop devices or mkfs.ext4.
func loopFS(t *testing.T, size string) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root: mounts a small file system on a loop device")
	}
	for _, tool := range []string{"losetup", "mkfs.ext4", "mount", "umount", "truncate"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("needs %s to mount a small file system: %v", tool, err)
		}
	}
	if out, err := exec.Command("losetup", "-f").CombinedOutput(); err != nil {
		t.Skipf("no free loop device: %v %s", err, out)
	}
	dir, err := os.MkdirTemp("", "rightsize-loop-")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	img, mnt := filepath.Join(dir, "fs.img"), filepath.Join(dir, "mnt")
	t.Cleanup(func() { unmountLoop(t, dir, img, mnt) })
	for _, c := range [][]string{{"truncate", "-s", size, img}, {"mkfs.ext4", "-q", img}, {"mkdir", mnt}, {"mount", "-o", "loop", img, mnt}, {"chmod", "0755", mnt}} {
		if out, err := exec.Command(c[0], c[1:]...).CombinedOutput(); err != nil {
			if c[0] == "mount" {
				t.Skipf("cannot mount a loop device here: %v %s", err, out)
			}
			t.Fatalf("%v: %v %s", c, err, out)
		}
	}
	return mnt
}

// unmountLoop undoes loopFS, failing the test for what was left on it.
func unmountLoop(t *testing.T, dir, img, mnt string) {
	if mounted(mnt) {
		entries, _ := os.ReadDir(mnt)
		for _, e := range entries { // a server left running would keep it busy
			dataDir := filepath.Join(mnt, e.Name())
			if b, err := os.ReadFile(filepath.Join(dataDir, "postmaster.pid")); err == nil {
				line, _, _ := strings.Cut(string(b), "\n")
				if pid, _ := strconv.Atoi(strings.TrimSpace(line)); pid > 0 && instance.ProcessRunning(pid) {
					t.Errorf("a server was left running on %s (pid %d)", dataDir, pid)
					_ = instance.StopDataDir(dataDir, 10*time.Second)
				}
			}
		}
		if out, err := exec.Command("umount", mnt).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v %s", mnt, err, out)
			_ = exec.Command("umount", "-l", mnt).Run()
		}
	}
	if out, _ := exec.Command("losetup", "-j", img).CombinedOutput(); strings.TrimSpace(string(out)) != "" {
		t.Errorf("loop device left attached: %s", out)
		_ = exec.Command("sh", "-c", "losetup -j "+img+" | cut -d: -f1 | xargs -r losetup -d").Run()
	}
	_ = os.RemoveAll(dir)
}

// mounted reports whether a file system is mounted at path.
func mounted(path string) bool {
	b, err := os.ReadFile("/proc/self/mounts")
	return err == nil && strings.Contains(string(b), " "+path+" ")
}

// fill writes to a file in dir until its file system is full (root also
// takes the blocks reserved for it) and returns the file.
func fill(t *testing.T, dir string) string {
	t.Helper()
	path := filepath.Join(dir, "filler")
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	buf := make([]byte, 1<<20)
	for {
		if _, err := f.Write(buf); err != nil {
			if !errors.Is(err, syscall.ENOSPC) {
				t.Errorf("fill %s: %v", dir, err)
			}
			break
		}
	}
	for _, n := range []int{64 << 10, 4 << 10, 512} {
		for {
			if _, err := f.Write(buf[:n]); err != nil {
				break
			}
		}
	}
	_ = f.Sync()
	return path
}
