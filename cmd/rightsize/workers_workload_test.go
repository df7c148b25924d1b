package main

import (
	"context"
	"fmt"
	"math"
	osexec "os/exec"
	"path/filepath"
	"strings"
	"testing"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/rightsize/rightsize/internal/pgtest"
	"github.com/rightsize/rightsize/store"
)

// TestWorkersTPCB: two worker processes run one tpcb workload (tpcb-like
// and a two-statement script, weighted 1:1) against one database. The
// merged step's users, counts per script and per statement are the sum of
// the workers', its statements' p95 the merged histograms', its mix
// within 5 % of the weights, and it has no TPC-C validity verdict; the
// workers' clients are numbered among all four users (:client_id 0..3,
// each once), not 0..1 in each worker.
func TestWorkersTPCB(t *testing.T) {
	ctx := context.Background()
	dsn := pgtest.NewDatabase(t)
	if out, errOut, code := cli(t, ctx, "build", "--target", dsn, "--workload", "tpcb", "--scale", "1", "--loaders", "2"); code != 0 {
		t.Fatalf("build --workload tpcb: %d\n%s%s", code, out, errOut)
	}
	dir := t.TempDir()
	b, init := filepath.Join(dir, "b.sql"), filepath.Join(dir, "init.sql")
	write(t, init, "CREATE TABLE rs_clients (client_id int, n int DEFAULT 1);\n")
	write(t, b, "\\set bid random(1, :scale)\nSELECT bbalance FROM pgbench_branches WHERE bid = :bid;\n"+
		"INSERT INTO rs_clients (client_id) VALUES (:client_id);\n")
	if out, errOut, code := cli(t, ctx, "build", "--target", dsn, "--workload", b, "--init", init); code != 0 {
		t.Fatalf("build --init: %d\n%s%s", code, out, errOut)
	}
	storeDSN := pgtest.NewDatabase(t)
	type worker struct {
		cmd *osexec.Cmd
		out fmt.Stringer
	}
	var procs []worker
	for i := range 2 {
		p, out := startCLI(t, "run", "--target", dsn, "--store", storeDSN, "--worker", fmt.Sprintf("%d/2", i), "--run-id", "tpcb2",
			"--workload", "tpcb@1", "--workload", b+"@1", "--users", "4", "--rampup", "1s", "--duration", "3s",
			"--progress-interval", "0", "--worker-wait", "30s")
		procs = append(procs, worker{p, out})
	}
	for i, p := range procs {
		if code := exitOf(p.cmd.Wait()); code != 0 {
			t.Fatalf("worker %d exited %d:\n%s", i, code, p.out)
		}
	}
	st, err := store.Open(ctx, storeDSN)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	r, steps, err := st.LoadRun(ctx, "tpcb2")
	if err != nil || r.Status != store.StatusComplete || len(steps) != 1 {
		t.Fatalf("merged run %+v with %d steps, %v; want complete with 1", r, len(steps), err)
	}
	if name, scripts := r.Workload(); name != "tpcb" || scripts != "tpcb-like@1,b@1" {
		t.Errorf("merged run's workload %q %q, want tpcb with tpcb-like@1,b@1", name, scripts)
	}
	m := steps[0]
	if m.Validity != nil {
		t.Errorf("a workload step judged by TPC-C's validity: %+v", m.Validity)
	}
	workers, err := st.Workers(ctx, "tpcb2")
	if err != nil || len(workers) != 2 {
		t.Fatalf("workers %v, %v; want 2", workers, err)
	}
	users, counts, stmts := 0, map[string]int64{}, map[string]int64{}
	hists := map[string]*hdrhistogram.Histogram{}
	for _, w := range workers {
		_, ws, err := st.LoadRun(ctx, w.WorkerRunID)
		if err != nil || len(ws) != 1 {
			t.Fatalf("worker %d run: %d steps, %v", w.Worker, len(ws), err)
		}
		users += ws[0].Users
		for _, x := range ws[0].Txn {
			counts[x.Type] += x.Count
		}
		for _, x := range ws[0].Statements {
			k := fmt.Sprintf("%s/%d", x.Type, x.Index)
			stmts[k] += x.Count
			h, err := hdrhistogram.Decode(x.Hist)
			if err != nil {
				t.Fatalf("%s: %v", k, err)
			}
			if hists[k] == nil {
				hists[k] = h
			} else {
				hists[k].Merge(h)
			}
		}
	}
	if users != 4 || m.Users != 4 {
		t.Errorf("merged users %d, workers' sum %d; want 4", m.Users, users)
	}
	var total int64
	for _, x := range m.Txn {
		total += x.Count
		if x.Count == 0 || x.Count != counts[x.Type] {
			t.Errorf("%s: merged count %d, workers' sum %d", x.Type, x.Count, counts[x.Type])
		}
	}
	if len(m.Txn) != 2 || total < 200 {
		t.Fatalf("merged transactions %+v: want tpcb-like and b, 200 or more", m.Txn)
	}
	for _, x := range m.Txn {
		if share := float64(x.Count) / float64(total); math.Abs(share-0.5) > 0.05 {
			t.Errorf("%s: %.3f of the transactions, want 0.5 within 0.05", x.Type, share)
		}
	}
	// tpcb-like: 4 \set, BEGIN, 3 UPDATE, SELECT, INSERT, END; b: \set, SELECT, INSERT
	if len(m.Statements) != 14 || len(stmts) != 14 {
		t.Fatalf("merged %d statements, the workers' %d; want 11 of tpcb-like and 3 of b", len(m.Statements), len(stmts))
	}
	for _, x := range m.Statements {
		k := fmt.Sprintf("%s/%d", x.Type, x.Index)
		if x.Count == 0 || x.Count != stmts[k] {
			t.Errorf("%s %q: merged count %d, workers' sum %d", k, x.Text, x.Count, stmts[k])
		}
		if want := float64(hists[k].ValueAtQuantile(95)) / 1000; x.P95Ms != want {
			t.Errorf("%s: merged p95 %v ms, the merged histograms' %v", k, x.P95Ms, want)
		}
	}
	conn, err := pgxConnect(dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var ids string
	if err := conn.QueryRow(ctx, "SELECT string_agg(DISTINCT client_id::text, ',' ORDER BY client_id::text) FROM rs_clients").Scan(&ids); err != nil || ids != "0,1,2,3" {
		t.Errorf("the clients' :client_id %q, %v; want 0,1,2,3 (two workers of two users each)", ids, err)
	}
	checkPacedWorkers(t, dsn, storeDSN)
	out, errOut, code := cli(t, ctx, "results", "show", "--store", storeDSN, "tpcb2")
	if code != 0 || !strings.Contains(out, "workload tpcb: tpcb-like@1,b@1") {
		t.Errorf("results show of the merged run: exit %d\n%s%s", code, out, errOut)
	}
}

// checkPacedWorkers: --rate with two workers, 2 and 1 of 3 users, paces
// each to its users' share (200 and 100 of 300 TPS, as pgbench -R splits
// its rate among threads): the merged step keeps about 300, each worker
// about its share; the merged run says the rate asked.
func checkPacedWorkers(t *testing.T, dsn, storeDSN string) {
	t.Helper()
	ctx := context.Background()
	var procs []*osexec.Cmd
	var outs []fmt.Stringer
	for i := range 2 {
		p, out := startCLI(t, "run", "--target", dsn, "--store", storeDSN, "--worker", fmt.Sprintf("%d/2", i), "--run-id", "paced2",
			"--workload", "select-only", "--users", "3", "--rate", "300", "--rampup", "500ms", "--duration", "4s",
			"--progress-interval", "0", "--worker-wait", "30s")
		procs, outs = append(procs, p), append(outs, out)
	}
	for i, p := range procs {
		if code := exitOf(p.Wait()); code != 0 {
			t.Fatalf("paced worker %d exited %d:\n%s", i, code, outs[i])
		}
	}
	st, err := store.Open(ctx, storeDSN)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	r, steps, err := st.LoadRun(ctx, "paced2")
	if err != nil || len(steps) != 1 || r.Rate() != 300 {
		t.Fatalf("paced merged run %+v, %d steps, %v: want one step at rate 300", r, len(steps), err)
	}
	// 1,200 transactions asked: a Poisson count's sd is 2.9 %
	completed := func(s store.Step) (n int64) {
		for _, x := range s.Txn {
			n += x.Count
		}
		return n
	}
	tps := func(s store.Step) float64 { return float64(completed(s)) / s.Measured().Seconds() }
	if got := tps(steps[0]); math.Abs(got-300)/300 > 0.2 {
		t.Errorf("merged: %.1f TPS, want about 300", got)
	}
	workers, err := st.Workers(ctx, "paced2")
	if err != nil || len(workers) != 2 {
		t.Fatalf("paced workers %v, %v", workers, err)
	}
	for _, w := range workers {
		_, ws, err := st.LoadRun(ctx, w.WorkerRunID)
		if err != nil || len(ws) != 1 {
			t.Fatalf("paced worker %d: %v", w.Worker, err)
		}
		share := 300 * float64(ws[0].Users) / 3
		if got := tps(ws[0]); math.Abs(got-share)/share > 0.35 {
			t.Errorf("worker %d with %d users: %.1f TPS, want about %.0f (its share)", w.Worker, ws[0].Users, got, share)
		}
	}
}
