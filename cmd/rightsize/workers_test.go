package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/rightsize/rightsize/analysis"
	"github.com/rightsize/rightsize/internal/pgtest"
	"github.com/rightsize/rightsize/store"
)

// TestHelperProcess is rightsize itself when started by startCLI: the
// arguments come in RIGHTSIZE_HELPER_ARGS (one per line).
func TestHelperProcess(t *testing.T) {
	args := os.Getenv("RIGHTSIZE_HELPER_ARGS")
	if args == "" {
		return
	}
	root := newRootCmd()
	root.SetArgs(strings.Split(args, "\n"))
	ctx, stop := signalContext() // as main's
	defer stop()
	err := root.ExecuteContext(ctx)
	if err != nil {
		os.Stderr.WriteString("rightsize: " + err.Error() + "\n")
		os.Exit(exitCode(err))
	}
	os.Exit(0)
}

// startCLI runs rightsize with args in a process of its own.
func startCLI(t *testing.T, args ...string) (*exec.Cmd, *bytes.Buffer) {
	t.Helper()
	return startCLIIn(t, nil, args...)
}

// startCLIIn is startCLI with rightsize run by the command wrapper (its
// name and arguments; none for startCLI's).
func startCLIIn(t *testing.T, wrapper []string, args ...string) (*exec.Cmd, *bytes.Buffer) {
	t.Helper()
	c := helperCommand(wrapper, args...)
	var out bytes.Buffer
	c.Stdout, c.Stderr = &out, &out
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	return c, &out
}

// helperCommand is rightsize with args as a process of its own (this test
// binary's TestHelperProcess), run by wrapper when given; not started.
func helperCommand(wrapper []string, args ...string) *exec.Cmd {
	argv := append(append(slices.Clone(wrapper), os.Args[0]), "-test.run=^TestHelperProcess$")
	c := exec.Command(argv[0], argv[1:]...)
	c.Env = append(os.Environ(), "RIGHTSIZE_HELPER_ARGS="+strings.Join(args, "\n"))
	return c
}

func exitOf(err error) int {
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode()
	}
	if err != nil {
		return -1
	}
	return 0
}

