// Package k8s applies what `rightsize k8s job` prints to a live single-node
// Kubernetes (scripts/k8s-up.sh: etcd, kube-apiserver, controller-manager,
// scheduler and a kubelet on a containerd of its own, all on 127.0.0.1) and
// judges the outcome: the Indexed Job's three pods, on the host network,
// drive one PostgreSQL into one merged run in a PostgreSQL results store.
// It runs in make test-k8s (RIGHTSIZE_TEST_K8S=1), as root; the cluster is
// torn down after (scripts/k8s-down.sh).
package k8s

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/rightsize/rightsize/internal/pgtest"
	"github.com/rightsize/rightsize/store"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// image is the tag the test imports rightsize's image under: a tag no
// registry serves, so the kubelet can only use the imported one.
const image = "localhost/rightsize:k8s-test"

// cluster is the running test cluster.
type cluster struct {
	repo, bin string // the repository; the rightsize binary the test runs itself
	kubectl   string
	state     string // k8s-up.sh's state directory
	sock      string // its containerd's socket
	env       []string
}

func repoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}

// up starts the cluster (torn down at the end of the test) and imports
// rightsize's image, built by scripts/image.sh.
func up(t *testing.T) *cluster {
	if os.Getenv("RIGHTSIZE_TEST_K8S") == "" {
		t.Skip("the live Kubernetes test runs in make test-k8s (RIGHTSIZE_TEST_K8S=1): it builds Kubernetes once and starts a cluster")
	}
	if os.Geteuid() != 0 {
		t.Skip("needs root: scripts/k8s-up.sh starts containerd and a kubelet")
	}
	c := &cluster{repo: repoRoot()}
	down := func() {
		if out, err := exec.Command(filepath.Join(c.repo, "scripts/k8s-down.sh")).CombinedOutput(); err != nil {
			t.Errorf("k8s-down.sh: %v\n%s", err, out)
		}
	}
	down() // a cluster left by a killed run
	t.Cleanup(down)
	t0 := time.Now()
	cmd := exec.Command(filepath.Join(c.repo, "scripts/k8s-up.sh"))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	t.Logf("k8s-up.sh (%s):\n%s", time.Since(t0).Round(time.Second), stderr.String())
	if err != nil {
		t.Fatalf("k8s-up.sh: %v", err)
	}
	kubeconfig := strings.TrimSpace(string(out))
	c.env = append(os.Environ(), "KUBECONFIG="+kubeconfig)
	c.state = filepath.Dir(kubeconfig)
	c.kubectl = filepath.Join(cacheDir(), "bin", "kubectl")
	dir := t.TempDir()
	tarball := filepath.Join(dir, "rightsize-image.tar")
	c.bin = filepath.Join(dir, "rightsize") // the image's binary, for the test's own commands
	c.run(t, nil, filepath.Join(c.repo, "scripts/image.sh"), image, tarball, c.bin)
	c.sock = filepath.Join(c.state, "containerd", "containerd.sock")
	c.run(t, nil, "ctr", "-a", c.sock, "-n", "k8s.io", "images", "import", tarball)
	return c
}

// cacheDir is k8s-up.sh's cache of built binaries (scripts/k8s-lib.sh).
func cacheDir() string {
	v := os.Getenv("RIGHTSIZE_K8S_VERSION")
	if v == "" {
		v = "1.37.2"
	}
	base := os.Getenv("RIGHTSIZE_K8S_CACHE")
	if base == "" {
		base = "/var/cache/rightsize/k8s"
	}
	return filepath.Join(base, "v"+v)
}

// run runs a command with the cluster's kubeconfig, stdin as given, and
// returns its standard output; it fails the test on an error.
func (c *cluster) run(t *testing.T, stdin []byte, name string, args ...string) string {
	t.Helper()
	out, errOut, err := c.try(stdin, name, args...)
	if err != nil {
		t.Fatalf("%s %s: %v\n%s%s", name, strings.Join(args, " "), err, out, errOut)
	}
	return out
}

// try runs a command and returns its standard output and error.
func (c *cluster) try(stdin []byte, name string, args ...string) (string, string, error) {
	cmd := exec.Command(name, args...)
	cmd.Dir, cmd.Env = c.repo, c.env
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	return out.String(), errOut.String(), err
}

