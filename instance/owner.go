package instance

// Owner records: who started each managed server.
//
// pg_ctl daemonises the postmaster, so a rightsize killed with SIGKILL (a
// CI job's timeout, the OOM killer) leaves its server running, and the next
// start on that data directory would refuse it as "in use". So every
// server a rightsize starts gets a record in <base dir>/owners: the data
// directory, the rightsize process that owns it (host, pid and start time,
// package procid: a reused pid is not the owner) and the postmaster (pid
// and start time; before the postmaster exists, its port). CloneDataDir
// records its copies as temporary ones of the process that made them. A
// stop removes the record (a temporary copy's stays until the copy is
// gone). Every start first reclaims what dead owners left: their servers
// are stopped (fast shutdown), their temporary copies removed, and their
// control groups too (cgroup.CleanStale), with one line saying so. A
// server whose owner still runs is never touched.

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/rightsize/rightsize/cgroup"
	"github.com/rightsize/rightsize/internal/basedir"
	"github.com/rightsize/rightsize/internal/procid"
)

// ownerRecord is who started a server on DataDir (or made DataDir, a
// temporary copy).
type ownerRecord struct {
	DataDir string `json:"data_dir"`
	// Owner started the server (zero: no server started since the copy).
	Owner       procid.ID `json:"owner"`
	Server      int       `json:"server_pid,omitempty"`
	ServerStart string    `json:"server_start,omitempty"`
	// Port is the server's port, recorded before it starts: a server
	// whose owner died before recording it is known by its port.
	Port uint32 `json:"port,omitempty"`
	// Copier made DataDir, a temporary copy, and removes it when done
	// (zero: not a temporary copy).
	Copier procid.ID `json:"copier"`
}

// reclaimStopTimeout bounds the fast shutdown of a dead owner's server.
const reclaimStopTimeout = 30 * time.Second

// OwnersDirEnv names the environment variable that moves the owner records
// out of <base dir>/owners: a harness that kills rightsize on purpose (the
// killed-process tests) keeps its records, and so its orphans, from other
// rightsize processes, which would otherwise reclaim them first.
const OwnersDirEnv = "RIGHTSIZE_OWNERS_DIR"

// ownersDir holds the owner records of the current user's servers.
func ownersDir() string {
	if d := os.Getenv(OwnersDirEnv); d != "" {
		return d
	}
	return filepath.Join(basedir.Default(), "owners")
}

// recordPath is the owner record of dataDir.
func recordPath(dataDir string) string {
	return filepath.Join(ownersDir(), fmt.Sprintf("%s-%s.json", filepath.Base(dataDir), shortHash(dataDir)))
}

