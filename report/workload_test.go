package report

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/rightsize/rightsize/figures"
	"github.com/rightsize/rightsize/store"
)

// TestNOPMNames: the throughput charts name the NOPM column TPC-C's way,
// a workload's figure as every view names it when every run has that
// figure, and both ways for runs of both kinds or of different figures.
func TestNOPMNames(t *testing.T) {
	tpcc := RunData{Run: store.Run{Env: map[string]string{}}}
	every := RunData{Run: store.Run{Env: map[string]string{store.EnvWorkload: "tpcb", store.EnvWorkloadScripts: "tpcb-like@1"}}}
	upd := RunData{Run: store.Run{Env: map[string]string{store.EnvWorkload: "scripts", store.EnvWorkloadScripts: "sel@9,upd@1", store.EnvWorkloadFigure: "upd"}}}
	both := "NOPM (New-Orders/min; a pgbench workload's figure of merit per minute)"
	for _, c := range []struct {
		name        string
		runs        []RunData
		title, unit string
	}{
		{"TPC-C", []RunData{tpcc, tpcc}, "NOPM", "NOPM (New-Orders/min)"},
		{"every script", []RunData{every, every}, "TPM of every script", "TPM of every script (transactions/min)"},
		{"one script", []RunData{upd}, "TPM of upd", "TPM of upd (transactions/min)"},
		{"both kinds", []RunData{tpcc, every}, "NOPM", both},
		{"both kinds, workload first", []RunData{every, tpcc}, "NOPM", both},
		{"two figures", []RunData{every, upd, every}, "NOPM", both},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := &Page{Runs: c.runs}
			if title, unit := p.nopmNames(); title != c.title || unit != c.unit {
				t.Errorf("got %q, %q; want %q, %q", title, unit, c.title, c.unit)
			}
		})
	}
}

// TestPacedViews: a paced run's summary and report show the rate asked,
// the TPS kept and the schedule lag per users step, and name the step
// whose users fell behind the schedule (500 of the 1,000 transactions
// 10 s at 100 TPS asks), not the one that kept it.
func TestPacedViews(t *testing.T) {
	t0 := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	step := func(users int, n int64, lag, lagMax float64) store.Step {
		return store.Step{Repeat: 1, Users: users, Start: t0, MeasureStart: t0, MeasureEnd: t0.Add(10 * time.Second),
			ScheduleLagMs: lag, ScheduleLagMaxMs: lagMax, Txn: []store.TxnSummary{{Type: "tpcb-like", Txn: figures.Txn{Count: n}}}}
	}
	rd := RunData{Run: store.Run{ID: "r1", Env: map[string]string{store.EnvWorkload: "tpcb", store.EnvWorkloadScripts: "tpcb-like@1", store.EnvRate: "100"}},
		Steps: []store.Step{step(1, 1000, 0.25, 3.5), step(2, 500, 812, 4900)}}
	var text bytes.Buffer
	WriteWorkload(&text, rd.Run, rd.Steps)
	out := text.String()
	for _, want := range []string{"paced at 100.0 TPS (--rate)", "asked TPS", "0.250", "812", "! behind the schedule at 2 users (50.0 TPS)"} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "1 users (") {
		t.Errorf("the step that kept the rate is said to be behind:\n%s", out)
	}
	var page bytes.Buffer
	if err := HTML(&page, []RunData{rd}, Options{}); err != nil {
		t.Fatal(err)
	}
	if h := page.String(); !strings.Contains(h, "paced runs (--rate)") || strings.Count(h, "behind the schedule: fewer transactions") != 1 {
		t.Errorf("report: want the paced runs table with one step behind")
	}
	rd.Run.Env[store.EnvRate] = ""
	text.Reset()
	WriteWorkload(&text, rd.Run, rd.Steps)
	if strings.Contains(text.String(), "paced") {
		t.Errorf("an unpaced run's summary says paced:\n%s", text.String())
	}
}

// TestLatencyLimitViews: a run with a latency limit shows, in its summary
// and the report, each step's transactions, late, skipped and the share
// of both (pgbench -L's counts); one without a limit shows none.
func TestLatencyLimitViews(t *testing.T) {
	t0 := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	step := func(users int, n, late, skipped int64) store.Step {
		return store.Step{Repeat: 1, Users: users, Start: t0, MeasureStart: t0, MeasureEnd: t0.Add(10 * time.Second),
			LateTxns: late, SkippedTxns: skipped, Txn: []store.TxnSummary{{Type: "tpcb-like", Txn: figures.Txn{Count: n}}}}
	}
	env := map[string]string{store.EnvWorkload: "tpcb", store.EnvWorkloadScripts: "tpcb-like@1", store.EnvLatencyLimit: "50ms", store.EnvRate: "100"}
	rd := RunData{Run: store.Run{ID: "r1", Env: env}, Steps: []store.Step{step(1, 1000, 10, 0), step(2, 600, 200, 400)}}
	var text bytes.Buffer
	WriteWorkload(&text, rd.Run, rd.Steps)
	out := text.String()
	// 2 users: 200 late and 400 skipped of 1,000 processed: 60 %
	for _, want := range []string{"latency limit 50ms (--latency-limit, as pgbench -L)", "skipped, not sent", "1,000", "60.00", "1.00",
		"so the transactions already later than the latency limit were skipped"} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}
	var page bytes.Buffer
	if err := HTML(&page, []RunData{rd}, Options{}); err != nil {
		t.Fatal(err)
	}
	if h := page.String(); !strings.Contains(h, "latency limit 50ms (--latency-limit, as pgbench -L)") || !strings.Contains(h, "60.00") {
		t.Errorf("report: want the latency limit table")
	}
	delete(env, store.EnvLatencyLimit)
	text.Reset()
	WriteWorkload(&text, rd.Run, rd.Steps)
	if strings.Contains(text.String(), "latency limit") || strings.Contains(text.String(), "--connect") {
		t.Errorf("a run without a limit shows one:\n%s", text.String())
	}
	env[store.EnvConnect], env[store.EnvMaxTries] = "true", "1"
	text.Reset()
	WriteWorkload(&text, rd.Run, rd.Steps)
	if want := "  each transaction on a new connection (--connect, as pgbench -C; connecting not in the latencies); no retry (--max-tries 1, as pgbench's default): a serialization failure or deadlock is an error\n"; !strings.Contains(text.String(), want) {
		t.Errorf("the summary does not say how the clients ran: want %q\n%s", want, text.String())
	}
}