// logs returns the logs of the pods and containers matching the patterns,
// read from the kubelet's pod log directory: the node has no address the
// apiserver may use (the kubelet refuses a loopback node IP), so kubectl
// logs cannot reach it.
func (c *cluster) logs(pod, container string) string {
	files, _ := filepath.Glob(filepath.Join(c.state, "pod-logs", "default_"+pod+"_*", container, "*.log"))
	var b strings.Builder
	for _, f := range files {
		data, _ := os.ReadFile(f)
		fmt.Fprintf(&b, "%s:\n%s", f, data)
	}
	return b.String()
}

// apply prints the Job with rightsize k8s job and applies it with kubectl.
func (c *cluster) apply(t *testing.T, name, target, storeDSN string, runArgs ...string) {
	args := append([]string{"k8s", "job", "--workers", "3", "--name", name, "--run-id", name, "--target", target,
		"--store", storeDSN, "--image", image, "--host-network", "--progress-interval", "0"}, runArgs...)
	manifests := c.run(t, nil, c.bin, args...)
	c.run(t, []byte(manifests), c.kubectl, "apply", "-f", "-")
}

// patience bounds the waits for the Job: ten times what they take on the
// loaded 2-core machine, so that a Job that never ends (a pod that cannot
// be scheduled or started) fails the test with the pods' state instead of
// hanging it.
const patience = 10 * time.Minute

// wait waits for the Job to end and returns its final condition, Complete
// or Failed.
func (c *cluster) wait(t *testing.T, name string) string {
	for deadline := time.Now().Add(patience); time.Now().Before(deadline); time.Sleep(2 * time.Second) {
		conds := c.run(t, nil, c.kubectl, "get", "job", name, "-o", "jsonpath={.status.conditions[?(@.status==\"True\")].type}")
		for _, want := range []string{"Complete", "Failed"} {
			if strings.Contains(" "+conds+" ", " "+want+" ") {
				return want
			}
		}
	}
	pods, _, _ := c.try(nil, c.kubectl, "describe", "pods", "-l", "app.kubernetes.io/instance="+name)
	t.Fatalf("job %s still running after %s; its pods:\n%s", name, patience, pods)
	return ""
}

// TestJob applies a 3-worker Job and checks the merged run in the store;
// then the faults: an unreachable store.
func TestJob(t *testing.T) {
	c := up(t)
	target, storeDSN := pgtest.NewDatabase(t), pgtest.NewDatabase(t)
	c.run(t, nil, c.bin, "build", "--target", target, "--warehouses", "3", "--loaders", "2")
	var recap []string
	run := func(name, job string, f func(t *testing.T)) {
		t.Run(name, func(t *testing.T) {
			t.Cleanup(func() {
				if t.Failed() {
					recap = append(recap, c.recap(name, job))
				}
			})
			f(t)
		})
	}
	run("merged", "rs-merged", func(t *testing.T) { checkMerged(t, c, target, storeDSN) })
	run("local", "", func(t *testing.T) { runLocal(t, c, target, storeDSN) })
	run("pod deleted", "rs-deleted", func(t *testing.T) {
		checkStopped(t, c, target, storeDSN, "rs-deleted", deletePod, store.WorkerPartial)
	})
	run("worker killed", "rs-killed", func(t *testing.T) {
		checkStopped(t, c, target, storeDSN, "rs-killed", killWorker, store.WorkerLost)
	})
	run("unreachable store", "rs-nostore", func(t *testing.T) { checkUnreachableStore(t, c, target) })
	if len(recap) > 0 {
		t.Logf("the failed subtests, in short (their whole logs are above):\n%s", strings.Join(recap, "\n"))
	}
}