// writeRecord stores r (replacing the record of its data directory).
func writeRecord(r ownerRecord) error {
	dir := ownersDir()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("instance: owner record: %w", err)
	}
	b, err := json.Marshal(r)
	if err != nil {
		return fmt.Errorf("instance: owner record: %w", err)
	}
	tmp, err := os.CreateTemp(dir, ".owner-*")
	if err != nil {
		return fmt.Errorf("instance: owner record: %w", err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return fmt.Errorf("instance: owner record: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("instance: owner record: %w", err)
	}
	if err := os.Rename(tmp.Name(), recordPath(r.DataDir)); err != nil {
		return fmt.Errorf("instance: owner record: %w", err)
	}
	return nil
}

// readRecord reads the record at path.
func readRecord(path string) (ownerRecord, error) {
	var r ownerRecord
	b, err := os.ReadFile(path)
	if err != nil {
		return r, err
	}
	if err := json.Unmarshal(b, &r); err != nil || r.DataDir == "" {
		return r, fmt.Errorf("instance: owner record %s: not one (%v)", path, err)
	}
	return r, nil
}

// recordClone records dst as a temporary copy this process made.
func recordClone(dst string) error {
	abs, err := filepath.Abs(dst)
	if err != nil {
		return fmt.Errorf("instance: clone: %w", err)
	}
	return writeRecord(ownerRecord{DataDir: abs, Copier: procid.Self()})
}

// claim records this process as the owner of the server it starts on
// p's port (before it starts: pid 0), then of the server it started (pid,
// started at start); a temporary copy keeps its copier. A record that
// cannot be written is said, not fatal.
func (p *Postgres) claim(pid int, start string) {
	r, err := readRecord(recordPath(p.dataDir))
	if err != nil {
		r = ownerRecord{DataDir: p.dataDir}
	}
	r.Owner, r.Server, r.ServerStart, r.Port = procid.Self(), pid, start, p.port
	if err := writeRecord(r); err != nil {
		fmt.Fprintf(p.notices, "rightsize: %v: a rightsize killed now would leave this server running\n", err)
	}
}

// started tells whether postmaster pid is the one r's owner started: the
// one recorded or, when the owner died before recording it, one on r's
// port started after the owner.
func (r ownerRecord) started(pid int) bool {
	if r.Server != 0 {
		return pid == r.Server && procStartTime(pid) == r.ServerStart
	}
	if r.Port == 0 || !strings.Contains(procCmdline(pid), fmt.Sprintf("\x00-p\x00%d\x00", r.Port)) {
		return false
	}
	after, err1 := strconv.ParseUint(procStartTime(pid), 10, 64)
	owner, err2 := strconv.ParseUint(r.Owner.Start, 10, 64)
	return err1 == nil && err2 == nil && after >= owner
}

// procCmdline is pid's command line, its arguments separated by NULs.
func procCmdline(pid int) string {
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	return string(b)
}

// release notes that this process's server on dataDir stopped: the record
// goes, but a temporary copy's stays (without a server) until it is removed.
func release(dataDir string) {
	path := recordPath(dataDir)
	r, err := readRecord(path)
	if err != nil || r.Owner != procid.Self() {
		return
	}
	if r.Copier == (procid.ID{}) {
		_ = os.Remove(path)
		return
	}
	r.Owner, r.Server, r.ServerStart = procid.ID{}, 0, ""
	_ = writeRecord(r)
}

// reclaimed is what Reclaim did for the records of dead owners.
type reclaimed struct {
	owners  map[int]bool
	servers []string // "pid N on DIR"
	copies  int
	groups  int
	failed  []string
}

// Reclaim stops the managed servers whose owning rightsize is gone,
// removes the temporary data directory copies and the control groups such
// processes left (cgroup.CleanStale), and writes one line to notices
// saying what it did (nothing when there was nothing). Servers of a live
// owner are left alone. Every managed start calls it first.
func Reclaim(notices io.Writer) {
	var done reclaimed
	done.owners = map[int]bool{}
	var paths []string
	if private(ownersDir()) { // records decide what is stopped and removed
		paths, _ = filepath.Glob(filepath.Join(ownersDir(), "*.json"))
	}
	sort.Strings(paths)
	for _, path := range paths {
		r, err := readRecord(path)
		if err != nil || !r.Owner.Gone() && !r.Copier.Gone() {
			continue
		}
		done.reclaim(path, r)
	}
	done.cleanGroups()
	if line := done.line(); line != "" && notices != nil {
		fmt.Fprintln(notices, line)
	}
}

// cleanGroups removes the groups of dead rightsize processes. A group
// whose server was just stopped can stay busy a while (its postmaster a
// zombie until init reaps it): then it tries again for up to 5 s.
func (d *reclaimed) cleanGroups() {
	h, err := cgroup.Detect()
	if err != nil {
		return
	}
	for i := 0; ; i++ {
		removed, err := h.CleanStale()
		for _, dir := range removed {
			d.groups++
			if m := staleGroup.FindStringSubmatch(filepath.Base(dir)); m != nil {
				pid, _ := strconv.Atoi(m[1])
				d.owners[pid] = true
			}
		}
		if err == nil || len(d.servers) == 0 || i == 25 {
			return
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// private tells whether dir is the current user's and no one else may
// write in it (a link is not).
func private(dir string) bool {
	fi, err := os.Lstat(dir)
	uid, ok := fileOwner(dir)
	return err == nil && fi.IsDir() && fi.Mode().Perm()&0o022 == 0 && ok && uid == os.Geteuid()
}

var staleGroup = regexp.MustCompile(`^rightsize-(\d+)-`)

// reclaim stops r's server when its owner is gone and it is still the one
// r recorded, then removes the copy of a dead copier (never under a live
// owner's server) and the record. A data directory another process holds
// (a start in progress) is left for later.
func (d *reclaimed) reclaim(path string, r ownerRecord) {
	if _, err := os.Stat(r.DataDir); errors.Is(err, os.ErrNotExist) {
		_ = os.Remove(path)
		return
	}
	if r.Owner.PID != 0 && !r.Owner.Gone() {
		return // a live server on the copy of a dead copier: its owner stops it
	}
	unlock, err := tryLock(r.DataDir)
	if err != nil {
		return
	}
	defer unlock()
	if r.Owner.PID != 0 {
		d.owners[r.Owner.PID] = true
		if !d.stop(r) {
			return
		}
	}
	if r.Copier.PID == 0 || !r.Copier.Gone() {
		// not a copy, or the copy of a live process: it removes it
		r.Owner, r.Server, r.ServerStart = procid.ID{}, 0, ""
		if r.Copier.PID == 0 {
			_ = os.Remove(path)
		} else {
			_ = writeRecord(r)
		}
		return
	}
	d.owners[r.Copier.PID] = true
	if err := os.RemoveAll(r.DataDir); err != nil {
		d.failed = append(d.failed, fmt.Sprintf("copy %s: %v", r.DataDir, err))
		return
	}
	d.copies++
	_ = os.Remove(path)
}

// stop stops r's server if it still runs as recorded; false when it could not.
func (d *reclaimed) stop(r ownerRecord) bool {
	pid, err := readPostmasterPID(r.DataDir)
	if err != nil || !ProcessRunning(pid) || !r.started(pid) {
		return true
	}
	if err := shutdownPostmaster(pid, reclaimStopTimeout); err != nil {
		d.failed = append(d.failed, fmt.Sprintf("pid %d on %s: %v", pid, r.DataDir, err))
		return false
	}
	d.servers = append(d.servers, fmt.Sprintf("pid %d on %s", pid, r.DataDir))
	return true
}

// line is the one line that says what was reclaimed, "" for nothing.
func (d *reclaimed) line() string {
	var did []string
	if len(d.servers) > 0 {
		did = append(did, fmt.Sprintf("stopped %s (%s)", plural(len(d.servers), "managed server"), strings.Join(d.servers, ", ")))
	}
	if d.copies > 0 {
		did = append(did, "removed "+plural(d.copies, "temporary data directory copy"))
	}
	if d.groups > 0 {
		did = append(did, "removed "+plural(d.groups, "control group"))
	}
	if len(d.failed) > 0 {
		did = append(did, "could not stop or remove "+strings.Join(d.failed, "; "))
	}
	if len(did) == 0 {
		return ""
	}
	var pids []string
	for pid := range d.owners {
		pids = append(pids, fmt.Sprint(pid))
	}
	sort.Strings(pids)
	return fmt.Sprintf("rightsize: cleaned up after a rightsize that was killed (pid %s): %s",
		strings.Join(pids, ", "), strings.Join(did, "; "))
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	if strings.HasSuffix(what, "copy") {
		return fmt.Sprintf("%d %sies", n, strings.TrimSuffix(what, "y"))
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// startedBy is ", started by rightsize pid N, still running" when dataDir's
// record names the live rightsize that started server pid, else "".
func startedBy(dataDir string, pid int) string {
	r, err := readRecord(recordPath(dataDir))
	if err != nil || r.Server != pid || r.Owner.PID == 0 || r.Owner.Gone() {
		return ""
	}
	return fmt.Sprintf(", started by rightsize pid %d, still running", r.Owner.PID)
}