// TestWorkers runs 3 workers as 3 processes against one database: one run
// whose merged counts are the sum of the workers' and whose percentiles are
// those of the merged histograms; then a worker killed mid-step leaves a
// partial run naming it.
func TestWorkers(t *testing.T) {
	dsn := pgtest.NewDatabase(t)
	if out, errOut, code := cli(t, context.Background(), "build", "--target", dsn, "--warehouses", "3", "--loaders", "2"); code != 0 {
		t.Fatalf("build: %d\n%s%s", code, out, errOut)
	}
	storeDSN := pgtest.NewDatabase(t)
	run := func(id string, i int, users string) (*exec.Cmd, *bytes.Buffer) {
		return startCLI(t, "run", "--target", dsn, "--store", storeDSN, "--worker", fmt.Sprintf("%d/3", i),
			"--run-id", id, "--users", users, "--rampup", "1s", "--duration", "3s", "--progress-interval", "0", "--worker-wait", "30s")
	}
	runAll := func(id, users string) (procs []*exec.Cmd, outs []*bytes.Buffer) {
		for i := range 3 {
			p, out := run(id, i, users)
			procs, outs = append(procs, p), append(outs, out)
		}
		return procs, outs
	}
	ctx := context.Background()
	st, err := store.Open(ctx, storeDSN)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()

	t.Run("merged", func(t *testing.T) {
		procs, outs := runAll("merged", "3,6")
		for i, p := range procs {
			if code := exitOf(p.Wait()); code != 0 {
				t.Fatalf("worker %d exited %d:\n%s", i, code, outs[i])
			}
		}
		if !strings.Contains(outs[0].String(), "Workers") {
			t.Errorf("worker 0's summary has no workers table:\n%s", outs[0])
		}
		r, steps, err := st.LoadRun(ctx, "merged")
		if err != nil {
			t.Fatal(err)
		}
		if r.Status != store.StatusComplete || len(steps) != 2 {
			t.Fatalf("merged run %s with %d steps (note %q), want complete with 2", r.Status, len(steps), r.Note)
		}
		workers, err := st.Workers(ctx, "merged")
		if err != nil || len(workers) != 3 {
			t.Fatalf("workers %v, %v; want 3", workers, err)
		}
		for si, m := range steps {
			var users int
			counts := map[string]int64{}
			hists := map[string]*hdrhistogram.Histogram{}
			for _, w := range workers {
				_, ws, err := st.LoadRun(ctx, w.WorkerRunID)
				if err != nil || len(ws) != 2 {
					t.Fatalf("worker %d run: %d steps, %v", w.Worker, len(ws), err)
				}
				users += ws[si].Users
				for _, x := range ws[si].Txn {
					counts[x.Type] += x.Count
					h, err := hdrhistogram.Decode(x.Hist)
					if err != nil {
						continue
					}
					if hists[x.Type] == nil {
						hists[x.Type] = h
					} else {
						hists[x.Type].Merge(h)
					}
				}
			}
			if users != m.Users {
				t.Errorf("step %d: merged users %d, workers' sum %d", si, m.Users, users)
			}
			var total int64
			for _, x := range m.Txn {
				total += x.Count
				if x.Count != counts[x.Type] {
					t.Errorf("step %d %s: merged count %d, workers' sum %d", si, x.Type, x.Count, counts[x.Type])
				}
				if h := hists[x.Type]; h != nil && x.P95Ms != float64(h.ValueAtQuantile(95))/1000 {
					t.Errorf("step %d %s: merged p95 %v ms, merged histograms' %v ms", si, x.Type, x.P95Ms, float64(h.ValueAtQuantile(95))/1000)
				}
			}
			if total == 0 {
				t.Errorf("step %d: no transactions", si)
			}
		}
		if at, _, err := st.Barriers(ctx, "merged"); err != nil || len(at) != 2 {
			t.Errorf("barriers %v, %v; want one per step", at, err)
		}
		if doc, err := analysis.LoadDocument(ctx, st, "merged"); err != nil || len(doc.Workers) != 3 {
			t.Errorf("JSON document with %d workers, %v; want 3 (results export --format json)", len(doc.Workers), err)
		}
		reportInChromium(t, storeDSN, "merged")
	})

	t.Run("other flags refused, the missing named", func(t *testing.T) {
		p0, out0 := startCLI(t, "run", "--target", dsn, "--store", storeDSN, "--worker", "0/3", "--run-id", "alone",
			"--users", "3", "--rampup", "0s", "--duration", "1s", "--progress-interval", "0", "--worker-wait", "3s")
		for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
			if ws, _ := st.Workers(ctx, "alone"); len(ws) > 0 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("worker 0 never registered:\n%s", out0)
			}
		}
		_, errOut, code := cli(t, ctx, "run", "--target", dsn, "--store", storeDSN, "--worker", "1/3", "--run-id", "alone",
			"--users", "3", "--rampup", "0s", "--duration", "2s", "--progress-interval", "0")
		if code != 2 || !strings.Contains(errOut, `duration is "2s" here, "1s" there`) {
			t.Errorf("a worker with another --duration: exit %d, %q; want exit 2 naming the difference", code, errOut)
		}
		if code := exitOf(p0.Wait()); code != 1 {
			t.Errorf("worker 0 alone exited %d, want 1 (partial):\n%s", code, out0)
		}
		r, _, err := st.LoadRun(ctx, "alone")
		if err != nil || r.Status != store.StatusPartial || !strings.Contains(r.Note, "worker 1/3 missing") || !strings.Contains(r.Note, "worker 2/3 missing") {
			t.Errorf("run %+v, %v; want partial naming workers 1/3 and 2/3 missing", r, err)
		}
	})

	t.Run("own PID namespaces", func(t *testing.T) { ownNamespaces(t, dsn, storeDSN, st) })

	t.Run("killed", func(t *testing.T) {
		procs, outs := runAll("killed", "3,3")
		deadline := time.Now().Add(60 * time.Second)
		for {
			if at, _, _ := st.Barriers(ctx, "killed"); len(at) > 0 {
				time.Sleep(time.Until(at[0]) + 2*time.Second) // mid-way through the first step
				break
			}
			if time.Now().After(deadline) {
				t.Fatal("the workers never agreed on a start")
			}
			time.Sleep(100 * time.Millisecond)
		}
		_ = procs[1].Process.Signal(syscall.SIGKILL)
		_ = procs[1].Wait()
		for _, i := range []int{0, 2} {
			if code := exitOf(procs[i].Wait()); code != 1 {
				t.Errorf("worker %d exited %d, want 1 (partial run):\n%s", i, code, outs[i])
			}
		}
		r, steps, err := st.LoadRun(ctx, "killed")
		if err != nil {
			t.Fatal(err)
		}
		if r.Status != store.StatusPartial || !strings.Contains(r.Note, "worker 1/3 lost") {
			t.Errorf("run %s, note %q; want partial naming worker 1/3 lost", r.Status, r.Note)
		}
		if len(steps) != 2 || !steps[0].Partial {
			t.Errorf("%d steps, first partial %v; want 2, the first partial", len(steps), len(steps) > 0 && steps[0].Partial)
		}
		if !strings.Contains(outs[0].String(), "worker 1/3 lost") {
			t.Errorf("worker 0's output does not name the lost worker:\n%s", outs[0])
		}
	})
}