// recap is a failed subtest in a few lines, for the end of the output
// (where CI shows it): the Job's pods with their phase and exit codes, and
// the last lines of each pod's logs.
func (c *cluster) recap(subtest, job string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s failed", subtest)
	if job == "" {
		return b.String()
	}
	pods, _, _ := c.try(nil, c.kubectl, "get", "pods", "-l", "app.kubernetes.io/instance="+job, "-o",
		"jsonpath={range .items[*]}{.metadata.name} {.status.phase}, init exit {.status.initContainerStatuses[*].state.terminated.exitCode}, exit {.status.containerStatuses[*].state.terminated.exitCode}{\"\\n\"}{end}")
	for _, line := range strings.Split(strings.TrimSpace(pods), "\n") {
		fmt.Fprintf(&b, "\n  %s", line)
		if f := strings.Fields(line); len(f) > 0 {
			for _, l := range lastLines(c.logs(f[0], "*"), 2) {
				fmt.Fprintf(&b, "\n    %s", l)
			}
		}
	}
	return b.String()
}

// lastLines returns the last n lines of logs' output (not the lines
// naming their files), each cut to 200 bytes.
func lastLines(logs string, n int) []string {
	var out []string
	for _, l := range strings.Split(logs, "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasSuffix(l, ".log:") {
			out = append(out, l[:min(len(l), 200)])
		}
	}
	return out[max(0, len(out)-n):]
}

// mergedArgs are the run flags of the merged run, in the Job and locally.
var mergedArgs = []string{"--users", "3,6", "--rampup", "1s", "--duration", "5s"}

// runLocal runs the merged run's flags as three local processes (--worker
// i/3) and logs both runs' TPM side by side: figures for the reader (the
// machine is shared, so no bound is checked), and the same merge checked.
func runLocal(t *testing.T, c *cluster, target, storeDSN string) {
	const id = "rs-local"
	var procs []*exec.Cmd
	for i := range 3 {
		args := append([]string{"run", "--target", target, "--store", storeDSN, "--worker", fmt.Sprintf("%d/3", i), "--run-id", id,
			"--progress-interval", "0", "--worker-wait", "1m"}, mergedArgs...)
		p := exec.Command(c.bin, args...)
		p.Env = c.env
		if err := p.Start(); err != nil {
			t.Fatal(err)
		}
		procs = append(procs, p)
	}
	for i, p := range procs {
		if err := p.Wait(); err != nil {
			t.Fatalf("local worker %d: %v", i, err)
		}
	}
	st, err := store.Open(context.Background(), storeDSN)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	checkStored(t, st, id, "")
	_, pods, _ := st.LoadRun(context.Background(), "rs-merged")
	_, local, _ := st.LoadRun(context.Background(), id)
	for i := range min(len(pods), len(local)) {
		t.Logf("step %d, %d users: TPM %.0f in the Job's pods, %.0f in 3 local processes", i, local[i].Users, pods[i].TPM, local[i].TPM)
	}
}

// deletePod deletes the pod: the kubelet stops its worker with SIGTERM,
// and the worker stores what it measured as partial.
func deletePod(t *testing.T, c *cluster, pod string) {
	c.run(t, nil, c.kubectl, "delete", "pod", pod, "--grace-period=0", "--force")
}

// killWorker kills the pod's worker process (SIGKILL, as an out-of-memory
// kill or a lost node would): it stops sending heartbeats, and the others
// declare it lost.
func killWorker(t *testing.T, c *cluster, pod string) {
	id := c.run(t, nil, c.kubectl, "get", "pod", pod, "-o", "jsonpath={.status.containerStatuses[0].containerID}")
	c.run(t, nil, "ctr", "-a", c.sock, "-n", "k8s.io", "tasks", "kill", "-s", "SIGKILL", strings.TrimPrefix(id, "containerd://"))
}

