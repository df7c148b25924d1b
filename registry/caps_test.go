package registry

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rightsize/rightsize/caps"
	"github.com/rightsize/rightsize/cgroup"
	"github.com/rightsize/rightsize/instance/mariadb"
)

// The managed MariaDB under --cpus 1 --memory 512M: mariadbd's
// Cpus_allowed_list, the cgroup memory limit and innodb_buffer_pool_size
// read back from the server; the group is removed when the target closes.
func TestMariaDBCaps(t *testing.T) {
	h, err := cgroup.Detect()
	if err != nil || os.Geteuid() != 0 || !h.Has(cgroup.CPUSet) || !h.Has(cgroup.Memory) {
		t.Skipf("needs root with the cpuset and memory controllers (%v)", err)
	}
	if !mariadb.Installed() {
		t.Skip("no mariadbd")
	}
	dir := testDir(t, "mariadb-caps-")
	ctx := context.Background()
	tg, err := Open(ctx, "mariadb", Options{DataDir: filepath.Join(dir, "data"), CreateDB: true, PoolSize: 2,
		Caps: caps.Caps{CPUs: 1, Memory: 512 << 20}})
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	pid := tg.ServerPID()
	status, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	last := strconv.Itoa(runtime.NumCPU() - 1)
	if !strings.Contains(string(status), "Cpus_allowed_list:\t"+last+"\n") {
		t.Errorf("mariadbd (pid %d) not on core %s:\n%s", pid, last, status)
	}
	r, ok := tg.CapsReport()
	if !ok || r.Applied.Memory != 512<<20 || r.Applied.CPUs != last {
		t.Fatalf("caps report %+v (%v)", r, ok)
	}
	if h.Version == 1 {
		b, _ := os.ReadFile(filepath.Join(h.Parent(cgroup.Memory), r.Group, "memory.limit_in_bytes"))
		if strings.TrimSpace(string(b)) != strconv.Itoa(512<<20) {
			t.Errorf("memory.limit_in_bytes %q", b)
		}
	}
	s, err := tg.Settings(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if want := strconv.Itoa(384 << 20); s["innodb_buffer_pool_size"] != want {
		t.Errorf("innodb_buffer_pool_size %q, want %s (512M less a quarter)", s["innodb_buffer_pool_size"], want)
	}
	if err := tg.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(h.Parent(cgroup.Memory), r.Group)); !os.IsNotExist(err) {
		t.Errorf("group %s left after Close: %v", r.Group, err)
	}
}

// A backend that outgrows the embedded PostgreSQL's memory limit is
// killed by the kernel, and the target reads the OOM kill from the cgroup.
func TestPostgresOOMKillCounted(t *testing.T) {
	h, err := cgroup.Detect()
	if err != nil || os.Geteuid() != 0 || !h.Has(cgroup.Memory) {
		t.Skipf("needs root with the memory controller (%v)", err)
	}
	dir := testDir(t, "pg-oom-")
	ctx := context.Background()
	tg, err := Open(ctx, "embedded", Options{DataDir: filepath.Join(dir, "pg"), PGBin: os.Getenv("RIGHTSIZE_PG_BIN"), CreateDB: true, PoolSize: 2,
		Settings: map[string]string{"work_mem": "2GB"}, Caps: caps.Caps{Memory: 128 << 20}})
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	if n := tg.ServerOOMKills(); n != 0 {
		t.Fatalf("OOM kills before the query: %d", n)
	}
	// an in-memory sort of 30 M integers needs about 1 GB
	_, qerr := tg.QueryInt(ctx, "SELECT count(*) FROM (SELECT g FROM generate_series(1, 30000000) g ORDER BY g DESC) s")
	if qerr == nil {
		t.Fatal("the query outgrew a 128 MiB limit and was not killed")
	}
	if n := tg.ServerOOMKills(); n < 1 {
		t.Fatalf("query failed (%v) but no OOM kill was counted", qerr)
	}
	// let crash recovery finish: a fast shutdown during it can wait for
	// the stop timeout
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if _, err := tg.QueryInt(ctx, "SELECT 1"); err == nil {
			break
		}
	}
}

// testDir is a directory the unprivileged server user can reach.
func testDir(t *testing.T, prefix string) string {
	t.Helper()
	base := filepath.Join(os.TempDir(), "rightsize-test")
	_ = os.MkdirAll(base, 0o755)
	_ = os.Chmod(base, 0o755)
	dir, err := os.MkdirTemp(base, prefix)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	_ = os.Chmod(dir, 0o755)
	return dir
}