func TestWorkerBadInput(t *testing.T) {
	dsn := built(t)
	pgStore := pgtest.NewDatabase(t)
	for _, c := range []struct {
		name string
		args []string
		env  string
		want string
	}{
		{"worker beyond n", []string{"--worker", "3/2", "--store", pgStore}, "", "--worker 3/2: the worker number must be 0..1"},
		{"not i/n", []string{"--worker", "two", "--store", pgStore}, "", "want i/n"},
		{"sqlite store", []string{"--worker", "0/2", "--store", tempStore(t)}, "", "shared PostgreSQL results store"},
		{"store unreachable", []string{"--worker", "0/2", "--store", "postgres://nobody@127.0.0.1:1/rs?connect_timeout=2"}, "", "results store"},
		{"workers without an index", []string{"--workers", "2", "--store", pgStore}, "", "JOB_COMPLETION_INDEX"},
		{"index beyond workers", []string{"--workers", "2", "--store", pgStore}, "5", "must be 0..1"},
		{"more workers than warehouses", []string{"--worker", "0/2", "--store", pgStore, "--users", "2"}, "", "2 workers need at least 2 warehouses"},
		{"fewer users than workers", []string{"--worker", "0/2", "--store", pgStore, "--users", "1"}, "", "cannot be shared by 2 workers"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv("JOB_COMPLETION_INDEX", c.env)
			args := append([]string{"run", "--target", dsn, "--duration", "1s", "--rampup", "0s"}, c.args...)
			_, errOut, code := cli(t, context.Background(), args...)
			if code != 2 || !strings.Contains(errOut, c.want) || strings.Count(strings.TrimSpace(errOut), "\n") > 0 {
				t.Fatalf("exit %d, stderr %q; want exit 2 and one line with %q", code, errOut, c.want)
			}
		})
	}
}

// reportInChromium writes the report of a run and loads it in headless
// Chromium: no console message, the workers table present.
func reportInChromium(t *testing.T, storeDSN, run string) {
	t.Helper()
	bin, err := exec.LookPath("chromium")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("chromium is not installed, and CI is set")
		}
		t.Skip("chromium is not installed")
	}
	file := filepath.Join(t.TempDir(), "report.html")
	if _, errOut, code := cli(t, context.Background(), "report", run, "--store", storeDSN, "--output", file); code != 0 {
		t.Fatalf("report: exit %d\n%s", code, errOut)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c := exec.CommandContext(ctx, bin, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-extensions",
		"--user-data-dir="+t.TempDir(), "--enable-logging=stderr", "--v=0", "--dump-dom", "file://"+file)
	var dom, logs bytes.Buffer
	c.Stdout, c.Stderr = &dom, &logs
	if err := c.Run(); err != nil {
		t.Fatalf("chromium: %v\n%s", err, logs.String())
	}
	if msgs := regexp.MustCompile(`(?m)^.*:CONSOLE[:(].*$`).FindAllString(logs.String(), -1); len(msgs) > 0 {
		t.Errorf("console messages while loading the report:\n%s", strings.Join(msgs, "\n"))
	}
	if !strings.Contains(dom.String(), "Workers of") || !strings.Contains(dom.String(), "echarts") {
		t.Errorf("the report in Chromium has no workers table or no charts")
	}
}

// ownNamespaces runs 2 workers each in a PID namespace of its own, with
// this host's name (as the pods of a Kubernetes Job on the host network):
// each is pid 1 there. Worker 1 starts after worker 0 created its run.
// Opening the store, it must not take worker 0 (pid 1, started at another
// time than worker 1's pid 1) for a killed rightsize and mark its run
// partial.
func ownNamespaces(t *testing.T, dsn, storeDSN string, st *store.Store) {
	unshare, err := exec.LookPath("unshare")
	if err != nil || os.Geteuid() != 0 {
		t.Skip("needs root and unshare (util-linux) for PID namespaces")
	}
	ctx := context.Background()
	const id = "ns"
	var procs []*exec.Cmd
	var outs []*bytes.Buffer
	for i := range 2 {
		p, out := startCLIIn(t, []string{unshare, "--pid", "--fork", "--mount-proc"}, "run", "--target", dsn, "--store", storeDSN,
			"--worker", fmt.Sprintf("%d/2", i), "--run-id", id, "--users", "2", "--rampup", "0s", "--duration", "2s",
			"--progress-interval", "0", "--worker-wait", "30s")
		procs, outs = append(procs, p), append(outs, out)
		for deadline := time.Now().Add(30 * time.Second); i == 0; time.Sleep(100 * time.Millisecond) {
			if r, _, err := st.LoadRun(ctx, id+"-w0"); err == nil && r.Status == store.StatusRunning {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("worker 0 never created its run:\n%s", out)
			}
		}
	}
	for i, p := range procs {
		if code := exitOf(p.Wait()); code != 0 {
			t.Errorf("worker %d exited %d:\n%s", i, code, outs[i])
		}
		if strings.Contains(outs[i].String(), "was killed") {
			t.Errorf("worker %d took a live worker of another PID namespace for a killed rightsize:\n%s", i, outs[i])
		}
	}
	if r, _, err := st.LoadRun(ctx, id); err != nil || r.Status != store.StatusComplete {
		t.Errorf("run %+v, %v; want complete", r, err)
	}
}