// checkStopped stops worker 1's pod mid-step with stop: the run is
// partial, naming worker 1/3 with status want, and the other two finish
// the step and store what they measured.
func checkStopped(t *testing.T, c *cluster, target, storeDSN, name string, stop func(*testing.T, *cluster, string), want string) {
	c.apply(t, name, target, storeDSN, "--users", "3", "--rampup", "1s", "--duration", "20s", "--worker-wait", "5m")
	st, err := store.Open(context.Background(), storeDSN)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for deadline := time.Now().Add(patience); ; time.Sleep(200 * time.Millisecond) {
		if at, _, _ := st.Barriers(context.Background(), name); len(at) > 0 {
			time.Sleep(time.Until(at[0]) + 3*time.Second) // mid-way through the step
			break
		}
		if time.Now().After(deadline) {
			pods, _, _ := c.try(nil, c.kubectl, "describe", "pods", "-l", "app.kubernetes.io/instance="+name)
			t.Fatalf("the workers of %s never agreed on a start; the pods:\n%s", name, pods)
		}
	}
	pod := strings.TrimSpace(c.run(t, nil, c.kubectl, "get", "pods", "-l", "batch.kubernetes.io/job-completion-index=1,app.kubernetes.io/instance="+name,
		"-o", "jsonpath={.items[0].metadata.name}"))
	stop(t, c, pod)
	if cond := c.wait(t, name); cond != "Failed" {
		t.Errorf("job %s: %s, want Failed (its workers exit 1 on a partial run)", name, cond)
	}
	r, steps, err := st.LoadRun(context.Background(), name)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("run %s: %s, note %q", name, r.Status, r.Note)
	if r.Status != store.StatusPartial || !strings.Contains(r.Note, "worker 1/3 "+want) || len(steps) != 1 {
		t.Errorf("run %s with %d steps, note %q; want partial naming worker 1/3 %s, with its one step", r.Status, len(steps), r.Note, want)
	}
	workers, err := st.Workers(context.Background(), name)
	if err != nil || len(workers) != 3 {
		t.Fatalf("workers %v, %v", workers, err)
	}
	for _, w := range workers {
		t.Logf("worker %d (%s): %s %s", w.Worker, w.Host, w.Status, w.Note)
		if w.Worker == 1 && (w.Status != want || w.Host != pod) {
			t.Errorf("worker 1 (pod %s) %s on %s, want %s", pod, w.Status, w.Host, want)
		}
		if w.Worker != 1 && w.Status != store.WorkerDone {
			t.Errorf("worker %d %s (%s), want done: it measured the whole step", w.Worker, w.Status, w.Note)
		}
	}
}

func checkMerged(t *testing.T, c *cluster, target, storeDSN string) {
	const name = "rs-merged"
	c.apply(t, name, target, storeDSN, append(mergedArgs, "--worker-wait", "5m")...)
	cond := c.wait(t, name)
	job := c.run(t, nil, c.kubectl, "get", "job", name, "-o", "yaml")
	t.Logf("kubectl get job %s -o yaml:\n%s", name, job)
	if dir := os.Getenv("RIGHTSIZE_K8S_ARTIFACTS"); dir != "" {
		_ = os.WriteFile(filepath.Join(dir, name+".yaml"), []byte(job), 0o644)
	}
	pods := c.run(t, nil, c.kubectl, "get", "pods", "-l", "app.kubernetes.io/instance="+name, "-o",
		"jsonpath={range .items[*]}{.metadata.name} {.metadata.annotations.batch\\.kubernetes\\.io/job-completion-index} {.status.phase}{\"\\n\"}{end}")
	t.Logf("pods:\n%s", pods)
	if cond != "Complete" {
		for _, p := range strings.Fields(pods) {
			if strings.HasPrefix(p, name) {
				t.Logf("logs of %s:\n%s", p, c.logs(p, "*"))
			}
		}
		t.Fatalf("job %s: %s, want Complete", name, cond)
	}
	t.Logf("job wall time: %s", c.run(t, nil, c.kubectl, "get", "job", name, "-o", "jsonpath={.status.startTime} to {.status.completionTime}"))
	read := 0
	for _, p := range strings.Fields(pods) {
		// each pod's rightsize is pid 1 of its own PID namespace, on the
		// node's host name: none may take another for a killed rightsize
		log := c.logs(p, "*")
		if !strings.HasPrefix(p, name) || log == "" {
			continue
		}
		read++
		if strings.Contains(log, "was killed") {
			t.Errorf("pod %s took a live worker for a killed rightsize:\n%s", p, log)
		}
	}
	if read != 3 {
		t.Errorf("read the logs of %d pods, want 3", read)
	}
	ctx := context.Background()
	st, err := store.Open(ctx, storeDSN)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	checkStored(t, st, name, pods)
	show := c.run(t, nil, c.bin, "results", "show", name, "--store", storeDSN)
	t.Logf("results show:\n%s", show)
	if !strings.Contains(show, "Workers") || strings.Count(show, name+"-") < 3 {
		t.Errorf("results show has no Workers table naming the 3 pods")
	}
}

// checkStored checks the merged run: complete, 2 steps, 3 workers whose
// hosts are the Job's pods (given their list), users and transaction counts the workers'
// sums, percentiles those of the merged histograms.
func checkStored(t *testing.T, st *store.Store, runID, pods string) {
	ctx := context.Background()
	r, steps, err := st.LoadRun(ctx, runID)
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != store.StatusComplete || len(steps) != 2 {
		t.Fatalf("merged run %s with %d steps (note %q), want complete with 2", r.Status, len(steps), r.Note)
	}
	workers, err := st.Workers(ctx, runID)
	if err != nil || len(workers) != 3 {
		t.Fatalf("workers %v, %v; want 3", workers, err)
	}
	for _, w := range workers {
		if pods != "" && (!strings.HasPrefix(w.Host, runID+"-") || !strings.Contains(pods, w.Host+" "+fmt.Sprint(w.Worker)+" ")) {
			t.Errorf("worker %d's host %q is not the Job's pod of index %d:\n%s", w.Worker, w.Host, w.Worker, pods)
		}
	}
	var byWorker [][]store.Step
	for _, w := range workers {
		_, ws, err := st.LoadRun(ctx, w.WorkerRunID)
		if err != nil || len(ws) != 2 {
			t.Fatalf("worker %d run: %d steps, %v", w.Worker, len(ws), err)
		}
		byWorker = append(byWorker, ws)
	}
	for si, m := range steps {
		sum := sums{counts: map[string]int64{}, hists: map[string]*hdrhistogram.Histogram{}}
		for _, ws := range byWorker {
			sum.add(ws[si])
		}
		var total int64
		for _, x := range m.Txn {
			total += x.Count
			if x.Count != sum.counts[x.Type] {
				t.Errorf("step %d %s: merged count %d, workers' sum %d", si, x.Type, x.Count, sum.counts[x.Type])
			}
			if h := sum.hists[x.Type]; h == nil || x.P95Ms != float64(h.ValueAtQuantile(95))/1000 {
				t.Errorf("step %d %s: merged p95 %v ms, not the merged histograms'", si, x.Type, x.P95Ms)
			}
		}
		t.Logf("step %d: %d users (workers' sum %d), %d transactions, %.0f TPM", si, m.Users, sum.users, total, m.TPM)
		if sum.users != m.Users || total == 0 {
			t.Errorf("step %d: merged users %d, workers' sum %d, %d transactions", si, m.Users, sum.users, total)
		}
	}
}

// sums are the workers' steps added up: users, transactions per type and
// their latency histograms merged.
type sums struct {
	users  int
	counts map[string]int64
	hists  map[string]*hdrhistogram.Histogram
}

func (s *sums) add(step store.Step) {
	s.users += step.Users
	for _, x := range step.Txn {
		s.counts[x.Type] += x.Count
		h, err := hdrhistogram.Decode(x.Hist)
		switch {
		case err != nil:
		case s.hists[x.Type] == nil:
			s.hists[x.Type] = h
		default:
			s.hists[x.Type].Merge(h)
		}
	}
}

// checkUnreachableStore applies a Job whose store nothing listens on: the
// init container fails naming the store, the Job fails, and no worker ran.
func checkUnreachableStore(t *testing.T, c *cluster, target string) {
	const name = "rs-nostore"
	c.apply(t, name, target, "postgres://nobody:x@127.0.0.1:1/rightsize?connect_timeout=2", "--users", "3", "--duration", "5s")
	if cond := c.wait(t, name); cond != "Failed" {
		t.Fatalf("job %s: %s, want Failed", name, cond)
	}
	logs := c.logs(name+"-*", "store-reachable")
	if !strings.Contains(logs, "results store") {
		t.Errorf("the init container's log does not name the results store:\n%s", logs)
	}
	if started := c.run(t, nil, c.kubectl, "get", "pods", "-l", "app.kubernetes.io/instance="+name, "-o",
		"jsonpath={.items[*].status.containerStatuses[*].state.running}{.items[*].status.containerStatuses[*].state.terminated}"); started != "" {
		t.Errorf("a worker container ran: %s", started)
	}
}
